package einvoice_test

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"greatbook/internal/einvoice/einvoicetest"
)

var update = flag.Bool("update", false, "rewrite the generated files in testdata")

// generatedTestdata are the test files written by code rather than by hand. They are committed; run
// `go test -run TestGeneratedTestdata -update ./internal/einvoice` to rewrite them (zlib output may differ
// between Go releases, so they are only rewritten on request).
var generatedTestdata = map[string]func(t *testing.T) []byte{
	"facturx-invoice.pdf": func(t *testing.T) []byte {
		cii := einvoicetest.ReadTestdata(t, "cii-invoice.xml")
		return einvoicetest.PDF{
			Lines: []string{
				"Papeterie Mueller GmbH - Rechnung RE-2026-1187",
				"Rechnungsdatum 20.11.2026, faellig 20.12.2026",
				"Zu zahlen: 216,15 EUR",
				"Die Rechnungsdaten sind als factur-x.xml eingebettet (Factur-X EN 16931).",
			},
			Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, Length: "indirect"}},
			FacturXMP:   true,
		}.Build()
	},
	"zugferd1-invoice.pdf": func(t *testing.T) []byte {
		return einvoicetest.PDF{
			Lines: []string{
				"Buerobedarf Altmann GmbH - Rechnung ZF1-2026-0815",
				"Rechnungsdatum 05.11.2026, faellig 05.12.2026",
				"Zu zahlen: 479,87 EUR (529,87 EUR abzueglich 50,00 EUR Anzahlung)",
				"Die Rechnungsdaten sind als ZUGFeRD-invoice.xml eingebettet (ZUGFeRD 1.0 COMFORT).",
			},
			Attachments: []einvoicetest.EmbeddedFile{{Name: "ZUGFeRD-invoice.xml", Data: einvoicetest.ReadTestdata(t, "zugferd1-comfort.xml"), Flate: true}},
			XMP:         einvoicetest.ZUGFeRD1XMP,
		}.Build()
	},
	"facturx-basicwl.pdf": func(t *testing.T) []byte {
		return einvoicetest.PDF{
			Lines: []string{
				"Gartenbau Lindner e.K. - Rechnung FX-WL-2026-0031",
				"Lieferung und Montage laut Angebot A-2026-310",
				"Zu zahlen: 809,00 EUR",
				"Die Rechnungsdaten sind als factur-x.xml eingebettet (Factur-X BASIC WL).",
			},
			Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: einvoicetest.ReadTestdata(t, "facturx-basicwl.xml"), Flate: true}},
			FacturXMP:   true,
		}.Build()
	},
	"orderx-order.pdf": func(t *testing.T) []byte {
		return einvoicetest.PDF{
			Lines:       []string{"Kunden AG Mitte - Bestellung PO-2026-88", "Die Bestelldaten sind als order-x.xml eingebettet."},
			Attachments: []einvoicetest.EmbeddedFile{{Name: "order-x.xml", Data: einvoicetest.ReadTestdata(t, "orderx-order.xml"), Flate: true}},
		}.Build()
	},
	"no-embedded-xml.pdf": func(t *testing.T) []byte {
		return einvoicetest.PDF{Lines: []string{
			"Scanned invoice 2026-11 from a supplier without e-invoicing.",
			"Total due: 1 250,00 SEK",
		}}.Build()
	},
	"scanned-invoice.png": func(t *testing.T) []byte {
		img := image.NewGray(image.Rect(0, 0, 48, 64))
		for y := 0; y < 64; y++ {
			for x := 0; x < 48; x++ {
				c := uint8(245)
				if y%8 == 4 && x > 4 && x < 44-(y%16) {
					c = 40 // lines of "text"
				}
				img.SetGray(x, y, color.Gray{Y: c})
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	},
}

func TestGeneratedTestdata(t *testing.T) {
	for name, generate := range generatedTestdata {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(path, generate(t), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%v: run the tests with -update to generate it", err)
			}
		})
	}
}
