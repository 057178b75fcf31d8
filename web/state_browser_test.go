package web_test

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
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
