package review_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// flagInvalid files a document flagged invalid_einvoice with findings.
func (w *world) flagInvalid(t *testing.T, findings string) int64 {
	t.Helper()
	id := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'flagged', flag_reason = 'invalid_einvoice',
		findings = $2 WHERE id = $1`, id, findings); err != nil {
		t.Fatal(err)
	}
	return id
}

// An invalid e-invoice (read faithfully, breaking a fatal rule) is refused
// at approval, naming its violations, until a reviewer acknowledges it with
// a reason; the acknowledgement is audited with the actor, the reason and the
// violations, and the document posts as any other.
func TestApprovingAnInvalidEInvoiceNeedsAnAcknowledgement(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	ctx := context.Background()
	id := w.flagInvalid(t, `[{"code":"BR-CO-16","severity":"fatal","field":"totals.payable","message":"amount due 337.90 ≠ 336.90"},
		{"code":"line_net_mismatch","severity":"warning","field":"lines[0].net","message":"a warning"}]`)

	_, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor)
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.InvalidState || e.Details["reason"] != intake.FlagInvalidEInvoice || !strings.Contains(e.Message, "BR-CO-16") ||
		strings.Contains(e.Message, "line_net_mismatch") {
		t.Fatalf("approve without an acknowledgement: %v", err)
	}
	if vs, _ := e.Details["violations"].([]review.Violation); len(vs) != 1 || vs[0].Code != "BR-CO-16" || vs[0].Field != "totals.payable" {
		t.Fatalf("violations %#v", e.Details["violations"])
	}
	if _, err := w.App.Decisions.ApproveWith(ctx, w.Org.ID, id, w.Actor, review.Acknowledgement{Invalid: true}); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("an acknowledgement without a reason: %v", err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM jobs`); n != 0 {
		t.Fatalf("%d jobs after refusals", n)
	}

	reason := "supplier confirmed the amount due by phone; credit note follows"
	if _, err := w.App.Decisions.ApproveWith(ctx, w.Org.ID, id, w.Actor, review.Acknowledgement{Invalid: true, Reason: reason}); err != nil {
		t.Fatalf("acknowledged approve: %v", err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'approve' AND subject_id = $1 AND actor = $2
		AND detail->>'acknowledged_invalid' = 'true' AND detail->>'reason' = $3 AND detail->'violations'->0->>'code' = 'BR-CO-16'`,
		id, w.Actor.Label, reason); n != 1 {
		t.Fatalf("%d audited acknowledgements", n)
	}
	w.WaitPosted(t, id)
	if got := w.Entries(t, id); got != 1 {
		t.Fatalf("%d entries", got)
	}
}

// What the ledger cannot hold is never approved, acknowledged or not.
func TestAnUnpostableInvalidEInvoiceIsNeverApproved(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	for _, code := range []string{"amount_out_of_range", "unstorable_text", "BR-CL-04"} {
		id := w.flagInvalid(t, `[{"code":"`+code+`","severity":"fatal","field":"x","message":"m"},{"code":"BR-CO-16","severity":"fatal","field":"totals.payable","message":"m"}]`)
		_, err := w.App.Decisions.ApproveWith(context.Background(), w.Org.ID, id, w.Actor, review.Acknowledgement{Invalid: true, Reason: "approve it anyway"})
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.InvalidState || e.Details["reason"] != "unpostable" || !strings.Contains(e.Message, code) {
			t.Fatalf("%s: %v", code, err)
		}
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM jobs`); n != 0 {
		t.Fatalf("%d jobs", n)
	}
}

// The fatal findings decide, not the flag: an invalid e-invoice filed as a
// duplicate (and so flagged duplicate, not invalid_einvoice) needs the
// acknowledgement all the same, also once marked not a duplicate.
func TestAnInvalidEInvoiceFlaggedAsADuplicateNeedsTheAcknowledgementToo(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	ctx := context.Background()
	incumbent := w.Doc(t, 0)
	dup := w.Doc(t, incumbent)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET findings = $2 WHERE id = $1`, dup,
		`[{"code":"BR-CO-16","severity":"fatal","field":"totals.payable","message":"m"}]`); err != nil {
		t.Fatal(err)
	}
	_, err := w.App.Decisions.Approve(ctx, w.Org.ID, dup, w.Actor)
	if e, ok := apperr.As(err); !ok || e.Code != apperr.InvalidState || e.Details["reason"] != intake.FlagInvalidEInvoice {
		t.Fatalf("approving the flagged duplicate: %v", err)
	}
	if _, err := w.App.Decisions.MarkDistinct(ctx, w.Org.ID, dup, "a different invoice", w.Actor); err != nil {
		t.Fatal(err)
	}
	_, err = w.App.Decisions.Approve(ctx, w.Org.ID, dup, w.Actor)
	if e, ok := apperr.As(err); !ok || e.Code != apperr.InvalidState || e.Details["reason"] != intake.FlagInvalidEInvoice {
		t.Fatalf("approving it once not a duplicate: %v", err)
	}
	if _, err := w.App.Decisions.ApproveWith(ctx, w.Org.ID, dup, w.Actor, review.Acknowledgement{Invalid: true, Reason: "checked with the supplier"}); err != nil {
		t.Fatal(err)
	}
}
