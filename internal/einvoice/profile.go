package einvoice

import "strings"

// Profile names the e-invoicing profile a document says it follows: what it must carry, and so what
// may be missing from it without anything being wrong.
type Profile string

// zugferd1Guideline is the stem of the specification identifiers of ZUGFeRD 1.0's profiles (":basic",
// ":comfort", ":extended"), in lower case, as ProfileOf compares.
const zugferd1Guideline = "urn:ferd:crossindustrydocument:invoice:1p0"

// The profiles ProfileOf recognises.
const (
	// Factur-X 1.0 / ZUGFeRD 2.x, from the smallest to the largest.
	ProfileMinimum  Profile = "minimum"  // header and totals only: no lines, no VAT breakdown
	ProfileBasicWL  Profile = "basic_wl" // header, VAT breakdown and totals: no lines
	ProfileBasic    Profile = "basic"    // a subset of EN 16931 with lines
	ProfileEN16931  Profile = "en16931"  // EN 16931 itself (also COMFORT, and any CIUS of it not named below)
	ProfileExtended Profile = "extended" // an extension of EN 16931
	// CIUS of EN 16931, in UBL or CII.
	ProfileXRechnung Profile = "xrechnung"
	ProfilePeppol    Profile = "peppol" // Peppol BIS Billing 3.0
	// ZUGFeRD 1.0 (CrossIndustryDocument).
	ProfileZUGFeRD1Basic    Profile = "zugferd1_basic"
	ProfileZUGFeRD1Comfort  Profile = "zugferd1_comfort"
	ProfileZUGFeRD1Extended Profile = "zugferd1_extended"
	// ProfileOther is a specification identifier this package does not know.
	ProfileOther Profile = "other"
)

// ProfileOf names the profile of a specification identifier (BT-24), "" for none. The identifiers
// are compared without case and surrounding whitespace; an EN 16931 CIUS ("urn:cen.eu:en16931:2017
// #compliant#...") this package does not know is ProfileEN16931, since compliant means it is one, and
// an unknown extension ("#conformant#...") is ProfileExtended.
func ProfileOf(specification string) Profile {
	id := strings.ToLower(strings.TrimSpace(specification))
	const en16931 = "urn:cen.eu:en16931:2017"
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, zugferd1Guideline):
		switch strings.TrimPrefix(id, zugferd1Guideline) {
		case ":basic":
			return ProfileZUGFeRD1Basic
		case ":comfort":
			return ProfileZUGFeRD1Comfort
		case ":extended":
			return ProfileZUGFeRD1Extended
		}
		return ProfileOther
	// Factur-X's and ZUGFeRD 2's own names, also behind "#compliant#" or "#conformant#".
	case strings.HasSuffix(id, "urn:factur-x.eu:1p0:minimum"), strings.HasSuffix(id, "urn:zugferd.de:2p0:minimum"):
		return ProfileMinimum
	case strings.HasSuffix(id, "urn:factur-x.eu:1p0:basicwl"), strings.HasSuffix(id, "urn:zugferd.de:2p0:basicwl"):
		return ProfileBasicWL
	case strings.HasSuffix(id, "urn:factur-x.eu:1p0:basic"), strings.HasSuffix(id, "urn:zugferd.de:2p0:basic"):
		return ProfileBasic
	case strings.HasSuffix(id, "urn:factur-x.eu:1p0:extended"), strings.HasSuffix(id, "urn:zugferd.de:2p0:extended"):
		return ProfileExtended
	case strings.Contains(id, "xrechnung"):
		return ProfileXRechnung
	case strings.Contains(id, "urn:fdc:peppol.eu:2017:poacc:billing:"):
		return ProfilePeppol
	case id == en16931, strings.HasPrefix(id, en16931+"#compliant#"):
		return ProfileEN16931
	case strings.HasPrefix(id, en16931+"#conformant#"):
		return ProfileExtended
	}
	return ProfileOther
}

// LinesRequired reports whether the document's profile requires invoice lines (EN 16931 BG-25):
// Factur-X MINIMUM and BASIC WL have none by definition; every other profile, and a document that
// names none, must have one or more.
func (d Document) LinesRequired() bool {
	return d.Profile != ProfileMinimum && d.Profile != ProfileBasicWL
}

// LineAmountsRequired reports whether the document's lines must state their amounts, so that the line
// nets add up to the line total (BT-106): not in the profiles without lines, nor in ZUGFeRD 1.0 BASIC,
// whose lines carry only a quantity and a name.
func (d Document) LineAmountsRequired() bool {
	return d.LinesRequired() && d.Profile != ProfileZUGFeRD1Basic
}

// BreakdownRequired reports whether the document's profile carries the line total and the VAT
// breakdown (BT-106, BG-23) the document totals are checked against: every profile but Factur-X
// MINIMUM, which states only the totals without VAT, the VAT total, the total with VAT and the amount due.
func (d Document) BreakdownRequired() bool {
	return d.Profile != ProfileMinimum
}
