package review_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/desk"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// A document every amount of which is zero is refused at approval, up
// front and typed (invalid_state, reason nothing_to_post), not approved and
// then abandoned by the bookkeeper as a dead letter. It stays where it was,
// so the reviewer can reject it.
func TestApproveRefusesADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	w.Fields = zeroFields(t, w.Fields)
	id := w.Doc(t, 0)

	_, err := w.App.Decisions.Approve(context.Background(), w.Org.ID, id, w.Actor)
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.InvalidState || e.Details["reason"] != "nothing_to_post" || !strings.Contains(e.Message, "nothing to post") {
		t.Fatalf("approve: %v", err)
	}
	doc, _ := intake.NewPGStore(w.DB.Pool).Get(context.Background(), w.Org.ID, id)
	if doc.Status != intake.Pending {
		t.Fatalf("the document is %s", doc.Status)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM jobs`); n != 0 {
		t.Fatalf("%d jobs", n)
	}
}

// zeroFields are a document's fields with every amount zero.
func zeroFields(t *testing.T, fields []byte) []byte {
	t.Helper()
	var d einvoice.Document
	if err := json.Unmarshal(fields, &d); err != nil {
		t.Fatal(err)
	}
	for i := range d.Lines {
		d.Lines[i].UnitPrice, d.Lines[i].Net = d.Lines[i].Net.Sub(d.Lines[i].Net), d.Lines[i].Net.Sub(d.Lines[i].Net)
	}
	for i := range d.TaxSubtotals {
		d.TaxSubtotals[i].Taxable, d.TaxSubtotals[i].Tax = d.Lines[0].Net, d.Lines[0].Net
	}
	zero := d.Lines[0].Net
	d.Totals = einvoice.Totals{LineTotal: zero, Net: zero, Tax: zero, Gross: zero, Payable: zero}
	out, _ := json.Marshal(d)
	return out
}

// A valid document with nothing to post, filed as the pipeline files it
// (flagged nothing_to_post, the finding fatal), is refused at approval for
// that reason, offered a one-step close, and closed: rejected with a fixed
// reason, audited as a rejection. A document with something to post, or one
// decided already, cannot be closed so.
func TestCloseADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	something := w.Doc(t, 0)
	w.Fields = zeroFields(t, w.Fields)
	nothing := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'flagged', flag_reason = 'nothing_to_post', findings = $2 WHERE id = $1`,
		nothing, `[{"code": "nothing_to_post", "severity": "fatal", "field": "totals.payable", "message": "every amount of the document is zero"}]`); err != nil {
		t.Fatal(err)
	}
	reader := desk.Reader{OrgID: w.Org.ID, Label: w.Actor.Label}

	_, err := w.App.Decisions.Approve(ctx, w.Org.ID, nothing, w.Actor)
	if e, ok := apperr.As(err); !ok || e.Code != apperr.InvalidState || e.Details["reason"] != "nothing_to_post" {
		t.Fatalf("approve: %v", err)
	}
	for id, want := range map[int64]bool{nothing: true, something: false} {
		p, err := desk.ReadDecision(ctx, w.DB.Pool, reader, id)
		if err != nil || p.CanCloseNothingToPost != want || p.Verdict.NeedsAcknowledgement {
			t.Fatalf("document %d: may close %v, acknowledge %v (%v); want close %v", id, p.CanCloseNothingToPost, p.Verdict.NeedsAcknowledgement, err, want)
		}
	}

	doc, err := w.App.Decisions.CloseNothingToPost(ctx, w.Org.ID, nothing, w.Actor)
	if err != nil || doc.Status != intake.Rejected || doc.DecisionReason != review.NothingToPostReason || doc.DecidedBy != w.Actor.Label {
		t.Fatalf("close: %+v, %v", doc, err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'reject' AND subject_id = $1 AND actor = $2
		AND detail->>'reason' = $3 AND detail->>'closed' = 'nothing_to_post' AND to_status = 'rejected'`, nothing, w.Actor.Label, review.NothingToPostReason); n != 1 {
		t.Fatalf("%d audited closes", n)
	}

	for id, why := range map[int64]string{nothing: "rejected", something: "something to post"} {
		_, err := w.App.Decisions.CloseNothingToPost(ctx, w.Org.ID, id, w.Actor)
		if e, ok := apperr.As(err); !ok || e.Code != apperr.InvalidState {
			t.Fatalf("closing a document with %s: %v", why, err)
		}
	}
	if doc, _ := intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, something); doc.Status != intake.Pending {
		t.Fatalf("the document with something to post is %s", doc.Status)
	}
}
