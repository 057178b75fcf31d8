package web_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
)

// TestBrowserUploadResultsFollowTheClerk: an upload result does not stay at
// "the clerk is reading it": without a reload it turns into the document's
// outcome, pending, or flagged as a duplicate of #N with a link that opens it.
func TestBrowserUploadResultsFollowTheClerk(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedIn(t, u)

	invoice := sample(t, "ubl-invoice-multirate.xml")
	dir := t.TempDir()
	first, copy := filepath.Join(dir, "first.xml"), filepath.Join(dir, "copy.xml")
	must(t, os.WriteFile(first, invoice, 0o644))
	must(t, os.WriteFile(copy, append([]byte("<!-- again -->"), invoice...), 0o644))

	_, err := p.Goto("/upload")
	must(t, err)
	must(t, p.GetByTestId("upload-input").SetInputFiles(first))
	must(t, p.GetByTestId("upload-submit").Click())
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "first.xml"})
	must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	must(t, expect.Locator(result).ToHaveAttribute("data-status", "pending"))
	href, err := result.Locator("a").First().GetAttribute("href")
	must(t, err)
	firstID := regexp.MustCompile(`\d+$`).FindString(href)

	must(t, p.GetByTestId("upload-input").SetInputFiles(copy))
	must(t, p.GetByTestId("upload-submit").Click())
	dup := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "copy.xml"})
	must(t, expect.Locator(dup.GetByTestId("upload-state")).ToContainText("duplicate of #"+firstID, playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	must(t, expect.Locator(dup).ToHaveAttribute("data-status", "flagged"))
	screenshot(t, p, "upload.png")
	must(t, dup.GetByTestId("upload-duplicate-of").Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/`+firstID+`$`)))
}

// TestBrowserFilesDroppedOnTheUploadPageAreUploaded: dropping a file on the
// drop zone uploads it like choosing it with the input does.
func TestBrowserFilesDroppedOnTheUploadPageAreUploaded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedIn(t, u)
	_, err := p.Goto("/upload")
	must(t, err)
	_, err = p.Evaluate(`content => {
		const dt = new DataTransfer();
		dt.items.add(new File([content], "dropped.xml", { type: "application/xml" }));
		const zone = document.querySelector("[data-testid=drop-zone]");
		for (const type of ["dragenter", "dragover", "drop"]) {
			zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
		}
	}`, string(sample(t, "ubl-invoice-multirate.xml")))
	must(t, err)
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "dropped.xml"})
	must(t, expect.Locator(result).ToHaveAttribute("data-outcome", "new"))
	must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
}

// TestBrowserTheDeskAndTheDeadLettersFitAPhone: at 390x844 neither the page
// nor anything in it scrolls sideways on the desk (its rows are cards) and
// on the dead-letter page.
func TestBrowserTheDeskAndTheDeadLettersFitAPhone(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, admin)}
	breakLaunches(a, "bookkeeper pool refused the run (injected) with a long message that goes on and on about it")
	first, _ := twoCopies(t, c)
	filed(t, c, sample(t, "ubl-creditnote.xml"), "pending")
	if status, body := c.postJSON("/api/v1/intake/"+itoa(first)+"/approve", ""); status >= 300 {
		t.Fatalf("approve: %d %v", status, body)
	}
	p := a.signedIn(t, admin, browser.Options{Width: 390, Height: 844})
	for _, tc := range []struct{ path, rows string }{
		{"/desk?tab=all", "[data-testid=queue-row]"},
		{"/admin/dead-letters", "[data-testid=dead-letter]"},
	} {
		_, err := p.Goto(tc.path)
		must(t, err)
		must(t, expect.Locator(p.Locator(tc.rows).First()).ToBeVisible())
		// The page, and every element in it: scrollWidth within clientWidth.
		wide, err := p.Evaluate(`() => {
			const out = [];
			const page = document.scrollingElement;
			if (page.scrollWidth > page.clientWidth) out.push("the page: " + page.scrollWidth + " > " + page.clientWidth);
			for (const el of document.querySelectorAll("main *")) {
				const style = getComputedStyle(el);
				if (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
					out.push((el.getAttribute("data-testid") || el.className || el.tagName) + ": " + el.scrollWidth + " > " + el.clientWidth);
				}
			}
			return out;
		}`)
		must(t, err)
		if list, _ := wide.([]any); len(list) > 0 {
			t.Errorf("%s scrolls sideways at 390px: %v", tc.path, list)
		}
	}
	_, err := p.Goto("/desk?tab=all")
	must(t, err)
	screenshot(t, p, "desk-phone.png")
}

// TestBrowserTheDeskSortsByItsHeadersFromTheKeyboard: a header is a link
// that orders the desk (aria-sort on the sorted header only); following it
// again turns the direction; the id breaks ties.
func TestBrowserTheDeskSortsByItsHeadersFromTheKeyboard(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	invoice := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending") // due 2026-12-20
	credit := filed(t, c, sample(t, "ubl-creditnote.xml"), "pending")         // due 2026-12-10
	p := a.signedIn(t, u)
	must(t, expect.Locator(p.Locator("th[aria-sort]")).ToHaveCount(1))
	must(t, expect.Locator(p.GetByTestId("sort-received")).ToHaveAttribute("aria-sort", "descending"))

	link := p.GetByTestId("sort-due").Locator("a")
	for range 40 { // Tab until the Due header's link has the focus: no mouse
		if focused, _ := link.Evaluate(`el => el === document.activeElement`, nil); focused == true {
			break
		}
		must(t, p.Keyboard().Press("Tab"))
	}
	must(t, expect.Locator(link).ToBeFocused())
	must(t, p.Keyboard().Press("Enter"))
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`order=due`)))
	must(t, expect.Locator(p.GetByTestId("sort-due")).ToHaveAttribute("aria-sort", "ascending"))
	must(t, expect.Locator(p.Locator("th[aria-sort]")).ToHaveCount(1))
	rows := p.GetByTestId("queue-row")
	must(t, expect.Locator(rows.First()).ToHaveAttribute("data-document-id", itoa(credit)))
	must(t, expect.Locator(rows.First().GetByTestId("queue-due")).ToHaveText("2026-12-10"))
	must(t, expect.Locator(rows.First().GetByTestId("queue-issued")).ToHaveText("2026-11-25"))
	must(t, expect.Locator(rows.Nth(1)).ToHaveAttribute("data-document-id", itoa(invoice)))

	must(t, p.GetByTestId("sort-due").Locator("a").Click())
	must(t, expect.Locator(p.GetByTestId("sort-due")).ToHaveAttribute("aria-sort", "descending"))
	must(t, expect.Locator(rows.First()).ToHaveAttribute("data-document-id", itoa(invoice)))
	screenshot(t, p, "desk-sorted.png")
}

// TestBrowserTabCountsFollowTheReviewersActions: after an approval on the
// document page and a reject, the desk (reached back or by its link) counts
// what is there now, never a cached page.
func TestBrowserTabCountsFollowTheReviewersActions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	first := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	filed(t, c, sample(t, "ubl-creditnote.xml"), "pending")
	p := a.signedIn(t, u)
	count := func(tab string) playwright.Locator { return p.GetByTestId("tab-" + tab).Locator(".count") }
	must(t, expect.Locator(count("review")).ToHaveText("2"))
	must(t, expect.Locator(count("approved")).ToHaveText("0"))

	must(t, p.Locator(`[data-testid=queue-row][data-document-id="`+itoa(first)+`"] [data-testid=queue-open]`).Click())
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	_, err := p.GoBack()
	must(t, err)
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	must(t, expect.Locator(count("review")).ToHaveText("1"))
	approved, err := count("approved").TextContent()
	must(t, err)
	posted, err := count("posted").TextContent()
	must(t, err)
	if approved+posted != "10" && approved+posted != "01" {
		t.Errorf("after the approval the desk counts %s approved and %s posted", approved, posted)
	}

	// A reject on the document page, then the desk by its link.
	must(t, p.Locator(`[data-testid=queue-row] [data-testid=queue-open]`).First().Click())
	must(t, p.Locator("#reject-reason").Fill("not ours"))
	must(t, p.GetByTestId("reject").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToBeVisible())
	must(t, p.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Main"}).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Desk"}).Click())
	must(t, expect.Locator(count("review")).ToHaveText("0"))
	must(t, expect.Locator(count("rejected")).ToHaveText("1"))
	_, err = p.GoBack()
	must(t, err)
	_, err = p.GoBack()
	must(t, err)
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	must(t, expect.Locator(count("rejected")).ToHaveText("1"))
}
