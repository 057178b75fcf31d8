package read

import (
	"errors"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// TestFuzzSeedsReachEveryParser: the seeds FuzzParse starts from are read by every parser Parse
// dispatches to, the ZUGFeRD 1.0 one bare and in a PDF among them, and include the profiles without
// lines and the documents that are not invoices, so mutations start on each path.
func TestFuzzSeedsReachEveryParser(t *testing.T) {
	reached := map[string]bool{}
	for _, seed := range einvoicetest.AllSeeds(t) {
		if einvoicetest.KindOf(seed) == einvoicetest.PDFSeed && len(seed) > 1<<20 {
			continue // the hostile PDFs: TestHostileCorpus reads them
		}
		d, err := Parse(seed)
		var pe *einvoice.ParseError
		switch {
		case err == nil:
			reached[string(d.Format)] = true
			reached[string(d.Format)+"/"+string(d.Profile)] = true
		case errors.As(err, &pe) && pe.Code == einvoice.CodeNotAnInvoice:
			reached[string(pe.Format)+"/"+einvoice.CodeNotAnInvoice] = true
		}
	}
	for _, want := range []string{"ubl", "cii", "facturx", "json", "zugferd1",
		"zugferd1/zugferd1_basic", "zugferd1/zugferd1_comfort", "facturx/zugferd1_comfort",
		"cii/minimum", "cii/basic_wl", "facturx/basic_wl", "cii/not_an_invoice", "facturx/not_an_invoice"} {
		if !reached[want] {
			t.Errorf("no fuzz seed parses as %s", want)
		}
	}
}

func FuzzParse(f *testing.F) {
	einvoicetest.AddSeeds(f, einvoicetest.AnySeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Detect carves a PDF as Parse does, with the same carveCII, so for a PDF its answer is
		// FormatFacturX exactly when Parse finds an embedded invoice; formatOf, which does not carve,
		// names what Parse reads it as, and the PDF is carved once.
		format := formatOf(data)
		d, err := Parse(data)
		switch {
		case err == nil:
			if d.Format != format {
				t.Fatalf("Parse gave %q, Detect %q", d.Format, format)
			}
		case errors.Is(err, einvoice.ErrNoStructuredData):
			if format != einvoice.FormatUnknown && format != einvoice.FormatFacturX {
				t.Fatalf("Detect says %q, Parse found no structured data", format)
			}
		default:
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			// A charset Parse cannot read is refused before the format is known; a cap names itself.
			if pe.Format != format && pe.Code != einvoice.CodeInputCap && pe.Code != einvoice.CodeUnsupportedCharset {
				t.Fatalf("ParseError for %q, Detect says %q", pe.Format, format)
			}
		}
		if err == nil {
			_ = d.SourceRef()
			_ = einvoice.ValidateAt(d, einvoicetest.Now)
		}
	})
}
