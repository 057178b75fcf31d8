package read

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// The buyer's postal address is read from UBL and CII alike (the same
// EN 16931 example in both syntaxes gives one address), for the AP check
// that an invoice is addressed to this org.
func TestBuyerAddressFromUBLAndCII(t *testing.T) {
	t.Parallel()
	want := einvoice.Address{Line1: "Anystreet 8", Line2: "Back door", City: "Anytown", Postcode: "101", Country: "NO"}
	for _, file := range []string{"samples/en16931-ubl-example2.xml", "samples/en16931-cii-example2.xml"} {
		d, err := Parse(einvoicetest.ReadTestdata(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if d.Buyer.Address != want {
			t.Errorf("%s: buyer address %+v, want %+v", file, d.Buyer.Address, want)
		}
		if d.Seller.Address.City == "" {
			t.Errorf("%s: no seller address", file)
		}
	}
}
