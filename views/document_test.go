package views_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/views"
)

// A line whose price is for several units (EN 16931 BT-149) says so: 2500
// sheets at 45 per 500 make 225.00, not 2500 × 45.
func TestALinesPriceShowsItsBaseQuantity(t *testing.T) {
	t.Parallel()
	dec := decimal.RequireFromString
	fields := &einvoice.Document{Type: einvoice.TypeInvoice, Number: "INV-1", Currency: "EUR", Lines: []einvoice.Line{
		{Description: "Copy paper", Quantity: dec("2500"), UnitPrice: dec("45"), PriceBaseQuantity: dec("500"), Net: dec("225.00"), TaxRate: dec("25")},
		{Description: "Staples", Quantity: dec("2"), UnitPrice: dec("3.50"), PriceBaseQuantity: dec("1"), Net: dec("7.00"), TaxRate: dec("25")},
		{Description: "Pens", Quantity: dec("3"), UnitPrice: dec("2.00"), Net: dec("6.00"), TaxRate: dec("25")},
	}}
	doc := render(t, views.DocumentPage(views.Chrome{Title: "Document"}, views.DocumentView{
		Doc:      intake.Document{ID: 7, Status: intake.Pending, ContentHash: strings.Repeat("ab", 32)},
		Fields:   fields,
		Decision: views.DecisionView{Doc: intake.Document{ID: 7, Status: intake.Pending}},
	}))
	prices := doc.Find(`[data-testid=line-price]`)
	if prices.Length() != 3 {
		t.Fatalf("%d line prices", prices.Length())
	}
	for i, want := range []string{"45 per 500", "3.5", "2"} {
		if got := strings.Join(strings.Fields(prices.Eq(i).Text()), " "); got != want {
			t.Errorf("line %d: price %q, want %q", i+1, got, want)
		}
	}
}
