package textfields

import (
	"testing"
	"time"
)

// The Factur-X sample's visible page is a German rendering of its XML:
// the values below are the ones its embedded XML states.
func TestReadMustangSample(t *testing.T) {
	t.Parallel()
	text := pdfText(t, "../einvoice/testdata/samples/mustang-EN16931_Einfach.pdf")
	r := readAt(text, nil, time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
	checkReading(t, r, want{lang: "de", lines: 2, certain: true, doubtful: []string{FieldSellerVAT}, fields: map[string]string{
		FieldNumber: "471102", FieldIssueDate: "2024-11-15", FieldCurrency: "EUR",
		FieldNet: "473", FieldTax: "56.87", FieldPayable: "529.87",
		FieldSellerName: "Lieferant GmbH", FieldBuyerName: "Kunden AG Mitte", FieldSellerVAT: "DE123456789",
	}})
	// DE123456789 is the sample's made-up VAT id: its check digit fails.
	if c := r.Fields[FieldSellerVAT].Confidence; c >= Certain {
		t.Errorf("seller VAT id confidence = %.2f, want below %.2f for a failing check digit", c, Certain)
	}
	d := r.Document
	if len(d.TaxSubtotals) != 2 || d.TaxSubtotals[0].Tax.String() != "19.25" || d.TaxSubtotals[1].Tax.String() != "37.62" {
		t.Errorf("tax subtotals = %+v, want 7%% 19.25 and 19%% 37.62", d.TaxSubtotals)
	}
	if len(d.Lines) == 2 && (d.Lines[0].Description != "Trennblätter A4" || d.Lines[0].Net.String() != "198" ||
		d.Lines[0].Quantity.String() != "20" || d.Lines[0].TaxRate.String() != "19") {
		t.Errorf("first line = %+v", d.Lines[0])
	}
	if r.SupplierKey != "DE123456789" {
		t.Errorf("supplier key = %q", r.SupplierKey)
	}
}
