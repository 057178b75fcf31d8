package specimen

import (
	"bytes"
	"context"
	"testing"

	"greatbook/internal/pagetext"
	"greatbook/internal/textfields"
)

func TestSame(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		field, got, want string
		same             bool
	}{
		{textfields.FieldPayable, "1234.50", "1234.5", true},
		{textfields.FieldPayable, "1,234.50", "1234.5", false},
		{textfields.FieldTax, "", "0", false},
		{textfields.FieldSellerName, "MÜLLER Bürotechnik GmbH.", "Müller Bürotechnik GmbH", true},
		{textfields.FieldBuyerName, "Atlas Engineering", "Atlas Engineering B.V.", false},
		{textfields.FieldSellerVAT, "DE 136.695.976", "DE136695976", true},
		{textfields.FieldIBAN, "de89 3704 0044 0532 0130 00", "DE89370400440532013000", true},
		{textfields.FieldNumber, "inv-2026-0042", "INV-2026-0042", true},
		{textfields.FieldNumber, "INV20260042", "INV-2026-0042", false},
		{textfields.FieldIssueDate, "2026-01-02", "2026-02-01", false},
	} {
		if got := same(c.field, c.got, c.want); got != c.same {
			t.Errorf("same(%s, %q, %q) = %v, want %v", c.field, c.got, c.want, got, c.same)
		}
	}
}

// readingBuilt reports whether the text reading reads anything of the
// Factur-X sample's text layer; until it does, the accuracy tests have
// nothing to measure.
func readingBuilt(t *testing.T, c Case) bool {
	t.Helper()
	text, err := pagetext.Read(context.Background(), c.Content, c.MediaType, pagetext.Limits{})
	if err != nil {
		t.Logf("pagetext: %v", err)
		return false
	}
	return len(textfields.Read(text, nil).Fields) > 0
}

// TestReadingAccuracy holds the text reading to its acceptance: the key
// fields of at least 200 specimens in every layout read right from the
// text layer in 95% of cases, from scans (one per layout) in 80%, and the
// Factur-X sample's read right both ways.
func TestReadingAccuracy(t *testing.T) {
	needTools(t, "pdftotext", "pdftoppm", "pdftocairo", "tesseract")
	ctx := context.Background()
	// Scans at 200 dpi, an office scanner's usual setting, keep the OCR of
	// one specimen per layout near a minute and a half on two cores.
	const dpi = 200
	fxText, fxScan, err := FacturXCases(ctx, dpi)
	if err != nil {
		t.Fatal(err)
	}
	if !readingBuilt(t, fxText) {
		t.Skip("textfields.Read reads no field of the Factur-X sample yet")
	}
	layouts := len(Layouts())
	specimens, err := Generate(1, 8*layouts)
	if err != nil {
		t.Fatal(err)
	}
	lim := pagetext.Limits{DPI: dpi}
	text := Measure(ctx, TextCases(specimens), 2, lim)
	scans, err := ScanCases(ctx, specimens[:layouts], dpi, 2)
	if err != nil {
		t.Fatal(err)
	}
	ocr := Measure(ctx, scans, 2, lim)
	fxt := Measure(ctx, []Case{fxText}, 1, lim)
	fxo := Measure(ctx, []Case{fxScan}, 1, lim)
	var table bytes.Buffer
	Print(&table, text, ocr, &fxt, &fxo)
	t.Logf("\n%s", table.String())
	for _, f := range textfields.Key {
		if s := text.First[f]; s.Total < 200 || s.Rate() < 0.95 {
			t.Errorf("text layer: %s read right in %d of %d, want 95%% of at least 200", f, s.Right, s.Total)
		}
		if s := ocr.First[f]; s.Rate() < 0.80 {
			t.Errorf("OCR: %s read right in %d of %d, want 80%%", f, s.Right, s.Total)
		}
		for name, fx := range map[string]Tally{"text layer": fxt, "OCR": fxo} {
			if s := fx.First[f]; s.Right != s.Total {
				t.Errorf("Factur-X sample, %s: %s read wrong", name, f)
			}
		}
	}
	if t.Failed() {
		for _, w := range append(text.Wrong, ocr.Wrong...) {
			t.Log(w)
		}
	}
}

// TestLearnedLayout holds layout learning to its promise: after one
// corrected invoice of a supplier, the next one is read completely.
func TestLearnedLayout(t *testing.T) {
	needTools(t, "pdftotext", "pdftocairo")
	fxText, _, err := FacturXCases(context.Background(), 72)
	if err != nil {
		t.Fatal(err)
	}
	if !readingBuilt(t, fxText) {
		t.Skip("textfields.Read reads no field of the Factur-X sample yet")
	}
	specimens, err := Generate(5, 2*len(Layouts()))
	if err != nil {
		t.Fatal(err)
	}
	tally := Measure(context.Background(), TextCases(specimens), 2, pagetext.Limits{})
	if tally.LearnedDocuments != len(Layouts()) || tally.Complete != tally.LearnedDocuments {
		t.Errorf("after one correction, %d of %d invoices read completely", tally.Complete, tally.LearnedDocuments)
		for _, w := range tally.Wrong {
			t.Log(w)
		}
	}
}

// TestMeasureCounts runs the measure through whatever reading is built: with
// none it reports nothing right, and never fails.
func TestMeasureCounts(t *testing.T) {
	t.Parallel()
	needTools(t, "pdftotext")
	specimens, err := Generate(9, 3)
	if err != nil {
		t.Fatal(err)
	}
	specimens[1].Supplier = specimens[0].Supplier
	tally := Measure(context.Background(), TextCases(specimens), 2, pagetext.Limits{})
	if tally.Documents != 3 || tally.LearnedDocuments != 1 {
		t.Errorf("documents %d, after a correction %d; want 3 and 1", tally.Documents, tally.LearnedDocuments)
	}
	if s := tally.First[textfields.FieldPayable]; s.Total != 3 {
		t.Errorf("payable counted in %d documents, want 3", s.Total)
	}
	var out bytes.Buffer
	Print(&out, tally, Tally{}, nil, nil)
	if !bytes.Contains(out.Bytes(), []byte(textfields.FieldSellerVAT)) {
		t.Errorf("the table lacks a field:\n%s", out.String())
	}
}
