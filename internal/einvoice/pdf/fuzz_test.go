package pdf

import (
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

func FuzzCarvePDF(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.PDFSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		attachments := carve(data)
		if len(attachments) > maxAttachments {
			t.Fatalf("%d attachments, more than %d", len(attachments), maxAttachments)
		}
		for _, a := range attachments {
			if len(a.Data) > maxAttachmentSize {
				t.Fatalf("attachment of %d bytes, more than %d", len(a.Data), maxAttachmentSize)
			}
		}
		d, err := ParseUntil(nil, data)
		einvoicetest.CheckParseResult(t, d, err, einvoice.FormatFacturX, true)
	})
}
