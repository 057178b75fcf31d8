package coding_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/coding"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/ledger"
)

// facts are the world's document's facts; charge adds a document-level
// charge of that much to its total without VAT (a remainder to code).
func facts(t *testing.T, w *apptest.World, charge string) einvoice.Document {
	t.Helper()
	var d einvoice.Document
	if err := json.Unmarshal(w.Fields, &d); err != nil {
		t.Fatal(err)
	}
	d.Totals.Net = d.Totals.Net.Add(decimal.RequireFromString(charge))
	return d
}

// docWith files a document of the world's supplier with facts d.
func docWith(t *testing.T, w *apptest.World, d einvoice.Document) int64 {
	t.Helper()
	id := w.Doc(t, 0)
	b, _ := json.Marshal(d)
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET fields = $2 WHERE id = $1`, id, b); err != nil {
		t.Fatal(err)
	}
	return id
}

func suggest(t *testing.T, w *apptest.World, id int64, d einvoice.Document) []coding.Row {
	t.Helper()
	ctx := context.Background()
	if err := database.WithTx(ctx, w.DB.Pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		coding.QueueSuggestions(b, w.Org.ID, id, "vat:SE1/X", d)
		return tx.SendBatch(ctx, b).Close()
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := coding.Read(ctx, w.DB.Pool, w.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

type want struct {
	line    int // 0: the remainder
	account string
	amount  string
	source  coding.Source
}

func expect(t *testing.T, what string, got []coding.Row, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%s: %d rows %+v, want %d", what, len(got), got, len(wants))
	}
	for i, w := range wants {
		r := got[i]
		line := 0
		if r.Line != nil {
			line = *r.Line
		}
		if line != w.line || r.Account != w.account || !r.Amount.Equal(decimal.RequireFromString(w.amount)) || r.Source != w.source {
			t.Errorf("%s, row %d: line %d %s %s %s, want %+v", what, i, line, r.Account, r.Amount, r.Source, w)
		}
	}
}

// The document-level remainder (a charge) learns from the remainder of the
// supplier's last approved document, split the same way to the cent; a
// learned line whose account has been deactivated since teaches nothing
// (the default is suggested instead); a document that is not approved
// teaches nothing at all.
func TestTheRemainderIsLearnedAndADeactivatedAccountIsNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	taught := facts(t, w, "10.00")
	first := docWith(t, w, taught)
	var nothing *int
	rows := []coding.Row{row(1, "6500", "12000.00", nil), row(2, "6100", "225.00", nil), row(3, "6300", "2900.00", nil),
		row(4, "6200", "747.00", nil), row(5, "6400", "5000.00", nil),
		{Line: nothing, Account: "6100", Amount: decimal.RequireFromString("3.33")}, {Line: nothing, Account: "6300", Amount: decimal.RequireFromString("6.67")}}
	if _, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, first, rows, w.Actor); err != nil {
		t.Fatal(err)
	}
	d := facts(t, w, "20.00")
	expect(t, "before the first is approved", suggest(t, w, docWith(t, w, d), d), []want{
		{1, "6000", "12000.00", coding.Default}, {2, "6000", "225.00", coding.Default}, {3, "6000", "2900.00", coding.Default},
		{4, "6000", "747.00", coding.Default}, {5, "6000", "5000.00", coding.Default}, {0, "6000", "20.00", coding.Default}})

	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'posted' WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	expect(t, "once it is posted", suggest(t, w, docWith(t, w, d), d), []want{
		{1, "6500", "12000.00", coding.History}, {2, "6100", "225.00", coding.History}, {3, "6300", "2900.00", coding.History},
		{4, "6200", "747.00", coding.History}, {5, "6400", "5000.00", coding.History},
		{0, "6100", "6.66", coding.History}, {0, "6300", "13.34", coding.History}})

	if err := ledger.SetAccountActive(ctx, w.DB.Pool, w.Org.ID, "6500", false); err != nil {
		t.Fatal(err)
	}
	got := suggest(t, w, docWith(t, w, d), d)
	if got[0].Account != "6000" || got[0].Source != coding.Default || got[1].Source != coding.History {
		t.Errorf("with 6500 deactivated: %+v, want line 1 on the default and the rest from history", got[:2])
	}
}

// A suggestion never overwrites a reviewer's rows; new facts typed in keep
// a reviewer's rows of every line whose net is unchanged and suggest the
// rest afresh, after them.
func TestSuggestionsNeverOverwriteAReviewerAndARefitKeepsWhatStillFits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	d := facts(t, w, "0")
	id := docWith(t, w, d)
	reviewed := []coding.Row{row(1, "6400", "12000.00", nil), row(2, "6100", "225.00", nil), row(3, "6300", "2900.00", nil),
		row(4, "6200", "747.00", nil), row(5, "6400", "5000.00", nil)}
	if _, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, id, reviewed, w.Actor); err != nil {
		t.Fatal(err)
	}
	all := []want{{1, "6400", "12000.00", coding.Reviewer}, {2, "6100", "225.00", coding.Reviewer}, {3, "6300", "2900.00", coding.Reviewer},
		{4, "6200", "747.00", coding.Reviewer}, {5, "6400", "5000.00", coding.Reviewer}}
	expect(t, "suggested after a reviewer's coding", suggest(t, w, id, d), all)

	typed := d
	typed.Lines = append([]einvoice.Line(nil), d.Lines...)
	typed.Lines[1].Net = decimal.RequireFromString("250.00")
	typed.Totals.Net = typed.Totals.Net.Add(decimal.RequireFromString("25.00"))
	if err := database.WithTx(ctx, w.DB.Pool, func(tx pgx.Tx) error {
		return coding.RefitTx(ctx, tx, w.Org.ID, id, "vat:SE1/X", typed)
	}); err != nil {
		t.Fatal(err)
	}
	got, err := coding.Read(ctx, w.DB.Pool, w.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "refitted to line 2's new net", got, []want{all[0], all[2], all[3], all[4], {2, "6000", "250.00", coding.Default}})
	var by string
	if err := w.DB.Pool.QueryRow(ctx, `SELECT coded_by FROM intake_coding WHERE intake_id = $1 AND line = 1`, id).Scan(&by); err != nil || by != w.Actor.Label {
		t.Errorf("line 1 coded by %q (%v), want the reviewer's row as it was", by, err)
	}
}
