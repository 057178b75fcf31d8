package pdf

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice/einvoicetest"
)

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
			pdf := einvoicetest.QuadraticObjectStreamPDF(tc.entries, tc.body)
			started := time.Now()
			c := carvePDF(nil, pdf)
			elapsed := time.Since(started)
			decoded := maxDecodedTotal - c.budget
			if bound := pdfWorkFactor * (len(pdf) + decoded); c.work.scanned > bound {
				t.Fatalf("scanned %d bytes, bound %d (%d-byte file, %d decoded)", c.work.scanned, bound, len(pdf), decoded)
			}
			if c.capped != "pdf_work" {
				t.Fatalf("capped %q, want pdf_work", c.capped)
			}
			if _, err := ParseUntil(nil, pdf); !einvoicetest.IsCapError(err, "pdf_work") {
				t.Fatalf("ParseUntil: %v, want an input_cap error naming pdf_work", err)
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
	c := carvePDF(nil, pdf.Bytes())
	if c.capped != "pdf_objects" || c.parsed != maxPDFObjects {
		t.Fatalf("capped %q after %d objects, want pdf_objects after %d", c.capped, c.parsed, maxPDFObjects)
	}
}

// A deflate bomb refused at the per-stream cap used to cost its inflation again for every stream that
// repeated it, and the bytes it produced counted against nothing. Now they count against the total,
// and they are counted, not kept.
func TestInflatedBytesCountAgainstTheTotalEvenWhenRefused(t *testing.T) {
	zeros := make([]byte, maxAttachmentSize+1)
	var atts []einvoicetest.EmbeddedFile
	for i := range 6 {
		atts = append(atts, einvoicetest.EmbeddedFile{Name: fmt.Sprintf("bomb-%d.xml", i), Data: zeros, Flate: true})
	}
	pdf := einvoicetest.PDF{Attachments: atts}.Build()
	// One carving, through ParseUntil: it tries every attachment for the invoice, as eachAttachment does.
	var err error
	alloc := einvoicetest.AllocatedBy(func() { _, err = ParseUntil(nil, pdf) })
	if !einvoicetest.IsCapError(err, "pdf_decoded_bytes") {
		t.Fatalf("ParseUntil: %v, want an input_cap error naming pdf_decoded_bytes", err)
	}
	if alloc > 8<<20 {
		t.Fatalf("carving allocated %d MB for %d bombs it refused", alloc>>20, len(atts))
	}
}
