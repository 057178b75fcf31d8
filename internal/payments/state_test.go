package payments_test

import (
	"context"
	"fmt"
	"testing"

	"greatbook/internal/payments"
)

// StatesOf answers for a page of documents what StateOf answers for each:
// the invoice and the credit note netted in its item share the item's
// state, a removed item leaves no state, and a document in no run has none.
func TestStatesOfAgreesWithStateOf(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	inv := b.posted(t, doc{supplier: "acme", number: "A-1", payable: "100.00", iban: ibanA})
	note := b.posted(t, doc{supplier: "acme", number: "CN-1", docType: "credit_note", payable: "30.00", billingRef: "A-1"})
	removed := b.posted(t, doc{supplier: "acme", number: "A-2", payable: "10.00", iban: ibanA})
	kept := b.posted(t, doc{supplier: "beta", number: "B-1", payable: "20.00", iban: ibanB})
	blocked := b.posted(t, doc{supplier: "gamma", number: "G-1", payable: "10", iban: ibanBad})
	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range run.Items {
		if it.IntakeID == removed {
			if run, err = b.svc.RemoveItem(ctx, b.org.ID, run.ID, it.ID, b.ann.Actor()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := b.svc.Approve(ctx, b.org.ID, run.ID, b.bob.Actor()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Export(ctx, b.org.ID, run.ID, b.bob.Actor()); err != nil {
		t.Fatal(err)
	}
	// The statement's part, done by hand: beta's payment booked.
	var entry int64
	if err := b.db.Pool.QueryRow(ctx, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, kept).Scan(&entry); err != nil {
		t.Fatal(err)
	}
	if _, err := b.db.Pool.Exec(ctx, `UPDATE payment_items SET status = 'paid', entry_id = $2, paid_at = now() WHERE intake_id = $1`,
		kept, entry); err != nil {
		t.Fatal(err)
	}

	ids := []int64{inv, note, removed, kept, blocked}
	states, err := payments.StatesOf(ctx, b.db.Pool, b.org.ID, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		one, err := payments.StateOf(ctx, b.db.Pool, b.org.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := describe(states[id]), describe(one); got != want {
			t.Errorf("document %d: StatesOf %s, StateOf %s", id, got, want)
		}
	}
	want := map[int64]string{inv: "sent", note: "sent", kept: fmt.Sprintf("paid entry %d", entry)}
	for _, id := range ids {
		s := states[id]
		got := ""
		if s != nil {
			got = s.Status
			if s.EntryID != nil {
				got += fmt.Sprintf(" entry %d", *s.EntryID)
			}
			if s.RunID != run.ID {
				t.Errorf("document %d in run %d, want %d", id, s.RunID, run.ID)
			}
		}
		if got != want[id] {
			t.Errorf("document %d: %q, want %q", id, got, want[id])
		}
	}
	if states[inv].ItemID != states[note].ItemID {
		t.Errorf("the invoice's item %d is not the credit note's %d", states[inv].ItemID, states[note].ItemID)
	}
	other, err := payments.StatesOf(ctx, b.db.Pool, b.org.ID+1000, ids)
	if err != nil || len(other) != 0 {
		t.Fatalf("another org sees %v, %v", other, err)
	}
}

func describe(s *payments.State) string {
	if s == nil {
		return "none"
	}
	entry := "null"
	if s.EntryID != nil {
		entry = fmt.Sprint(*s.EntryID)
	}
	return fmt.Sprintf("%s run %d item %d entry %s", s.Status, s.RunID, s.ItemID, entry)
}
