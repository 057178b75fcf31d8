package einvoice

import (
	"testing"
)

// A country alone (what the CII builder writes from a VAT id) is no
// address: the party's address stays zero.
func TestCountryAloneIsNoAddress(t *testing.T) {
	t.Parallel()
	if a := PostalAddress([]string{"", " "}, "", "", "DE"); a != (Address{}) {
		t.Fatalf("a country alone gives %+v", a)
	}
	if a := PostalAddress([]string{"a", "", "b", "c", "d"}, "", "", ""); a != (Address{Line1: "a", Line2: "b", Line3: "c"}) {
		t.Fatalf("lines give %+v", a)
	}
}
