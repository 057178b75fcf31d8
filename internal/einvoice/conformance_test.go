package einvoice_test

import (
	"bytes"
	"slices"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
)

// TestPublishedExamplesConformToEN16931 parses every published example the package keeps and finds no
// fatal violation of the EN 16931 rules: never stricter than the standard.
func TestPublishedExamplesConformToEN16931(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"en16931-ubl-example2.xml", "en16931-ubl-creditnote1.xml", "peppol-bis3-base-example.xml",
		"en16931-cii-example2.xml", "mustang-EN16931_Einfach.pdf"} {
		d, err := read.Parse(einvoicetest.ReadTestdata(t, "samples/"+name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range d.Conformance {
			if f.Fatal() {
				t.Errorf("%s: fatal %s", name, f.Code+" "+f.Message)
			}
		}
	}
}

// TestConformanceNamesTheBrokenRule breaks the amount due of the published UBL and CII examples: each is
// still read, and its conformance names BR-CO-16, fatal, on BT-115, in both syntaxes alike.
func TestConformanceNamesTheBrokenRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, from, to string }{
		{"en16931-ubl-example2.xml", `<cbc:PayableAmount currencyID="NOK">801.78</cbc:PayableAmount>`, `<cbc:PayableAmount currencyID="NOK">1.00</cbc:PayableAmount>`},
		{"en16931-cii-example2.xml", `<ram:DuePayableAmount>801.78</ram:DuePayableAmount>`, `<ram:DuePayableAmount>1.00</ram:DuePayableAmount>`},
	} {
		data := einvoicetest.ReadTestdata(t, "samples/"+tc.name)
		if !bytes.Contains(data, []byte(tc.from)) {
			t.Fatalf("%s holds no %s", tc.name, tc.from)
		}
		d, err := read.Parse(bytes.Replace(data, []byte(tc.from), []byte(tc.to), 1))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var found bool
		for _, f := range d.Conformance {
			found = found || f.Code == "BR-CO-16" && f.Fatal() && f.Field == "BT-115"
		}
		if !found {
			t.Errorf("%s broken: conformance %+v, want BR-CO-16 fatal on BT-115", tc.name, d.Conformance)
		}
	}
}

// TestTheOfficialVerdictReplacesTheProductsReadingOfTheRules: once CEN's validator judged a document, the
// product's own findings under a published rule's id give way (the official verdict, found or not, is the
// verdict), except what the ledger depends on; the product's own codes stay. Unjudged, everything stays.
func TestTheOfficialVerdictReplacesTheProductsReadingOfTheRules(t *testing.T) {
	own := []einvoice.Finding{
		{Code: einvoice.CodeVATCategoryTax, Severity: einvoice.SeverityFatal},  // BR-CO-17: the product's reading
		{Code: einvoice.CodeCurrencyMissing, Severity: einvoice.SeverityFatal}, // BR-05: the ledger cannot post without it
		{Code: einvoice.CodeNothingToPost, Severity: einvoice.SeverityFatal},   // the product's own code
		{Code: einvoice.CodeIssueDateOutOfRange, Severity: einvoice.SeverityWarning},
	}
	var got []string
	for _, f := range einvoice.Judged(own, true) {
		got = append(got, f.Code)
	}
	if want := []string{einvoice.CodeCurrencyMissing, einvoice.CodeNothingToPost, einvoice.CodeIssueDateOutOfRange}; !slices.Equal(got, want) {
		t.Fatalf("judged: kept %v, want %v", got, want)
	}
	if len(einvoice.Judged(own, false)) != len(own) {
		t.Fatal("a document the rules did not judge lost a finding")
	}
}
