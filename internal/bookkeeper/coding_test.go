package bookkeeper_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// codingOf codes every target of d to account, the first line split in
// two: half to account with cost centre OPS, the rest to 6200.
func codingOf(d einvoice.Document, account string) []coding.Row {
	var rows []coding.Row
	for i, tg := range coding.Targets(d) {
		if i == 0 {
			half := tg.Net.Div(decimal.NewFromInt(2)).Round(2)
			rows = append(rows, coding.Row{Line: tg.Line, Account: account, Dimensions: map[string]string{"cost_center": "OPS"}, Amount: half},
				coding.Row{Line: tg.Line, Account: "6200", Dimensions: map[string]string{}, Amount: tg.Net.Sub(half)})
			continue
		}
		rows = append(rows, coding.Row{Line: tg.Line, Account: account, Dimensions: map[string]string{}, Amount: tg.Net})
	}
	return rows
}

func addCostCentres(t *testing.T, db *testkit.DB, orgID int64) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name) SELECT id, 'OPS', 'Operations' FROM d`, orgID); err != nil {
		t.Fatal(err)
	}
}

// A document whose coding covers it posts one debit line per coding row
// (its account, its dimensions and the supplier's, its amount), the VAT by
// the breakdown, the rounding on the first row's account, and the payable,
// without the expense account question the org (no rule, no default) would
// otherwise ask; a coding that leaves a line uncovered posts as before: the
// question is asked.
func TestACodedDocumentPostsRowByRowWithoutAQuestion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "SEK") // the invoice's own currency; no default expense account
	addCostCentres(t, f.db, f.org.ID)
	id := f.insertPending(t)
	rows := codingOf(f.doc, "6100")
	if _, err := coding.Replace(ctx, f.db.Pool, f.org.ID, id, rows, f.actor); err != nil {
		t.Fatal(err)
	}
	if a, err := f.app.Decisions.Approve(ctx, f.org.ID, id, f.actor); err != nil || a.Launch.Outcome != "launched" {
		t.Fatalf("approve: %+v %v", a, err)
	}
	e := f.waitPosted(t, id)
	if len(e.Lines) < len(rows)+2 {
		t.Fatalf("entry lines: %+v", e.Lines)
	}
	for i, r := range rows {
		l := e.Lines[i]
		if l.Account != r.Account || !l.Debit.Equal(r.Amount) || l.Dimensions["cost_center"] != r.Dimensions["cost_center"] || l.Dimensions["supplier"] == "" {
			t.Errorf("line %d: %s %s %v, want row %+v with the supplier", i, l.Account, l.Debit, l.Dimensions, r)
		}
	}
	var vat, payable decimal.Decimal
	for _, l := range e.Lines[len(rows):] {
		switch l.Account {
		case ledger.InputVAT:
			vat = vat.Add(l.Debit)
		case ledger.AccountsPayable:
			payable = payable.Add(l.Credit)
		case rows[0].Account:
			if l.Dimensions["kind"] != "rounding" || !l.Debit.Sub(l.Credit).Equal(f.doc.Totals.Rounding) {
				t.Errorf("a line on the first row's account other than the rounding: %+v", l)
			}
		default:
			t.Errorf("a line beyond the coding, VAT and payable: %+v", l)
		}
	}
	if !vat.Equal(f.doc.Totals.Tax) || !payable.Equal(f.doc.Totals.Payable) {
		t.Errorf("VAT %s, payable %s; want %s, %s", vat, payable, f.doc.Totals.Tax, f.doc.Totals.Payable)
	}
	if n := testkit.Count(t, f.db, `SELECT count(*) FROM account_choices WHERE intake_id = $1`, id); n != 0 {
		t.Errorf("a coded bill recorded %d account choices", n)
	}

	// Coded short of a line: posted as before, by the question.
	partial := f.insertPending(t)
	if err := pgx.BeginFunc(ctx, f.db.Pool, func(tx pgx.Tx) error {
		one := rows[0]
		one.Source = coding.Default
		return coding.WriteTx(ctx, tx, f.org.ID, partial, []coding.Row{one}, "test")
	}); err != nil {
		t.Fatal(err)
	}
	if a, err := f.app.Decisions.Approve(ctx, f.org.ID, partial, f.actor); err != nil || a.Launch.Outcome != "launched" {
		t.Fatalf("approve: %+v %v", a, err)
	}
	if q := f.waitQuestion(t, bookkeeper.AskExpenseAccount); q.IntakeID != partial {
		t.Fatalf("question: %+v", q)
	}
}

// The coding is part of an entry's facts: the same bill posted again with
// the same coding replays its entry, with another coding (another split of
// the same line) it is a source-replay conflict and nothing new is written.
func TestAReplayWithAnotherCodingIsASourceReplayConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.OrgWith(t, db, "replay", "SEK")
	doc := sampleInvoice(t)
	bill := func(rows []coding.Row) ledger.Request {
		t.Helper()
		req, err := bookkeeper.Bill{OrgID: o.ID, IntakeID: 42, Document: doc, Supplier: "vat:SE1", Coding: rows, BaseCurrency: "SEK",
			Rate: decimal.NewFromInt(1)}.Entry()
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	first, err := ledger.Post(ctx, db.Pool, bill(codingOf(doc, "6100")))
	if err != nil {
		t.Fatal(err)
	}
	again, err := ledger.Post(ctx, db.Pool, bill(codingOf(doc, "6100")))
	if err != nil || !again.Replayed || again.Entry.ID != first.Entry.ID {
		t.Fatalf("the same coding again: %+v %v, want a replay of entry %d", again, err, first.Entry.ID)
	}
	other := codingOf(doc, "6100")
	other[0].Account = "6300" // the same amounts, the first row elsewhere
	if _, err := ledger.Post(ctx, db.Pool, bill(other)); !apperr.Is(err, apperr.SourceReplayConflict) {
		t.Fatalf("another coding under the same key: %v, want source_replay_conflict", err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE org_id = $1`, o.ID); n != 1 {
		t.Fatalf("%d entries, want 1", n)
	}
}
