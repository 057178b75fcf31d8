package einvoice_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

func FuzzParseCII(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := einvoice.ParseCII(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatCII, false)
		if err == nil {
			einvoicetest.CheckBuildRoundTrips(t, d, builders...)
		}
	})
}

func FuzzParseZUGFeRD1(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := einvoice.ParseZUGFeRD1(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatZUGFeRD1, false)
		if err == nil {
			einvoicetest.CheckBuildRoundTrips(t, d, builders...)
		}
	})
}
