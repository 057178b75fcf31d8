package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"greatbook/internal/bankstatement"
	"greatbook/internal/testkit"
)

// statementProcess runs `greatbook statement ...` as a child of the
// failpoints build against the test database, SIGKILLed at failpoint when
// one is named.
func statementProcess(t *testing.T, dbURL, failpoint string, args ...string) (string, error) {
	t.Helper()
	return crashableProcess(t, dbURL, failpoint, append([]string{"statement"}, args...)...)
}

// An import of a statement longer than one batch, SIGKILLed after its
// first batch committed or inside it with the items locked, is finished by
// the import of the same file in a new process: every item is paid with
// exactly one journal entry, each line is matched once, and a third import
// is "already imported" and posts nothing.
func TestStatementImportKilledMidwayIsFinishedOnce(t *testing.T) {
	t.Parallel()
	const items = 450 // more than two batches of bankstatement.DefaultBatchSize
	for _, tc := range []struct {
		failpoint string
		// paidAtKill is how many items the killed process paid: the
		// batches it committed.
		paidAtKill int
	}{
		{bankstatement.FailpointAfterBatch, bankstatement.DefaultBatchSize},
		{bankstatement.FailpointItemsLocked, 0},
	} {
		t.Run(tc.failpoint, func(t *testing.T) {
			t.Parallel()
			db := payBooks(t)
			ctx := context.Background()
			amounts := make([]string, items)
			for i := range amounts {
				amounts[i] = fmt.Sprintf("%d.%02d", 10+i, i%100)
			}
			path := statementFile(t, "STMT-LONG", sentRun(t, db, amounts...))

			out, err := statementProcess(t, db.URL, tc.failpoint, "import", "acme", path)
			if !killed(err) {
				t.Fatalf("the import was not killed at %s: %v, %q", tc.failpoint, err, out)
			}
			var id int64
			if err := db.Pool.QueryRow(ctx, `SELECT id FROM bank_statements WHERE completed_at IS NULL`).Scan(&id); err != nil {
				t.Fatalf("no interrupted import after the kill: %v", err)
			}
			counts := func(when string, paid, pending int) {
				t.Helper()
				for what, c := range map[string]struct {
					query string
					want  int
				}{
					"items paid":        {`SELECT count(*) FROM payment_items WHERE status = 'paid' AND entry_id IS NOT NULL`, paid},
					"items still sent":  {`SELECT count(*) FROM payment_items WHERE status = 'sent' AND entry_id IS NULL`, items - paid},
					"payment entries":   {`SELECT count(*) FROM journal_entries WHERE source_type = 'payment'`, paid},
					"paid events":       {`SELECT count(*) FROM audit_events WHERE action = '` + bankstatement.ActionPaymentPaid + `'`, paid},
					"lines matched":     {`SELECT count(*) FROM bank_statement_entries WHERE outcome = 'matched'`, paid},
					"lines not yet":     {`SELECT count(*) FROM bank_statement_entries WHERE outcome IS NULL`, pending},
					"lines of any kind": {`SELECT count(*) FROM bank_statement_entries`, items},
					"imports":           {`SELECT count(*) FROM bank_statements`, 1},
				} {
					if n := testkit.Count(t, db, c.query); n != c.want {
						t.Fatalf("%s: %d %s, want %d", when, n, what, c.want)
					}
				}
			}
			counts("after the kill", tc.paidAtKill, items-tc.paidAtKill)
			if out, err := statementProcess(t, db.URL, "", "show", "acme", itoa(id)); err != nil || !strings.Contains(out, fmt.Sprintf("bank statement %d incomplete", id)) {
				t.Fatalf("statement show after the kill: %v, %q", err, out)
			}

			// A new process imports the same file: it finishes the import.
			out, err = statementProcess(t, db.URL, "", "import", "acme", path)
			if err != nil {
				t.Fatalf("import after the kill: %v, %q", err, out)
			}
			if got := importedID(t, out, true); got != itoa(id) || !strings.Contains(out, fmt.Sprintf("%d lines, %d matched, 0 unmatched", items, items)) {
				t.Fatalf("import after the kill printed %q, want import %d with every line matched", out, id)
			}
			counts("after the second import", items, 0)
			// Exactly one entry per item, and the one under the item's own
			// source key.
			if n := testkit.Count(t, db, `SELECT count(*) FROM payment_items i JOIN journal_entries e ON e.id = i.entry_id
				WHERE e.source_type = 'payment' AND e.source_id = i.id::text AND e.entry_set = 'main'`); n != items {
				t.Fatalf("%d items paid by their own entry, want %d", n, items)
			}
			if n := testkit.Count(t, db, `SELECT count(DISTINCT subject_id) FROM audit_events WHERE action = $1`, bankstatement.ActionPaymentPaid); n != items {
				t.Fatalf("the payment recorded paid for %d items, want %d", n, items)
			}
			if n := testkit.Count(t, db, `SELECT count(*) FROM bank_statements WHERE completed_at IS NOT NULL AND entries = $1
				AND matched = $1 AND unmatched = 0`, items); n != 1 {
				t.Fatal("the import is not closed with its counts")
			}
			if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1`, bankstatement.ActionImported); n != 1 {
				t.Fatalf("%d %s audit events, want 1", n, bankstatement.ActionImported)
			}

			// A third import posts nothing.
			before := testkit.Count(t, db, `SELECT count(*) FROM audit_events`)
			out, err = statementProcess(t, db.URL, "", "import", "acme", path)
			if err != nil || importedID(t, out, true) != itoa(id) {
				t.Fatalf("the third import: %v, %q", err, out)
			}
			counts("after the third import", items, 0)
			if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events`); n != before {
				t.Fatalf("the third import recorded %d audit events", n-before)
			}
		})
	}
}
