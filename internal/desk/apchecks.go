package desk

import (
	"context"
	"encoding/json"
	"fmt"

	"greatbook/internal/apchecks"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/org"
)

// CheckPayable runs the AP desk's checks on a document as it reads now:
// addressed to this org, a plausible issue date, not overdue on arrival,
// paid to the account the supplier's posted invoices used. They run at read
// time because the org's identity and the supplier's posted invoices change
// after filing; they are warnings, so they change neither the status nor
// the EN 16931 verdict. A document without fields has nothing to check.
func CheckPayable(ctx context.Context, q database.Executor, doc intake.Document) (apchecks.Report, error) {
	if fieldsOf(doc) == nil {
		return apchecks.Report{}, nil
	}
	o, err := org.ByID(ctx, q, doc.OrgID)
	if err != nil {
		return apchecks.Report{}, err
	}
	return checkPayable(ctx, q, doc, o)
}

// checkPayable is CheckPayable with the document's org already read.
func checkPayable(ctx context.Context, q database.Executor, doc intake.Document, o org.Org) (apchecks.Report, error) {
	in, needsPrevious, ok := payableInput(doc, o)
	if !ok {
		return apchecks.Report{}, nil
	}
	if needsPrevious {
		var err error
		if in.Previous, err = apchecks.PreviousAccounts(ctx, q, doc.OrgID, doc.ID, doc.SourceRef); err != nil {
			return apchecks.Report{}, err
		}
	}
	return apchecks.Check(in), nil
}

// payableInput is what the AP checks read of a document and its org;
// needsPrevious says the bank check wants the supplier's previous accounts
// (an invoice asking to be paid to an IBAN); ok is false for a document
// without fields, which has nothing to check.
func payableInput(doc intake.Document, o org.Org) (in apchecks.Input, needsPrevious, ok bool) {
	fields := fieldsOf(doc)
	if fields == nil {
		return apchecks.Input{}, false, false
	}
	in = apchecks.Input{Document: *fields, ReceivedAt: doc.ReceivedAt, Org: apchecks.Org{
		LegalName: o.Identity.LegalName, VATID: o.Identity.VATID, MaxIssueAgeMonths: o.Identity.MaxIssueAgeMonths,
		Address: buyerAddress(o.Identity.Address)}}
	switch {
	case fields.Type != einvoice.TypeInvoice:
		// A credit note is paid by the buyer, not to the supplier's account:
		// neither the bank check nor the due date concerns it.
		in.Document.PayeeIBAN, in.Document.DueDate = "", ""
	case fields.PayeeIBAN != "":
		needsPrevious = true
	}
	return in, needsPrevious, true
}

// Findings are everything the API says was found on a document (docs/api.md):
// the pipeline's findings as filed and the AP checks' warnings as they read
// now, fatal first.
func Findings(ctx context.Context, q database.Executor, doc intake.Document) ([]einvoice.Finding, error) {
	if fieldsOf(doc) == nil {
		return findingsWithOrg(ctx, q, doc, org.Org{})
	}
	o, err := org.ByID(ctx, q, doc.OrgID)
	if err != nil {
		return nil, err
	}
	return findingsWithOrg(ctx, q, doc, o)
}

// findingsWithOrg is Findings with the document's org already read.
func findingsWithOrg(ctx context.Context, q database.Executor, doc intake.Document, o org.Org) ([]einvoice.Finding, error) {
	ap, err := checkPayable(ctx, q, doc, o)
	if err != nil {
		return nil, err
	}
	return withFiled(doc, ap)
}

// withFiled are the findings as filed and the AP checks', fatal first.
func withFiled(doc intake.Document, ap apchecks.Report) ([]einvoice.Finding, error) {
	findings := []einvoice.Finding{}
	if len(doc.Findings) > 0 {
		if err := json.Unmarshal(doc.Findings, &findings); err != nil {
			return nil, fmt.Errorf("desk: findings of document %d: %w", doc.ID, err)
		}
	}
	return einvoice.BySeverity(append(findings, ap.Findings...)), nil
}

// buyerAddress is the org's address as an invoice would state it.
func buyerAddress(a org.Address) einvoice.Address {
	out := einvoice.Address{City: a.City, Postcode: a.Postcode, Country: a.Country}
	for i, slot := range []*string{&out.Line1, &out.Line2, &out.Line3} {
		if i < len(a.Lines) {
			*slot = a.Lines[i]
		}
	}
	return out
}
