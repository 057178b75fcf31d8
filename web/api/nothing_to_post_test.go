package api_test

import (
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A valid e-invoice every amount of which is zero, through the API: filed flagged nothing_to_post (not
// invalid_einvoice), found by the listing's flag_reason filter, refused by approve (409 invalid_state,
// reason nothing_to_post) and closed in one step, without a body: rejected with a fixed reason,
// audited and in the event feed as a rejection. A document with something to post is not closed so.
func TestNothingToPostThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	r := a.APIFor(t, reviewer)
	something := webtest.Filed(t, r, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	nothing := webtest.Filed(t, r, webtest.ZeroCopy(t, "NK-ZERO-1"), "flagged")

	got := r.WaitStatus(float64(nothing), "flagged")
	findings, _ := got["findings"].([]any)
	if got["flag_reason"] != "nothing_to_post" || len(findings) != 1 || findings[0].(map[string]any)["code"] != "nothing_to_post" ||
		findings[0].(map[string]any)["severity"] != "fatal" {
		t.Fatalf("filed: %v", got)
	}
	if ids := r.ListAll("/api/v1/intake?flag_reason=nothing_to_post", nil); len(ids) != 1 || ids[0] != nothing {
		t.Fatalf("listed with flag_reason=nothing_to_post: %v, want [%d]", ids, nothing)
	}

	status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(nothing)+"/approve", "")
	if e := webtest.ErrorOf(resp); status != 409 || e["code"] != "invalid_state" || e["reason"] != "nothing_to_post" {
		t.Fatalf("approve: %d %v", status, resp)
	}
	status, resp = r.PostJSON("/api/v1/intake/"+webtest.Itoa(something)+"/close-nothing-to-post", "")
	if status != 409 || webtest.ErrorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("closing a document with something to post: %d %v", status, resp)
	}
	status, resp = r.PostJSON("/api/v1/intake/"+webtest.Itoa(nothing)+"/close-nothing-to-post", "")
	if status != 200 || resp["status"] != "rejected" {
		t.Fatalf("close: %d %v", status, resp)
	}
	if got := r.WaitStatus(float64(nothing), "rejected"); got["flag_reason"] != "nothing_to_post" {
		t.Fatalf("closed: %v", got)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_documents WHERE id = $1 AND decision_reason = $2 AND decided_by = $3`,
		nothing, review.NothingToPostReason, reviewer.Email); n != 1 {
		t.Fatal("the closed document does not carry the fixed reason and who closed it")
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'reject' AND subject_id = $1 AND detail->>'closed' = 'nothing_to_post'`,
		nothing); n != 1 {
		t.Fatalf("%d audited closes", n)
	}
	status, resp = r.PostJSON("/api/v1/intake/"+webtest.Itoa(nothing)+"/close-nothing-to-post", "")
	if status != 409 || webtest.ErrorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("closing it again: %d %v", status, resp)
	}
}
