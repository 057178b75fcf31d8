package einvoice

import (
	"testing"
)

func FuzzParseJSON(f *testing.F) {
	AddSeeds(f, JSONSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseJSON(data)
		CheckParseResult(t, d, err, FormatJSON, false)
		if err != nil {
			return
		}
		own, err := d.MarshalOwnJSON()
		if err != nil {
			return // an amount too long for the format, which MarshalOwnJSON refuses rather than truncates
		}
		back, err := ParseJSON(own)
		if err != nil {
			t.Fatalf("ParseJSON(MarshalOwnJSON(d)): %v\n%s", err, own)
		}
		if !SameFields(t, back, d) {
			t.Fatalf("own JSON round trip changed the document\n got %s\nwant %s", Comparable(t, back), Comparable(t, d))
		}
	})
}
