package pipeline

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/audit"
	"greatbook/internal/coding"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/reading"
	"greatbook/internal/review"
)

// TypeIn files a flagged document again with the fields a person typed in
// (a scan, or a document whose extraction failed). It validates them first:
// when a finding is fatal it returns the findings and writes nothing;
// warnings are filed with the document, which is pending. The document's
// approvals, if it had any, are forgotten, and its coding is fitted to the
// new facts: a reviewer's rows of a line whose net is unchanged stay, the
// rest go, and what is left uncoded is suggested afresh. A document read
// from its text teaches its supplier's layout (reading.LearnTx).
func (p *Pipeline) TypeIn(ctx context.Context, orgID, docID int64, d einvoice.Document, actor audit.Actor) (intake.Document, []einvoice.Finding, error) {
	d.Format = "manual"
	fs := einvoice.ValidateAt(d, time.Now())
	if einvoice.HasFatal(fs) {
		return intake.Document{}, fs, nil
	}
	doc, err := database.WithTxV(ctx, p.pool, func(tx pgx.Tx) (intake.Document, error) {
		store := intake.NewPGStoreTx(tx)
		before, err := store.Get(ctx, orgID, docID)
		if err != nil {
			return intake.Document{}, err
		}
		doc, err := intake.FileTyped(ctx, store, docID, filingOf(&State{Document: &d, Format: string(d.Format), Findings: fs}))
		if err != nil {
			return intake.Document{}, err
		}
		// New facts: approvals given to the old ones no longer stand.
		if err := review.ClearApprovals(ctx, tx, docID); err != nil {
			return intake.Document{}, err
		}
		if err := coding.RefitTx(ctx, tx, orgID, docID, doc.SourceRef, d); err != nil {
			return intake.Document{}, err
		}
		// A document read from its text teaches its supplier's layout:
		// where the facts the person confirmed or corrected stand.
		if _, err := reading.LearnTx(ctx, tx, orgID, docID, d, actor); err != nil {
			return intake.Document{}, err
		}
		return doc, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "typed_in",
			SubjectType: "intake", SubjectID: docID, FromStatus: string(before.Status), ToStatus: string(doc.Status),
			Detail: map[string]any{"number": d.Number, "duplicate_of": doc.DuplicateOf}})
	})
	return doc, nil, err
}
