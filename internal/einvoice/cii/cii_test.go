package cii_test

import (
	"strings"
	"testing"

	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/einvoicetest"
)

func TestCIITaxTotalInInvoiceCurrency(t *testing.T) {
	t.Parallel()
	base := string(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	doc := strings.Replace(base, `<ram:TaxTotalAmount currencyID="EUR">34.45</ram:TaxTotalAmount>`,
		`<ram:TaxTotalAmount currencyID="SEK">395.12</ram:TaxTotalAmount><ram:TaxTotalAmount currencyID="EUR">34.45</ram:TaxTotalAmount>`, 1)
	d, err := cii.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Totals.Tax.Equal(einvoicetest.Dec("34.45")) {
		t.Errorf("tax %s, want 34.45", d.Totals.Tax)
	}
}

func TestCIIDateForms(t *testing.T) {
	t.Parallel()
	ciiXML := string(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	tests := []struct{ from, to, want string }{
		{`format="102">20261120`, `format="102">20261120`, "2026-11-20"},
		{`<udt:DateTimeString format="102">20261120`, `<udt:DateTimeString>20261121`, "2026-11-21"},
		{`format="102">20261120`, `format="102">2026-11-22`, "2026-11-22"},
	}
	for _, tt := range tests {
		d, err := cii.Parse([]byte(strings.Replace(ciiXML, tt.from, tt.to, 1)))
		if err != nil || d.IssueDate != tt.want {
			t.Errorf("%s: issue date %q, %v; want %q", tt.to, d.IssueDate, err, tt.want)
		}
	}
}
