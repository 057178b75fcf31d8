package textfields

import (
	"testing"
)

func TestReadMustangSample(t *testing.T) {
	text := pdfText(t, "../einvoice/testdata/samples/mustang-EN16931_Einfach.pdf")
	if len(text.Pages) != 2 {
		t.Fatalf("pages = %d, want 2", len(text.Pages))
	}
	r := Read(text, nil)
	d := r.Document
	t.Logf("%+v", d)
	t.Logf("fields %+v uncertain %v lang %s key %s", r.Fields, r.Uncertain, r.Language, r.SupplierKey)
}
