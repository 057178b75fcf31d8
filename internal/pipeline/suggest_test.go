package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/bench"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// supplierInvoice is invoice n of the benchmark's supplier (ten lines, the
// first worth 4 × (10.00 + n/100)), its lines described as given (the rest
// keep "Item i").
func supplierInvoice(n int64, descriptions ...string) []byte {
	s := string(bench.UBLInvoice(n))
	for i, d := range descriptions {
		s = strings.Replace(s, fmt.Sprintf("<cbc:Name>Item %d</cbc:Name>", i+1), "<cbc:Name>"+d+"</cbc:Name>", 1)
	}
	return []byte(s)
}

// file ingests content into the world's org through its pipeline and runs
// it to the filing.
func file(t *testing.T, p *pipeline.Pipeline, pool *pgxpool.Pool, orgID int64, content []byte) intake.Document {
	t.Helper()
	ctx := context.Background()
	res, err := p.Ingest(ctx, intake.Arrival{OrgID: orgID, Content: content, MediaType: "application/xml", Via: "api", Actor: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Process(ctx, res.RunID); err != nil {
		t.Fatal(err)
	}
	doc, err := intake.NewPGStore(pool).Get(ctx, orgID, res.Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func readCoding(t *testing.T, w *apptest.World, id int64) []coding.Row {
	t.Helper()
	rows, err := coding.Read(context.Background(), w.DB.Pool, w.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func codingRow(line int, account, amount string, dims map[string]string) coding.Row {
	return coding.Row{Line: &line, Account: account, Amount: decimal.RequireFromString(amount), Dimensions: dims}
}

// The second invoice of a supplier is suggested the first one's coding
// (source history) as soon as it is filed: by line, matched by a similar
// description, with the first's accounts and dimensions, and a split line
// split again in the same proportions to the cent. Before any approval the
// org's default is all there is to suggest.
func TestTheSecondInvoiceOfASupplierIsSuggestedTheFirstOnesCoding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	if _, err := w.DB.Pool.Exec(ctx, `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name) SELECT id, v, v FROM d, unnest(ARRAY['OPS', 'RND']) v`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	first := file(t, w.App.Pipeline, w.DB.Pool, w.Org.ID, supplierInvoice(1, "Adobe Creative Cloud licence November", "Train ticket Berlin"))
	rows := readCoding(t, w, first.ID)
	if len(rows) != 10 {
		t.Fatalf("first invoice: %d suggested rows, want one a line: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Source != coding.Default || r.Account != "6000" {
			t.Errorf("first invoice, before anything is learned: %+v, want the default 6000", r)
		}
	}
	// Line 1 is 40.04: 30% to OPS, 70% to RND.
	reviewed := []coding.Row{codingRow(1, "6200", "12.01", map[string]string{"cost_center": "OPS"}),
		codingRow(1, "6200", "28.03", map[string]string{"cost_center": "RND"}), codingRow(2, "6300", "20.00", map[string]string{"cost_center": "OPS"})}
	for line := 3; line <= 10; line++ {
		reviewed = append(reviewed, codingRow(line, "6100", "20.00", nil))
	}
	if _, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, first.ID, reviewed, w.Actor); err != nil {
		t.Fatal(err)
	}
	if a, err := w.App.Decisions.Approve(ctx, w.Org.ID, first.ID, w.Actor); err != nil || a.Status != intake.Active {
		t.Fatalf("approve: %+v, %v", a, err)
	}

	// Line 1 is now 4 × 12.34 = 49.36.
	second := file(t, w.App.Pipeline, w.DB.Pool, w.Org.ID, supplierInvoice(234, "Adobe Creative Cloud licence December", "Train ticket Berlin"))
	got := readCoding(t, w, second.ID)
	want := []coding.Row{codingRow(1, "6200", "14.81", map[string]string{"cost_center": "OPS"}),
		codingRow(1, "6200", "34.55", map[string]string{"cost_center": "RND"}), codingRow(2, "6300", "20.00", map[string]string{"cost_center": "OPS"})}
	for line := 3; line <= 10; line++ {
		want = append(want, codingRow(line, "6100", "20.00", nil))
	}
	if len(got) != len(want) {
		t.Fatalf("second invoice: %d rows %+v, want %d", len(got), got, len(want))
	}
	for i, r := range got {
		if r.Source != coding.History || *r.Line != *want[i].Line || r.Account != want[i].Account ||
			!r.Amount.Equal(want[i].Amount) || r.Dimensions["cost_center"] != want[i].Dimensions["cost_center"] {
			t.Errorf("second invoice, row %d: %+v, want %+v from history", i, r, want[i])
		}
	}
}

// Where no approved document teaches anything, a supplier's remembered
// account (a bookkeeper's answer with remember) is suggested before the
// org's default; an org with neither gets no suggested rows; a pipeline
// with suggestions off writes none.
func TestSuggestionsFallBackToTheSupplierRuleThenTheDefaultThenNone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	doc := file(t, w.App.Pipeline, w.DB.Pool, w.Org.ID, supplierInvoice(1))
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
		SELECT $1, $2, id, 't' FROM accounts WHERE org_id = $1 AND code = '6400'`, w.Org.ID, coding.SupplierKey(doc.SourceRef)); err != nil {
		t.Fatal(err)
	}
	ruled := file(t, w.App.Pipeline, w.DB.Pool, w.Org.ID, supplierInvoice(2))
	rows := readCoding(t, w, ruled.ID)
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10", len(rows))
	}
	for _, r := range rows {
		if r.Source != coding.SupplierRule || r.Account != "6400" {
			t.Errorf("with the supplier's rule: %+v, want supplier_rule 6400", r)
		}
	}

	for _, forget := range []string{`DELETE FROM supplier_accounts WHERE org_id = $1`, `UPDATE orgs SET default_expense_account_id = NULL WHERE id = $1`} {
		if _, err := w.DB.Pool.Exec(ctx, forget, w.Org.ID); err != nil {
			t.Fatal(err)
		}
	}
	if rows := readCoding(t, w, file(t, w.App.Pipeline, w.DB.Pool, w.Org.ID, supplierInvoice(3)).ID); len(rows) != 0 {
		t.Errorf("with nothing to suggest: %+v, want no rows", rows)
	}

	if _, err := w.DB.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id = (SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	off := pipeline.New(w.DB.Pool, runs.NewEngine(w.DB.Pool, runs.Options{Logger: testkit.Logger(t)}), pipeline.Options{NoSuggestions: true})
	if rows := readCoding(t, w, file(t, off, w.DB.Pool, w.Org.ID, supplierInvoice(4)).ID); len(rows) != 0 {
		t.Errorf("suggestions off: %+v, want no rows", rows)
	}
}

// A bookkeeper's answer remembered for the supplier is the next invoice's
// suggestion (supplier_rule), end to end: an invoice filed with nothing to
// suggest is approved, the bookkeeper asks for its expense account, the
// answer is remembered, and the supplier's next invoice is filed with that
// account suggested for every line.
func TestARememberedAnswerIsTheNextInvoicesSuggestion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: 1})
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id = NULL WHERE id = $1`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	filed := func(n int64) intake.Document {
		t.Helper()
		res, err := w.App.Pipeline.Ingest(ctx, intake.Arrival{OrgID: w.Org.ID, Content: supplierInvoice(n), MediaType: "application/xml", Via: "api", Actor: "t"})
		if err != nil {
			t.Fatal(err)
		}
		var doc intake.Document
		testkit.Eventually(t, 60*time.Second, "not filed", func() (bool, error) {
			doc, err = intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, res.Document.ID)
			return doc.Status != intake.Received, err
		})
		return doc
	}
	first := filed(1)
	if rows := readCoding(t, w, first.ID); first.Status != intake.Pending || len(rows) != 0 {
		t.Fatalf("first invoice %s with %+v, want pending with nothing suggested", first.Status, rows)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, first.ID, w.Actor); err != nil {
		t.Fatal(err)
	}
	asked := false
	testkit.Eventually(t, 60*time.Second, "the first invoice not posted", func() (bool, error) {
		qs, err := w.App.Bookkeeper.Questions(ctx, w.Org.ID)
		if err != nil {
			return false, err
		}
		for _, q := range qs {
			switch q.Kind {
			case bookkeeper.AskExpenseAccount:
				asked = true
				err = w.App.Bookkeeper.Answer(ctx, w.Org.ID, q.RunID, map[string]string{"account": "6200"}, true, w.Actor)
			case bookkeeper.AskExchangeRate: // the world's books are not in the invoice's currency
				err = w.App.Bookkeeper.Answer(ctx, w.Org.ID, q.RunID, map[string]string{"rate": "11"}, true, w.Actor)
			}
			if err != nil {
				return false, err
			}
		}
		doc, err := intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, first.ID)
		return doc.Status == intake.Posted, err
	})
	if !asked {
		t.Fatal("the bookkeeper did not ask for the expense account")
	}
	rows := readCoding(t, w, filed(2).ID)
	if len(rows) != 10 {
		t.Fatalf("second invoice: %+v, want a row a line", rows)
	}
	for _, r := range rows {
		if r.Source != coding.SupplierRule || r.Account != "6200" {
			t.Errorf("second invoice: %+v, want the remembered 6200 as supplier_rule", r)
		}
	}
}

// Facts typed in (pipeline.TypeIn) are suggested a coding where none fits
// yet, and keep a reviewer's rows of the lines whose nets are unchanged.
func TestTypedInFactsAreSuggestedWhereNoReviewerCoded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	var d einvoice.Document
	if err := json.Unmarshal(w.Fields, &d); err != nil {
		t.Fatal(err)
	}
	bare, coded := w.Doc(t, 0), w.Doc(t, 0)
	reviewed := []coding.Row{codingRow(1, "6400", "12000.00", nil), codingRow(2, "6100", "225.00", nil), codingRow(3, "6300", "2900.00", nil),
		codingRow(4, "6200", "747.00", nil), codingRow(5, "6400", "5000.00", nil)}
	if _, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, coded, reviewed, w.Actor); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'flagged', flag_reason = 'invalid_einvoice' WHERE id = ANY($1)`, []int64{bare, coded}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{bare, coded} {
		if _, findings, err := w.App.Pipeline.TypeIn(ctx, w.Org.ID, id, d, w.Actor); err != nil || einvoice.HasFatal(findings) {
			t.Fatalf("type in %d: %v %v", id, findings, err)
		}
	}
	for id, want := range map[int64]coding.Source{bare: coding.Default, coded: coding.Reviewer} {
		rows := readCoding(t, w, id)
		if len(rows) != len(reviewed) {
			t.Fatalf("document %d typed in: %+v, want a row a line", id, rows)
		}
		for i, r := range rows {
			if r.Source != want || (want == coding.Reviewer && r.Account != reviewed[i].Account) {
				t.Errorf("document %d typed in, row %d: %+v, want %s", id, i, r, want)
			}
		}
	}
}
