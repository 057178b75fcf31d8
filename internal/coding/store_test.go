package coding_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/apperr"
	"greatbook/internal/coding"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func row(line int, account, amount string, dims map[string]string) coding.Row {
	r := coding.Row{Account: account, Amount: decimal.RequireFromString(amount), Dimensions: dims}
	if line > 0 {
		r.Line = &line
	}
	return r
}

// A reviewer's coding is stored as given, every row the reviewer's, and
// read back in order; a coding that misses a line's net, or names what the
// chart lacks, is refused naming the row, and writes nothing.
func TestACodingIsReplacedWholeAndCheckedRowByRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := apptest.NewWorld(t, app.Config{Workers: -1})
	if _, err := w.DB.Pool.Exec(ctx, `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name, active) SELECT id, v.code, v.code, v.active FROM d,
		(VALUES ('OPS', true), ('OLD', false)) AS v (code, active)`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	id := w.Doc(t, 0)
	ops := map[string]string{"cost_center": "OPS"}
	good := []coding.Row{row(1, "6000", "7000.00", ops), row(1, "6000", "5000", nil), row(2, "6000", "225.00", nil),
		row(3, "6000", "2900.00", nil), row(4, "6000", "747.00", nil), row(5, "6000", "5000.00", ops)}
	got, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, id, good, w.Actor)
	if err != nil {
		t.Fatal(err)
	}
	read, err := coding.Read(ctx, w.DB.Pool, w.Org.ID, id)
	if err != nil || len(read) != len(good) || len(got) != len(good) {
		t.Fatalf("read %d rows (%v), want %d", len(read), err, len(good))
	}
	for i, r := range read {
		if r.Source != coding.Reviewer || *r.Line != *good[i].Line || !r.Amount.Equal(good[i].Amount) || r.Dimensions["cost_center"] != good[i].Dimensions["cost_center"] {
			t.Errorf("row %d: %+v, want %+v", i, r, good[i])
		}
	}
	for name, bad := range map[string]struct {
		rows  []coding.Row
		field string
	}{
		"a line's rows short of its net": {append([]coding.Row{row(1, "6000", "6999.99", ops)}, good[1:]...), "coding[0].amount"},
		"a line without a row":           {good[:5], "coding"},
		"an unknown account":             {append([]coding.Row{row(1, "9999x", "7000.00", ops)}, good[1:]...), "coding[0].account"},
		"an inactive value":              {append([]coding.Row{row(1, "6000", "7000.00", map[string]string{"cost_center": "OLD"})}, good[1:]...), "coding[0].dimensions.cost_center"},
		"an unknown dimension":           {append([]coding.Row{row(1, "6000", "7000.00", map[string]string{"project": "X"})}, good[1:]...), "coding[0].dimensions.project"},
		"a line the document lacks":      {append(good, row(6, "6000", "1.00", nil)), "coding[6].line"},
		"a document-level row":           {append(good, row(0, "6000", "1.00", nil)), "coding[6].line"},
	} {
		_, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, id, bad.rows, w.Actor)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Invalid {
			t.Errorf("%s: %v, want invalid", name, err)
			continue
		}
		reasons, _ := e.Details["reasons"].([]coding.Fault)
		if len(reasons) == 0 || reasons[0].Field != bad.field {
			t.Errorf("%s: reasons %+v, want the first naming %s", name, reasons, bad.field)
		}
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_coding WHERE intake_id = $1`, id); n != len(good) {
		t.Errorf("rows after the refusals: %d, want %d", n, len(good))
	}
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, id, good, w.Actor); !apperr.Is(err, apperr.InvalidState) {
		t.Errorf("coding an active document: %v, want invalid_state", err)
	}
}
