package api_test

import (
	"testing"
	"time"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The approval policy: any member reads it (the default until set), an
// admin sets it, and an invalid one is refused naming its faults.
func TestApprovalPolicyAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	r := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleReviewer))
	ad := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleAdmin))

	status, body := r.Get("/api/v1/approval-policy")
	rules, _ := body["rules"].([]any)
	if status != 200 || body["separate_submitter"] != false || len(rules) != 1 ||
		rules[0].(map[string]any)["min_amount"] != "0.00" || rules[0].(map[string]any)["approvals"] != float64(1) {
		t.Fatalf("the default: %d %v", status, body)
	}
	policy := `{"separate_submitter": true, "rules": [{"min_amount": "0", "approvals": 1}, {"min_amount": "10000", "approvals": 2}]}`
	if status, body := r.Do("PUT", "/api/v1/approval-policy", "application/json", []byte(policy)); status != 403 || webtest.ErrorOf(body)["code"] != "forbidden" {
		t.Fatalf("a reviewer setting it: %d %v", status, body)
	}
	status, body = ad.Do("PUT", "/api/v1/approval-policy", "application/json", []byte(policy))
	rules, _ = body["rules"].([]any)
	if status != 200 || body["separate_submitter"] != true || len(rules) != 2 || rules[1].(map[string]any)["min_amount"] != "10000.00" {
		t.Fatalf("set: %d %v", status, body)
	}
	if status, got := r.Get("/api/v1/approval-policy"); status != 200 || got["separate_submitter"] != true || len(got["rules"].([]any)) != 2 {
		t.Fatalf("read back: %d %v", status, got)
	}
	for name, bad := range map[string]string{
		"approvals 0":       `{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 0}]}`,
		"approvals 6":       `{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 6}]}`,
		"unordered amounts": `{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 1}, {"min_amount": "500.00", "approvals": 3}, {"min_amount": "100.00", "approvals": 2}]}`,
		"a duplicate":       `{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 1}, {"min_amount": "100.00", "approvals": 2}, {"min_amount": "100.00", "approvals": 3}]}`,
		"no rules":          `{"separate_submitter": false, "rules": []}`,
		"an unknown key":    `{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 1}], "quorum": 2}`,
	} {
		status, body := ad.Do("PUT", "/api/v1/approval-policy", "application/json", []byte(bad))
		if status != 422 || webtest.ErrorOf(body)["code"] != "invalid" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}

// Four eyes through the API: the uploader may not approve; the first
// approval answers the approvals so far, with no launch and no job; the
// same person again is refused; the second person's approval launches.
func TestApproveUnderAPolicyAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	uploader := testkit.User(t, a.DB, o, auth.RoleReviewer)
	second := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	up, r2, ad := a.APIFor(t, uploader), a.APIFor(t, second), a.APIFor(t, admin)
	if status, body := ad.Do("PUT", "/api/v1/approval-policy", "application/json",
		[]byte(`{"separate_submitter": true, "rules": [{"min_amount": "0.00", "approvals": 2}]}`)); status != 200 {
		t.Fatalf("policy: %d %v", status, body)
	}
	id := webtest.Filed(t, up, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	approve := "/api/v1/intake/" + webtest.Itoa(id) + "/approve"

	status, body := up.PostJSON(approve, "")
	if e := webtest.ErrorOf(body); status != 403 || e["code"] != "forbidden" || e["reason"] != "separation_of_duties" {
		t.Fatalf("the uploader approving: %d %v", status, body)
	}
	status, body = ad.PostJSON(approve, "")
	approvals, _ := body["approvals"].([]any)
	if status != 200 || body["status"] != "pending" || body["approvals_required"] != float64(2) || len(approvals) != 1 ||
		approvals[0].(map[string]any)["by"] != admin.Email || approvals[0].(map[string]any)["at"] == nil || body["launch"] != nil {
		t.Fatalf("the first approval: %d %v", status, body)
	}
	if n := webtest.CountRows(t, a, "jobs"); n != 0 {
		t.Fatalf("the first of two approvals wrote %d jobs", n)
	}
	status, body = ad.PostJSON(approve, "")
	if e := webtest.ErrorOf(body); status != 409 || e["code"] != "invalid_state" || e["reason"] != "already_approved" {
		t.Fatalf("the same person again: %d %v", status, body)
	}
	status, doc := r2.Get("/api/v1/intake/" + webtest.Itoa(id))
	if got, _ := doc["approvals"].([]any); status != 200 || len(got) != 1 || doc["approvals_required"] != float64(2) || doc["status"] != "pending" {
		t.Fatalf("the document: %d %v", status, doc)
	}
	status, body = r2.PostJSON(approve, "")
	launch, _ := body["launch"].(map[string]any)
	if status != 200 || body["status"] != "active" || launch["outcome"] != "launched" || launch["job_id"] == nil {
		t.Fatalf("the completing approval: %d %v", status, body)
	}
	r2.WaitStatus(float64(id), "posted")
	// The feed shows a transaction's events once every transaction begun
	// before it has ended (in the whole cluster, which other tests share):
	// read it until the document's posting is there.
	var recorded int
	testkit.Eventually(t, 30*time.Second, "the feed never showed document.posted", func() (bool, error) {
		_, events := r2.Get("/api/v1/events")
		recorded = 0
		posted := false
		for _, e := range events["events"].([]any) {
			switch e.(map[string]any)["type"] {
			case "document.approval_recorded":
				recorded++
			case "document.posted":
				posted = true
			}
		}
		return posted, nil
	})
	if recorded != 1 {
		t.Fatalf("%d document.approval_recorded events", recorded)
	}
}
