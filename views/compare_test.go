package views_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/review"
	"greatbook/views"
)

// In the side-by-side view the changed characters inside a changed value
// are marked, not only the row.
func TestCompareMarksTheChangeInsideAValue(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Compare(views.CompareView{DocumentID: 7, With: 3,
		Members: []review.Member{{ID: 3}, {ID: 7}},
		Rows: []einvoice.FieldPair{
			{Field: "number", A: "INV-001", B: "INV-001", Same: true},
			{Field: "due date", A: "2026-12-20", B: "2027-01-15"},
			{Field: "payable", A: "1006.74", B: "1060.74"},
		}}))
	rows := doc.Find(`[data-testid=compare-row]`)
	if rows.Length() != 3 {
		t.Fatalf("%d rows", rows.Length())
	}
	if n := rows.Eq(0).Find("mark").Length(); n != 0 {
		t.Errorf("a row that is the same has %d marks", n)
	}
	for i, want := range map[int][2]string{1: {"6-12-20", "7-01-15"}, 2: {"06", "60"}} {
		cells := rows.Eq(i).Find("td")
		for side := range 2 {
			cell := cells.Eq(side)
			if got := cell.Find("mark").Text(); got != want[side] {
				t.Errorf("row %d side %d: marked %q, want %q (cell %q)", i, side, got, want[side], cell.Text())
			}
		}
	}
	if got := rows.Eq(2).Find("td").Eq(0).Text(); got != "1006.74" {
		t.Errorf("the value reads %q whole", got)
	}
}
