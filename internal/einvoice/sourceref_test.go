package einvoice_test

import (
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
)

func TestSourceRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		seller einvoice.Party
		number string
		want   string
	}{
		{"vat", einvoice.Party{Name: "Supplier AB", VATID: "SE556677889901"}, "INV-001", "vat:SE556677889901/INV-001"},
		{"vat with separators and lower case", einvoice.Party{VATID: " se 5566-7788.9901 "}, "inv-001", "vat:SE556677889901/INV-001"},
		{"full-width vat", einvoice.Party{VATID: "ＳＥ５５６６７７８８９９０１"}, "INV-001", "vat:SE556677889901/INV-001"},
		{"vat wins over everything", einvoice.Party{Name: "X", VATID: "DE123456789", EndpointID: "1", LegalID: "2"}, "1", "vat:DE123456789/1"},
		{"endpoint", einvoice.Party{Name: "X", EndpointID: " 5566778899 ", EndpointScheme: "0007", LegalID: "2"}, "1", "endpoint:0007:5566778899/1"},
		{"endpoint is upper case", einvoice.Party{EndpointID: "Rechnung@Example.invalid", EndpointScheme: "em"}, "1", "endpoint:EM:RECHNUNG@EXAMPLE.INVALID/1"},
		{"legal id", einvoice.Party{Name: "X", LegalID: "HRB 99999"}, "1", "legal:HRB99999/1"},
		{"name", einvoice.Party{Name: "  ACME\tAB  "}, "1", "name:acme ab/1"},
		{"compatibility characters in the name", einvoice.Party{Name: "Ａｃｍｅ\u00a0ＡＢ"}, "1", "name:acme ab/1"},
		{"vat of separators only falls through", einvoice.Party{Name: "Acme", VATID: " .-. "}, "1", "name:acme/1"},
		{"no seller", einvoice.Party{}, "1", "name:/1"},
		{"slash in the identity is escaped", einvoice.Party{EndpointID: "a/b%c", EndpointScheme: "x"}, "1", "endpoint:X:A%2FB%25C/1"},
		{"slash in the number is kept", einvoice.Party{VATID: "BE0000000196"}, "018304 / 28865", "vat:BE0000000196/018304 / 28865"},
		{"number whitespace collapsed", einvoice.Party{VATID: "SE1"}, "  inv \t 001\n", "vat:SE1/INV 001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := einvoice.Document{Seller: tt.seller, Number: tt.number}.SourceRef()
			if got != tt.want {
				t.Errorf("SourceRef = %q, want %q", got, tt.want)
			}
		})
	}
}

// flipASCIICase changes the case of some ASCII letters.
func flipASCIICase(t *rapid.T, s, label string) string {
	var b strings.Builder
	for _, r := range s {
		if r < unicode.MaxASCII && unicode.IsLetter(r) && rapid.Bool().Draw(t, label) {
			if unicode.IsUpper(r) {
				r = unicode.ToLower(r)
			} else {
				r = unicode.ToUpper(r)
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

var whitespaceGen = rapid.SampledFrom([]string{" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \r\n "})

// respace pads s and widens its whitespace runs, which must not change what it names.
func respace(t *rapid.T, s, label string) string {
	var b strings.Builder
	if rapid.Bool().Draw(t, label+" lead") {
		b.WriteString(whitespaceGen.Draw(t, label))
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			b.WriteString(whitespaceGen.Draw(t, label))
			continue
		}
		b.WriteRune(r)
	}
	if rapid.Bool().Draw(t, label+" trail") {
		b.WriteString(whitespaceGen.Draw(t, label))
	}
	return b.String()
}

// sprinkle inserts the separators people put in VAT ids.
func sprinkle(t *rapid.T, s, label string) string {
	var b strings.Builder
	for _, r := range s {
		if rapid.IntRange(0, 3).Draw(t, label) == 0 {
			b.WriteString(rapid.SampledFrom([]string{" ", ".", "-", "\u00a0"}).Draw(t, label+" separator"))
		}
		b.WriteRune(r)
	}
	return b.String()
}

var (
	numberGen = rapid.StringMatching(`[A-Za-z0-9/ -]{1,16}|[\p{L}\p{N} ]{1,12}`)
	vatGen    = rapid.StringMatching(`[A-Z]{2}[0-9A-Z]{2,12}`)
	nameGen   = rapid.StringMatching(`[A-Za-zÅÄÖåäöéß&. ]{1,24}`)
)

// TestSourceRefResentProperty: the same seller's document sent again with different spacing, case and
// separators has the same SourceRef.
func TestSourceRefResentProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		number := numberGen.Draw(t, "number")
		var seller einvoice.Party
		switch rapid.IntRange(0, 3).Draw(t, "identity") {
		case 0:
			seller.VATID = vatGen.Draw(t, "vat")
		case 1:
			seller.EndpointID = rapid.StringMatching(`[0-9A-Za-z@.]{1,20}`).Draw(t, "endpoint")
			seller.EndpointScheme = rapid.SampledFrom([]string{"0007", "0088", "EM", "9930"}).Draw(t, "scheme")
		case 2:
			seller.LegalID = rapid.StringMatching(`[0-9A-Z]{4,12}`).Draw(t, "legal id")
		}
		seller.Name = nameGen.Draw(t, "name")
		original := einvoice.Document{Seller: seller, Number: number}

		resent := original
		resent.Number = respace(t, flipASCIICase(t, number, "number case"), "number space")
		resent.Seller.VATID = sprinkle(t, flipASCIICase(t, seller.VATID, "vat case"), "vat separators")
		resent.Seller.EndpointID = respace(t, flipASCIICase(t, seller.EndpointID, "endpoint case"), "endpoint space")
		resent.Seller.EndpointScheme = flipASCIICase(t, seller.EndpointScheme, "scheme case")
		resent.Seller.LegalID = respace(t, seller.LegalID, "legal space")
		resent.Seller.Name = respace(t, flipASCIICase(t, seller.Name, "name case"), "name space")
		if original.SourceRef() != resent.SourceRef() {
			t.Fatalf("re-sent document changed its reference: %q became %q", original.SourceRef(), resent.SourceRef())
		}
	})
}

// TestSourceRefDistinctProperty: different sellers never share a reference for the same number, and
// the reference splits into seller and number at its first '/'.
func TestSourceRefDistinctProperty(t *testing.T) {
	t.Parallel()
	partyGen := rapid.Custom(func(t *rapid.T) einvoice.Party {
		return einvoice.Party{
			Name:           rapid.String().Draw(t, "name"),
			VATID:          rapid.SampledFrom([]string{"", "SE556677889901", "se 5566 7788 9901"}).Draw(t, "vat"),
			EndpointID:     rapid.String().Draw(t, "endpoint"),
			EndpointScheme: rapid.String().Draw(t, "scheme"),
			LegalID:        rapid.String().Draw(t, "legal"),
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := partyGen.Draw(t, "a"), partyGen.Draw(t, "b")
		numberA, numberB := rapid.String().Draw(t, "number a"), rapid.String().Draw(t, "number b")
		refA := einvoice.Document{Seller: a, Number: numberA}.SourceRef()
		refB := einvoice.Document{Seller: b, Number: numberB}.SourceRef()

		identityA, restA, _ := strings.Cut(refA, "/")
		identityB, restB, _ := strings.Cut(refB, "/")
		if identityA != einvoice.SellerIdentity(a) || restA != einvoice.NormaliseNumber(numberA) {
			t.Fatalf("%q does not split into %q and %q", refA, einvoice.SellerIdentity(a), einvoice.NormaliseNumber(numberA))
		}
		if (refA == refB) != (identityA == identityB && restA == restB) {
			t.Fatalf("%q and %q: equal references must mean equal seller and number", refA, refB)
		}
		if identityA != identityB && einvoice.NormaliseNumber(numberA) == einvoice.NormaliseNumber(numberB) && refA == refB {
			t.Fatalf("two sellers share %q", refA)
		}
	})
}

// TestNormalisationIdempotentProperty: normalising a normalised value changes nothing, so stored
// references can be compared with freshly computed ones.
func TestNormalisationIdempotentProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		if n := einvoice.NormaliseNumber(s); einvoice.NormaliseNumber(n) != n {
			t.Fatalf("einvoice.NormaliseNumber(%q) = %q, then %q", s, n, einvoice.NormaliseNumber(n))
		}
		if n := einvoice.NormaliseName(s); einvoice.NormaliseName(n) != n {
			t.Fatalf("einvoice.NormaliseName(%q) = %q, then %q", s, n, einvoice.NormaliseName(n))
		}
		if n := einvoice.NormaliseID(s, ".-"); einvoice.NormaliseID(n, ".-") != n {
			t.Fatalf("einvoice.NormaliseID(%q) = %q, then %q", s, n, einvoice.NormaliseID(n, ".-"))
		}
	})
}

// Found by TestNormalisationIdempotentProperty: U+0345 (Greek ypogegrammeni)
// upper-cases to U+0399, so one pass of NFKC and case mapping was not
// idempotent.
func TestNormalisationOfCombiningYpogegrammeni(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"ᾼ ̀", "ᾳ", "ͅ"} {
		if n := einvoice.NormaliseID(s, ".-"); einvoice.NormaliseID(n, ".-") != n {
			t.Errorf("einvoice.NormaliseID(%q) = %q, then %q", s, n, einvoice.NormaliseID(n, ".-"))
		}
		if n := einvoice.NormaliseNumber(s); einvoice.NormaliseNumber(n) != n {
			t.Errorf("einvoice.NormaliseNumber(%q) = %q, then %q", s, n, einvoice.NormaliseNumber(n))
		}
		if n := einvoice.NormaliseName(s); einvoice.NormaliseName(n) != n {
			t.Errorf("einvoice.NormaliseName(%q) = %q, then %q", s, n, einvoice.NormaliseName(n))
		}
	}
}
