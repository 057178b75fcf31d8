package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"greatbook/internal/bankstatement"
	st "greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/testkit"
)

// sentItem is a payment item of a sent run, as a statement names it.
type sentItem struct {
	id         int64
	endToEndID string
	amount     string
}

// sentRun posts one invoice of acme for each amount and pays them in a run
// proposed, approved and downloaded from the command line; it returns the
// run's items in id order.
func sentRun(t *testing.T, db *testkit.DB, amounts ...string) []sentItem {
	t.Helper()
	for i, a := range amounts {
		postedInvoice(t, db, "Nordlicht Papier GmbH", fmt.Sprintf("NP-%d", i+1), a, "2026-12-01", supplierIBAN)
	}
	id := proposedRun(t, runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07"))
	runCLI(t, db.URL, "", "payrun", "approve", "acme", id)
	runCLI(t, db.URL, "", "payrun", "export", "acme", id, "-o", filepath.Join(t.TempDir(), "run.xml"))
	rows, err := db.Pool.Query(context.Background(), `SELECT id, end_to_end_id, amount::text FROM payment_items
		WHERE run_id = $1 AND status = 'sent' ORDER BY id`, runNumber(t, id))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var items []sentItem
	for rows.Next() {
		var it sentItem
		if err := rows.Scan(&it.id, &it.endToEndID, &it.amount); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(items) != len(amounts) {
		t.Fatalf("the run sent %d items, want %d", len(items), len(amounts))
	}
	return items
}

// statementFile writes a statement paying items (and the other entries
// given) to a file, and returns its path.
func statementFile(t *testing.T, name string, items []sentItem, others ...st.Entry) string {
	t.Helper()
	var entries []st.Entry
	for _, it := range items {
		entries = append(entries, st.Paid(it.endToEndID, it.amount))
	}
	path := filepath.Join(t.TempDir(), name+".xml")
	if err := os.WriteFile(path, st.Camt053(name, acmeIBAN, append(entries, others...)...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var importedPattern = regexp.MustCompile(`^bank statement (\d+) (imported|already imported) \(org acme\): `)

// importedID reads the import's id off the line statement import prints,
// and checks it says imported, or already imported when replay is true.
func importedID(t *testing.T, out string, replay bool) string {
	t.Helper()
	m := importedPattern.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("statement import printed %q, want it to begin with the import's id", out)
	}
	if want := map[bool]string{false: "imported", true: "already imported"}[replay]; m[2] != want {
		t.Fatalf("statement import printed %q, want %q", out, want)
	}
	return m[1]
}

// A statement from the command line: import prints the import's id and
// counts and pays what matched, as system:cli; show prints the lines left
// for a person with their reasons; the same file again is "already
// imported" with the first answer and posts nothing.
func TestStatementFromTheCommandLine(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	items := sentRun(t, db, "336.90", "120.00", "50.00")
	path := statementFile(t, "STMT-1", items[:2],
		st.Paid("GB-999-999", "10.00"),
		st.Paid(items[2].endToEndID, "49.00"),
		st.Entry{Amount: "75.00", EndToEndID: items[2].endToEndID, Status: "PDNG", Reference: "PENDING-1"},
	)

	out := runCLI(t, db.URL, "", "statement", "import", "acme", path)
	id := importedID(t, out, false)
	for _, want := range []string{
		"(org acme): 5 lines, 2 matched, 3 unmatched",
		"greatbook statement show acme " + id,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("statement import printed:\n%s\nwant %q in it", out, want)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM payment_items WHERE status = 'paid' AND entry_id IS NOT NULL`); n != 2 {
		t.Fatalf("%d items paid, want 2", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE source_type = 'payment'`); n != 2 {
		t.Fatalf("%d payment entries, want 2", n)
	}
	for action, want := range map[string]int{bankstatement.ActionImported: 1, bankstatement.ActionPaymentPaid: 2} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1 AND actor = 'system:cli'`, action); n != want {
			t.Errorf("%d %s audit events by system:cli, want %d", n, action, want)
		}
	}

	out = runCLI(t, db.URL, "", "statement", "show", "acme", id)
	for _, want := range []string{
		"bank statement " + id + " (org acme): camt.053.001.08 STMT-1, 5 lines, 2 matched, 3 unmatched",
		"imported by system:cli at ",
		"reconciled at ",
		"line 3: 10.00 EUR debit, BOOK, 2026-12-11, reference REF-GB-999-999, end-to-end id GB-999-999: " + bankstatement.ReasonUnknownEndToEndID,
		fmt.Sprintf("line 4: 49.00 EUR debit, BOOK, 2026-12-11, reference REF-%s, end-to-end id %s, payment item %d: %s",
			items[2].endToEndID, items[2].endToEndID, items[2].id, bankstatement.ReasonAmountDiffers),
		"line 5: 75.00 EUR debit, PDNG, 2026-12-11, reference PENDING-1, end-to-end id " + items[2].endToEndID + ": " + bankstatement.ReasonNotBooked,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("statement show printed:\n%s\nwant %q in it", out, want)
		}
	}
	if strings.Contains(out, "line 1:") || strings.Contains(out, "line 2:") {
		t.Fatalf("statement show printed the matched lines:\n%s", out)
	}

	out = runCLI(t, db.URL, "", "statement", "import", "acme", path)
	if again := importedID(t, out, true); again != id || !strings.Contains(out, "5 lines, 2 matched, 3 unmatched") {
		t.Fatalf("the same file again printed %q, want import %s's answer", out, id)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE source_type = 'payment'`); n != 2 {
		t.Fatalf("%d payment entries after the replay, want 2", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM bank_statements`); n != 1 {
		t.Fatalf("%d imports after the replay, want 1", n)
	}
}

// The statement commands refuse in one line: a missing argument with the
// usage, a file that is not there or not a statement, an id that is not a
// number, another org's import, an org that is not there.
func TestStatementCommandsRefuseInOneLine(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	runCLI(t, db.URL, "", "org", "add", "globex", "--name", "Globex")
	dir := t.TempDir()
	notXML := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notXML, []byte("not a statement\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tooLarge := filepath.Join(dir, "large.xml")
	if err := os.WriteFile(tooLarge, make([]byte, bankstatement.MaxBytes+10), 0o600); err != nil {
		t.Fatal(err)
	}
	id := importedID(t, runCLI(t, db.URL, "", "statement", "import", "acme", statementFile(t, "STMT-E", nil, st.Paid("GB-1-1", "1.00"))), false)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"import without a file", []string{"import", "acme"}, statementImportUsage},
		{"import a file that is not there", []string{"import", "acme", filepath.Join(dir, "missing.xml")}, "no such file or directory"},
		{"import a file that is no statement", []string{"import", "acme", notXML}, "bank statement: "},
		{"import a file over the cap", []string{"import", "acme", tooLarge}, fmt.Sprintf("larger than %d bytes", bankstatement.MaxBytes)},
		{"import for no org", []string{"import", "nobody", notXML}, "nobody"},
		{"show without an id", []string{"show", "acme"}, statementShowUsage},
		{"show an id that is not a number", []string{"show", "acme", "four"}, `not "four"`},
		{"show another org's import", []string{"show", "globex", id}, "bank statement " + id + " not found"},
		{"show an import that is not there", []string{"show", "acme", "999999"}, "bank statement 999999 not found"},
		{"an unknown verb", []string{"list", "acme"}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := cliFails(t, db.URL, append([]string{"statement"}, tc.args...)...); !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q, want %q in it", msg, tc.want)
			}
		})
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM bank_statements`); n != 1 {
		t.Fatalf("%d imports after the refused commands, want 1", n)
	}
}
