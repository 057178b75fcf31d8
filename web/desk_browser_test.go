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
func (a *site) signedIn(t *testing.T, u auth.User, opts ...browser.Options) playwright.Page {
	t.Helper()
	p := browser.NewPage(t, a.URL, opts...)
	_, err := p.Goto("/signin")
	must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	return p
}

// filed uploads a document through the API and waits for the clerk.
func filed(t *testing.T, c *apiClient, content []byte, status string) int64 {
	t.Helper()
	code, body := c.do("POST", "/api/v1/documents", "application/xml", content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.waitStatus(id, status)
	return int64(id)
}

// breakLaunches makes every launch fail permanently with message until
// the returned fix is called.
func breakLaunches(a *site, message string) (fix func()) {
	var mu sync.Mutex
	broken := true
	a.failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
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

// twoCopies files an invoice (pending) and a copy of it with other bytes
// (flagged, a duplicate of the first).
func twoCopies(t *testing.T, c *apiClient) (first, second int64) {
	t.Helper()
	invoice := sample(t, "ubl-invoice-multirate.xml")
	return filed(t, c, invoice, "pending"), filed(t, c, append([]byte("<!-- again -->"), invoice...), "flagged")
}

func TestBrowserLaunchFailureRecoveredFromTheDeadLetterPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	fix := breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := a.signedIn(t, reviewer)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launch_failed"))
	must(t, expect.Locator(p.GetByTestId("launch-error")).ToContainText("injected"))
	must(t, expect.Locator(p.GetByTestId("outcome")).ToContainText("The approval stands"))
	must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))

	// The operator fixes the cause and retries from the dead-letter page.
	fix()
	ap := a.signedIn(t, admin)
	_, err = ap.Goto("/admin/dead-letters")
	must(t, err)
	row := ap.GetByTestId("dead-letter")
	must(t, expect.Locator(row).ToHaveCount(1))
	must(t, expect.Locator(ap.GetByTestId("dead-letter-error")).ToContainText("injected"))
	screenshot(t, ap, "dead-letters.png")
	must(t, ap.GetByTestId("retry-reason").Fill("the pool is back"))
	must(t, ap.GetByTestId("retry-one").Click())
	must(t, expect.Locator(ap.GetByTestId("flash")).ToContainText("bookkeeping launched"))
	must(t, expect.Locator(ap.GetByTestId("attempts")).ToContainText("operator: the pool is back"))

	// The reviewer's page notices by itself.
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserTwoReviewersApproveTwoMembersAtOnce(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	ann := testkit.User(t, a.db, o, auth.RoleReviewer)
	bob := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, ann)}
	first, second := twoCopies(t, c)

	pa := a.signedIn(t, ann)
	pb := a.signedIn(t, bob)
	_, err := pa.Goto("/intake/" + itoa(first))
	must(t, err)
	_, err = pb.Goto("/intake/" + itoa(second))
	must(t, err)
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
		must(t, expect.Locator(settled.First()).ToBeVisible())
		if n, _ := p.Locator(`[data-testid=outcome][data-outcome=conflict]`).Count(); n == 1 {
			outcomes["conflict"]++
		} else {
			outcomes["launched"]++
		}
		must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))
		must(t, expect.Locator(p.GetByTestId("error-partial")).ToHaveCount(0))
	}
	if outcomes["launched"] != 1 || outcomes["conflict"] != 1 {
		t.Fatalf("outcomes %v, want one launched and one 409", outcomes)
	}
	// The loser's page says who won, and the approve button is gone; its
	// watch reports the winner's approval. The winner's page raises no
	// alarm about its own approval.
	for _, p := range []playwright.Page{pa, pb} {
		if o, _ := p.GetByTestId("outcome").GetAttribute("data-outcome"); o == "conflict" {
			must(t, expect.Locator(p.GetByTestId("blocking-link")).ToBeVisible())
			must(t, expect.Locator(p.GetByTestId("watch-notice")).ToContainText("approved by"))
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
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	ann := testkit.User(t, a.db, o, auth.RoleReviewer)
	bob := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, ann)}
	first, second := twoCopies(t, c)

	pb := a.signedIn(t, bob)
	_, err := pb.Goto("/intake/" + itoa(second))
	must(t, err)
	must(t, expect.Locator(pb.GetByTestId("approve")).ToBeVisible())
	screenshot(t, pb, "document-group.png")
	// Ann approves the first (through the API) while Bob looks at the second.
	if code, _ := c.postJSON("/api/v1/intake/"+itoa(first)+"/approve", ""); code != 200 {
		t.Fatal("approve")
	}
	must(t, expect.Locator(pb.GetByTestId("watch-notice")).ToContainText("approved by "+ann.Email))
	// The group diagram follows too: the first is the accepted member now.
	must(t, expect.Locator(pb.Locator(`[data-testid=graph-node][data-accepted=true][data-member-id="`+itoa(first)+`"]`)).ToHaveCount(1))
	must(t, expect.Locator(pb.Locator(`[data-testid=decision]`)).ToBeVisible())
	// Bob's approve button reflects it: disabled, with the 409 explained
	// before he presses anything.
	must(t, expect.Locator(pb.GetByTestId("approve")).ToBeDisabled())
	must(t, expect.Locator(pb.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "conflict"))
	must(t, expect.Locator(pb.GetByTestId("blocking-by")).ToHaveText(ann.Email))
	// The server refuses it all the same (a page that missed the change).
	if code, body := c.postJSON("/api/v1/intake/"+itoa(second)+"/approve", ""); code != 409 {
		t.Fatalf("approving the second: %d %v", code, body)
	}
}

func TestBrowserAPausedRunIsAnsweredInTheBrowser(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.OrgWith(t, a.db, "paused-org", "SEK") // no default expense account
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("question")).ToBeVisible())
	must(t, expect.Locator(p.GetByTestId("question-prompt")).ToContainText("Which expense account"))
	// The question is on the desk too (answered there in place, or on its
	// document, which the desk links to).
	_, err = p.Goto("/desk")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(1))
	must(t, p.GetByTestId("desk-question").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Document " + itoa(id)}).Click())
	_, err = p.GetByTestId("answer-account").SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
	must(t, err)
	must(t, p.GetByTestId("answer").Click())
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserKeyboardOnlyApproval(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	filed(t, c, sample(t, "cii-invoice.xml"), "pending")
	p := a.signedIn(t, u)
	must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(2))
	kb := p.Keyboard()
	must(t, kb.Press("?"))
	must(t, expect.Locator(p.GetByTestId("keys-help")).ToBeVisible())
	must(t, kb.Press("Escape"))
	must(t, kb.Press("j"))
	must(t, kb.Press("j"))
	must(t, expect.Locator(p.Locator("tr.selected")).ToHaveAttribute("data-document-id", itoa(id)))
	must(t, kb.Press("o"))
	// The document's page carries the desk's queue along (for j, k and "and next").
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/`+itoa(id)+`\?tab=review$`)))
	must(t, kb.Press("a"))
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
}

func TestBrowserAccessIsScoped(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := a.signedIn(t, reviewer)
	for _, path := range []string{"/admin/dead-letters", "/admin/runs"} {
		resp, err := p.Goto(path)
		must(t, err)
		if resp.Status() != 403 {
			t.Fatalf("a reviewer on %s: %d, want 403", path, resp.Status())
		}
		must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveAttribute("data-status", "403"))
	}
	stranger := testkit.User(t, a.db, testkit.Org(t, a.db), auth.RoleAdmin)
	sp := a.signedIn(t, stranger)
	resp, err := sp.Goto("/intake/" + itoa(id))
	must(t, err)
	if resp.Status() != 404 {
		t.Fatalf("another org's document: %d, want 404", resp.Status())
	}
}

func TestBrowserUsableAt360PixelsWide(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	p := a.signedIn(t, u, browser.Options{Width: 360, Height: 740})
	for _, path := range []string{"/desk", "/intake/" + itoa(id), "/upload", "/ledger"} {
		_, err := p.Goto(path)
		must(t, err)
		wide, err := p.Evaluate(`document.documentElement.scrollWidth`)
		must(t, err)
		if w, _ := wide.(int); w > 361 {
			t.Errorf("%s is %dpx wide at 360px: the page scrolls sideways", path, w)
		}
	}
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))

	admin := a.signedIn(t, testkit.User(t, a.db, o, auth.RoleAdmin), browser.Options{Width: 360, Height: 740})
	for _, path := range []string{"/admin/dead-letters", "/admin/runs", "/typewriter", "/typewriter/new", "/ledger/trial-balance",
		"/ledger/source-keys?source_type=intake&source_id=" + itoa(id) + "&entry_set=bill"} {
		_, err := admin.Goto(path)
		must(t, err)
		wide, err := admin.Evaluate(`document.documentElement.scrollWidth`)
		must(t, err)
		if w, _ := wide.(int); w > 361 {
			t.Errorf("%s is %dpx wide at 360px: the page scrolls sideways", path, w)
		}
	}
}

// Answering the bookkeeper's questions on the desk moves the tab counts
// along as the bookkeeper posts the documents, without a reload.
func TestBrowserTheDesksCountsFollowAnswersOnTheDesk(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.OrgWith(t, a.db, "desk-counts", "SEK") // no default expense account: the bookkeeper asks
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	first := approvedBill(t, a, o, u, "C-1", 1)
	second := approvedBill(t, a, o, u, "C-2", 2)
	q1, q2 := openQuestion(t, a, o, first), openQuestion(t, a, o, second)

	p := a.signedIn(t, u)
	approved := p.GetByTestId("tab-approved").Locator(".count")
	posted := p.GetByTestId("tab-posted").Locator(".count")
	must(t, expect.Locator(approved).ToHaveText("2"))
	must(t, expect.Locator(posted).ToHaveText("0"))
	for i, q := range []bookkeeper.Question{q1, q2} {
		row := p.Locator(`[data-run-id="` + q.RunID + `"]`)
		_, err := row.GetByTestId("desk-answer-account").SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
		must(t, err)
		must(t, row.GetByTestId("desk-answer").Click())
		must(t, expect.Locator(p.Locator("#question-"+q.RunID)).ToHaveAttribute("data-testid", "desk-question-answered"))
		must(t, expect.Locator(approved).ToHaveText(itoa(int64(1-i))))
		must(t, expect.Locator(posted).ToHaveText(itoa(int64(i+1))))
	}
}
