package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"greatbook/internal/payments"
	"greatbook/internal/testkit"
)

// Valid IBANs (check digits right) for the tests' suppliers.
const (
	supplierIBAN      = "DE89370400440532013000"
	otherSupplierIBAN = "FR1420041010050500013M02606"
	acmeIBAN          = "DE02120300000000202051"
)

// payBooks is the org acme with a bank account, set through the command
// line as an admin would.
func payBooks(t *testing.T) *testkit.DB {
	t.Helper()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme GmbH")
	runCLI(t, db.URL, "", "org", "set", "acme", "--bank-iban", acmeIBAN, "--bank-bic", "BYLADEM1001")
	return db
}

// postedInvoice files a posted EUR invoice of acme with its journal entry,
// as the bookkeeper leaves one, and returns its id. An empty iban files one
// without an account.
func postedInvoice(t *testing.T, db *testkit.DB, supplier, number, payable, due, iban string) int64 {
	t.Helper()
	fields := map[string]any{"type": "invoice", "number": number, "currency": "EUR", "issue_date": "2026-11-01", "due_date": due,
		"seller": map[string]any{"name": supplier}, "totals": map[string]any{"payable": payable}}
	if iban != "" {
		fields["payee_iban"] = iban
	}
	raw, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	err = db.Pool.QueryRow(context.Background(), `
		WITH o AS (SELECT id FROM orgs WHERE slug = 'acme'),
		e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
			SELECT o.id, 'test', $1 || '/' || $2, 'main', '2026-11-01', 'EUR', 'EUR' FROM o RETURNING id, org_id),
		l AS (INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
			SELECT e.id, e.org_id, n, a.id, $3::numeric * (1 - n), $3::numeric * n, $3::numeric * (1 - n), $3::numeric * n
			FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.code = v.code
			WHERE a.org_id = e.org_id)
		INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_by)
		SELECT e.org_id, encode(sha256(convert_to($1 || '/' || $2, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'test',
			'posted', 'invoice', $1 || '/' || $2, $4, e.id, now(), 'reviewer@acme.test'
		FROM e RETURNING id`, supplier, number, payable, raw).Scan(&id)
	if err != nil {
		t.Fatalf("posted invoice: %v", err)
	}
	return id
}

func runNumber(t *testing.T, id string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// cliFails runs a command in-process that must fail, and returns its error
// message.
func cliFails(t *testing.T, dbURL string, args ...string) string {
	t.Helper()
	var out, errOut strings.Builder
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	err := run(context.Background(), args, getenv, strings.NewReader(""), &out, &errOut)
	if err == nil {
		t.Fatalf("greatbook %s succeeded, printing %q; want it refused", strings.Join(args, " "), out.String())
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("greatbook %s: the error is not one line: %q", strings.Join(args, " "), err)
	}
	return err.Error()
}

var proposedRunPattern = regexp.MustCompile(`^pay run (\d+) proposed `)

// proposedRun reads the run id off the first line propose prints.
func proposedRun(t *testing.T, out string) string {
	t.Helper()
	m := proposedRunPattern.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("propose printed %q, want it to begin with the run's id", out)
	}
	return m[1]
}

// A pay run from the command line: propose prints the run, its items and
// total and what it blocked; approve, export (stdout and -o, the same bytes)
// and show follow it; each step is audited as system:cli; a sent run cannot
// be cancelled, a proposed one can, and releases its invoices.
func TestPayRunFromTheCommandLine(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	ctx := context.Background()
	first := postedInvoice(t, db, "Nordlicht Papier GmbH", "NP-1", "336.90", "2026-12-01", supplierIBAN)
	second := postedInvoice(t, db, "Atelier Lumière SARL", "AL-1", "120.00", "2026-12-03", otherSupplierIBAN)
	noAccount := postedInvoice(t, db, "Bürobedarf Schmidt KG", "BS-1", "50.00", "2026-12-02", "")
	postedInvoice(t, db, "Nordlicht Papier GmbH", "NP-2", "99.00", "2027-01-31", supplierIBAN) // not due yet

	out := runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07", "--due-until", "2026-12-31")
	id := proposedRun(t, out)
	for _, want := range []string{
		"proposed (org acme): execution date 2026-12-07, due until 2026-12-31, 2 items, total 456.90 EUR",
		"from Acme GmbH, " + acmeIBAN + " (BIC BYLADEM1001)",
		"document " + itoa(first) + ", invoice NP-1, 336.90 EUR to Nordlicht Papier GmbH, " + supplierIBAN + ", in_run",
		"document " + itoa(second) + ", invoice AL-1, 120.00 EUR to Atelier Lumière SARL, " + otherSupplierIBAN,
		"blocked: document " + itoa(noAccount) + ", BS-1 from Bürobedarf Schmidt KG, account (none): " + payments.ReasonNoIBAN,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("propose printed:\n%s\nwant %q in it", out, want)
		}
	}

	msg := cliFails(t, db.URL, "payrun", "export", "acme", id)
	if !strings.Contains(msg, "is proposed") {
		t.Fatalf("exporting a proposed run: %q", msg)
	}
	if out := runCLI(t, db.URL, "", "payrun", "approve", "acme", id); !strings.Contains(out, "pay run "+id+" approved") ||
		!strings.Contains(out, "approved by system:cli") {
		t.Fatalf("approve printed %q", out)
	}
	stdoutFile := runCLI(t, db.URL, "", "payrun", "export", "acme", id)
	if !strings.HasPrefix(stdoutFile, "<?xml") || !strings.Contains(stdoutFile, payments.Namespace) || !strings.Contains(stdoutFile, "<CtrlSum>456.90</CtrlSum>") {
		t.Fatalf("export to stdout printed %q, want the pain.001 file and nothing else", stdoutFile)
	}
	path := filepath.Join(t.TempDir(), "run.xml")
	out = runCLI(t, db.URL, "", "payrun", "export", "acme", id, "-o", path)
	if !strings.Contains(out, "pay run "+id+" sent: "+path+" written") {
		t.Fatalf("export -o printed %q", out)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(written, []byte(stdoutFile)) {
		t.Fatal("the second download differs from the first")
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode: %v, %v; want 0600 (it names bank accounts)", info.Mode(), err)
	}
	if out := runCLI(t, db.URL, "", "payrun", "show", "acme", id); !strings.Contains(out, "pay run "+id+" sent") || !strings.Contains(out, "sent (file first downloaded) at") {
		t.Fatalf("show printed %q", out)
	}
	if msg := cliFails(t, db.URL, "payrun", "cancel", "acme", id); !strings.Contains(msg, "is sent") {
		t.Fatalf("cancelling a sent run: %q", msg)
	}
	for action, want := range map[string]int{payments.ActionRunProposed: 1, payments.ActionRunApproved: 1, payments.ActionRunSent: 1, payments.ActionRunCancelled: 0} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1 AND actor = 'system:cli' AND subject_id = $2`, action, runNumber(t, id)); n != want {
			t.Errorf("%d %s audit events, want %d", n, action, want)
		}
	}

	// A run proposed and cancelled lets the next proposal take its invoice.
	due := postedInvoice(t, db, "Atelier Lumière SARL", "AL-2", "80.00", "2026-12-04", otherSupplierIBAN)
	out = runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07")
	cancelled := proposedRun(t, out)
	if !strings.Contains(out, "1 item, total 80.00 EUR") || !strings.Contains(out, "document "+itoa(due)) {
		t.Fatalf("the second proposal printed %q, want AL-2 alone (the others are sent, or not due by the execution date)", out)
	}
	if out := runCLI(t, db.URL, "", "payrun", "cancel", "acme", cancelled); !strings.Contains(out, "pay run "+cancelled+" cancelled") ||
		!strings.Contains(out, "cancelled by system:cli") {
		t.Fatalf("cancel printed %q", out)
	}
	out = runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07")
	if !strings.Contains(out, "1 item, total 80.00 EUR") {
		t.Fatalf("after the cancellation, propose printed %q, want AL-2 again", out)
	}
	var live int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM payment_items WHERE intake_id = $1 AND status IN ('in_run', 'sent', 'paid')`, due).Scan(&live); err != nil || live != 1 {
		t.Fatalf("AL-2 is in %d live items (%v), want 1", live, err)
	}
}

// The pay-run commands refuse in one line: a missing argument with the
// usage, a run that is not a number, another org's run, an org without a
// bank account, a date that is not one.
func TestPayRunCommandsRefuseInOneLine(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	runCLI(t, db.URL, "", "org", "add", "globex", "--name", "Globex")
	postedInvoice(t, db, "Nordlicht Papier GmbH", "NP-1", "10.00", "2026-12-01", supplierIBAN)
	id := proposedRun(t, runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"propose without a date", []string{"propose", "acme"}, "usage: greatbook payrun propose SLUG --execution-date"},
		{"propose a date that is not one", []string{"propose", "acme", "--execution-date", "2026-02-30"}, "execution_date must be a date"},
		{"propose a bad due date", []string{"propose", "acme", "--execution-date", "2026-12-07", "--due-until", "soon"}, "due_until must be a date"},
		{"propose without a bank account", []string{"propose", "globex", "--execution-date", "2026-12-07"}, "the org has no bank account"},
		{"propose for no org", []string{"propose", "nobody", "--execution-date", "2026-12-07"}, "nobody"},
		{"approve without a run", []string{"approve", "acme"}, "usage: greatbook payrun approve SLUG RUN"},
		{"approve a run that is not a number", []string{"approve", "acme", "twelve"}, `not "twelve"`},
		{"approve another org's run", []string{"approve", "globex", id}, "pay run " + id + " not found"},
		{"show a run that is not there", []string{"show", "acme", "999999"}, "pay run 999999 not found"},
		{"export without a run", []string{"export", "acme"}, "usage: greatbook payrun export SLUG RUN [-o FILE]"},
		{"an unknown verb", []string{"pay", "acme", id}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := cliFails(t, db.URL, append([]string{"payrun"}, tc.args...)...); !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q, want %q in it", msg, tc.want)
			}
		})
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM payment_runs WHERE status <> 'proposed'`); n != 0 {
		t.Fatalf("%d runs changed by refused commands", n)
	}

	// A file that cannot be written refuses the download before the run
	// is marked sent.
	runCLI(t, db.URL, "", "payrun", "approve", "acme", id)
	if msg := cliFails(t, db.URL, "payrun", "export", "acme", id, "-o", filepath.Join(t.TempDir(), "missing", "run.xml")); !strings.Contains(msg, "no such file or directory") {
		t.Fatalf("export into a missing directory: %q", msg)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM payment_runs WHERE status = 'approved'`); n != 1 {
		t.Fatal("a download that could not be written marked the run sent")
	}
}
