package web_test

import (
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// A reviewer closes a valid document with nothing to post with one click on its page: no approve is
// offered, nothing is asked (the page passes axe), and the decision region says it was closed with
// the fixed reason.
func TestBrowserCloseADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	p := a.signedInPage(t, testkit.User(t, a.db, o, auth.RoleReviewer))

	uploadAndOpen(t, p, "zero.xml", zeroCopy(t, "NK-ZERO-3"), "flagged")
	must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("nothing to post"))
	decision := p.GetByTestId("decision")
	must(t, expect.Locator(decision.GetByTestId("approve")).ToHaveCount(0))
	must(t, expect.Locator(decision.GetByTestId("close-nothing-to-post-reason")).ToHaveText(review.NothingToPostReason))
	assertAccessible(t, p)
	must(t, decision.GetByTestId("close-nothing-to-post").Click())
	outcome := p.GetByTestId("outcome")
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "rejected"))
	must(t, expect.Locator(outcome).ToHaveText("Closed: nothing to post."))
	must(t, expect.Locator(decision).ToHaveAttribute("data-status", "rejected"))
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText(review.NothingToPostReason))
}
