package ubl_test

import (
	"strings"
	"testing"

	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ubl"
)

func TestUBLDueDateFallback(t *testing.T) {
	t.Parallel()
	base := string(einvoicetest.ReadTestdata(t, "ubl-corrected-384.xml"))
	withoutDue := strings.Replace(base, "<cbc:DueDate>2026-12-03</cbc:DueDate>", "", 1)
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"cbc:DueDate", base, "2026-12-03"},
		{"none", withoutDue, ""},
		{"payment means", strings.Replace(withoutDue, "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>",
			"<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-12-04</cbc:PaymentDueDate>", 1), "2026-12-04"},
		{"payment terms", strings.Replace(withoutDue, "</cac:PaymentMeans>",
			"</cac:PaymentMeans><cac:PaymentTerms><cbc:Note>30 dagar</cbc:Note><cbc:PaymentDueDate>2026-12-05+01:00</cbc:PaymentDueDate></cac:PaymentTerms>", 1), "2026-12-05"},
		{"due date wins over payment means", strings.Replace(base, "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>",
			"<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-12-04</cbc:PaymentDueDate>", 1), "2026-12-03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ubl.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if d.DueDate != tt.want {
				t.Errorf("due date = %q, want %q", d.DueDate, tt.want)
			}
		})
	}
}

func TestUBLTaxTotalInDocumentCurrency(t *testing.T) {
	t.Parallel()
	base := string(einvoicetest.ReadTestdata(t, "ubl-corrected-384.xml"))
	// EN 16931 allows a second TaxTotal, without subtotals, in the tax currency (BT-111); it comes first
	// here to prove the choice is by currency, not by position.
	doc := strings.Replace(base, "<cac:TaxTotal>",
		`<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">209.10</cbc:TaxAmount></cac:TaxTotal><cac:TaxTotal>`, 1)
	d, err := ubl.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Totals.Tax.Equal(einvoicetest.Dec("2400.00")) || len(d.TaxSubtotals) != 1 {
		t.Errorf("tax %s with %d subtotals, want 2400.00 with 1", d.Totals.Tax, len(d.TaxSubtotals))
	}
}
