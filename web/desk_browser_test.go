package web_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/jobs"
	"greatbook/internal/retry"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
	"greatbook/web/webtest"
)

// screenshot saves a page for the documentation (docs/screenshots), so
// that its pictures are whatever the browser tests last saw.
func screenshot(t *testing.T, p playwright.Page, name string) {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(), "docs", "screenshots")
	_ = os.MkdirAll(dir, 0o755)
	if _, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, name)), FullPage: playwright.Bool(true)}); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// signedIn opens a page in a new context (a person of their own) signed in as u.
func signedIn(t *testing.T, a *webtest.Site, u auth.User, opts ...browser.Options) playwright.Page {
	t.Helper()
	p := browser.NewPage(t, a.URL, opts...)
	_, err := p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	return p
}

// breakLaunches makes every launch fail permanently with message until
// the returned fix is called.
func breakLaunches(a *webtest.Site, message string) (fix func()) {
	var mu sync.Mutex
	broken := true
	a.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if broken {
			return retry.MarkPermanent(errors.New(message))
		}
		return nil
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		broken = false
	}
}

func TestBrowserLaunchFailureRecoveredFromTheDeadLetterPage(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	fix := breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := a.APIFor(t, reviewer)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := signedIn(t, a, reviewer)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launch_failed"))
	webtest.Must(t, expect.Locator(p.GetByTestId("launch-error")).ToContainText("injected"))
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToContainText("The approval stands"))
	webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))

	// The operator fixes the cause and retries from the dead-letter page.
	fix()
	ap := signedIn(t, a, admin)
	_, err = ap.Goto("/admin/dead-letters")
	webtest.Must(t, err)
	row := ap.GetByTestId("dead-letter")
	webtest.Must(t, expect.Locator(row).ToHaveCount(1))
	webtest.Must(t, expect.Locator(ap.GetByTestId("dead-letter-error")).ToContainText("injected"))
	screenshot(t, ap, "dead-letters.png")
	webtest.Must(t, ap.GetByTestId("retry-reason").Fill("the pool is back"))
	webtest.Must(t, ap.GetByTestId("retry-one").Click())
	webtest.Must(t, expect.Locator(ap.GetByTestId("flash")).ToContainText("bookkeeping launched"))
	webtest.Must(t, expect.Locator(ap.GetByTestId("attempts")).ToContainText("operator: the pool is back"))

	// The reviewer's page notices by itself.
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserTwoReviewersApproveTwoMembersAtOnce(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, ann)
	first, second := webtest.TwoCopies(t, c)

	pa := signedIn(t, a, ann)
	pb := signedIn(t, a, bob)
	_, err := pa.Goto("/intake/" + webtest.Itoa(first))
	webtest.Must(t, err)
	_, err = pb.Goto("/intake/" + webtest.Itoa(second))
	webtest.Must(t, err)
	var wg sync.WaitGroup
	for _, p := range []playwright.Page{pa, pb} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.GetByTestId("approve").Click() }()
	}
	wg.Wait()
	// The winner's panel says launched, then (the bookkeeper being quick)
	// posted; the loser's explains the 409.
	outcomes := map[string]int{}
	for _, p := range []playwright.Page{pa, pb} {
		settled := p.Locator(`[data-testid=outcome][data-outcome=launched], [data-testid=outcome][data-outcome=conflict], [data-testid=posted]`)
		webtest.Must(t, expect.Locator(settled.First()).ToBeVisible())
		if n, _ := p.Locator(`[data-testid=outcome][data-outcome=conflict]`).Count(); n == 1 {
			outcomes["conflict"]++
		} else {
			outcomes["launched"]++
		}
		webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))
		webtest.Must(t, expect.Locator(p.GetByTestId("error-partial")).ToHaveCount(0))
	}
	if outcomes["launched"] != 1 || outcomes["conflict"] != 1 {
		t.Fatalf("outcomes %v, want one launched and one 409", outcomes)
	}
	// The loser's page says who won, and the approve button is gone; its
	// watch reports the winner's approval. The winner's page raises no
	// alarm about its own approval.
	for _, p := range []playwright.Page{pa, pb} {
		if o, _ := p.GetByTestId("outcome").GetAttribute("data-outcome"); o == "conflict" {
			webtest.Must(t, expect.Locator(p.GetByTestId("blocking-link")).ToBeVisible())
			webtest.Must(t, expect.Locator(p.GetByTestId("watch-notice")).ToContainText("approved by"))
			screenshot(t, p, "inline-409.png")
		} else {
			watchedOnce(t, p)
			if n, _ := p.GetByTestId("watch-notice").Count(); n != 0 {
				t.Fatal("the winner's page reports its own approval as a change of the group")
			}
		}
	}
}

func TestBrowserSomeoneElsesApprovalShowsWithoutAReload(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, ann)
	first, second := webtest.TwoCopies(t, c)

	pb := signedIn(t, a, bob)
	_, err := pb.Goto("/intake/" + webtest.Itoa(second))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pb.GetByTestId("approve")).ToBeVisible())
	screenshot(t, pb, "document-group.png")
	// Ann approves the first (through the API) while Bob looks at the second.
	if code, _ := c.PostJSON("/api/v1/intake/"+webtest.Itoa(first)+"/approve", ""); code != 200 {
		t.Fatal("approve")
	}
	webtest.Must(t, expect.Locator(pb.GetByTestId("watch-notice")).ToContainText("approved by "+ann.Email))
	// The group diagram follows too: the first is the accepted member now.
	webtest.Must(t, expect.Locator(pb.Locator(`[data-testid=graph-node][data-accepted=true][data-member-id="`+webtest.Itoa(first)+`"]`)).ToHaveCount(1))
	webtest.Must(t, expect.Locator(pb.Locator(`[data-testid=decision]`)).ToBeVisible())
	// Bob's approve button reflects it: disabled, with the 409 explained
	// before he presses anything.
	webtest.Must(t, expect.Locator(pb.GetByTestId("approve")).ToBeDisabled())
	webtest.Must(t, expect.Locator(pb.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "conflict"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("blocking-by")).ToHaveText(ann.Email))
	// The server refuses it all the same (a page that missed the change).
	if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(second)+"/approve", ""); code != 409 {
		t.Fatalf("approving the second: %d %v", code, body)
	}
}

func TestBrowserAPausedRunIsAnsweredInTheBrowser(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "paused-org", "SEK") // no default expense account
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("question")).ToBeVisible())
	webtest.Must(t, expect.Locator(p.GetByTestId("question-prompt")).ToContainText("Which expense account"))
	// The question is on the desk too (answered there in place, or on its
	// document, which the desk links to).
	_, err = p.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(1))
	webtest.Must(t, p.GetByTestId("desk-question").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Document " + webtest.Itoa(id)}).Click())
	_, err = p.GetByTestId("answer-account").SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("answer").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserKeyboardOnlyApproval(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	webtest.Filed(t, c, webtest.Sample(t, "cii-invoice.xml"), "pending")
	p := signedIn(t, a, u)
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(2))
	kb := p.Keyboard()
	webtest.Must(t, kb.Press("?"))
	webtest.Must(t, expect.Locator(p.GetByTestId("keys-help")).ToBeVisible())
	webtest.Must(t, kb.Press("Escape"))
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, expect.Locator(p.Locator("tr.selected")).ToHaveAttribute("data-document-id", webtest.Itoa(id)))
	webtest.Must(t, kb.Press("o"))
	// The document's page carries the desk's queue along (for j, k and "and next").
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/`+webtest.Itoa(id)+`\?tab=review$`)))
	webtest.Must(t, kb.Press("a"))
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserAccessIsScoped(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, reviewer)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := signedIn(t, a, reviewer)
	for _, path := range []string{"/admin/dead-letters", "/admin/runs"} {
		resp, err := p.Goto(path)
		webtest.Must(t, err)
		if resp.Status() != 403 {
			t.Fatalf("a reviewer on %s: %d, want 403", path, resp.Status())
		}
		webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveAttribute("data-status", "403"))
	}
	stranger := testkit.User(t, a.DB, testkit.Org(t, a.DB), auth.RoleAdmin)
	sp := signedIn(t, a, stranger)
	resp, err := sp.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	if resp.Status() != 404 {
		t.Fatalf("another org's document: %d, want 404", resp.Status())
	}
}

func TestBrowserUsableAt360PixelsWide(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := signedIn(t, a, u, browser.Options{Width: 360, Height: 740})
	for _, path := range []string{"/desk", "/intake/" + webtest.Itoa(id), "/upload", "/ledger"} {
		_, err := p.Goto(path)
		webtest.Must(t, err)
		wide, err := p.Evaluate(`document.documentElement.scrollWidth`)
		webtest.Must(t, err)
		if w, _ := wide.(int); w > 361 {
			t.Errorf("%s is %dpx wide at 360px: the page scrolls sideways", path, w)
		}
	}
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))

	admin := signedIn(t, a, testkit.User(t, a.DB, o, auth.RoleAdmin), browser.Options{Width: 360, Height: 740})
	for _, path := range []string{"/admin/dead-letters", "/admin/runs", "/typewriter", "/typewriter/new", "/ledger/trial-balance",
		"/ledger/source-keys?source_type=intake&source_id=" + webtest.Itoa(id) + "&entry_set=bill"} {
		_, err := admin.Goto(path)
		webtest.Must(t, err)
		wide, err := admin.Evaluate(`document.documentElement.scrollWidth`)
		webtest.Must(t, err)
		if w, _ := wide.(int); w > 361 {
			t.Errorf("%s is %dpx wide at 360px: the page scrolls sideways", path, w)
		}
	}
}

// Answering the bookkeeper's questions on the desk moves the tab counts
// along as the bookkeeper posts the documents, without a reload.
func TestBrowserTheDesksCountsFollowAnswersOnTheDesk(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "desk-counts", "SEK") // no default expense account: the bookkeeper asks
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	first := webtest.ApprovedBill(t, a, o, u, "C-1", 1)
	second := webtest.ApprovedBill(t, a, o, u, "C-2", 2)
	q1, q2 := webtest.OpenQuestion(t, a, o, first), webtest.OpenQuestion(t, a, o, second)

	p := signedIn(t, a, u)
	approved := p.GetByTestId("tab-approved").Locator(".count")
	posted := p.GetByTestId("tab-posted").Locator(".count")
	webtest.Must(t, expect.Locator(approved).ToHaveText("2"))
	webtest.Must(t, expect.Locator(posted).ToHaveText("0"))
	for i, q := range []bookkeeper.Question{q1, q2} {
		row := p.Locator(`[data-run-id="` + q.RunID + `"]`)
		_, err := row.GetByTestId("desk-answer-account").SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
		webtest.Must(t, err)
		webtest.Must(t, row.GetByTestId("desk-answer").Click())
		webtest.Must(t, expect.Locator(p.Locator("#question-"+q.RunID)).ToHaveAttribute("data-testid", "desk-question-answered"))
		webtest.Must(t, expect.Locator(approved).ToHaveText(webtest.Itoa(int64(1-i))))
		webtest.Must(t, expect.Locator(posted).ToHaveText(webtest.Itoa(int64(i+1))))
	}
}
