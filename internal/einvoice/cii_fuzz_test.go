package einvoice

import (
	"testing"
)

func FuzzParseCII(f *testing.F) {
	AddSeeds(f, XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseCII(data)
		CheckParseResult(t, d, err, FormatCII, false)
		if err == nil {
			CheckBuildRoundTrips(t, d, builders...)
		}
	})
}

func FuzzParseZUGFeRD1(f *testing.F) {
	AddSeeds(f, XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseZUGFeRD1(data)
		CheckParseResult(t, d, err, FormatZUGFeRD1, false)
		if err == nil {
			CheckBuildRoundTrips(t, d, builders...)
		}
	})
}
