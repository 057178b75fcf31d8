package einvoice

import (
	"testing"
)

// builders are the syntaxes whatever a parser reads is written in and read back from.
var builders = []Syntax{{"CII", BuildCII, ParseCII}, {"UBL", BuildUBL, ParseUBL}}

func FuzzParseUBL(f *testing.F) {
	AddSeeds(f, XMLSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseUBL(data)
		CheckParseResult(t, d, err, FormatUBL, false)
		if err == nil {
			CheckBuildRoundTrips(t, d, builders...)
		}
	})
}
