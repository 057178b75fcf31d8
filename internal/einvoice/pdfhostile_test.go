package einvoice

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
	"time"
)

// quadraticObjectStreamPDF builds a hostile PDF: an object stream whose header lists entries
// objects (all numbered 1, so none is ever stored) at offset 0, where an unterminated string runs for
// body bytes. A lexer that starts afresh for each entry scans body bytes entries times.
func quadraticObjectStreamPDF(entries, body int) []byte {
	var plain bytes.Buffer
	plain.WriteString(strings.Repeat("1 0 ", entries))
	first := plain.Len()
	plain.WriteString("(")
	plain.WriteString(strings.Repeat("a", body))
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(plain.Bytes())
	_ = zw.Close()
	var pdf bytes.Buffer
	fmt.Fprintf(&pdf, "%%PDF-1.7\n5 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n", entries, first, z.Len())
	pdf.Write(z.Bytes())
	pdf.WriteString("\nendstream\nendobj\ntrailer\n<< /Root 5 0 R >>\n%%EOF\n")
	return pdf.Bytes()
}

// The quadratic object stream: unbounded, carving 10 KB of it took 16 s and 17 KB hours. Carving is
// bounded by a work budget proportional to the bytes it has to read, counted deterministically: the test
// bounds that count, not the time (which a loaded machine stretches; the time is logged).
func TestCarvingAQuadraticObjectStreamIsLinear(t *testing.T) {
	for _, tc := range []struct {
		name          string
		entries, body int
	}{
		{"10 KB", 400_000, 8 << 20},
		{"17 KB", 700_000, 13 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdf := quadraticObjectStreamPDF(tc.entries, tc.body)
			started := time.Now()
			c := carvePDF(pdf)
			elapsed := time.Since(started)
			decoded := maxDecodedTotal - c.budget
			if bound := pdfWorkFactor * (len(pdf) + decoded); c.work.scanned > bound {
				t.Fatalf("scanned %d bytes, bound %d (%d-byte file, %d decoded)", c.work.scanned, bound, len(pdf), decoded)
			}
			if c.capped != "pdf_work" {
				t.Fatalf("capped %q, want pdf_work", c.capped)
			}
			if _, err := Parse(pdf); !isCapError(err, "pdf_work") {
				t.Fatalf("Parse: %v, want an input_cap error naming pdf_work", err)
			}
			t.Logf("%d-byte PDF: %d bytes decoded, %d scanned, %v", len(pdf), decoded, c.work.scanned, elapsed)
		})
	}
}

// Objects that fail to parse used to cost nothing against the object limit, so an object stream could
// list any number of them. Now each attempt counts.
func TestFailedObjectsCountAgainstTheObjectLimit(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(strings.Repeat("1 0 ", maxPDFObjects+1))
	first := plain.Len()
	plain.WriteString(")")
	var pdf bytes.Buffer
	fmt.Fprintf(&pdf, "%%PDF-1.7\n5 0 obj\n<< /Type /ObjStm /N %d /First %d /Length %d >>\nstream\n", maxPDFObjects+1, first, plain.Len())
	pdf.Write(plain.Bytes())
	pdf.WriteString("\nendstream\nendobj\n")
	c := carvePDF(pdf.Bytes())
	if c.capped != "pdf_objects" || c.parsed != maxPDFObjects {
		t.Fatalf("capped %q after %d objects, want pdf_objects after %d", c.capped, c.parsed, maxPDFObjects)
	}
}

// A deflate bomb refused at the per-stream cap used to cost its inflation again for every stream that
// repeated it, and the bytes it produced counted against nothing. Now they count against the total,
// and they are counted, not kept.
func TestInflatedBytesCountAgainstTheTotalEvenWhenRefused(t *testing.T) {
	zeros := make([]byte, maxAttachmentSize+1)
	var atts []testAttachment
	for i := range 6 {
		atts = append(atts, testAttachment{name: fmt.Sprintf("bomb-%d.xml", i), data: zeros, flate: true})
	}
	pdf := testPDF{attachments: atts}.build()
	// One carving, through Parse: it tries every attachment for the invoice, as eachAttachment does.
	var err error
	alloc := allocatedBy(func() { _, err = Parse(pdf) })
	if !isCapError(err, "pdf_decoded_bytes") {
		t.Fatalf("Parse: %v, want an input_cap error naming pdf_decoded_bytes", err)
	}
	if alloc > 8<<20 {
		t.Fatalf("carving allocated %d MB for %d bombs it refused", alloc>>20, len(atts))
	}
}
