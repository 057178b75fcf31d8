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
	"greatbook/web/webtest"
)

// TestBrowserUploadResultsFollowTheClerk: an upload result does not stay at
// "the clerk is reading it": without a reload it turns into the document's
// outcome, pending, or flagged as a duplicate of #N with a link that opens it.
func TestBrowserUploadResultsFollowTheClerk(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedIn(t, a, u)

	invoice := webtest.Sample(t, "ubl-invoice-multirate.xml")
	dir := t.TempDir()
	first, copy := filepath.Join(dir, "first.xml"), filepath.Join(dir, "copy.xml")
	webtest.Must(t, os.WriteFile(first, invoice, 0o644))
	webtest.Must(t, os.WriteFile(copy, append([]byte("<!-- again -->"), invoice...), 0o644))

	_, err := p.Goto("/upload")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles(first))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "first.xml"})
	webtest.Must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	webtest.Must(t, expect.Locator(result).ToHaveAttribute("data-status", "pending"))
	href, err := result.Locator("a").First().GetAttribute("href")
	webtest.Must(t, err)
	firstID := regexp.MustCompile(`\d+$`).FindString(href)

	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles(copy))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	dup := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "copy.xml"})
	webtest.Must(t, expect.Locator(dup.GetByTestId("upload-state")).ToContainText("duplicate of #"+firstID, playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	webtest.Must(t, expect.Locator(dup).ToHaveAttribute("data-status", "flagged"))
	screenshot(t, p, "upload.png")
	webtest.Must(t, dup.GetByTestId("upload-duplicate-of").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/`+firstID+`$`)))
}

// TestBrowserFilesDroppedOnTheUploadPageAreUploaded: dropping a file on the
// drop zone uploads it like choosing it with the input does.
func TestBrowserFilesDroppedOnTheUploadPageAreUploaded(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedIn(t, a, u)
	_, err := p.Goto("/upload")
	webtest.Must(t, err)
	_, err = p.Evaluate(`content => {
		const dt = new DataTransfer();
		dt.items.add(new File([content], "dropped.xml", { type: "application/xml" }));
		const zone = document.querySelector("[data-testid=drop-zone]");
		for (const type of ["dragenter", "dragover", "drop"]) {
			zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
		}
	}`, string(webtest.Sample(t, "ubl-invoice-multirate.xml")))
	webtest.Must(t, err)
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "dropped.xml"})
	webtest.Must(t, expect.Locator(result).ToHaveAttribute("data-outcome", "new"))
	webtest.Must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
}

// TestBrowserTheDeskAndTheDeadLettersFitAPhone: at 390x844 neither the page
// nor anything in it scrolls sideways on the desk (its rows are cards) and
// on the dead-letter page.
func TestBrowserTheDeskAndTheDeadLettersFitAPhone(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	c := a.APIFor(t, admin)
	breakLaunches(a, "bookkeeper pool refused the run (injected) with a long message that goes on and on about it")
	first, _ := webtest.TwoCopies(t, c)
	webtest.Filed(t, c, webtest.Sample(t, "ubl-creditnote.xml"), "pending")
	if status, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(first)+"/approve", ""); status >= 300 {
		t.Fatalf("approve: %d %v", status, body)
	}
	p := signedIn(t, a, admin, browser.Options{Width: 390, Height: 844})
	for _, tc := range []struct{ path, rows string }{
		{"/desk?tab=all", "[data-testid=queue-row]"},
		{"/admin/dead-letters", "[data-testid=dead-letter]"},
	} {
		_, err := p.Goto(tc.path)
		webtest.Must(t, err)
		webtest.Must(t, expect.Locator(p.Locator(tc.rows).First()).ToBeVisible())
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
		webtest.Must(t, err)
		if list, _ := wide.([]any); len(list) > 0 {
			t.Errorf("%s scrolls sideways at 390px: %v", tc.path, list)
		}
	}
	_, err := p.Goto("/desk?tab=all")
	webtest.Must(t, err)
	screenshot(t, p, "desk-phone.png")
}

// TestBrowserTheDeskSortsByItsHeadersFromTheKeyboard: a header is a link
// that orders the desk (aria-sort on the sorted header only); following it
// again turns the direction; the id breaks ties.
func TestBrowserTheDeskSortsByItsHeadersFromTheKeyboard(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	invoice := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending") // due 2026-12-20
	credit := webtest.Filed(t, c, webtest.Sample(t, "ubl-creditnote.xml"), "pending")         // due 2026-12-10
	p := signedIn(t, a, u)
	webtest.Must(t, expect.Locator(p.Locator("th[aria-sort]")).ToHaveCount(1))
	webtest.Must(t, expect.Locator(p.GetByTestId("sort-received")).ToHaveAttribute("aria-sort", "descending"))

	link := p.GetByTestId("sort-due").Locator("a")
	for range 40 { // Tab until the Due header's link has the focus: no mouse
		if focused, _ := link.Evaluate(`el => el === document.activeElement`, nil); focused == true {
			break
		}
		webtest.Must(t, p.Keyboard().Press("Tab"))
	}
	webtest.Must(t, expect.Locator(link).ToBeFocused())
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`order=due`)))
	webtest.Must(t, expect.Locator(p.GetByTestId("sort-due")).ToHaveAttribute("aria-sort", "ascending"))
	webtest.Must(t, expect.Locator(p.Locator("th[aria-sort]")).ToHaveCount(1))
	rows := p.GetByTestId("queue-row")
	webtest.Must(t, expect.Locator(rows.First()).ToHaveAttribute("data-document-id", webtest.Itoa(credit)))
	webtest.Must(t, expect.Locator(rows.First().GetByTestId("queue-due")).ToHaveText("2026-12-10"))
	webtest.Must(t, expect.Locator(rows.First().GetByTestId("queue-issued")).ToHaveText("2026-11-25"))
	webtest.Must(t, expect.Locator(rows.Nth(1)).ToHaveAttribute("data-document-id", webtest.Itoa(invoice)))

	webtest.Must(t, p.GetByTestId("sort-due").Locator("a").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("sort-due")).ToHaveAttribute("aria-sort", "descending"))
	webtest.Must(t, expect.Locator(rows.First()).ToHaveAttribute("data-document-id", webtest.Itoa(invoice)))
	screenshot(t, p, "desk-sorted.png")
}

// TestBrowserTabCountsFollowTheReviewersActions: after an approval on the
// document page and a reject, the desk (reached back or by its link) counts
// what is there now, never a cached page.
func TestBrowserTabCountsFollowTheReviewersActions(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	first := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	webtest.Filed(t, c, webtest.Sample(t, "ubl-creditnote.xml"), "pending")
	p := signedIn(t, a, u)
	count := func(tab string) playwright.Locator { return p.GetByTestId("tab-" + tab).Locator(".count") }
	webtest.Must(t, expect.Locator(count("review")).ToHaveText("2"))
	webtest.Must(t, expect.Locator(count("approved")).ToHaveText("0"))

	webtest.Must(t, p.Locator(`[data-testid=queue-row][data-document-id="`+webtest.Itoa(first)+`"] [data-testid=queue-open]`).Click())
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	_, err := p.GoBack()
	webtest.Must(t, err)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	webtest.Must(t, expect.Locator(count("review")).ToHaveText("1"))
	approved, err := count("approved").TextContent()
	webtest.Must(t, err)
	posted, err := count("posted").TextContent()
	webtest.Must(t, err)
	if approved+posted != "10" && approved+posted != "01" {
		t.Errorf("after the approval the desk counts %s approved and %s posted", approved, posted)
	}

	// A reject on the document page, then the desk by its link.
	webtest.Must(t, p.Locator(`[data-testid=queue-row] [data-testid=queue-open]`).First().Click())
	webtest.Must(t, p.Locator("#reject-reason").Fill("not ours"))
	webtest.Must(t, p.GetByTestId("reject").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToBeVisible())
	webtest.Must(t, p.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Main"}).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Desk"}).Click())
	webtest.Must(t, expect.Locator(count("review")).ToHaveText("0"))
	webtest.Must(t, expect.Locator(count("rejected")).ToHaveText("1"))
	_, err = p.GoBack()
	webtest.Must(t, err)
	_, err = p.GoBack()
	webtest.Must(t, err)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	webtest.Must(t, expect.Locator(count("rejected")).ToHaveText("1"))
}
