package web_test

import (
	"context"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/testkit"
)

// watchedOnce waits until the page's group watch has asked the server
// again after what the test did, and its answer is in the page: a response,
// then the next request (the watch polls again only once it has handled the
// previous answer).
func watchedOnce(t *testing.T, p playwright.Page) {
	t.Helper()
	_, err := p.ExpectResponse("**/watch?**", func() error { return nil })
	must(t, err)
	_, err = p.ExpectRequest("**/watch?**", func() error { return nil })
	must(t, err)
}

// One's own approve of a document in no group: no alarm that the group
// changed, and the header's badge follows the document to posted.
func TestBrowserOwnApproveRaisesNoAlarmAndTheBadgeFollows(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	badge := p.Locator(`#doc-badges [data-testid=status]`)
	must(t, expect.Locator(badge).ToHaveText("pending"))
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	must(t, expect.Locator(badge).ToHaveText("posted"))
	watchedOnce(t, p)
	if n, _ := p.GetByTestId("watch-notice").Count(); n != 0 {
		text, _ := p.GetByTestId("watch-notice").First().TextContent()
		t.Fatalf("own approve raised an alarm: %q", text)
	}
	must(t, expect.Locator(badge).ToHaveText("posted"))
}

// One's own reject: the badge says rejected at once, and no alarm.
func TestBrowserOwnRejectUpdatesTheBadge(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	_, second := twoCopies(t, c)

	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(second))
	must(t, err)
	badge := p.Locator(`#doc-badges [data-testid=status]`)
	must(t, expect.Locator(badge).ToHaveText("flagged"))
	must(t, p.GetByLabel("Reason to reject").Fill("the same invoice sent twice"))
	must(t, p.GetByTestId("reject").Click())
	must(t, expect.Locator(p.GetByTestId("rejected")).ToBeVisible())
	must(t, expect.Locator(badge).ToHaveText("rejected"))
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
	must(t, expect.Locator(p.Locator(list+" a[aria-current]")).ToHaveCount(1))
	current := p.Locator(list + ` a[aria-current="page"]`)
	must(t, expect.Locator(current).ToHaveCount(1))
	must(t, expect.Locator(current).ToContainText(label))
	background := func(l playwright.Locator) string {
		v, err := l.Evaluate(`el => { const s = getComputedStyle(el); return [s.backgroundColor, s.color, s.borderBottomColor, s.borderBottomWidth].join(" ") }`, nil)
		must(t, err)
		return v.(string)
	}
	other := tabs.And(p.Locator(`:not([aria-current])`)).First()
	if background(current) == background(other) {
		t.Fatalf("the current tab %q looks like the others (%s)", label, background(current))
	}
}

func TestBrowserTheCurrentTabIsMarkedAndShown(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedIn(t, u)

	currentTab(t, p, `nav[aria-label="Queue views"]`, "Needs review")
	must(t, p.GetByTestId("tab-flagged").Click())
	currentTab(t, p, `nav[aria-label="Queue views"]`, "Flagged")
	currentTab(t, p, `nav[aria-label="Main"]`, "Desk")

	_, err := p.Goto("/ledger")
	must(t, err)
	currentTab(t, p, `ul[aria-label="Ledger views"]`, "Entries")
	_, err = p.Goto("/ledger/trial-balance")
	must(t, err)
	currentTab(t, p, `ul[aria-label="Ledger views"]`, "Trial balance")
	currentTab(t, p, `nav[aria-label="Main"]`, "Ledger")
}

// A launch that fails for good: the reviewer's panel counts the attempt in
// the singular and tells them whom to ask (no link to a page that answers
// them 403); the admin's panel offers the retry, and the job page
// shows the count beside its badge.
func TestBrowserADeadLetterIsCountedAndExplainedByRole(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")

	p := a.signedIn(t, reviewer)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, p.GetByTestId("approve").Click())
	outcome := p.GetByTestId("outcome")
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "launch_failed"))
	must(t, expect.Locator(outcome).ToContainText("ask an admin"))
	must(t, expect.Locator(p.Locator(`#decision a[href^="/admin/"]`)).ToHaveCount(0))
	job := p.GetByTestId("job")
	must(t, expect.Locator(job).ToHaveAttribute("data-job-status", "abandoned"))
	must(t, expect.Locator(job).ToContainText("after 1 attempt:"))

	ap := a.signedIn(t, admin)
	_, err = ap.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, expect.Locator(ap.GetByTestId("retry-form")).ToBeVisible())
	jobID := testkit.Count(t, a.db, `SELECT id FROM jobs WHERE intake_id = $1`, id)
	_, err = ap.Goto("/admin/jobs/" + itoa(int64(jobID)))
	must(t, err)
	must(t, expect.Locator(ap.GetByTestId("job-summary")).ToContainText("abandoned 1 of 5 attempts"))
}

// jsonInvoice is an invoice in the project's JSON intake format: number
// varies, seller, date, currency and total do not.
func jsonInvoice(number string) []byte {
	return []byte(`{"type":"invoice","number":"` + number + `","issue_date":"2026-11-20","currency":"SEK",
		"seller":{"name":"Paper Supplier AB","vat_id":"SE556677889901"},"buyer":{"name":"Acme AB","vat_id":"SE556000000101"},
		"lines":[{"description":"Copy paper","quantity":"10","unit_price":"45.00","tax_rate":"25"}]}`)
}

// The explanations follow why a document was flagged: a same-content
// duplicate is not a colliding number, and a typewriter document that
// collides with an upload by reference is no newer version of it.
func TestBrowserDuplicateTextsFollowTheFlagReason(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	upload := func(content []byte, status string) int64 {
		t.Helper()
		code, body := c.do("POST", "/api/v1/documents", "application/json", content)
		if code != 202 {
			t.Fatalf("upload: %d %v", code, body)
		}
		id := body["intake_id"].(float64)
		c.waitStatus(id, status)
		return int64(id)
	}
	first := upload(jsonInvoice("INV-1"), "pending")
	if code, body := c.postJSON("/api/v1/intake/"+itoa(first)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	sameContent := upload(jsonInvoice("INV-2"), "flagged")

	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(sameContent))
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "conflict"))
	way := p.GetByTestId("way-forward")
	must(t, expect.Locator(way).ToContainText("same supplier, issue date, currency and total with document "+itoa(first)))
	must(t, expect.Locator(way).Not().ToContainText("number collides"))

	// The typewriter composes the upload's invoice again: same supplier and
	// number, so flagged as a duplicate by reference, not as a version.
	d, err := ownjson.Parse(jsonInvoice("INV-1"))
	must(t, err)
	tw, err := a.app.Typewriter.Compose(context.Background(), o.ID, d, u.Actor())
	must(t, err)
	_, err = p.Goto("/typewriter/" + itoa(tw.ID))
	must(t, err)
	must(t, p.GetByTestId("submit-version").Click())
	must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("submitted"))
	must(t, expect.Locator(p.GetByTestId("flash")).Not().ToContainText("newer version"))
	dup := p.GetByTestId("version-duplicate-of")
	must(t, expect.Locator(dup).ToContainText("duplicate of document "+itoa(first)+" (same supplier and number)"))
	must(t, expect.Locator(dup).Not().ToContainText("newer version"))
}

// Someone else's approval of the very document one is looking at is still
// reported, and the header follows it to posted.
func TestBrowserSomeoneElsesApprovalOfThisDocumentIsReported(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	ann := testkit.User(t, a.db, o, auth.RoleReviewer)
	bob := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, ann)}
	id := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")

	pb := a.signedIn(t, bob)
	_, err := pb.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, expect.Locator(pb.GetByTestId("approve")).ToBeVisible())
	if code, body := c.postJSON("/api/v1/intake/"+itoa(id)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	must(t, expect.Locator(pb.GetByTestId("watch-notice")).ToContainText(ann.Email+" decided this document"))
	must(t, expect.Locator(pb.GetByTestId("posted")).ToBeVisible())
	must(t, expect.Locator(pb.Locator(`#doc-badges [data-testid=status]`)).ToHaveText("posted"))
}

// After one's own approve the page's other regions follow the document to
// posted: its node in the group diagram, the group's member list and the
// version chain. Another reviewer's page of a member sees it too, in its
// "Compare with" list.
func TestBrowserTheGroupAndTheChainFollowADecision(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	ann := testkit.User(t, a.db, o, auth.RoleReviewer)
	bob := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, ann)}
	ctx := context.Background()
	d, err := ownjson.Parse(jsonInvoice("TW-7"))
	must(t, err)
	tw, err := a.app.Typewriter.Compose(ctx, o.ID, d, ann.Actor())
	must(t, err)
	composed, err := a.app.Typewriter.Submit(ctx, o.ID, tw.Versions[0].ID, ann.Actor())
	must(t, err)
	c.waitStatus(float64(composed.ID), "pending")
	code, body := c.do("POST", "/api/v1/documents", "application/json", jsonInvoice("TW-7"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	copyID := int64(body["intake_id"].(float64))
	c.waitStatus(float64(copyID), "flagged")

	pb := a.signedIn(t, bob)
	_, err = pb.Goto("/intake/" + itoa(copyID))
	must(t, err)
	option := pb.Locator(`#compare-with option[value="` + itoa(composed.ID) + `"]`)
	must(t, expect.Locator(option).ToHaveText("document "+itoa(composed.ID)+" (pending)"))

	p := a.signedIn(t, ann)
	_, err = p.Goto("/intake/" + itoa(composed.ID))
	must(t, err)
	node := p.Locator(`[data-testid=graph-node][data-member-id="` + itoa(composed.ID) + `"]`)
	member := p.Locator(`[data-testid=group-member][data-member-id="` + itoa(composed.ID) + `"]`)
	chain := p.GetByTestId("version-chain").GetByTestId("status")
	must(t, expect.Locator(node).ToContainText("pending"))
	must(t, expect.Locator(chain).ToHaveText("pending"))
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	must(t, expect.Locator(node).ToContainText("posted"))
	must(t, expect.Locator(member).ToContainText("posted"))
	must(t, expect.Locator(chain).ToHaveText("posted"))

	must(t, expect.Locator(option).ToHaveText("document "+itoa(composed.ID)+" (posted)"))
}
