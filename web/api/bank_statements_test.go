package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"greatbook/internal/auth"
	st "greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A statement through the API: an admin imports it (201), the same bytes
// again answer the first import (200), the import lists what no payment
// matched; reviewers, other media types and unreadable statements are
// refused.
func TestBankStatementsAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	ctx := context.Background()
	o := testkit.Org(t, a.DB)
	admin := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleAdmin))
	reviewer := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleReviewer))
	intakeID := webtest.SeedDoc(t, a, o, "posted", "Acme", "A-1", "336.90")
	var itemID int64
	if err := a.DB.Pool.QueryRow(ctx, `
		WITH r AS (INSERT INTO payment_runs (org_id, status, execution_date, due_until, currency, debtor_name, debtor_iban, proposed_by)
			VALUES ($1, 'sent', '2026-12-10', '2026-12-10', 'EUR', 'Us', 'NL91ABNA0417164300', 'x') RETURNING id)
		INSERT INTO payment_items (run_id, org_id, intake_id, status, amount, currency, creditor_name, creditor_iban, end_to_end_id)
		SELECT r.id, $1, $2, 'sent', 336.90, 'EUR', 'Acme', 'DE89370400440532013000', 'GB-API-1' FROM r RETURNING id`,
		o.ID, intakeID).Scan(&itemID); err != nil {
		t.Fatal(err)
	}
	statement := st.Camt053("STMT-API", "NL91ABNA0417164300", st.Paid("GB-API-1", "336.90"), st.Paid("GB-NOBODY", "5.00"))

	if status, body := reviewer.Do("POST", "/api/v1/bank-statements", "application/xml", statement); status != 403 {
		t.Fatalf("a reviewer: %d %v", status, body)
	}
	status, first := admin.Do("POST", "/api/v1/bank-statements", "application/xml", statement)
	if status != 201 || first["entries"] != float64(2) || first["matched"] != float64(1) || first["unmatched"] != float64(1) {
		t.Fatalf("import: %d %v", status, first)
	}
	status, again := admin.Do("POST", "/api/v1/bank-statements", "application/xml; charset=utf-8", statement)
	if status != 200 || fmt.Sprint(again) != fmt.Sprint(first) {
		t.Fatalf("again: %d %v, want %v", status, again, first)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_entries WHERE source_type = 'payment' AND source_id = $1 AND entry_set = 'main'`,
		fmt.Sprint(itemID)); n != 1 {
		t.Fatalf("%d entries for the payment", n)
	}

	path := fmt.Sprintf("/api/v1/bank-statements/%v", first["id"])
	status, got := admin.Get(path)
	lines, _ := got["unmatched_entries"].([]any)
	if status != 200 || got["complete"] != true || got["statement_id"] != "STMT-API" || len(lines) != 1 {
		t.Fatalf("get: %d %v", status, got)
	}
	if l := lines[0].(map[string]any); l["reason"] != "unknown_end_to_end_id" || l["amount"] != "5.00" || l["booking_date"] != "2026-12-11" ||
		l["item_id"] != nil || l["end_to_end_id"] != "GB-NOBODY" {
		t.Fatalf("unmatched line %v", l)
	}
	if status, _ := reviewer.Get(path); status != 403 {
		t.Fatalf("a reviewer reading: %d", status)
	}
	other := a.APIFor(t, testkit.User(t, a.DB, testkit.Org(t, a.DB), auth.RoleAdmin))
	if status, body := other.Get(path); status != 404 || webtest.ErrorOf(body)["code"] != "not_found" {
		t.Fatalf("another org: %d %v", status, body)
	}

	for name, tc := range map[string]struct {
		contentType string
		body        []byte
		status      int
		code        string
	}{
		"json":      {"application/json", []byte(`{}`), 415, "unsupported_media_type"},
		"not camt":  {"application/xml", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"/>`), 422, "invalid"},
		"a DTD":     {"application/xml", []byte(`<!DOCTYPE x [<!ENTITY a "b">]><Document/>`), 422, "invalid"},
		"too large": {"application/xml", []byte(strings.Repeat(" ", 8<<20+1)), 413, "too_large"},
		"not XML":   {"application/xml", []byte("hello"), 422, "invalid"},
		"empty":     {"application/xml", nil, 422, "invalid"},
	} {
		status, body := admin.Do("POST", "/api/v1/bank-statements", tc.contentType, tc.body)
		if status != tc.status || webtest.ErrorOf(body)["code"] != tc.code {
			t.Errorf("%s: %d %v, want %d %s", name, status, body, tc.status, tc.code)
		}
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM bank_statements`); n != 1 {
		t.Fatalf("%d imports", n)
	}
}
