package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/chart"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/retry"
	"greatbook/internal/review"
)

// The demo sign-in details. They are printed by `greatbook demo` and
// `make run`; the demo data lives only in the local embedded database.
const (
	demoOrg           = "demo"
	demoReviewer      = "reviewer@demo.test"
	demoAdmin         = "admin@demo.test"
	demoPassword      = "greatbook-demo"
	demoOtherOrg      = "other"
	demoOtherReviewer = "reviewer@other.test"
)

func (e env) demo(ctx context.Context, args []string) error {
	d, err := e.openWithoutFlags(ctx, "demo", args)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := loadDemo(ctx, d); err != nil {
		return err
	}
	printDemoSignIn(e, "")
	return nil
}

// loadDemo creates the demo orgs, users and documents; re-running changes nothing.
func loadDemo(ctx context.Context, d *db) error {
	o, _, err := org.Create(ctx, d.pool, demoOrg, "Demo Trading AB", "EUR", orgSeeders()...)
	if err != nil {
		return fmt.Errorf("demo org: %w", err)
	}
	other, _, err := org.Create(ctx, d.pool, demoOtherOrg, "Other Company Ltd", "GBP", orgSeeders()...)
	if err != nil {
		return fmt.Errorf("demo org: %w", err)
	}
	if o, err = loadDemoIdentity(ctx, d, o); err != nil {
		return err
	}
	if o, err = loadDemoBankAccount(ctx, d, o); err != nil {
		return err
	}
	svc := auth.NewService(d.pool)
	var reviewer, admin auth.User
	for _, u := range []struct {
		org   int64
		email string
		role  auth.Role
	}{{o.ID, demoReviewer, auth.RoleReviewer}, {o.ID, demoAdmin, auth.RoleAdmin}, {other.ID, demoOtherReviewer, auth.RoleReviewer}} {
		created, err := svc.CreateUser(ctx, u.org, u.email, u.role, demoPassword)
		if err != nil {
			return fmt.Errorf("demo user %s: %w", u.email, err)
		}
		switch u.email {
		case demoReviewer:
			reviewer = created
		case demoAdmin:
			admin = created
		}
	}
	// Cost centres to code the demo's lines to: a first visit's coding grid
	// offers them (setting the same values again changes nothing).
	if _, err := chart.PutValues(ctx, d.pool, o.ID, "cost_center", []chart.ValueChange{
		{Code: "OPS", Name: "Operations"}, {Code: "SALES", Name: "Sales"}, {Code: "MKT", Name: "Marketing"}}, demoSubmitter); err != nil {
		return fmt.Errorf("demo cost centres: %w", err)
	}
	if err := loadDemoDocuments(ctx, d, o, reviewer); err != nil {
		return err
	}
	// Each is loaded on its own when missing: a demo database created before
	// these documents were part of the demo gains them too, and nothing is
	// loaded twice.
	a := app.New(d.pool, app.Config{Logger: slog.New(slog.DiscardHandler)})
	defer a.Close()
	if err := loadDemoInvalidEInvoice(ctx, a, o); err != nil {
		return err
	}
	if err := loadDemoDeadLetter(ctx, a, o, reviewer); err != nil {
		return err
	}
	if err := loadDemoPostedEntry(ctx, d, o); err != nil {
		return err
	}
	if err := loadDemoReadPDFs(ctx, a, o); err != nil {
		return err
	}
	// The policy comes after the approvals above, which it would otherwise
	// leave short of their count (the duplicate's first copy is above the
	// threshold).
	if err := loadDemoApprovalPolicy(ctx, d, o); err != nil {
		return err
	}
	if err := loadDemoHalfApproved(ctx, a, o, admin); err != nil {
		return err
	}
	return loadDemoPayables(ctx, a, o, reviewer)
}

// The demo org's identity, as its documents' buyer states it: the invalid
// e-invoice is addressed to another company (demodata), and says so.
const (
	demoLegalName = "Demo Trading AB"
	demoVATID     = "SE556000111101"
)

// loadDemoIdentity gives the demo org its legal name and VAT id, once: an
// identity set already (by an admin, or an earlier run) is left as it is.
func loadDemoIdentity(ctx context.Context, d *db, o org.Org) (org.Org, error) {
	if o.Identity.LegalName != "" || o.Identity.VATID != "" {
		return o, nil
	}
	id := o.Identity
	id.LegalName, id.VATID = demoLegalName, demoVATID
	o, err := org.SetIdentity(ctx, d.pool, o.ID, id, audit.System("demo"))
	if err != nil {
		return o, fmt.Errorf("demo org identity: %w", err)
	}
	return o, nil
}

// The demo's documents, in the project's JSON shape: composed in the
// typewriter and submitted, so each arrives as a PDF with embedded CII and
// goes through the real pipeline.
var demoDocuments = map[string]string{
	"nordlicht": `{"type": "invoice", "number": "NP-2026-0412", "issue_date": "2026-11-20", "due_date": "2026-12-20", "currency": "EUR",
		"seller": {"name": "Nordlicht Papier GmbH", "vat_id": "DE123456789"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Copy paper A4, 80 g, box of 2,500", "quantity": "12", "unit_price": "24.90", "tax_rate": "19"},
		          {"description": "Delivery", "quantity": "1", "unit_price": "35.00", "tax_rate": "19"}]}`,
	"schmidt": `{"type": "invoice", "number": "BS-2026-077", "issue_date": "2026-11-24", "due_date": "2026-12-24", "currency": "EUR",
		"seller": {"name": "Bürobedarf Schmidt KG", "vat_id": "DE987654321"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Desk chairs", "quantity": "4", "unit_price": "189.00", "tax_rate": "19"},
		          {"description": "Assembly", "quantity": "2", "unit_price": "45.00", "tax_rate": "19"}]}`,
	"lumiere": `{"type": "invoice", "number": "AL-5531", "issue_date": "2026-11-27", "due_date": "2026-12-27", "currency": "EUR",
		"seller": {"name": "Atelier Lumière SARL", "vat_id": "FR40123456789"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Product photography, half day", "quantity": "1", "unit_price": "850.00", "tax_rate": "20"}]}`,
	"nordlicht-credit": `{"type": "credit_note", "number": "NP-2026-0419", "issue_date": "2026-11-28", "currency": "EUR",
		"seller": {"name": "Nordlicht Papier GmbH", "vat_id": "DE123456789"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Damaged boxes returned", "quantity": "2", "unit_price": "24.90", "tax_rate": "19"}],
		"billing_reference": "NP-2026-0412"}`,
}

// loadDemoDocuments files the demo's documents once (a demo org that has
// documents is left as it is): an invoice and its revision (a version
// chain), an invoice sent twice with different due dates (a duplicate
// group, its first copy approved: the bookkeeper asks which account a new
// supplier's costs go to once serve runs), an invoice waiting for review
// and a credit note.
func loadDemoDocuments(ctx context.Context, d *db, o org.Org, reviewer auth.User) error {
	var filed bool
	if err := d.pool.QueryRow(ctx, orgHasDocumentsSQL, o.ID).Scan(&filed); err != nil || filed {
		return err
	}
	a := app.New(d.pool, app.Config{Logger: slog.New(slog.DiscardHandler)})
	defer a.Close()
	// The documents arrive from the demo, not from a demo user: under the
	// demo's separation of submitters, the reviewer may approve them all.
	actor := demoSubmitter
	approver := audit.Actor{UserID: reviewer.ID, Label: reviewer.Email}
	parse := func(name string) (einvoice.Document, error) {
		doc, err := ownjson.Parse([]byte(demoDocuments[name]))
		if err != nil {
			return doc, fmt.Errorf("demo document %s: %w", name, err)
		}
		return doc, nil
	}
	submit := func(doc einvoice.Document) (int64, error) {
		td, err := a.Typewriter.Compose(ctx, o.ID, doc, actor)
		if err != nil {
			return 0, fmt.Errorf("demo: compose %s: %w", doc.Number, err)
		}
		filed, err := a.Typewriter.Submit(ctx, o.ID, td.Versions[len(td.Versions)-1].ID, actor)
		if err != nil {
			return 0, fmt.Errorf("demo: submit %s: %w", doc.Number, err)
		}
		return filed.ID, nil
	}

	// A version chain: v1 filed, then a revision with one more box.
	nordlicht, err := parse("nordlicht")
	if err != nil {
		return err
	}
	td, err := a.Typewriter.Compose(ctx, o.ID, nordlicht, actor)
	if err != nil {
		return fmt.Errorf("demo: compose: %w", err)
	}
	if _, err := a.Typewriter.Submit(ctx, o.ID, td.Versions[0].ID, actor); err != nil {
		return fmt.Errorf("demo: submit: %w", err)
	}
	revised, err := ownjson.Parse([]byte(strings.Replace(demoDocuments["nordlicht"], `"quantity": "12"`, `"quantity": "13"`, 1)))
	if err != nil {
		return fmt.Errorf("demo: revision: %w", err)
	}
	v2, err := a.Typewriter.Revise(ctx, o.ID, td.ID, revised, actor)
	if err != nil {
		return fmt.Errorf("demo: revise: %w", err)
	}
	if _, err := a.Typewriter.Submit(ctx, o.ID, v2.ID, actor); err != nil {
		return fmt.Errorf("demo: submit revision: %w", err)
	}

	// A duplicate group: the same invoice sent again with another due date.
	schmidt, err := parse("schmidt")
	if err != nil {
		return err
	}
	first, err := submit(schmidt)
	if err != nil {
		return err
	}
	again, err := ownjson.Parse([]byte(strings.Replace(demoDocuments["schmidt"], "2026-12-24", "2027-01-08", 1)))
	if err != nil {
		return fmt.Errorf("demo: resend: %w", err)
	}
	if _, err := submit(again); err != nil {
		return err
	}
	if _, err := a.Decisions.Approve(ctx, o.ID, first, approver); err != nil {
		return fmt.Errorf("demo: approve: %w", err)
	}

	for _, name := range []string{"lumiere", "nordlicht-credit"} {
		doc, err := parse(name)
		if err != nil {
			return err
		}
		if _, err := submit(doc); err != nil {
			return err
		}
	}
	return nil
}

func printDemoSignIn(e env, url string) {
	if url != "" {
		fmt.Fprintf(e.stdout, "GreatBook Intake is serving on %s\n", url)
	}
	fmt.Fprintf(e.stdout, "Demo sign-in (org %q):\n", demoOrg)
	fmt.Fprintf(e.stdout, "  reviewer: %s / %s\n", demoReviewer, demoPassword)
	fmt.Fprintf(e.stdout, "  admin:    %s / %s\n", demoAdmin, demoPassword)
}

// demoInvalidEInvoice is a UBL invoice whose payable amount has two digits
// transposed: the conformance panel shows the rule it breaks.
//
//go:embed demodata/ubl-invoice-bad-total.xml
var demoInvalidEInvoice []byte

// demoInvalidNumber is demoInvalidEInvoice's invoice number.
const demoInvalidNumber = "NK-2026-0043"

// demoDocumentID is the demo org's document numbered number, 0 when none.
func demoDocumentID(ctx context.Context, a *app.App, o org.Org, number string) (int64, intake.Status, error) {
	var id int64
	var status intake.Status
	err := a.Pool.QueryRow(ctx, documentByNumberSQL, o.ID, number).Scan(&id, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	return id, status, err
}

// loadDemoInvalidEInvoice files an e-invoice that breaks an EN 16931 rule
// (flagged invalid_einvoice), once.
func loadDemoInvalidEInvoice(ctx context.Context, a *app.App, o org.Org) error {
	if id, _, err := demoDocumentID(ctx, a, o, demoInvalidNumber); err != nil || id != 0 {
		return err
	}
	if _, _, err := ingestContent(ctx, a, o.ID, "nk-2026-0043.xml", demoInvalidEInvoice); err != nil {
		return fmt.Errorf("demo: invalid e-invoice: %w", err)
	}
	return nil
}

// demoDeadLetterDocument is approved while the bookkeeping cannot start,
// so that its job is a dead letter an operator can retry.
const demoDeadLetterDocument = `{"type": "invoice", "number": "KB-2026-311", "issue_date": "2026-11-26", "due_date": "2026-12-26", "currency": "EUR",
	"seller": {"name": "Kontorbutiken Nord AB", "vat_id": "SE556123456701"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
	"lines": [{"description": "Whiteboard markers, 40 pack", "quantity": "3", "unit_price": "18.50", "tax_rate": "25"}]}`

// unreachableBookkeeper is a run starter that always fails, as a
// bookkeeping service that refuses work would: the demo's dead letter.
type unreachableBookkeeper struct{}

func (unreachableBookkeeper) CreateRun(context.Context, pgx.Tx, jobs.Job) (string, error) {
	return "", retry.MarkPermanent(errors.New("demo: the bookkeeping service refused the job (staged by greatbook demo; retry it from the dead-letter page)"))
}

func (unreachableBookkeeper) Start(context.Context, string) error { return nil }

// loadDemoDeadLetter files and approves a document whose bookkeeping job
// cannot launch (a permanent failure: abandoned at once), once. A later
// operator's retry launches the real bookkeeper.
func loadDemoDeadLetter(ctx context.Context, a *app.App, o org.Org, reviewer auth.User) error {
	id, status, err := demoDocumentID(ctx, a, o, "KB-2026-311")
	if err != nil {
		return err
	}
	actor := audit.Actor{UserID: reviewer.ID, Label: reviewer.Email}
	if id == 0 {
		doc, err := ownjson.Parse([]byte(demoDeadLetterDocument))
		if err != nil {
			return fmt.Errorf("demo: dead letter document: %w", err)
		}
		td, err := a.Typewriter.Compose(ctx, o.ID, doc, demoSubmitter)
		if err != nil {
			return fmt.Errorf("demo: compose %s: %w", doc.Number, err)
		}
		filed, err := a.Typewriter.Submit(ctx, o.ID, td.Versions[len(td.Versions)-1].ID, demoSubmitter)
		if err != nil {
			return fmt.Errorf("demo: submit %s: %w", doc.Number, err)
		}
		id, status = filed.ID, filed.Status
	}
	if status != intake.Pending {
		return nil // approved on an earlier run
	}
	staged := review.NewDecisions(a.Pool, &jobs.Outbox{Pool: a.Pool, Starter: unreachableBookkeeper{}}, nil)
	if _, err := staged.Approve(ctx, o.ID, id, actor); err != nil {
		return fmt.Errorf("demo: approve the dead letter's document: %w", err)
	}
	return nil
}

// demoSubmitter files the demo's documents: someone other than the demo
// users, so that the separation of submitters lets each of them approve.
var demoSubmitter = audit.System("demo")

// The demo's approval policy: two approvals from demoThreshold EUR, and
// the submitter of a document may not approve it. demoHalfApproved is
// above the threshold and waits with the admin's approval, for the
// reviewer's.
const (
	demoThreshold    = "1000.00"
	demoHalfApproved = "AL-5531"
)

// loadDemoApprovalPolicy sets the demo org's approval policy, once: a
// policy set already (by an admin, or an earlier run) is left as it is.
func loadDemoApprovalPolicy(ctx context.Context, d *db, o org.Org) error {
	var set bool
	if err := d.pool.QueryRow(ctx, orgHasApprovalPolicySQL, o.ID).Scan(&set); err != nil || set {
		return err
	}
	_, err := org.SetApprovalPolicy(ctx, d.pool, o.ID, org.ApprovalPolicy{SeparateSubmitter: true,
		Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 1}, {MinAmount: demoThreshold, Approvals: 2}}}, demoSubmitter)
	if err != nil {
		return fmt.Errorf("demo: approval policy: %w", err)
	}
	return nil
}

// loadDemoHalfApproved gives demoHalfApproved the admin's approval, once
// (while it waits without any): one of the two its amount needs, so that
// the reviewer's completes it.
func loadDemoHalfApproved(ctx context.Context, a *app.App, o org.Org, admin auth.User) error {
	id, status, err := demoDocumentID(ctx, a, o, demoHalfApproved)
	if err != nil || id == 0 || status != intake.Pending {
		return err
	}
	state, err := review.Approvals(ctx, a.Pool, o.ID, id)
	if err != nil || len(state.Approvals) > 0 {
		return err
	}
	if _, err := a.Decisions.Approve(ctx, o.ID, id, audit.Actor{UserID: admin.ID, Label: admin.Email}); err != nil {
		return fmt.Errorf("demo: the admin's approval of %s: %w", demoHalfApproved, err)
	}
	return nil
}

// loadDemoPostedEntry posts a foreign-currency journal entry (its page shows
// the base amounts and the rate): a post under a fixed source key, so a
// second run is an exact replay that writes nothing.
func loadDemoPostedEntry(ctx context.Context, d *db, o org.Org) error {
	base := decimal.RequireFromString("460.65")
	_, err := ledger.Post(ctx, d.pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "demo", SourceID: "hosting-2026-11", EntrySet: "main"},
		Date:      "2026-11-30", Currency: "USD", Description: "Cloud hosting, November (USD invoice)",
		Actor: "system:demo",
		Lines: []ledger.Line{
			{Account: ledger.GeneralExpenses, Debit: decimal.RequireFromString("500.00"), BaseDebit: &base},
			{Account: ledger.AccountsPayable, Credit: decimal.RequireFromString("500.00"), BaseCredit: &base},
		},
	})
	if err != nil {
		return fmt.Errorf("demo: posted entry: %w", err)
	}
	return nil
}
