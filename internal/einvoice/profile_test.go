package einvoice_test

import (
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
)

// TestProfilesWithoutLinesStillCheckWhatTheyCarry: a BASIC WL or MINIMUM document is not refused for
// having no lines, but its totals must still add up, and a profile with lines still needs them.
func TestProfilesWithoutLinesStillCheckWhatTheyCarry(t *testing.T) {
	t.Parallel()
	codes := func(d einvoice.Document) string {
		var out []string
		for _, f := range einvoice.ValidateAt(d, einvoicetest.Now) {
			out = append(out, f.Code+" "+f.Field)
		}
		return strings.Join(out, ", ")
	}
	wl, err := read.Parse(einvoicetest.ReadTestdata(t, "facturx-basicwl.xml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := wl
	broken.Totals.Payable = einvoicetest.Dec("808.00")
	if got := codes(broken); got != einvoice.CodePayable+" totals.payable" {
		t.Errorf("BASIC WL with a wrong amount due: %q", got)
	}
	broken = wl
	broken.TaxSubtotals = broken.TaxSubtotals[:1]
	if got := codes(broken); got != einvoice.CodeTaxTotal+" totals.tax" {
		t.Errorf("BASIC WL missing a VAT subtotal: %q", got)
	}
	broken = wl
	broken.Profile = einvoice.ProfileEN16931
	if got := codes(broken); !strings.Contains(got, einvoice.CodeNoLines+" lines") {
		t.Errorf("an EN 16931 document without lines: %q, want %s lines", got, einvoice.CodeNoLines)
	}

	minimum, err := read.Parse(einvoicetest.ReadTestdata(t, "facturx-minimum.xml"))
	if err != nil {
		t.Fatal(err)
	}
	broken = minimum
	broken.Totals.Gross = einvoicetest.Dec("1000.00")
	if got := codes(broken); !strings.Contains(got, einvoice.CodeGrossTotal) {
		t.Errorf("MINIMUM with a wrong total with VAT: %q", got)
	}
}

func TestProfileOf(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]einvoice.Profile{
		"":                            "",
		"urn:factur-x.eu:1p0:minimum": einvoice.ProfileMinimum,
		"urn:factur-x.eu:1p0:basicwl": einvoice.ProfileBasicWL,
		"urn:zugferd.de:2p0:basicwl":  einvoice.ProfileBasicWL,
		"urn:zugferd.de:2p0:minimum":  einvoice.ProfileMinimum,
		"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic":                einvoice.ProfileBasic,
		"urn:cen.eu:en16931:2017#compliant#urn:zugferd.de:2p0:basic":                 einvoice.ProfileBasic,
		"urn:cen.eu:en16931:2017":                                                    einvoice.ProfileEN16931,
		" urn:cen.eu:en16931:2017 ":                                                  einvoice.ProfileEN16931,
		"urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended":            einvoice.ProfileExtended,
		"urn:cen.eu:en16931:2017#conformant#urn:zugferd.de:2p0:extended":             einvoice.ProfileExtended,
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0":      einvoice.ProfileXRechnung,
		"urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.3": einvoice.ProfileXRechnung,
		"urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0": einvoice.ProfilePeppol,
		"urn:cen.eu:en16931:2017#compliant#urn:example.com:cius":                     einvoice.ProfileEN16931,
		"urn:cen.eu:en16931:2017#conformant#urn:example.com:extension":               einvoice.ProfileExtended,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:basic":                           einvoice.ProfileZUGFeRD1Basic,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:comfort":                         einvoice.ProfileZUGFeRD1Comfort,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:extended":                        einvoice.ProfileZUGFeRD1Extended,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:premium":                         einvoice.ProfileOther,
		"urn:order-x.eu:1p0:basic":                                                   einvoice.ProfileOther,
		"something else":                                                             einvoice.ProfileOther,
	} {
		if got := einvoice.ProfileOf(id); got != want {
			t.Errorf("ProfileOf(%q) = %q, want %q", id, got, want)
		}
	}
}
