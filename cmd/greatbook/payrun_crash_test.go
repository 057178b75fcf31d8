package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"greatbook/internal/payments"
	"greatbook/internal/testkit"
)

// payrunProcess runs `greatbook payrun ...` as a child of the failpoints
// build against the test database, SIGKILLed at failpoint when one is named.
func payrunProcess(t *testing.T, dbURL, failpoint string, args ...string) (string, error) {
	t.Helper()
	return crashableProcess(t, dbURL, failpoint, append([]string{"payrun"}, args...)...)
}

// A download SIGKILLed after the transaction that marked its run sent, before
// the file was handed over: the run stays sent with one payment_run_sent
// event and no file at the path; the download after the restart gives the
// file, byte for byte the one the next gives, and records nothing again.
func TestExportKilledAfterSentGivesTheSameFileOnceMarked(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	ctx := context.Background()
	postedInvoice(t, db, "Nordlicht Papier GmbH", "NP-1", "336.90", "2026-12-01", supplierIBAN)
	postedInvoice(t, db, "Atelier Lumière SARL", "AL-1", "120.00", "2026-12-03", otherSupplierIBAN)
	id := proposedRun(t, runCLI(t, db.URL, "", "payrun", "propose", "acme", "--execution-date", "2026-12-07"))
	runCLI(t, db.URL, "", "payrun", "approve", "acme", id)
	run := runNumber(t, id)
	dir := t.TempDir()
	// The approval put back to a fixed moment: a file that took anything
	// from the clock of its download, rather than from the stored run,
	// would show it below however fast the downloads follow each other.
	if _, err := db.Pool.Exec(ctx, `UPDATE payment_runs SET approved_at = '2026-12-01T09:30:00Z' WHERE id = $1`, run); err != nil {
		t.Fatal(err)
	}

	crashed := filepath.Join(dir, "crashed.xml")
	out, err := payrunProcess(t, db.URL, payments.FailpointAfterSent, "export", "acme", id, "-o", crashed)
	if !killed(err) {
		t.Fatalf("the export was not killed at %s: %v, %q", payments.FailpointAfterSent, err, out)
	}
	if _, err := os.Stat(crashed); !os.IsNotExist(err) {
		t.Fatalf("a killed download left a file at its path: %v", err)
	}
	var sentAt time.Time
	if err := db.Pool.QueryRow(ctx, `SELECT exported_at FROM payment_runs WHERE id = $1 AND status = 'sent'`, run).Scan(&sentAt); err != nil {
		t.Fatalf("the run is not sent after the crash: %v", err)
	}
	recordedOnce := func(when string) {
		t.Helper()
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1 AND subject_id = $2`, payments.ActionRunSent, run); n != 1 {
			t.Fatalf("%s: %d %s audit events, want 1", when, n, payments.ActionRunSent)
		}
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE subject_type = 'payment_run' AND subject_id = $1`, run); n != 3 {
			t.Fatalf("%s: %d audit events of the run, want 3 (proposed, approved, sent)", when, n)
		}
		if n := testkit.Count(t, db, `SELECT count(*) FROM payment_items WHERE run_id = $1 AND status = 'sent'`, run); n != 2 {
			t.Fatalf("%s: %d items sent, want 2", when, n)
		}
		if n := testkit.Count(t, db, `SELECT count(*) FROM payment_items`); n != 2 {
			t.Fatalf("%s: %d items, want 2", when, n)
		}
		var at time.Time
		if err := db.Pool.QueryRow(ctx, `SELECT exported_at FROM payment_runs WHERE id = $1`, run).Scan(&at); err != nil || !at.Equal(sentAt) {
			t.Fatalf("%s: the run was sent at %v, then at %v (%v)", when, sentAt, at, err)
		}
	}
	recordedOnce("after the crash")

	// Restart: the same download again, then another.
	var files [][]byte
	for _, name := range []string{"second.xml", "third.xml"} {
		path := filepath.Join(dir, name)
		if out, err := payrunProcess(t, db.URL, "", "export", "acme", id, "-o", path); err != nil {
			t.Fatalf("download to %s after the restart: %v, %q", name, err, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
		recordedOnce("after the download to " + name)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatalf("the downloads after the restart differ:\n%s\n---\n%s", files[0], files[1])
	}
	if !bytes.Contains(files[0], []byte("<CreDtTm>2026-12-01T09:30:00</CreDtTm>")) {
		t.Fatalf("the file's creation time is not the run's approval:\n%s", files[0])
	}
	if !bytes.Contains(files[0], []byte("<NbOfTxs>2</NbOfTxs>")) || !bytes.Contains(files[0], []byte("<CtrlSum>456.90</CtrlSum>")) {
		t.Fatalf("the file does not pay the run's two items:\n%s", files[0])
	}
}

// A proposal SIGKILLed inside its transaction, between reading what is
// payable and putting it in its run, leaves no run, no item and no event;
// the proposal after the restart takes the invoices.
func TestProposeKilledBeforeItemsLeavesNothing(t *testing.T) {
	t.Parallel()
	db := payBooks(t)
	postedInvoice(t, db, "Nordlicht Papier GmbH", "NP-1", "336.90", "2026-12-01", supplierIBAN)
	postedInvoice(t, db, "Atelier Lumière SARL", "AL-1", "120.00", "2026-12-03", otherSupplierIBAN)

	out, err := payrunProcess(t, db.URL, payments.FailpointBeforeItems, "propose", "acme", "--execution-date", "2026-12-07")
	if !killed(err) {
		t.Fatalf("the proposal was not killed at %s: %v, %q", payments.FailpointBeforeItems, err, out)
	}
	for what, query := range map[string]string{
		"runs":   `SELECT count(*) FROM payment_runs`,
		"items":  `SELECT count(*) FROM payment_items`,
		"events": `SELECT count(*) FROM audit_events WHERE subject_type = 'payment_run'`,
	} {
		if n := testkit.Count(t, db, query); n != 0 {
			t.Fatalf("the killed proposal left %d %s", n, what)
		}
	}

	out, err = payrunProcess(t, db.URL, "", "propose", "acme", "--execution-date", "2026-12-07")
	if err != nil {
		t.Fatalf("propose after the restart: %v", err)
	}
	id := runNumber(t, proposedRun(t, out))
	if !strings.Contains(out, "2 items, total 456.90 EUR") {
		t.Fatalf("propose after the restart printed %q, want both invoices", out)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM payment_items WHERE run_id = $1 AND status = 'in_run'`, id); n != 2 {
		t.Fatalf("the run after the restart holds %d items, want 2", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM payment_runs`); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1`, payments.ActionRunProposed); n != 1 {
		t.Fatalf("%d %s audit events, want 1", n, payments.ActionRunProposed)
	}
}
