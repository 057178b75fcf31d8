package einvoice

import (
	"testing"
)

func FuzzCarvePDF(f *testing.F) {
	AddSeeds(f, PDFSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		attachments := CarveAttachments(data)
		if len(attachments) > maxAttachments {
			t.Fatalf("%d attachments, more than %d", len(attachments), maxAttachments)
		}
		for _, a := range attachments {
			if len(a.Data) > maxAttachmentSize {
				t.Fatalf("attachment of %d bytes, more than %d", len(a.Data), maxAttachmentSize)
			}
		}
		d, err := ParseFacturX(data)
		CheckParseResult(t, d, err, FormatFacturX, true)
	})
}
