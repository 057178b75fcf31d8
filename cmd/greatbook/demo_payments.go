package main

import (
	"context"
	"fmt"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
)

// The demo org's own bank account, the debtor of its pay runs.
const (
	demoBankIBAN = "DE02120300000000202051"
	demoBankBIC  = "BYLADEM1001"
)

// loadDemoBankAccount gives the demo org its bank account when it has none:
// an account set already (by an admin, or an earlier run) is left as it is.
func loadDemoBankAccount(ctx context.Context, d *db, o org.Org) (org.Org, error) {
	if o.BankIBAN != "" {
		return o, nil
	}
	o, err := org.SetBankAccount(ctx, d.pool, o.ID, demoBankIBAN, demoBankBIC, demoSubmitter)
	if err != nil {
		return o, fmt.Errorf("demo bank account: %w", err)
	}
	return o, nil
}

// demoPayables are invoices that name the account their supplier is paid
// to, due before a first visit: posted by the demo, so that the admin's
// first pay run has something to pay. Each is under the approval policy's
// threshold, so the reviewer's approval alone posts it.
var demoPayables = []struct{ number, json string }{
	{"KH-2026-1187", `{"type": "invoice", "number": "KH-2026-1187", "issue_date": "2026-11-03", "due_date": "2026-12-03", "currency": "EUR",
		"seller": {"name": "Kaffeerösterei Hansen GmbH", "vat_id": "DE811907980"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Espresso beans, 1 kg", "quantity": "8", "unit_price": "21.50", "tax_rate": "7"}],
		"payment": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}}`},
	{"RB-4410", `{"type": "invoice", "number": "RB-4410", "issue_date": "2026-11-02", "due_date": "2026-12-02", "currency": "EUR",
		"seller": {"name": "Reinigung Berger GmbH", "vat_id": "ATU13585627"}, "buyer": {"name": "Demo Trading AB", "vat_id": "SE556000111101"},
		"lines": [{"description": "Office cleaning, November", "quantity": "1", "unit_price": "480.00", "tax_rate": "20"}],
		"payee_iban": "AT611904300234573201"}`},
}

// demoPayablesAccount is the expense account the demo answers the
// bookkeeper's question about its payables' new suppliers with.
const demoPayablesAccount = ledger.GeneralExpenses

// loadDemoPayables files, approves and posts the demo's payables, each
// once: every step is taken only when the document has not reached it, so
// a run cut off half-way finishes on the next. The bookkeeping runs here,
// as `greatbook sweep` runs it, and its question about the new supplier's
// account is answered as a reviewer would.
func loadDemoPayables(ctx context.Context, a *app.App, o org.Org, reviewer auth.User) error {
	actor := audit.Actor{UserID: reviewer.ID, Label: reviewer.Email}
	for _, p := range demoPayables {
		id, status, err := demoDocumentID(ctx, a, o, p.number)
		if err != nil {
			return err
		}
		if id == 0 {
			doc, err := ownjson.Parse([]byte(p.json))
			if err != nil {
				return fmt.Errorf("demo: payable %s: %w", p.number, err)
			}
			td, err := a.Typewriter.Compose(ctx, o.ID, doc, demoSubmitter)
			if err != nil {
				return fmt.Errorf("demo: compose %s: %w", p.number, err)
			}
			filed, err := a.Typewriter.Submit(ctx, o.ID, td.Versions[len(td.Versions)-1].ID, demoSubmitter)
			if err != nil {
				return fmt.Errorf("demo: submit %s: %w", p.number, err)
			}
			id, status = filed.ID, filed.Status
		}
		if status == intake.Pending {
			if _, err := a.Decisions.Approve(ctx, o.ID, id, actor); err != nil {
				return fmt.Errorf("demo: approve %s: %w", p.number, err)
			}
		}
		if status != intake.Posted {
			if err := postDemoDocument(ctx, a, o, id, actor); err != nil {
				return fmt.Errorf("demo: post %s: %w", p.number, err)
			}
		}
	}
	return nil
}

// postDemoDocument runs an approved document's bookkeeping here until it is
// posted, answering the bookkeeper's questions with demoPayablesAccount.
func postDemoDocument(ctx context.Context, a *app.App, o org.Org, id int64, actor audit.Actor) error {
	// Each pass ends posted or at a question; a question answered, the next
	// pass posts. Three passes are more than the bookkeeper ever needs.
	for pass := 0; ; pass++ {
		job, found, err := jobs.ForDocument(ctx, a.Pool, o.ID, id)
		switch {
		case err != nil:
			return err
		case !found || job.RunID == "":
			return fmt.Errorf("document %d has no bookkeeping run (its job is %q)", id, job.Status)
		case job.Status == jobs.Done:
			return nil
		case pass == 3:
			return fmt.Errorf("document %d is not posted after its bookkeeping (its job is %q)", id, job.Status)
		}
		if err := a.Engine.Execute(ctx, job.RunID); err != nil {
			return err
		}
		q, err := a.Bookkeeper.QuestionFor(ctx, o.ID, id)
		if err != nil {
			return err
		}
		if q != nil {
			if err := a.Bookkeeper.Answer(ctx, o.ID, q.RunID, map[string]string{"account": demoPayablesAccount}, false, actor); err != nil {
				return err
			}
		}
	}
}
