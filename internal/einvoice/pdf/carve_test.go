package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"strconv"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// carveAttachments returns the embedded files of a PDF as ParseUntil meets them, and the cap the
// carving stopped at, if any.
func carveAttachments(pdf []byte) ([]attachment, *einvoice.ParseError) {
	var out []attachment
	c := carvePDF(nil, pdf)
	c.eachAttachment(func(a attachment) bool {
		out = append(out, a)
		return true
	})
	return out, c.capError()
}

// carve is carveAttachments without the cap.
func carve(pdf []byte) []attachment {
	out, _ := carveAttachments(pdf)
	return out
}

func TestCarveAttachments(t *testing.T) {
	t.Parallel()
	cii := einvoicetest.ReadTestdata(t, "cii-invoice.xml")
	withEndstream := []byte(`<?xml version="1.0"?><note>a stream may contain endstream and endobj</note>`)
	tests := []struct {
		name  string
		pdf   []byte
		names []string
		data  [][]byte
	}{
		{"flate, direct length", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true}}}.Build(),
			[]string{"factur-x.xml"}, [][]byte{cii}},
		{"flate, indirect length", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, Length: "indirect"}}}.Build(),
			[]string{"factur-x.xml"}, [][]byte{cii}},
		{"wrong length falls back to endstream", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, Length: "wrong"}}}.Build(),
			[]string{"factur-x.xml"}, [][]byte{cii}},
		{"unfiltered", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "zugferd-invoice.xml", Data: cii}}}.Build(),
			[]string{"zugferd-invoice.xml"}, [][]byte{cii}},
		{"indirect length keeps an endstream inside the data", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "a.xml", Data: withEndstream, Length: "indirect"}}}.Build(),
			[]string{"a.xml"}, [][]byte{withEndstream}},
		{"stream without /Type found through /EF", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "xrechnung.xml", Data: cii, Flate: true, Untyped: true}}}.Build(),
			[]string{"xrechnung.xml"}, [][]byte{cii}},
		{"typed stream outside the name tree", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, NoNameRef: true}}}.Build(),
			[]string{"factur-x.xml"}, [][]byte{cii}},
		{"file specification in an object stream", einvoicetest.PDF{ObjectStream: true, Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, Untyped: true}}}.Build(),
			[]string{"factur-x.xml"}, [][]byte{cii}},
		{"two attachments in file order", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{
			{Name: "notes.txt", Data: []byte("hello"), Flate: true},
			{Name: "factur-x.xml", Data: cii, Flate: true},
		}}.Build(), []string{"notes.txt", "factur-x.xml"}, [][]byte{[]byte("hello"), cii}},
		{"no attachments", einvoicetest.PDF{Lines: []string{"just text"}}.Build(), nil, nil},
		{"crlf after stream", bytes.ReplaceAll(einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "a.xml", Data: []byte("<a/>")}}}.Build(),
			[]byte("stream\n<a/>"), []byte("stream\r\n<a/>")), []string{"a.xml"}, [][]byte{[]byte("<a/>")}},
		{"unsupported filter is skipped", bytes.Replace(einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "a.xml", Data: []byte("3C612F3E")}}}.Build(),
			[]byte("/Type /EmbeddedFile"), []byte("/Type /EmbeddedFile /Filter /ASCIIHexDecode"), 1), nil, nil},
		{"not a pdf", []byte("hello"), nil, nil},
		{"empty", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := carve(tt.pdf)
			if len(got) != len(tt.data) {
				t.Fatalf("%d attachments, want %d: %+v", len(got), len(tt.data), got)
			}
			for i, a := range got {
				if a.Name != tt.names[i] || !bytes.Equal(a.Data, tt.data[i]) {
					t.Errorf("attachment %d = %q (%d bytes), want %q (%d bytes)", i, a.Name, len(a.Data), tt.names[i], len(tt.data[i]))
				}
			}
		})
	}
}

func TestCarveMustang(t *testing.T) {
	t.Parallel()
	got := carve(einvoicetest.ReadTestdata(t, "samples/mustang-EN16931_Einfach.pdf"))
	if len(got) != 1 || got[0].Name != "factur-x.xml" || got[0].Object != 22 || len(got[0].Data) != 13397 {
		t.Fatalf("attachments %+v, want factur-x.xml, object 22, 13397 bytes (its /Params /Size)", got)
	}
}

func TestFacturXPicksTheInvoice(t *testing.T) {
	t.Parallel()
	pdf := einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{
		{Name: "notes.xml", Data: []byte("<notes>not an invoice</notes>"), Flate: true},
		{Name: "factur-x.xml", Data: einvoicetest.ReadTestdata(t, "cii-invoice.xml"), Flate: true},
	}}.Build()
	d, err := ParseUntil(nil, pdf)
	if err != nil || d.Format != einvoice.FormatFacturX || d.Number != "RE-2026-1187" {
		t.Fatalf("ParseUntil = %s %q, %v", d.Format, d.Number, err)
	}
}

func TestFacturXBrokenCII(t *testing.T) {
	t.Parallel()
	broken := strings.Replace(string(einvoicetest.ReadTestdata(t, "cii-invoice.xml")), ">216.15<", ">two hundred<", 1)
	pdf := einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: []byte(broken), Flate: true}}}.Build()
	_, err := ParseUntil(nil, pdf)
	pe, ok := err.(*einvoice.ParseError)
	if !ok || pe.Format != einvoice.FormatFacturX || !strings.Contains(pe.Field, "DuePayableAmount") {
		t.Fatalf("error = %v, want a facturx ParseError naming DuePayableAmount", err)
	}
}

func TestCarveLimits(t *testing.T) {
	t.Parallel()
	var bomb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&bomb, zlib.BestCompression)
	zw.Write(make([]byte, maxAttachmentSize+1))
	zw.Close()
	pdf := []byte("%PDF-1.7\n1 0 obj\n<< /Type /EmbeddedFile /Filter /FlateDecode /Length " +
		strconv.Itoa(bomb.Len()) + " >>\nstream\n" + bomb.String() + "\nendstream\nendobj\n")
	if got := carve(pdf); len(got) != 0 {
		t.Errorf("a stream inflating past %d bytes was kept", maxAttachmentSize)
	}

	// Each stream stays under the per-stream limit; together they pass the per-PDF budget.
	var big bytes.Buffer
	zw, _ = zlib.NewWriterLevel(&big, zlib.BestCompression)
	zw.Write(make([]byte, 15<<20))
	zw.Close()
	var many strings.Builder
	many.WriteString("%PDF-1.7\n")
	for i := 1; i <= 6; i++ {
		many.WriteString(strconv.Itoa(i) + " 0 obj\n<< /Type /EmbeddedFile /Filter /FlateDecode /Length " +
			strconv.Itoa(big.Len()) + " >>\nstream\n" + big.String() + "\nendstream\nendobj\n")
	}
	if got := carve([]byte(many.String())); len(got) != maxDecodedTotal/(15<<20) {
		t.Errorf("%d attachments of 15 MiB decoded, want %d within the %d byte budget", len(got), maxDecodedTotal/(15<<20), maxDecodedTotal)
	}

	deep := "%PDF-1.7\n1 0 obj\n" + strings.Repeat("[", 100000) + "\nendobj\n"
	if got := carve([]byte(deep)); len(got) != 0 {
		t.Errorf("deep nesting gave attachments")
	}
}

func TestInflateVariants(t *testing.T) {
	t.Parallel()
	want := []byte("<rsm:CrossIndustryInvoice/>")
	var z, raw bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(want)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write(want)
	fw.Close()
	badChecksum := append([]byte{}, z.Bytes()...)
	badChecksum[len(badChecksum)-1] ^= 0xFF
	for name, data := range map[string][]byte{"zlib": z.Bytes(), "raw deflate": raw.Bytes(), "bad checksum": badChecksum} {
		if got, _, ok := inflate(nil, data, maxAttachmentSize); !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: inflate = %q, %v", name, got, ok)
		}
	}
	if _, _, ok := inflate(nil, []byte("not deflate at all"), maxAttachmentSize); ok {
		t.Errorf("garbage inflated")
	}
}

// A filter array of FlateDecode repeated (the file compressed three times
// over) is a legitimate PDF stream: each stage is inflated in turn, within
// the same caps as one.
func TestFacturXReadsAFlateFilterChain(t *testing.T) {
	t.Parallel()
	cii := einvoicetest.ReadTestdata(t, "cii-invoice.xml")
	pdf := einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, FlateChain: 3}}}.Build()
	if !bytes.Contains(pdf, []byte("/Filter [/FlateDecode /FlateDecode /FlateDecode]")) {
		t.Fatal("the test PDF does not chain three filters")
	}
	if got := carve(pdf); len(got) != 1 || !bytes.Equal(got[0].Data, cii) {
		t.Fatalf("attachments %+v, want the CII", got)
	}
	d, err := ParseUntil(nil, pdf)
	if err != nil || d.Format != einvoice.FormatFacturX || d.Number != "RE-2026-1187" {
		t.Fatalf("ParseUntil = %s %q, %v", d.Format, d.Number, err)
	}

	// The per-stream cap holds for the last stage of a chain as for one filter.
	var bomb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&bomb, zlib.BestCompression)
	zw.Write(make([]byte, maxAttachmentSize+1))
	zw.Close()
	var outer bytes.Buffer
	zw, _ = zlib.NewWriterLevel(&outer, zlib.BestCompression)
	zw.Write(bomb.Bytes())
	zw.Close()
	chained := []byte("%PDF-1.7\n1 0 obj\n<< /Type /EmbeddedFile /Filter [/FlateDecode /Fl] /Length " +
		strconv.Itoa(outer.Len()) + " >>\nstream\n" + outer.String() + "\nendstream\nendobj\n")
	if got, capErr := carveAttachments(chained); len(got) != 0 || capErr == nil || capErr.Field != "pdf_decoded_bytes" {
		t.Errorf("a chain inflating past %d bytes: %d attachments, cap %v", maxAttachmentSize, len(got), capErr)
	}
}

// An embedded file the carver cannot decode leaves the PDF without
// structured data, as before, but the error says which file and why, for
// the finding a reviewer reads.
func TestAnEmbeddedFileThatCannotBeReadSaysWhy(t *testing.T) {
	t.Parallel()
	cii := einvoicetest.ReadTestdata(t, "cii-invoice.xml")
	withFilter := func(filter string) []byte {
		return bytes.Replace(einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii}}}.Build(),
			[]byte("/Type /EmbeddedFile"), []byte("/Type /EmbeddedFile /Filter "+filter), 1)
	}
	damaged := einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true}}}.Build()
	file := bytes.Index(damaged, []byte("/Type /EmbeddedFile"))
	start := file + bytes.Index(damaged[file:], []byte("stream\n")) + len("stream\n")
	for i := start + 2; i < start+40; i++ {
		damaged[i] ^= 0x5A
	}
	tests := []struct {
		name string
		pdf  []byte
		says string
	}{
		{"compressed more times than followed", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "factur-x.xml", Data: cii, FlateChain: maxFilterChain + 1}}}.Build(),
			"compressed " + strconv.Itoa(maxFilterChain+1) + " times over"},
		{"a filter this reader does not decode", withFilter("/ASCIIHexDecode"), "ASCIIHexDecode"},
		{"a predictor", withFilter("/FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >>"), "predictor"},
		{"damaged compressed data", damaged, "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseUntil(nil, tt.pdf)
			if !errors.Is(err, einvoice.ErrNoStructuredData) {
				t.Fatalf("ParseUntil: %v, want no structured data", err)
			}
			var ef *einvoice.EmbeddedFileError
			if !errors.As(err, &ef) || ef.Name != "factur-x.xml" || !strings.Contains(ef.Reason, tt.says) {
				t.Fatalf("error %v (%#v), want one naming factur-x.xml and saying %q", err, ef, tt.says)
			}
		})
	}
	if _, err := ParseUntil(nil, einvoicetest.PDF{Lines: []string{"no attachment"}}.Build()); err != einvoice.ErrNoStructuredData {
		t.Errorf("a PDF without attachments: %v", err)
	}
}
