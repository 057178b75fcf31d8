package web_test

import (
	"context"
	"regexp"
	"testing"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// setApprovalPolicy gives org o a policy asking approvals of every amount.
func setApprovalPolicy(t *testing.T, a *webtest.Site, o org.Org, separate bool, approvals int) {
	t.Helper()
	p := org.ApprovalPolicy{SeparateSubmitter: separate, Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: approvals}}}
	if _, err := org.SetApprovalPolicy(context.Background(), a.DB.Pool, o.ID, p, audit.System("test")); err != nil {
		t.Fatal(err)
	}
}

// Two approvals asked, two reviewers in two browsers: the first approval
// ("approve and next") is recorded, says "1 of 2", leaves the document
// pending with no job and moves on to the next document of the queue; the
// first reviewer cannot approve it again and is told why; the second
// reviewer's approval (its keyboard shortcut) makes it active and launches
// the bookkeeping. Each reviewer's "Waiting for my approval" tab counts
// what is theirs to approve.
func TestBrowserTwoReviewersGiveTheTwoApprovalsThePolicyAsks(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	clerk := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleReviewer))
	setApprovalPolicy(t, a, o, false, 2)
	older := webtest.Filed(t, clerk, webtest.Sample(t, "cii-invoice.xml"), "pending")
	id := webtest.Filed(t, clerk, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	jobsOf := func() int {
		return testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE intake_id = $1`, id)
	}

	pa := signedIn(t, a, ann)
	webtest.Must(t, expect.Locator(pa.GetByTestId("tab-mine").Locator(".count")).ToHaveText("2"))
	webtest.Must(t, pa.GetByTestId("tab-mine").Click())
	webtest.Must(t, expect.Page(pa).ToHaveURL(regexp.MustCompile(`tab=mine`)))
	webtest.Must(t, expect.Locator(pa.GetByTestId("queue-row")).ToHaveCount(2))
	webtest.Must(t, pa.Locator(`[data-testid=queue-row][data-document-id="`+webtest.Itoa(id)+`"] [data-testid=queue-open]`).Click())
	webtest.Must(t, expect.Locator(pa.GetByTestId("approvals")).ToHaveText("0 of 2 approvals; two needed, each by a different person."))
	assertAccessible(t, pa)

	// Ann's approval and next: recorded, and on to the next document.
	webtest.Must(t, pa.GetByTestId("approve-next").Click())
	webtest.Must(t, expect.Page(pa).ToHaveURL(regexp.MustCompile(`/intake/`+webtest.Itoa(older)+`\?`)))
	webtest.Must(t, expect.Locator(pa.Locator("#flash")).ToContainText("Document "+webtest.Itoa(id)+": Your approval is recorded: 1 of 2."))
	if n := jobsOf(); n != 0 {
		t.Fatalf("the first of two approvals wrote %d jobs", n)
	}
	_, err := pa.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pa.GetByTestId("decision")).ToHaveAttribute("data-status", "pending"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approvals")).ToContainText("1 of 2 approvals: "+ann.Email+" at "))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approvals")).ToContainText("one more needed, by someone else."))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve-refused")).ToHaveAttribute("data-reason", "already_approved"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve")).ToBeDisabled())
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve-next")).ToBeDisabled())
	assertAccessible(t, pa)
	_, err = pa.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pa.GetByTestId("tab-mine").Locator(".count")).ToHaveText("1"))
	// The queue's rows say their approvals of the count asked.
	approvalsOf := func(doc int64) string {
		return `[data-testid=queue-row][data-document-id="` + webtest.Itoa(doc) + `"] [data-testid=queue-approvals]`
	}
	webtest.Must(t, expect.Locator(pa.Locator(approvalsOf(id))).ToHaveText("1/2 approvals"))
	webtest.Must(t, expect.Locator(pa.Locator(approvalsOf(older))).ToHaveText("0/2 approvals"))
	assertAccessible(t, pa)

	// Bob, in a browser of his own, sees Ann's approval and gives the second.
	pb := signedIn(t, a, bob)
	webtest.Must(t, expect.Locator(pb.GetByTestId("tab-mine").Locator(".count")).ToHaveText("2"))
	_, err = pb.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pb.GetByTestId("approvals")).ToContainText("1 of 2 approvals: "+ann.Email))
	webtest.Must(t, expect.Locator(pb.GetByTestId("approve-refused")).ToHaveCount(0))
	webtest.Must(t, pb.Keyboard().Press("a"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("posted")).ToBeVisible())
	if n := jobsOf(); n != 1 {
		t.Fatalf("%d jobs after the second approval, want 1", n)
	}
	_, err = pb.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pb.GetByTestId("tab-mine").Locator(".count")).ToHaveText("1"))
}

// Under a policy that separates submitters, a reviewer who uploaded a
// document is told on its page why they cannot approve it; the approve
// buttons are disabled and its shortcut does nothing, and an approve sent
// anyway (a page that enabled them) is refused inline with the same
// reason. The document is not in their "Waiting for my approval" tab; it
// is in another reviewer's, who approves it.
func TestBrowserTheSubmitterIsToldWhyTheyCannotApprove(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	ann := testkit.User(t, a.DB, o, auth.RoleReviewer)
	bob := testkit.User(t, a.DB, o, auth.RoleReviewer)
	setApprovalPolicy(t, a, o, true, 1)
	id := webtest.Filed(t, a.APIFor(t, ann), webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	pa := signedIn(t, a, ann)
	webtest.Must(t, expect.Locator(pa.GetByTestId("tab-review").Locator(".count")).ToHaveText("1"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("tab-mine").Locator(".count")).ToHaveText("0"))
	_, err := pa.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	refused := pa.GetByTestId("approve-refused")
	webtest.Must(t, expect.Locator(refused).ToHaveAttribute("data-reason", "separation_of_duties"))
	webtest.Must(t, expect.Locator(refused).ToContainText("you submitted it"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve")).ToBeDisabled())
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve")).ToHaveAttribute("aria-describedby", "approve-refused"))
	assertAccessible(t, pa)
	webtest.Must(t, pa.Keyboard().Press("a"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("outcome")).ToHaveCount(0))

	// An approve sent anyway: the 403 is explained in the panel.
	_, err = pa.Evaluate(`() => document.querySelector("[data-testid=approve]").removeAttribute("disabled")`)
	webtest.Must(t, err)
	webtest.Must(t, pa.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(pa.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "separation_of_duties"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("outcome")).ToContainText("Not approved."))
	webtest.Must(t, expect.Locator(pa.GetByTestId("approve")).ToBeDisabled())
	webtest.Must(t, expect.Locator(pa.GetByTestId("error-page")).ToHaveCount(0))
	webtest.Must(t, expect.Locator(pa.GetByTestId("error-partial")).ToHaveCount(0))
	webtest.Must(t, expect.Locator(pa.GetByTestId("decision")).ToHaveAttribute("data-status", "pending"))
	assertAccessible(t, pa)
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, id); n != 0 {
		t.Fatalf("the submitter's approval was recorded (%d)", n)
	}

	pb := signedIn(t, a, bob)
	webtest.Must(t, expect.Locator(pb.GetByTestId("tab-mine").Locator(".count")).ToHaveText("1"))
	webtest.Must(t, pb.GetByTestId("tab-mine").Click())
	webtest.Must(t, expect.Locator(pb.GetByTestId("queue-row")).ToHaveAttribute("data-document-id", webtest.Itoa(id)))
	_, err = pb.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pb.GetByTestId("approve-refused")).ToHaveCount(0))
	webtest.Must(t, pb.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(pb.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
}
