package einvoice_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

func FuzzParseJSON(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.JSONSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := einvoice.ParseJSON(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatJSON, false)
		if err != nil {
			return
		}
		own, err := d.MarshalOwnJSON()
		if err != nil {
			return // an amount too long for the format, which MarshalOwnJSON refuses rather than truncates
		}
		back, err := einvoice.ParseJSON(own)
		if err != nil {
			t.Fatalf("ParseJSON(MarshalOwnJSON(d)): %v\n%s", err, own)
		}
		if !einvoicetest.SameFields(t, back, d) {
			t.Fatalf("own JSON round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
		}
	})
}
