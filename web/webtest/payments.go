package webtest

import (
	"context"
	"encoding/json"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/org"
)

// Bill is a posted supplier invoice's facts, for the pay runs' tests.
type Bill struct {
	Supplier, Number, Payable, Due, IBAN string
}

// PostedBill files a posted EUR invoice approved by approver, with its
// journal entry, straight into the tables: what a pay run pays.
func PostedBill(t *testing.T, a *Site, o org.Org, approver auth.User, b Bill) int64 {
	t.Helper()
	fields := map[string]any{"number": b.Number, "currency": "EUR", "issue_date": "2026-11-01",
		"seller": map[string]any{"name": b.Supplier}, "totals": map[string]any{"payable": b.Payable}}
	if b.Due != "" {
		fields["due_date"] = b.Due
	}
	if b.IBAN != "" {
		fields["payee_iban"] = b.IBAN
	}
	raw, _ := json.Marshal(fields)
	var id int64
	err := a.DB.Pool.QueryRow(context.Background(), `
		WITH e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
			SELECT $1, 'test', $2 || '/' || $3, 'main', '2026-11-01', 'EUR', base_currency FROM orgs WHERE id = $1 RETURNING id),
		l AS (INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
			SELECT e.id, $1, n, a.id, CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END,
			       CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END
			FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.org_id = $1 AND a.code = v.code)
		INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_by, decided_at)
		SELECT $1, encode(sha256(convert_to($2 || '/' || $3, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'test', 'posted',
			'invoice', $2 || '/' || $3, $4, e.id, now(), $5, now()
		FROM e RETURNING id`, o.ID, b.Supplier, b.Number, raw, approver.Email).Scan(&id)
	if err == nil {
		// The original its page shows: the fields as JSON.
		_, err = a.DB.Pool.Exec(context.Background(), `INSERT INTO intake_originals (document_id, content) VALUES ($1, $2)`, id, raw)
	}
	if err != nil {
		t.Fatalf("posted bill %s: %v", b.Number, err)
	}
	return id
}

// PaidBefore records that document intakeID was paid to iban in an earlier
// run (sent, and its payment seen on a statement), so that the supplier's
// next invoice naming another account waits for a confirmation.
func PaidBefore(t *testing.T, a *Site, o org.Org, intakeID int64, iban string) {
	t.Helper()
	if _, err := a.DB.Pool.Exec(context.Background(), `
		WITH r AS (INSERT INTO payment_runs (org_id, status, execution_date, due_until, currency, debtor_name, debtor_iban, proposed_by)
			VALUES ($1, 'sent', '2026-11-01', '2026-11-01', 'EUR', 'x', 'NL91ABNA0417164300', 'test') RETURNING id)
		INSERT INTO payment_items (run_id, org_id, intake_id, status, amount, currency, creditor_name, creditor_iban, end_to_end_id, paid_at)
		SELECT r.id, $1, $2, 'paid', 10, 'EUR', 'paid before', $3, 'OLD-' || $2::bigint, now() FROM r`, o.ID, intakeID, iban); err != nil {
		t.Fatal(err)
	}
}

// SetBankAccount gives org o its own bank account, the debtor of its runs.
func SetBankAccount(t *testing.T, a *Site, o org.Org, iban, bic string) {
	t.Helper()
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE orgs SET bank_iban = $2, bank_bic = $3 WHERE id = $1`, o.ID, iban, bic); err != nil {
		t.Fatal(err)
	}
}
