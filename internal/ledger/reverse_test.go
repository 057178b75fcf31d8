package ledger_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// A reversal's reason is recorded in the audit trail with the actor, in
// the reversal's transaction, and shown with the reversal; reversing again
// replays without a second event, and the first reason stands.
func TestAReversalKeepsItsReasonInTheAuditTrail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	orig, err := ledger.Post(ctx, db.Pool, bill(o, "7"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Reverse(ctx, db.Pool, o.ID, orig.Entry.ID, ledger.Reversal{Reason: strings.Repeat("x", ledger.MaxReversalReason+1),
		Actor: audit.Actor{Label: "tester"}}); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("an overlong reason: %v", err)
	}
	rev, err := ledger.Reverse(ctx, db.Pool, o.ID, orig.Entry.ID, ledger.Reversal{Reason: " posted twice by mistake ", Actor: audit.Actor{Label: "tester"}})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Entry.ReversalReason != "posted twice by mistake" {
		t.Errorf("reason returned: %q", rev.Entry.ReversalReason)
	}
	again, err := ledger.Reverse(ctx, db.Pool, o.ID, orig.Entry.ID, ledger.Reversal{Reason: "other words", Actor: audit.Actor{Label: "someone else"}})
	if err != nil || !again.Replayed || again.Entry.ReversalReason != "posted twice by mistake" {
		t.Fatalf("reversing again: %+v %v", again, err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = $2 AND subject_type = 'journal_entry'
		AND subject_id = $3 AND actor = 'tester' AND detail->>'reason' = 'posted twice by mistake' AND (detail->>'reverses_id')::bigint = $4`,
		o.ID, ledger.AuditReverse, rev.Entry.ID, orig.Entry.ID); n != 1 {
		t.Errorf("%d audit events with the reason", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1`, ledger.AuditReverse); n != 1 {
		t.Errorf("%d reversal events in all, want 1", n)
	}
	got, err := ledger.Get(ctx, db.Pool, o.ID, rev.Entry.ID)
	if err != nil || got.ReversalReason != "posted twice by mistake" {
		t.Fatalf("the reversal read back: %q %v", got.ReversalReason, err)
	}
}
