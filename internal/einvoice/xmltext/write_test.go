package xmltext_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ubl"
)

// TestBuildersLeaveOutTheRateOfCategoryO: EN 16931 forbids a VAT rate for category O, not subject to
// VAT (BR-O-05 to BR-O-07), so the builders write none where the model's rate is zero, and the round
// trip still holds; a rate the category should not have is written, for the rules to report.
func TestBuildersLeaveOutTheRateOfCategoryO(t *testing.T) {
	t.Parallel()
	d := einvoicetest.Invoice()
	d.Lines = d.Lines[:1]
	d.Lines[0].TaxCategory, d.Lines[0].TaxRate = "O", decimal.Decimal{}
	d.TaxSubtotals = []einvoice.TaxSubtotal{{Category: "O", Taxable: einvoicetest.Dec("100.00"), Tax: einvoicetest.Dec("0.00")}}
	d.Totals = einvoicetest.TotalsOf("100.00", "0", "0", "100.00", "0.00", "100.00", "0", "0", "100.00")
	for _, syntax := range []struct {
		name, rate string
		build      func(einvoice.Document) ([]byte, error)
		parse      func([]byte) (einvoice.Document, error)
	}{{"cii", "RateApplicablePercent", cii.Build, cii.Parse}, {"ubl", "Percent", ubl.Build, ubl.Parse}} {
		t.Run(syntax.name, func(t *testing.T) {
			t.Parallel()
			data, err := syntax.build(d)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), ":"+syntax.rate+">"); n != 0 {
				t.Errorf("%d %s elements for category O\n%s", n/2, syntax.rate, data)
			}
			back, err := syntax.parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if !einvoicetest.SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
			}
			wrong := d
			wrong.Lines = []einvoice.Line{d.Lines[0]}
			wrong.Lines[0].TaxRate = einvoicetest.Dec("5")
			data, _ = syntax.build(wrong)
			if n := strings.Count(string(data), ":"+syntax.rate+">"); n != 2 {
				t.Errorf("the line's rate 5 of category O is not written\n%s", data)
			}
		})
	}
}
