package einvoice_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// builders are the syntaxes whatever a parser reads is written in and read back from.
var builders = []einvoicetest.Syntax{
	{Name: "CII", Build: einvoice.BuildCII, Parse: einvoice.ParseCII},
	{Name: "UBL", Build: einvoice.BuildUBL, Parse: einvoice.ParseUBL},
}

func FuzzParseUBL(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := einvoice.ParseUBL(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatUBL, false)
		if err == nil {
			einvoicetest.CheckBuildRoundTrips(t, d, builders...)
		}
	})
}
