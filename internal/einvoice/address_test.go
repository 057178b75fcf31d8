package einvoice_test

import (
	"testing"

	"greatbook/internal/einvoice"
)

// A country alone (what the CII builder writes from a VAT id) is no
// address: the party's address stays zero.
func TestCountryAloneIsNoAddress(t *testing.T) {
	t.Parallel()
	if a := einvoice.PostalAddress([]string{"", " "}, "", "", "DE"); a != (einvoice.Address{}) {
		t.Fatalf("a country alone gives %+v", a)
	}
	if a := einvoice.PostalAddress([]string{"a", "", "b", "c", "d"}, "", "", ""); a != (einvoice.Address{Line1: "a", Line2: "b", Line3: "c"}) {
		t.Fatalf("lines give %+v", a)
	}
}
