package web_test

import (
	"context"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// watchedOnce waits until the page's group watch has asked the server
// again after what the test did, and its answer is in the page: a response,
// then the next request (the watch polls again only once it has handled the
// previous answer).
func watchedOnce(t *testing.T, p playwright.Page) {
	t.Helper()
	_, err := p.ExpectResponse("**/watch?**", func() error { return nil })
	webtest.Must(t, err)
	_, err = p.ExpectRequest("**/watch?**", func() error { return nil })
	webtest.Must(t, err)
}

// One's own approve of a document in no group: no alarm that the group
// changed, and the header's badge follows the document to posted.
func TestBrowserOwnApproveRaisesNoAlarmAndTheBadgeFollows(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	badge := p.Locator(`#doc-badges [data-testid=status]`)
	webtest.Must(t, expect.Locator(badge).ToHaveText("pending"))
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	webtest.Must(t, expect.Locator(badge).ToHaveText("posted"))
	watchedOnce(t, p)
	if n, _ := p.GetByTestId("watch-notice").Count(); n != 0 {
		text, _ := p.GetByTestId("watch-notice").First().TextContent()
		t.Fatalf("own approve raised an alarm: %q", text)
	}
	webtest.Must(t, expect.Locator(badge).ToHaveText("posted"))
}

// One's own reject: the badge says rejected at once, and no alarm.
func TestBrowserOwnRejectUpdatesTheBadge(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	_, second := webtest.TwoCopies(t, c)

	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(second))
	webtest.Must(t, err)
	badge := p.Locator(`#doc-badges [data-testid=status]`)
	webtest.Must(t, expect.Locator(badge).ToHaveText("flagged"))
	webtest.Must(t, p.GetByLabel("Reason to reject").Fill("the same invoice sent twice"))
	webtest.Must(t, p.GetByTestId("reject").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToBeVisible())
	webtest.Must(t, expect.Locator(badge).ToHaveText("rejected"))
	watchedOnce(t, p)
	if n, _ := p.GetByTestId("watch-notice").Count(); n != 0 {
		t.Fatal("own reject raised an alarm that the group changed")
	}
}

// currentTab checks that exactly one link of the tab list is current, as
// aria-current="page", and that it looks different from the others.
func currentTab(t *testing.T, p playwright.Page, list, label string) {
	t.Helper()
	tabs := p.Locator(list + " a")
	webtest.Must(t, expect.Locator(p.Locator(list+" a[aria-current]")).ToHaveCount(1))
	current := p.Locator(list + ` a[aria-current="page"]`)
	webtest.Must(t, expect.Locator(current).ToHaveCount(1))
	webtest.Must(t, expect.Locator(current).ToContainText(label))
	background := func(l playwright.Locator) string {
		v, err := l.Evaluate(`el => { const s = getComputedStyle(el); return [s.backgroundColor, s.color, s.borderBottomColor, s.borderBottomWidth].join(" ") }`, nil)
		webtest.Must(t, err)
		return v.(string)
	}
	other := tabs.And(p.Locator(`:not([aria-current])`)).First()
	if background(current) == background(other) {
		t.Fatalf("the current tab %q looks like the others (%s)", label, background(current))
	}
}

func TestBrowserTheCurrentTabIsMarkedAndShown(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedIn(t, a, u)

	currentTab(t, p, `nav[aria-label="Queue views"]`, "Needs review")
	webtest.Must(t, p.GetByTestId("tab-flagged").Click())
	currentTab(t, p, `nav[aria-label="Queue views"]`, "Flagged")
	currentTab(t, p, `nav[aria-label="Main"]`, "Desk")

	_, err := p.Goto("/ledger")
	webtest.Must(t, err)
	currentTab(t, p, `ul[aria-label="Ledger views"]`, "Entries")
	_, err = p.Goto("/ledger/trial-balance")
	webtest.Must(t, err)
	currentTab(t, p, `ul[aria-label="Ledger views"]`, "Trial balance")
	currentTab(t, p, `nav[aria-label="Main"]`, "Ledger")
}

// A launch that fails for good: the reviewer's panel counts the attempt in
// the singular and tells them whom to ask (no link to a page that answers
// them 403); the admin's panel offers the retry, and the job page
// shows the count beside its badge.
func TestBrowserADeadLetterIsCountedAndExplainedByRole(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := a.APIFor(t, reviewer)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := signedIn(t, a, reviewer)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve").Click())
	outcome := p.GetByTestId("outcome")
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "launch_failed"))
	webtest.Must(t, expect.Locator(outcome).ToContainText("ask an admin"))
	webtest.Must(t, expect.Locator(p.Locator(`#decision a[href^="/admin/"]`)).ToHaveCount(0))
	job := p.GetByTestId("job")
	webtest.Must(t, expect.Locator(job).ToHaveAttribute("data-job-status", "abandoned"))
	webtest.Must(t, expect.Locator(job).ToContainText("after 1 attempt:"))

	ap := signedIn(t, a, admin)
	_, err = ap.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(ap.GetByTestId("retry-form")).ToBeVisible())
	jobID := testkit.Count(t, a.DB, `SELECT id FROM jobs WHERE intake_id = $1`, id)
	_, err = ap.Goto("/admin/jobs/" + webtest.Itoa(int64(jobID)))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(ap.GetByTestId("job-summary")).ToContainText("abandoned 1 of 5 attempts"))
}

// The explanations follow why a document was flagged: a same-content
// duplicate is not a colliding number, and a typewriter document that
// collides with an upload by reference is no newer version of it.
func TestBrowserDuplicateTextsFollowTheFlagReason(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	upload := func(content []byte, status string) int64 {
		t.Helper()
		code, body := c.Do("POST", "/api/v1/documents", "application/json", content)
		if code != 202 {
			t.Fatalf("upload: %d %v", code, body)
		}
		id := body["intake_id"].(float64)
		c.WaitStatus(id, status)
		return int64(id)
	}
	first := upload(webtest.JSONInvoice("INV-1"), "pending")
	if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(first)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	sameContent := upload(webtest.JSONInvoice("INV-2"), "flagged")

	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(sameContent))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "conflict"))
	way := p.GetByTestId("way-forward")
	webtest.Must(t, expect.Locator(way).ToContainText("same supplier, issue date, currency and total with document "+webtest.Itoa(first)))
	webtest.Must(t, expect.Locator(way).Not().ToContainText("number collides"))

	// The typewriter composes the upload's invoice again: same supplier and
	// number, so flagged as a duplicate by reference, not as a version.
	d, err := ownjson.Parse(webtest.JSONInvoice("INV-1"))
	webtest.Must(t, err)
	tw, err := a.App.Typewriter.Compose(context.Background(), o.ID, d, u.Actor())
	webtest.Must(t, err)
	_, err = p.Goto("/typewriter/" + webtest.Itoa(tw.ID))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("submit-version").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("submitted"))
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).Not().ToContainText("newer version"))
	dup := p.GetByTestId("version-duplicate-of")
	webtest.Must(t, expect.Locator(dup).ToContainText("duplicate of document "+webtest.Itoa(first)+" (same supplier and number)"))
	webtest.Must(t, expect.Locator(dup).Not().ToContainText("newer version"))
}

// Someone else's approval of the very document one is looking at is still
// reported, and the header follows it to posted.
func TestBrowserSomeoneElsesApprovalOfThisDocumentIsReported(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, ann)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	pb := signedIn(t, a, bob)
	_, err := pb.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pb.GetByTestId("approve")).ToBeVisible())
	if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	webtest.Must(t, expect.Locator(pb.GetByTestId("watch-notice")).ToContainText(ann.Email+" decided this document"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("posted")).ToBeVisible())
	webtest.Must(t, expect.Locator(pb.Locator(`#doc-badges [data-testid=status]`)).ToHaveText("posted"))
}

// After one's own approve the page's other regions follow the document to
// posted: its node in the group diagram, the group's member list and the
// version chain. Another reviewer's page of a member sees it too, in its
// "Compare with" list.
func TestBrowserTheGroupAndTheChainFollowADecision(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, ann)
	ctx := context.Background()
	d, err := ownjson.Parse(webtest.JSONInvoice("TW-7"))
	webtest.Must(t, err)
	tw, err := a.App.Typewriter.Compose(ctx, o.ID, d, ann.Actor())
	webtest.Must(t, err)
	composed, err := a.App.Typewriter.Submit(ctx, o.ID, tw.Versions[0].ID, ann.Actor())
	webtest.Must(t, err)
	c.WaitStatus(float64(composed.ID), "pending")
	code, body := c.Do("POST", "/api/v1/documents", "application/json", webtest.JSONInvoice("TW-7"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	copyID := int64(body["intake_id"].(float64))
	c.WaitStatus(float64(copyID), "flagged")

	pb := signedIn(t, a, bob)
	_, err = pb.Goto("/intake/" + webtest.Itoa(copyID))
	webtest.Must(t, err)
	option := pb.Locator(`#compare-with option[value="` + webtest.Itoa(composed.ID) + `"]`)
	webtest.Must(t, expect.Locator(option).ToHaveText("document "+webtest.Itoa(composed.ID)+" (pending)"))

	p := signedIn(t, a, ann)
	_, err = p.Goto("/intake/" + webtest.Itoa(composed.ID))
	webtest.Must(t, err)
	node := p.Locator(`[data-testid=graph-node][data-member-id="` + webtest.Itoa(composed.ID) + `"]`)
	member := p.Locator(`[data-testid=group-member][data-member-id="` + webtest.Itoa(composed.ID) + `"]`)
	chain := p.GetByTestId("version-chain").GetByTestId("status")
	webtest.Must(t, expect.Locator(node).ToContainText("pending"))
	webtest.Must(t, expect.Locator(chain).ToHaveText("pending"))
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	webtest.Must(t, expect.Locator(node).ToContainText("posted"))
	webtest.Must(t, expect.Locator(member).ToContainText("posted"))
	webtest.Must(t, expect.Locator(chain).ToHaveText("posted"))

	webtest.Must(t, expect.Locator(option).ToHaveText("document "+webtest.Itoa(composed.ID)+" (posted)"))
}
