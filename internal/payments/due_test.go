package payments_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"greatbook/internal/payments"
)

// What is due lists the posted invoices still to pay that are due by the
// day asked (overdue ones too) or state no due date, earliest first; not an
// invoice in a live item, a credit note, one with nothing to pay, one due
// later, nor another org's. An invoice whose run was cancelled is due
// again.
func TestDueListsThePostedInvoicesStillToPay(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	overdue := b.posted(t, doc{supplier: "acme", number: "A-1", payable: "336.90", due: "2026-12-01", iban: ibanA})
	sunday := b.posted(t, doc{supplier: "acme", number: "A-2", payable: "10", due: "2026-12-13", iban: ibanA})
	noDue := b.posted(t, doc{supplier: "beta", number: "B-1", payable: "5.50", currency: "USD"})
	badDue := b.posted(t, doc{supplier: "beta", number: "B-2", payable: "7", due: "next week"})
	b.posted(t, doc{supplier: "acme", number: "A-3", payable: "10", due: "2026-12-14", iban: ibanA})
	b.posted(t, doc{supplier: "acme", number: "CN-1", docType: "credit_note", payable: "3", due: "2026-12-01"})
	b.posted(t, doc{supplier: "acme", number: "Z-0", payable: "0", due: "2026-12-01", iban: ibanA})
	inRun := b.posted(t, doc{supplier: "gamma", number: "G-1", payable: "20", due: "2026-12-02", iban: ibanC})
	other := newBooks(t)
	other.posted(t, doc{supplier: "acme", number: "O-1", payable: "10", due: "2026-12-01", iban: ibanA})
	until := time.Date(2026, 12, 13, 0, 0, 0, 0, time.UTC)

	// gamma's invoice goes in a run; beta's and acme's are refused by it
	// (or taken and then removed).
	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-02"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range run.Items {
		if it.IntakeID != inRun {
			if _, err := b.svc.RemoveItem(ctx, b.org.ID, run.ID, it.ID, b.ann.Actor()); err != nil {
				t.Fatal(err)
			}
		}
	}
	ids := func() []int64 {
		t.Helper()
		due, err := payments.Due(ctx, b.db.Pool, b.org.ID, until, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, d := range due {
			out = append(out, d.IntakeID)
		}
		return out
	}
	if got, want := ids(), []int64{overdue, sunday, noDue, badDue}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("due %v, want %v", got, want)
	}

	due, err := payments.Due(ctx, b.db.Pool, b.org.ID, until, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := due[0]
	if len(due) != 1 || d.Number != "A-1" || d.Supplier != "Supplier acme" || d.DueDate != "2026-12-01" || d.Currency != "EUR" ||
		d.Amount.StringFixed(2) != "336.90" || !d.Overdue(until) {
		t.Fatalf("the first due invoice reads %+v", due)
	}

	if _, err := b.svc.Cancel(ctx, b.org.ID, run.ID, b.ann.Actor()); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []int64{overdue, inRun, sunday, noDue, badDue}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("due after the run was cancelled %v, want %v", got, want)
	}
}
