package api_test

import (
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An invalid e-invoice through the API: its findings carry their severity,
// fatal first; approve without a body refuses it naming the violations;
// approve with {"acknowledge_invalid": true, "reason": ...} approves it and
// it posts. A document with only warnings is pending, and the page shows
// each finding with a severity badge.
func TestInvalidEInvoiceThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	r := a.APIFor(t, reviewer)
	invoice := string(webtest.Sample(t, "ubl-invoice-multirate.xml"))
	edit := func(number string, pairs ...string) []byte {
		s := strings.Replace(invoice, "<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>"+number+"</cbc:ID>", 1)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				t.Fatalf("the sample has no %q", pairs[i])
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		return []byte(s)
	}
	dueEarly := []string{"<cbc:DueDate>2026-12-20</cbc:DueDate>", "<cbc:DueDate>2026-11-01</cbc:DueDate>"}

	_, body := r.Do("POST", "/api/v1/documents", "application/xml",
		edit("NK-BROKEN", append(dueEarly, `<cbc:PayableAmount currencyID="SEK">24321.00<`, `<cbc:PayableAmount currencyID="SEK">24331.00<`)...))
	invalid := body["intake_id"].(float64)
	got := r.WaitStatus(invalid, "flagged")
	findings, _ := got["findings"].([]any)
	if got["flag_reason"] != "invalid_einvoice" || len(findings) != 2 {
		t.Fatalf("filed: %v", got)
	}
	first, second := findings[0].(map[string]any), findings[1].(map[string]any)
	if first["code"] != "BR-CO-16" || first["severity"] != "fatal" || first["field"] != "BT-115" ||
		second["code"] != "due_before_issue" || second["severity"] != "warning" {
		t.Fatalf("findings, fatal first: %v", findings)
	}
	if _, fields := got["fields"].(map[string]any); !fields {
		t.Fatalf("an invalid e-invoice keeps its fields: %v", got)
	}

	path := "/api/v1/intake/" + webtest.Itoa(int64(invalid)) + "/approve"
	status, resp := r.PostJSON(path, "")
	e := webtest.ErrorOf(resp)
	violations, _ := e["violations"].([]any)
	if status != 409 || e["code"] != "invalid_state" || e["reason"] != "invalid_einvoice" || len(violations) != 1 ||
		violations[0].(map[string]any)["code"] != "BR-CO-16" {
		t.Fatalf("approve without an acknowledgement: %d %v", status, resp)
	}
	for _, bad := range []string{`{"acknowledge_invalid": true}`, `{"acknowledge_invalid": true, "reason": "ok by phone", "force": true}`, `[1]`} {
		if status, resp := r.PostJSON(path, bad); status != 422 || webtest.ErrorOf(resp)["code"] != "invalid" {
			t.Fatalf("approve with %s: %d %v", bad, status, resp)
		}
	}
	status, resp = r.PostJSON(path, `{"acknowledge_invalid": true, "reason": "supplier confirmed 24331.00 in writing"}`)
	if status != 200 || resp["status"] != "active" {
		t.Fatalf("acknowledged approve: %d %v", status, resp)
	}
	r.WaitStatus(invalid, "posted")
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'approve' AND subject_id = $1 AND actor = $2
		AND detail->>'reason' = 'supplier confirmed 24331.00 in writing'`, int64(invalid), reviewer.Email); n != 1 {
		t.Fatalf("%d audited acknowledgements", n)
	}

	// Only warnings: pending, approvable with no body at all.
	_, body = r.Do("POST", "/api/v1/documents", "application/xml", edit("NK-WARNED", dueEarly...))
	warned := body["intake_id"].(float64)
	got = r.WaitStatus(warned, "pending")
	findings, _ = got["findings"].([]any)
	if len(findings) != 1 || findings[0].(map[string]any)["severity"] != "warning" || got["flag_reason"] != nil {
		t.Fatalf("a document with a warning: %v", got)
	}

	c := a.Client(t)
	a.SignIn(t, c, reviewer)
	page, err := c.Get(a.URL + "/intake/" + webtest.Itoa(int64(invalid)))
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, page)
	badges := d.Find(`[data-testid=findings] [data-testid=finding-severity]`)
	if badges.Length() != 2 || strings.TrimSpace(badges.Eq(0).Text()) != "fatal" || strings.TrimSpace(badges.Eq(1).Text()) != "warning" ||
		!badges.Eq(0).HasClass("severity-fatal") || !badges.Eq(1).HasClass("severity-warning") {
		html, _ := d.Find(`[data-testid=findings]`).Html()
		t.Fatalf("the page's findings: %s", html)
	}

	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(warned))+"/approve", ""); status != 200 || resp["status"] != "active" {
		t.Fatalf("approving a document with only warnings: %d %v", status, resp)
	}
}
