package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/audit"
	"greatbook/internal/bankstatement"
	"greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/payments"
)

// reconcileItems is how many payments the statement books.
const reconcileItems = 10_000

// Reconcile pays reconcileItems posted invoices in one run and imports the
// bank statement that books them all, and prints the import's entries per
// second beside the ledger's own rate of new posts of the same two-line
// entry, one client, measured in the same run: what reconciling adds to
// posting (parsing, storing the lines, locking and marking each item). It
// prints the proposal's and the export's time for the run besides.
func Reconcile(ctx context.Context, e *Env) error {
	o, _, err := org.Create(ctx, e.Pool, "bench-reconcile", "Bench Reconcile", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	const ourIBAN, supplierIBAN = "NL91ABNA0417164300", "DE89370400440532013000"
	fmt.Fprintf(e.Out, "\nreconcile: seeding %d posted invoices...\n", reconcileItems)
	if _, err := e.Pool.Exec(ctx, `UPDATE orgs SET bank_iban = $2 WHERE id = $1`, o.ID, ourIBAN); err != nil {
		return err
	}
	// One transaction: the ledger checks at commit that every entry has
	// its lines.
	tx, err := e.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	for _, step := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency, description, fingerprint, created_by)
			SELECT $1::bigint, $3::text, 'pay-' || g, 'main', date '2026-11-01', 'EUR', 'EUR', 'seed', sha256(g::text::bytea), 'seed'
			FROM generate_series(1, $2::int) g`, []any{o.ID, reconcileItems, ledger.SourceTypeBenchHistory}},
		{`INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
			SELECT e.id, e.org_id, l.n, a.id, CASE l.n WHEN 0 THEN 125 ELSE 0 END, CASE l.n WHEN 0 THEN 0 ELSE 125 END,
			       CASE l.n WHEN 0 THEN 125 ELSE 0 END, CASE l.n WHEN 0 THEN 0 ELSE 125 END
			FROM journal_entries e CROSS JOIN (VALUES (0, '6000'), (1, '2000')) AS l (n, code)
			JOIN accounts a ON a.org_id = e.org_id AND a.code = l.code
			WHERE e.org_id = $1 AND e.source_type = $2`, []any{o.ID, ledger.SourceTypeBenchHistory}},
		{`INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_by)
		SELECT $1, encode(sha256(convert_to(e.source_id, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'bench', 'posted', 'invoice',
			'supplier' || right(e.source_id, 2) || '/' || e.source_id,
			jsonb_build_object('number', e.source_id, 'currency', 'EUR', 'payee_iban', $3::text,
				'seller', jsonb_build_object('name', 'Supplier'), 'totals', jsonb_build_object('payable', '125.00')),
			e.id, now(), 'bench'
		FROM journal_entries e WHERE e.org_id = $1 AND e.source_type = $2`, []any{o.ID, ledger.SourceTypeBenchHistory, supplierIBAN}},
	} {
		if _, err := tx.Exec(ctx, step.sql, step.args...); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if err := e.Analyze(ctx); err != nil {
		return err
	}
	pay := &payments.Service{Pool: e.Pool}
	actor := audit.System("bench")
	start := time.Now()
	run, err := pay.Propose(ctx, o.ID, payments.Proposal{ExecutionDate: "2026-12-10", DueUntil: "2026-12-31"}, actor)
	if err != nil {
		return err
	}
	proposed := time.Since(start)
	if len(run.Items) != reconcileItems {
		return fmt.Errorf("bench: the run holds %d items, want %d", len(run.Items), reconcileItems)
	}
	if _, err := pay.Approve(ctx, o.ID, run.ID, actor); err != nil {
		return err
	}
	start = time.Now()
	file, err := pay.Export(ctx, o.ID, run.ID, actor)
	if err != nil {
		return err
	}
	exported := time.Since(start)
	entries := make([]statementtest.Entry, len(run.Items))
	for i, it := range run.Items {
		entries[i] = statementtest.Paid(it.EndToEndID, it.Amount)
	}
	statement := statementtest.Camt053("BENCH-1", ourIBAN, entries...)

	// The ledger's own rate, the same entry as a payment's, one client.
	lines := []ledger.Line{
		{Account: ledger.AccountsPayable, Debit: decimal.RequireFromString("125.00")},
		{Account: "1000", Credit: decimal.RequireFromString("125.00")},
	}
	const posts = 2_000
	start = time.Now()
	for i := range posts {
		if _, err := ledger.Post(ctx, e.Pool, ledger.Request{
			SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: ledger.SourceTypeBench, SourceID: strconv.Itoa(i), EntrySet: "main"},
			Date:      "2026-12-11", Currency: "EUR", Description: "bench", Actor: "bench", Lines: lines,
		}); err != nil {
			return err
		}
	}
	postRate := posts / time.Since(start).Seconds()

	svc := &bankstatement.Service{Pool: e.Pool}
	start = time.Now()
	imp, created, err := svc.Import(ctx, o.ID, statement, actor)
	if err != nil {
		return err
	}
	took := time.Since(start)
	if !created || imp.Matched != reconcileItems {
		return fmt.Errorf("bench: the import matched %d of %d", imp.Matched, reconcileItems)
	}
	var paid int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM payment_items WHERE run_id = $1 AND status = 'paid' AND entry_id IS NOT NULL`,
		run.ID).Scan(&paid); err != nil {
		return err
	}
	if paid != reconcileItems {
		return fmt.Errorf("bench: %d items paid, want %d", paid, reconcileItems)
	}
	start = time.Now()
	if _, created, err := svc.Import(ctx, o.ID, statement, actor); err != nil || created {
		return fmt.Errorf("bench: the same statement again: created %v, %v", created, err)
	}
	replayed := time.Since(start)
	rate := float64(reconcileItems) / took.Seconds()
	table := &Table{
		Title: fmt.Sprintf("reconcile: a camt.053 statement of %d booked payments (%d KiB) paying one run's items, one entry each, batches of %d",
			reconcileItems, len(statement)/1024, bankstatement.DefaultBatchSize),
		Columns: []string{"entries/s", "ledger new posts/s", "ratio", "import", "same bytes again", "proposal", "pain.001 (" + strconv.Itoa(len(file)/1024) + " KiB)"},
	}
	table.Add(Rate(rate), Rate(postRate), Ratio(rate, postRate), took.Round(time.Millisecond).String(),
		replayed.Round(time.Millisecond).String(), proposed.Round(time.Millisecond).String(), exported.Round(time.Millisecond).String())
	table.Print(e.Out)
	return nil
}
