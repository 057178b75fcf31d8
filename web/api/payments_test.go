package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// postedInvoice files a posted invoice of supplier naming iban, approved by
// approver, with its journal entry.
func postedInvoice(t *testing.T, a *webtest.Site, o org.Org, supplier, number, payable, iban, approver string) int64 {
	t.Helper()
	entry := webtest.PostEUR(t, a, o.ID, supplier+"/"+number, "6000", "2000", payable)
	fields, _ := json.Marshal(map[string]any{"number": number, "currency": "EUR", "issue_date": "2026-11-01", "payee_iban": iban,
		"seller": map[string]any{"name": "Supplier " + supplier}, "totals": map[string]any{"payable": payable}})
	var id int64
	if err := a.DB.Pool.QueryRow(context.Background(), `
		INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_at, decided_by)
		VALUES ($1, encode(sha256(convert_to($2, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'x', 'posted', 'invoice', $2, $3, $4,
			now(), now(), $5) RETURNING id`, o.ID, supplier+"/"+number, fields, entry.ID, approver).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// The pay runs' API as docs/api.md has it: a proposal takes what is
// payable and says why not the rest; a second admin (not the approver)
// confirms a changed account and corrects an invalid one; an item is
// removed, a run cancelled; the approved run's file is the same bytes on
// every download and marks the run sent, which then cannot be cancelled;
// each document shows where its payment stands.
func TestPaymentRunsAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	ctx := context.Background()
	o := testkit.Org(t, a.DB)
	annUser, bobUser := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleAdmin)
	ann, bob := a.APIFor(t, annUser), a.APIFor(t, bobUser)
	reviewer := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleReviewer))
	const ibanA, ibanB, ibanBad = "DE89370400440532013000", "GB29NWBK60161331926819", "DE89370400440532013001"

	if status, body := ann.PostJSON("/api/v1/payment-runs", `{"execution_date": "2026-12-10"}`); status != 422 ||
		webtest.ErrorOf(body)["code"] != "invalid" {
		t.Fatalf("without a bank account: %d %v", status, body)
	}
	if _, err := a.DB.Pool.Exec(ctx, `UPDATE orgs SET bank_iban = 'NL91ABNA0417164300' WHERE id = $1`, o.ID); err != nil {
		t.Fatal(err)
	}
	ok := postedInvoice(t, a, o, "acme", "A-1", "336.90", ibanA, annUser.Email)
	// delta was paid to ibanA before; its invoice now names ibanB.
	paid := postedInvoice(t, a, o, "delta", "D-1", "10.00", ibanA, annUser.Email)
	changed := postedInvoice(t, a, o, "delta", "D-2", "20.00", ibanB, annUser.Email)
	bad := postedInvoice(t, a, o, "gamma", "G-1", "30.00", ibanBad, annUser.Email)
	if _, err := a.DB.Pool.Exec(ctx, `WITH r AS (INSERT INTO payment_runs (org_id, status, execution_date, due_until, currency, debtor_name,
			debtor_iban, proposed_by) VALUES ($1, 'sent', '2026-11-01', '2026-11-01', 'EUR', 'x', 'NL91ABNA0417164300', 'x') RETURNING id)
		INSERT INTO payment_items (run_id, org_id, intake_id, status, amount, currency, creditor_name, creditor_iban, end_to_end_id, paid_at)
		SELECT r.id, $1, $2, 'paid', 10, 'EUR', 'delta', $3, 'OLD-1', now() FROM r`, o.ID, paid, ibanA); err != nil {
		t.Fatal(err)
	}
	payment := func(id int64) any {
		t.Helper()
		status, doc := reviewer.Get(fmt.Sprintf("/api/v1/intake/%d", id))
		if status != 200 {
			t.Fatalf("get %d: %d %v", id, status, doc)
		}
		return doc["payment"]
	}
	if p := payment(ok); p != nil {
		t.Fatalf("an unpaid invoice's payment: %v", p)
	}

	const proposal = `{"execution_date": "2026-12-10", "due_until": "2026-12-31"}`
	if status, _ := reviewer.PostJSON("/api/v1/payment-runs", proposal); status != 403 {
		t.Fatalf("a reviewer proposes: %d", status)
	}
	status, first := ann.PostJSON("/api/v1/payment-runs", proposal)
	items, _ := first["items"].([]any)
	if status != 201 || first["status"] != "proposed" || first["currency"] != "EUR" || first["total"] != "336.90" || len(items) != 1 {
		t.Fatalf("proposal: %d %v", status, first)
	}
	item := items[0].(map[string]any)
	creditor := item["creditor"].(map[string]any)
	if item["intake_id"] != float64(ok) || item["amount"] != "336.90" || creditor["iban"] != ibanA ||
		item["end_to_end_id"] != fmt.Sprintf("GB-%d-%v", o.ID, item["id"]) {
		t.Fatalf("item %v", item)
	}
	blocked := map[float64]any{}
	for _, b := range first["blocked"].([]any) {
		b := b.(map[string]any)
		blocked[b["intake_id"].(float64)] = b["reason"]
	}
	if blocked[float64(changed)] != "iban_unconfirmed" || blocked[float64(bad)] != "iban_invalid" || len(blocked) != 2 {
		t.Fatalf("blocked %v", blocked)
	}
	run := fmt.Sprintf("/api/v1/payment-runs/%v", first["id"])
	if p, _ := payment(ok).(map[string]any); p["status"] != "in_run" || p["run_id"] != first["id"] || p["item_id"] != item["id"] || p["entry_id"] != nil {
		t.Fatalf("in a run, the payment reads %v", p)
	}

	// Four eyes: ann approved the invoices; bob confirms.
	confirm := func(c *webtest.APIClient, id int64, body string) (int, map[string]any) {
		return c.PostJSON(fmt.Sprintf("/api/v1/intake/%d/payment-account/confirm", id), body)
	}
	if status, body := confirm(ann, changed, ""); status != 403 || webtest.ErrorOf(body)["reason"] != "separation_of_duties" {
		t.Fatalf("the approver confirms: %d %v", status, body)
	}
	if status, _ := confirm(reviewer, changed, ""); status != 403 {
		t.Fatalf("a reviewer confirms: %d", status)
	}
	if status, body := confirm(bob, changed, ""); status != 200 || body["iban"] != ibanB || body["confirmed_by"] != bobUser.Email {
		t.Fatalf("bob confirms: %d %v", status, body)
	}
	if status, body := confirm(bob, bad, ""); status != 422 {
		t.Fatalf("an invalid IBAN confirmed as it is: %d %v", status, body)
	}
	if status, body := confirm(bob, bad, `{"iban": "de89 3704 0044 0532 0130 00"}`); status != 200 || body["iban"] != ibanA || body["replaces"] != ibanBad {
		t.Fatalf("bob corrects: %d %v", status, body)
	}
	if status, got := ann.Get(run); status != 200 || len(got["blocked"].([]any)) != 0 {
		t.Fatalf("the proposed run still blocks: %d %v", status, got["blocked"])
	}

	// Remove the item, then cancel the emptied run: the invoice is free again.
	if status, got := ann.Do("DELETE", fmt.Sprintf("%s/items/%v", run, item["id"]), "", nil); status != 200 || len(got["items"].([]any)) != 0 {
		t.Fatalf("remove: %d %v", status, got)
	}
	if p := payment(ok); p != nil {
		t.Fatalf("a removed item's invoice reads %v", p)
	}
	if status, body := ann.PostJSON(run+"/approve", ""); status != 409 || webtest.ErrorOf(body)["code"] != "invalid_state" {
		t.Fatalf("approving an empty run: %d %v", status, body)
	}
	if status, got := ann.PostJSON(run+"/cancel", ""); status != 200 || got["status"] != "cancelled" {
		t.Fatalf("cancel: %d %v", status, got)
	}

	status, second := ann.PostJSON("/api/v1/payment-runs", proposal)
	if status != 201 || len(second["items"].([]any)) != 3 || second["total"] != "386.90" || len(second["blocked"].([]any)) != 0 {
		t.Fatalf("second proposal: %d %v", status, second)
	}
	run = fmt.Sprintf("/api/v1/payment-runs/%v", second["id"])
	if status, _ := ann.Raw("GET", run+"/pain.001"); status != 409 {
		t.Fatalf("the file of a proposed run: %d", status)
	}
	if status, got := bob.PostJSON(run+"/approve", ""); status != 200 || got["status"] != "approved" || got["approved_by"] != bobUser.Email {
		t.Fatalf("approve: %d %v", status, got)
	}
	req, _ := http.NewRequest("GET", a.URL+run+"/pain.001", nil)
	req.Header.Set("Authorization", "Bearer "+ann.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/xml" ||
		resp.Header.Get("Content-Disposition") != fmt.Sprintf(`attachment; filename="payment-run-%v.pain.001.xml"`, second["id"]) {
		t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
	}
	_, file := ann.Raw("GET", run+"/pain.001")
	_, again := bob.Raw("GET", run+"/pain.001")
	if !bytes.Equal(file, again) || !bytes.Contains(file, []byte("urn:iso:std:iso:20022:tech:xsd:pain.001.001.09")) {
		t.Fatalf("two downloads differ, or the file is not a pain.001.001.09:\n%s", file)
	}
	for _, it := range second["items"].([]any) {
		e2e := it.(map[string]any)["end_to_end_id"].(string)
		if bytes.Count(file, []byte("<EndToEndId>"+e2e+"</EndToEndId>")) != 1 {
			t.Fatalf("the file does not name %s once", e2e)
		}
	}
	if status, body := ann.PostJSON(run+"/cancel", ""); status != 409 || webtest.ErrorOf(body)["code"] != "invalid_state" {
		t.Fatalf("cancelling a sent run: %d %v", status, body)
	}
	if p, _ := payment(bad).(map[string]any); p["status"] != "sent" || p["run_id"] != second["id"] {
		t.Fatalf("a sent payment reads %v", p)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'payment_run_sent'`); n != 1 {
		t.Fatalf("%d payment_run_sent events after three downloads", n)
	}
	if status, list := reviewer.Get("/api/v1/payment-runs"); status != 403 {
		t.Fatalf("a reviewer lists runs: %d %v", status, list)
	}
	status, list := ann.Get("/api/v1/payment-runs?limit=10")
	runs, _ := list["runs"].([]any)
	if status != 200 || len(runs) != 3 || runs[0].(map[string]any)["item_count"] != float64(3) || runs[0].(map[string]any)["total"] != "386.90" || runs[0].(map[string]any)["id"] != second["id"] || runs[0].(map[string]any)["status"] != "sent" {
		t.Fatalf("list: %d %v", status, list)
	}
	other := a.APIFor(t, testkit.User(t, a.DB, testkit.Org(t, a.DB), auth.RoleAdmin))
	if status, body := other.Get(run); status != 404 || webtest.ErrorOf(body)["code"] != "not_found" {
		t.Fatalf("another org: %d %v", status, body)
	}
}
