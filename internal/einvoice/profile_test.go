package einvoice

import (
	"strings"
	"testing"
)

// TestProfilesWithoutLinesStillCheckWhatTheyCarry: a BASIC WL or MINIMUM document is not refused for
// having no lines, but its totals must still add up, and a profile with lines still needs them.
func TestProfilesWithoutLinesStillCheckWhatTheyCarry(t *testing.T) {
	t.Parallel()
	codes := func(d Document) string {
		var out []string
		for _, f := range ValidateAt(d, Now) {
			out = append(out, f.Code+" "+f.Field)
		}
		return strings.Join(out, ", ")
	}
	wl, err := Parse(ReadTestdata(t, "facturx-basicwl.xml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := wl
	broken.Totals.Payable = Dec("808.00")
	if got := codes(broken); got != CodePayable+" totals.payable" {
		t.Errorf("BASIC WL with a wrong amount due: %q", got)
	}
	broken = wl
	broken.TaxSubtotals = broken.TaxSubtotals[:1]
	if got := codes(broken); got != CodeTaxTotal+" totals.tax" {
		t.Errorf("BASIC WL missing a VAT subtotal: %q", got)
	}
	broken = wl
	broken.Profile = ProfileEN16931
	if got := codes(broken); !strings.Contains(got, CodeNoLines+" lines") {
		t.Errorf("an EN 16931 document without lines: %q, want %s lines", got, CodeNoLines)
	}

	minimum, err := Parse(ReadTestdata(t, "facturx-minimum.xml"))
	if err != nil {
		t.Fatal(err)
	}
	broken = minimum
	broken.Totals.Gross = Dec("1000.00")
	if got := codes(broken); !strings.Contains(got, CodeGrossTotal) {
		t.Errorf("MINIMUM with a wrong total with VAT: %q", got)
	}
}

func TestProfileOf(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]Profile{
		"":                            "",
		"urn:factur-x.eu:1p0:minimum": ProfileMinimum,
		"urn:factur-x.eu:1p0:basicwl": ProfileBasicWL,
		"urn:zugferd.de:2p0:basicwl":  ProfileBasicWL,
		"urn:zugferd.de:2p0:minimum":  ProfileMinimum,
		"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic":                ProfileBasic,
		"urn:cen.eu:en16931:2017#compliant#urn:zugferd.de:2p0:basic":                 ProfileBasic,
		"urn:cen.eu:en16931:2017":                                                    ProfileEN16931,
		" urn:cen.eu:en16931:2017 ":                                                  ProfileEN16931,
		"urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended":            ProfileExtended,
		"urn:cen.eu:en16931:2017#conformant#urn:zugferd.de:2p0:extended":             ProfileExtended,
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0":      ProfileXRechnung,
		"urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.3": ProfileXRechnung,
		"urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0": ProfilePeppol,
		"urn:cen.eu:en16931:2017#compliant#urn:example.com:cius":                     ProfileEN16931,
		"urn:cen.eu:en16931:2017#conformant#urn:example.com:extension":               ProfileExtended,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:basic":                           ProfileZUGFeRD1Basic,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:comfort":                         ProfileZUGFeRD1Comfort,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:extended":                        ProfileZUGFeRD1Extended,
		"urn:ferd:CrossIndustryDocument:invoice:1p0:premium":                         ProfileOther,
		"urn:order-x.eu:1p0:basic":                                                   ProfileOther,
		"something else":                                                             ProfileOther,
	} {
		if got := ProfileOf(id); got != want {
			t.Errorf("ProfileOf(%q) = %q, want %q", id, got, want)
		}
	}
}
