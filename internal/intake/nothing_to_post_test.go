package intake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/testkit"
)

// A document every amount of which is zero is refused at approval, up
// front and typed (invalid_state, reason nothing_to_post), not approved and
// then abandoned by the bookkeeper as a dead letter. It stays where it was,
// so the reviewer can reject it.
func TestApproveRefusesADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	var d einvoice.Document
	if err := json.Unmarshal(w.fields, &d); err != nil {
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
	w.fields, _ = json.Marshal(d)
	id := w.doc(t, 0)

	_, err := w.app.Decisions.Approve(context.Background(), w.org.ID, id, w.actor)
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.InvalidState || e.Details["reason"] != "nothing_to_post" || !strings.Contains(e.Message, "nothing to post") {
		t.Fatalf("approve: %v", err)
	}
	doc, _ := intake.NewPGStore(w.db.Pool).Get(context.Background(), w.org.ID, id)
	if doc.Status != intake.Pending {
		t.Fatalf("the document is %s", doc.Status)
	}
	if n := testkit.Count(t, w.db, `SELECT count(*) FROM jobs`); n != 0 {
		t.Fatalf("%d jobs", n)
	}
}
