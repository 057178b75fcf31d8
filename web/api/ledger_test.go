package api_test

import (
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestLedgerAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)

	status, entry := c.PostJSON("/api/v1/journal-entries", webtest.Payroll)
	if status != 201 || entry["replayed"] != false {
		t.Fatalf("new entry: %d %v", status, entry)
	}
	id := entry["id"].(float64)
	lines := entry["lines"].([]any)
	first := lines[0].(map[string]any)
	if first["debit"] != "100.00" || first["credit"] != "0.00" || first["account"] != "6000" ||
		first["dimensions"].(map[string]any)["cost_center"] != "OPS" || entry["reverses_id"] != nil || len(entry["fingerprint"].(string)) != 64 {
		t.Fatalf("entry shape: %v", entry)
	}

	// An exact replay, written differently ("100.0", keys in another order).
	replay := strings.Replace(webtest.Payroll, `"debit": "100.00", "credit": "0"`, `"credit": "0", "debit": "100.0"`, 1)
	status, again := c.PostJSON("/api/v1/journal-entries", replay)
	if status != 200 || again["replayed"] != true || again["id"] != id {
		t.Fatalf("replay: %d %v", status, again)
	}

	conflicting := strings.ReplaceAll(webtest.Payroll, `"100.00"`, `"120.00"`)
	status, body := c.PostJSON("/api/v1/journal-entries", conflicting)
	e := webtest.ErrorOf(body)
	if status != 409 || e["code"] != "source_replay_conflict" {
		t.Fatalf("conflict: %d %v", status, body)
	}
	d := e["differences"].([]any)[0].(map[string]any)
	if d["field"] != "lines[0].debit" || d["stored"] != "100.00" || d["requested"] != "120.00" {
		t.Fatalf("difference: %v", d)
	}

	for _, tc := range []struct {
		name, body, field string
	}{
		{"unbalanced", strings.Replace(webtest.Payroll, `"credit": "100.00"`, `"credit": "99.00"`, 1), "lines"},
		{"unknown account", strings.Replace(webtest.Payroll, `"6000"`, `"6999"`, 1), "lines[0].account"},
		{"bad amount", strings.Replace(webtest.Payroll, `"debit": "100.00"`, `"debit": "1,000.00"`, 1), "lines[0].debit"},
		{"money as a JSON number", strings.Replace(webtest.Payroll, `"debit": "100.00"`, `"debit": 100.00`, 1), "lines.debit"},
		{"unknown field", strings.Replace(webtest.Payroll, `"entry_set"`, `"entryset": "x", "entry_set"`, 1), "entryset"},
		{"single line", `{"source_type": "payroll", "source_id": "x", "entry_set": "main", "date": "2026-11-30", "currency": "EUR",
			"lines": [{"account": "6000", "debit": "1.00"}]}`, "lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(tc.body, "run-2026-11", "fresh-"+tc.name, 1)
			status, resp := c.PostJSON("/api/v1/journal-entries", body)
			e := webtest.ErrorOf(resp)
			if status != 422 || e["code"] != "invalid" {
				t.Fatalf("got %d %v", status, resp)
			}
			reasons, _ := e["reasons"].([]any)
			found := false
			for _, r := range reasons {
				found = found || strings.HasPrefix(r.(map[string]any)["field"].(string), tc.field)
			}
			if !found {
				t.Fatalf("reasons %v do not name %s", reasons, tc.field)
			}
		})
	}

	path := "/api/v1/journal-entries/" + webtest.Itoa(int64(id))
	if status, got := c.Get(path); status != 200 || got["id"] != id {
		t.Fatalf("get: %d %v", status, got)
	}
	status, list := c.Get("/api/v1/journal-entries?source_type=payroll&source_id=run-2026-11")
	if status != 200 || len(list["entries"].([]any)) != 1 {
		t.Fatalf("list by source: %d %v", status, list)
	}
	status, rev := c.PostJSON(path+"/reverse", "")
	if status != 201 || rev["reverses_id"] != id || rev["entry_set"] != "main/reversal" || rev["source_id"] != "run-2026-11" {
		t.Fatalf("reverse: %d %v", status, rev)
	}
	if status, again := c.PostJSON(path+"/reverse", ""); status != 200 || again["replayed"] != true || again["id"] != rev["id"] {
		t.Fatalf("reverse again: %d %v", status, again)
	}
	status, accounts := c.Get("/api/v1/accounts")
	if status != 200 || len(accounts["accounts"].([]any)) < 10 {
		t.Fatalf("accounts: %d %v", status, accounts)
	}
	acct := accounts["accounts"].([]any)[0].(map[string]any)
	if acct["code"] == "" || acct["type"] == "" || acct["active"] != true {
		t.Fatalf("account shape: %v", acct)
	}

	other, _ := a.API(t, auth.RoleReviewer)
	for _, p := range []string{path} {
		if status, body := other.Get(p); status != 404 || webtest.ErrorOf(body)["code"] != "not_found" {
			t.Fatalf("another org reading %s: %d %v", p, status, body)
		}
	}
	if status, _ := other.PostJSON(path+"/reverse", ""); status != 404 {
		t.Fatalf("another org reversing: %d", status)
	}
	if status, body := other.Get("/api/v1/journal-entries?source_type=payroll"); status != 200 || len(body["entries"].([]any)) != 0 {
		t.Fatalf("another org listing: %d %v", status, body)
	}
	if status, _ := c.Get("/api/v1/journal-entries?from=yesterday"); status != 422 {
		t.Fatalf("a bad date filter: %d, want 422", status)
	}
}

// The API's reversal keeps its contract (no body needed) and takes an
// optional reason, recorded in the audit trail like the page's.
func TestTheReversalAPITakesAnOptionalReason(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleReviewer)
	first := webtest.PostEUR(t, a, u.OrgID, "r1", "6000", "2000", "10.00")
	second := webtest.PostEUR(t, a, u.OrgID, "r2", "6000", "2000", "20.00")
	if status, body := c.PostJSON("/api/v1/journal-entries/"+webtest.Itoa(first.ID)+"/reverse", ""); status != 201 {
		t.Fatalf("reverse without a body: %d %v", status, body)
	}
	status, body := c.PostJSON("/api/v1/journal-entries/"+webtest.Itoa(second.ID)+"/reverse", `{"reason": "billed twice"}`)
	if status != 201 {
		t.Fatalf("reverse with a reason: %d %v", status, body)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'reverse_entry'
		AND subject_id = $2 AND detail->>'reason' = 'billed twice'`, u.OrgID, int64(body["id"].(float64))); n != 1 {
		t.Errorf("%d audit events with the API's reason", n)
	}
}
