package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// The demo org approves by a two-step policy with the submitters kept
// apart, set once: no demo user submitted a document, and the document
// above the threshold waits with the admin's approval, one of two, which
// the reviewer's completes.
func TestDemoShowsTheApprovalPolicy(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "demo")
	runCLI(t, db.URL, "", "demo")
	o, err := org.BySlug(ctx, db.Pool, demoOrg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := org.ApprovalPolicyOf(ctx, db.Pool, o.ID)
	if err != nil || !p.SeparateSubmitter || len(p.Rules) != 2 || p.Rules[1] != (org.ApprovalRule{MinAmount: demoThreshold, Approvals: 2}) {
		t.Fatalf("the demo's policy: %+v, %v", p, err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.approval_policy_set'`); n != 1 {
		t.Fatalf("the policy was set %d times by two runs, want once", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE received_by IN ($1, $2)`, demoReviewer, demoAdmin); n != 0 {
		t.Fatalf("%d demo documents submitted by a demo user", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE org_id = $1 AND payable_base > $2`, o.ID, demoThreshold); n < 2 {
		t.Fatalf("%d demo documents above the threshold, want the half-approved one and the approved duplicate", n)
	}

	a := app.New(db.Pool, app.Config{Logger: slog.New(slog.DiscardHandler)})
	defer a.Close()
	id, status, err := demoDocumentID(ctx, a, o, demoHalfApproved)
	if err != nil || id == 0 || status != "pending" {
		t.Fatalf("%s is %d %s, %v", demoHalfApproved, id, status, err)
	}
	state, err := review.Approvals(ctx, db.Pool, o.ID, id)
	if err != nil || state.Required != 2 || len(state.Approvals) != 1 || state.Approvals[0].By != demoAdmin {
		t.Fatalf("%s's approvals: %+v, %v", demoHalfApproved, state, err)
	}
	reviewer, err := auth.NewService(db.Pool).UserByEmail(ctx, demoReviewer)
	if err != nil {
		t.Fatal(err)
	}
	approval, err := a.Decisions.Approve(ctx, o.ID, id, audit.Actor{UserID: reviewer.ID, Label: reviewer.Email})
	if err != nil || !approval.Complete {
		t.Fatalf("the reviewer's approval of %s: %+v, %v", demoHalfApproved, approval, err)
	}
}

// The demo org pays from its bank account, and two of its posted invoices
// name their suppliers' accounts and are due on a first visit: an admin's
// first pay run takes them.
func TestDemoCanProposeAPayRun(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "demo")
	runCLI(t, db.URL, "", "demo")
	o, err := org.BySlug(ctx, db.Pool, demoOrg)
	if err != nil {
		t.Fatal(err)
	}
	if o.BankIBAN != demoBankIBAN || o.BankBIC != demoBankBIC {
		t.Fatalf("the demo org's bank account is %q %q", o.BankIBAN, o.BankBIC)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.bank_account_set'`); n != 1 {
		t.Fatalf("the bank account was set %d times by two runs, want once", n)
	}
	for _, p := range demoPayables {
		if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE org_id = $1 AND doc_number = $2 AND status = 'posted'`, o.ID, p.number); n != 1 {
			t.Fatalf("%d posted documents %s, want 1", n, p.number)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE org_id = $1 AND source_type = 'intake'`, o.ID); n != len(demoPayables) {
		t.Fatalf("%d entries of documents after two runs, want %d", n, len(demoPayables))
	}

	out := runCLI(t, db.URL, "", "payrun", "propose", demoOrg, "--execution-date", "2026-12-04")
	for _, want := range []string{"2 items, total 760.04 EUR", "to Kaffeerösterei Hansen GmbH, DE89370400440532013000 (BIC COBADEFFXXX)",
		"to Reinigung Berger GmbH, AT611904300234573201", "from " + demoLegalName + ", " + demoBankIBAN + " (BIC " + demoBankBIC + ")"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the demo's first pay run:\n%s\nwant %q in it", out, want)
		}
	}
}

// The demo files plain PDF invoices, read from their text layer, once
// however often it runs.
func TestDemoReadsPlainPDFs(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "demo")
	runCLI(t, db.URL, "", "demo")
	o, err := org.BySlug(ctx, db.Pool, demoOrg)
	if err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents d JOIN intake_readings r ON r.intake_id = d.id
		WHERE d.org_id = $1 AND d.format = 'text' AND d.fields ->> 'number' <> ''`, o.ID); n != len(demoReadLanguages) {
		t.Fatalf("%d plain PDFs read from their text, want %d", n, len(demoReadLanguages))
	}
}
