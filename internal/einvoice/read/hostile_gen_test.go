package read

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"greatbook/internal/einvoice/einvoicetest"
)

var update = flag.Bool("update", false, "rewrite the generated files of the hostile corpus")

// generatedHostile are the corpus files this package writes: attacks on the parsers, rebuilt from code
// so that each says what it is. Run `go test -run TestGeneratedHostileCorpus -update ./internal/einvoice/read`
// to rewrite them; they are committed (each compresses to a few kilobytes in git).
var generatedHostile = map[string]func(t *testing.T) []byte{
	// 100,000 nested elements inside a UBL invoice (700 KB): the pretty-printer grew with the square of
	// the depth and killed serve when the page opened.
	"deep-xml-100000.xml": func(t *testing.T) []byte {
		return withinUBL(t, strings.Repeat("<a>", 100_000)+"x"+strings.Repeat("</a>", 100_000))
	},
	"deep-json-100000.json": func(t *testing.T) []byte {
		return []byte(`{"type":"invoice","seller":{"name":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}}\n")
	},
	"billion-laughs.xml": func(t *testing.T) []byte {
		var b strings.Builder
		b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE Invoice [\n  <!ENTITY lol \"lol\">\n")
		prev := "lol"
		for i := 1; i <= 9; i++ {
			name := fmt.Sprintf("lol%d", i)
			b.WriteString("  <!ENTITY " + name + " \"" + strings.Repeat("&"+prev+";", 10) + "\">\n")
			prev = name
		}
		b.WriteString("]>\n")
		return withinUBL(t, "<cbc:Note>&lol9;</cbc:Note>", b.String())
	},
	"xxe.xml": func(t *testing.T) []byte {
		return withinUBL(t, "<cbc:Note>&xxe;</cbc:Note>",
			"<?xml version=\"1.0\"?>\n<!DOCTYPE Invoice [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n")
	},
	"huge-attribute.xml": func(t *testing.T) []byte {
		return withinUBL(t, `<cbc:Note a="`+strings.Repeat("A", 200_000)+`">x</cbc:Note>`)
	},
	// A valid invoice with a 900 KB note: no cap refuses it, but its page must stay within the
	// pretty-printer's cap.
	"huge-text.xml": func(t *testing.T) []byte {
		return withinUBL(t, "<cbc:Note>"+strings.Repeat("lorem ipsum ", 75_000)+"</cbc:Note>")
	},
	// Five embedded files of 20 MiB of zeros each (a thousand to one): each inflates to the per-stream
	// cap and is refused; the bytes inflated count against the total, so the fourth stops the carving.
	"pdf-bomb.pdf": func(t *testing.T) []byte {
		zeros := make([]byte, 20<<20)
		var atts []einvoicetest.EmbeddedFile
		for i := range 5 {
			atts = append(atts, einvoicetest.EmbeddedFile{Name: fmt.Sprintf("bomb-%d.xml", i), Data: zeros, Flate: true})
		}
		return einvoicetest.PDF{Lines: []string{"five deflate bombs"}, Attachments: atts}.Build()
	},
	// Object streams that extend and measure themselves and list themselves as their own contents.
	"objstm-self-reference.pdf": func(t *testing.T) []byte {
		var pdf bytes.Buffer
		pdf.WriteString("%PDF-1.7\n")
		for _, n := range []int{5, 6} {
			other := 11 - n
			body := fmt.Sprintf("%d 0 %d 0 << /Type /ObjStm /Extends %d 0 R >> ", n, other, n)
			fmt.Fprintf(&pdf, "%d 0 obj\n<< /Type /ObjStm /N 2 /First 8 /Length %d 0 R /Extends %d 0 R >>\nstream\n%s\nendstream\nendobj\n",
				n, n, other, body)
		}
		pdf.WriteString("trailer\n<< /Root 5 0 R >>\n%%EOF\n")
		return pdf.Bytes()
	},
	// The quadratic object stream (quadraticObjectStreamPDF) at two sizes (about 10 KB and 16 KB).
	"quadratic-objstm-10k.pdf": func(t *testing.T) []byte { return einvoicetest.QuadraticObjectStreamPDF(400_000, 8<<20) },
	"quadratic-objstm-17k.pdf": func(t *testing.T) []byte { return einvoicetest.QuadraticObjectStreamPDF(700_000, 13<<20) },
	"duplicate-keys.json": func(t *testing.T) []byte {
		return bytes.Replace(einvoicetest.ReadTestdata(t, "json-invoice-without-totals.json"), []byte(`"seller": {`),
			[]byte(`"seller": {"name": "Shadow Payee Ltd", `), 1)
	},
	"unknown-charset.xml": func(t *testing.T) []byte {
		return bytes.Replace(einvoicetest.ReadTestdata(t, "cii-invoice.xml"), []byte(`encoding="UTF-8"`), []byte(`encoding="x-unknown"`), 1)
	},
}

// withinUBL puts inner right after the invoice number of a valid UBL invoice, and prolog (when given) in
// place of its XML declaration.
func withinUBL(t *testing.T, inner string, prolog ...string) []byte {
	ubl := string(einvoicetest.ReadTestdata(t, "ubl-invoice-multirate.xml"))
	ubl = strings.Replace(ubl, "<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>NK-2026-0042</cbc:ID>"+inner, 1)
	if len(prolog) > 0 {
		ubl = strings.Replace(ubl, `<?xml version="1.0" encoding="UTF-8"?>`+"\n", prolog[0], 1)
	}
	return []byte(ubl)
}

func TestGeneratedHostileCorpus(t *testing.T) {
	for name, generate := range generatedHostile {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(einvoicetest.HostileDir(t), name)
			if *update {
				if err := os.WriteFile(path, generate(t), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%v: run the tests with -update to generate it", err)
			}
			if _, err := os.Stat(path + ".want.json"); err != nil {
				t.Fatalf("%v: every corpus file has a sidecar saying what must happen", err)
			}
		})
	}
}
