package ownjson_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
)

func FuzzParseJSON(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.JSONSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ownjson.Parse(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatJSON, false)
		if err != nil {
			return
		}
		own, err := ownjson.Marshal(d)
		if err != nil {
			return // an amount too long for the format, which Marshal refuses rather than truncates
		}
		back, err := ownjson.Parse(own)
		if err != nil {
			t.Fatalf("Parse(Marshal(d)): %v\n%s", err, own)
		}
		if !einvoicetest.SameFields(t, back, d) {
			t.Fatalf("own JSON round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
		}
	})
}
