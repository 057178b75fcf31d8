package api_test

import (
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestDecisionsAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	r := a.APIFor(t, reviewer)
	ad := a.APIFor(t, admin)
	invoice := webtest.Sample(t, "ubl-invoice-multirate.xml")

	_, body := r.Do("POST", "/api/v1/documents", "application/xml", invoice)
	first := body["intake_id"].(float64)
	r.WaitStatus(first, "pending")
	_, body = r.Do("POST", "/api/v1/documents", "application/xml", append([]byte("<!-- again -->"), invoice...))
	second := body["intake_id"].(float64)
	r.WaitStatus(second, "flagged")

	status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(first))+"/approve", "")
	launch, _ := resp["launch"].(map[string]any)
	if status != 200 || resp["status"] != "active" || launch["outcome"] != "launched" || launch["job_id"] == nil || launch["run_id"] == nil {
		t.Fatalf("approve: %d %v", status, resp)
	}
	posted := r.WaitStatus(first, "posted")
	job := posted["job"].(map[string]any)
	if posted["result_entry_id"] == nil || job["status"] != "done" || job["attempts"] != float64(1) || job["last_error"] != nil {
		t.Fatalf("posted document: %v", posted)
	}

	status, resp = r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(second))+"/approve", "")
	e := webtest.ErrorOf(resp)
	blocking, _ := e["blocking"].(map[string]any)
	if status != 409 || e["code"] != "duplicate_group_conflict" || blocking["id"] != first || blocking["status"] != "posted" ||
		blocking["approved_by"] != reviewer.Email || blocking["entry_id"] == nil {
		t.Fatalf("approving the duplicate: %d %v", status, resp)
	}
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(first))+"/approve", ""); status != 409 || webtest.ErrorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("approving a posted document: %d %v", status, resp)
	}

	// Admin routes: a reviewer is refused; an admin may.
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(second))+"/not-a-duplicate", `{"reason": "different year"}`); status != 403 || webtest.ErrorOf(resp)["code"] != "forbidden" {
		t.Fatalf("a reviewer marking not a duplicate: %d %v", status, resp)
	}
	if status, _ := r.PostJSON("/api/v1/jobs/"+webtest.Itoa(int64(job["id"].(float64)))+"/retry", `{"reason": "x y z"}`); status != 403 {
		t.Fatalf("a reviewer retrying a job: %d", status)
	}
	if status, resp := ad.PostJSON("/api/v1/jobs/"+webtest.Itoa(int64(job["id"].(float64)))+"/retry", `{"reason": "again please"}`); status != 409 || webtest.ErrorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("retrying a done job: %d %v", status, resp)
	}

	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(second))+"/reject", `{}`); status != 422 || webtest.ErrorOf(resp)["code"] != "invalid" {
		t.Fatalf("a reject without a reason: %d %v", status, resp)
	}
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(second))+"/reject", `{"reason": "duplicate"}`); status != 200 || resp["status"] != "rejected" {
		t.Fatalf("reject: %d %v", status, resp)
	}
	other, _ := a.API(t, auth.RoleReviewer)
	if status, _ := other.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(first))+"/approve", ""); status != 404 {
		t.Fatalf("another org approving: %d", status)
	}
	if status, resp := r.Get("/api/v1/questions"); status != 200 || len(resp["questions"].([]any)) != 0 {
		t.Fatalf("questions: %d %v", status, resp)
	}
}
