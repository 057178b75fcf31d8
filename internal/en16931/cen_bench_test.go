package en16931

import (
	"os"
	"testing"
)

func BenchmarkValidateCEN(b *testing.B) {
	for syn, f := range map[string]string{"ubl": "testdata/examples/en16931-ubl-example2.xml", "cii": "testdata/examples/en16931-cii-example2.xml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(syn, func(b *testing.B) {
			for b.Loop() {
				if _, err := Validate(syn, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
