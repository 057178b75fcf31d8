package xmltext_test

import (
	"errors"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
)

func TestXMLOverACapIsRefusedNamingIt(t *testing.T) {
	ubl := string(einvoicetest.ReadTestdata(t, "ubl-invoice-multirate.xml"))
	cii := string(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	deep := func(doc, after string, levels int) string {
		return strings.Replace(doc, after, after+strings.Repeat("<x>", levels)+strings.Repeat("</x>", levels), 1)
	}
	for _, tc := range []struct {
		name, data, limit string
	}{
		{"ubl 100,000 levels", deep(ubl, "</cbc:ID>", 100_000), "xml_depth"},
		{"ubl 129 levels", deep(ubl, "</cbc:ID>", 129), "xml_depth"},
		{"cii 100,000 levels", deep(cii, "</ram:ID>", 100_000), "xml_depth"},
		{"huge attribute", strings.Replace(ubl, "<cbc:ID>", `<cbc:ID a="`+strings.Repeat("x", 70_000)+`">`, 1), "xml_attribute_bytes"},
		{"too many elements", strings.Replace(ubl, "</cbc:ID>", "</cbc:ID>"+strings.Repeat("<x/>", 1_000_001), 1), "xml_elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read.Parse([]byte(tc.data))
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) || pe.Code != einvoice.CodeInputCap || pe.Field != tc.limit {
				t.Fatalf("Parse: %#v, want an input_cap error naming %s", err, tc.limit)
			}
		})
	}
	// 128 levels is within the cap: the extra elements are ignored as before.
	if _, err := read.Parse([]byte(deep(ubl, "</cbc:ID>", 120))); err != nil {
		t.Fatalf("120 levels: %v", err)
	}
}
