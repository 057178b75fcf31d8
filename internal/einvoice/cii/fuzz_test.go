package cii_test

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ubl"
)

// builders are the syntaxes whatever a parser reads is written in and read back from.
var builders = []einvoicetest.Syntax{
	{Name: "CII", Build: cii.Build, Parse: cii.Parse},
	{Name: "UBL", Build: ubl.Build, Parse: ubl.Parse},
}

func FuzzParseCII(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := cii.Parse(data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatCII, false)
		if err == nil {
			einvoicetest.CheckBuildRoundTrips(t, d, builders...)
		}
	})
}

func FuzzParseZUGFeRD1(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := cii.ParseZUGFeRD1Until(nil, data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatZUGFeRD1, false)
		if err == nil {
			einvoicetest.CheckBuildRoundTrips(t, d, builders...)
		}
	})
}
