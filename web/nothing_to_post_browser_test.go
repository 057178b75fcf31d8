package web_test

import (
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A reviewer closes a valid document with nothing to post with one click on its page: no approve is
// offered, nothing is asked (the page passes axe), and the decision region says it was closed with
// the fixed reason.
func TestBrowserCloseADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	p := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleReviewer))

	uploadAndOpen(t, p, "zero.xml", webtest.ZeroCopy(t, "NK-ZERO-3"), "flagged")
	webtest.Must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("nothing to post"))
	decision := p.GetByTestId("decision")
	webtest.Must(t, expect.Locator(decision.GetByTestId("approve")).ToHaveCount(0))
	webtest.Must(t, expect.Locator(decision.GetByTestId("close-nothing-to-post-reason")).ToHaveText(review.NothingToPostReason))
	assertAccessible(t, p)
	webtest.Must(t, decision.GetByTestId("close-nothing-to-post").Click())
	outcome := p.GetByTestId("outcome")
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "rejected"))
	webtest.Must(t, expect.Locator(outcome).ToHaveText("Closed: nothing to post."))
	webtest.Must(t, expect.Locator(decision).ToHaveAttribute("data-status", "rejected"))
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText(review.NothingToPostReason))
}
