package pagetext

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"codeberg.org/go-pdf/fpdf"
)

// line is text placed on an A4 page at (x, y) millimetres from the top left,
// y being the baseline.
type line struct {
	x, y float64
	text string
}

// invoiceLines are a few invoice lines in the languages read.
var invoiceLines = []line{
	{20, 30, "Invoice number INV-2024-001"},
	{20, 50, "Rechnungsdatum 12.03.2024"},
	{20, 70, "Total due 1234.56 EUR"},
	{120, 90, "Montant TTC"},
}

// pdfWith renders pages of lines with fpdf, 16 pt Helvetica.
func pdfWith(t *testing.T, pages ...[]line) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 16)
	for _, lines := range pages {
		p.AddPage()
		for _, l := range lines {
			p.Text(l.x, l.y, l.text)
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func wordTexts(p Page) string {
	var s []string
	for _, w := range p.Words {
		s = append(s, w.Text)
	}
	return strings.Join(s, " ")
}

func TestReadTextLayer(t *testing.T) {
	t.Parallel()
	text, err := Read(context.Background(), pdfWith(t, invoiceLines), "application/pdf", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(text.Pages) != 1 || text.PagesInDocument != 1 || text.Truncated() {
		t.Fatalf("pages %d of %d", len(text.Pages), text.PagesInDocument)
	}
	page := text.Pages[0]
	if page.Source != TextLayer || math.Abs(page.Width-595.28) > 0.1 || math.Abs(page.Height-841.89) > 0.1 {
		t.Fatalf("page %+v", page)
	}
	want := "Invoice number INV-2024-001 Rechnungsdatum 12.03.2024 Total due 1234.56 EUR Montant TTC"
	if got := wordTexts(page); got != want {
		t.Fatalf("words %q, want %q", got, want)
	}
	// Each line's first word starts at its x and straddles its baseline.
	first := map[string]line{"Invoice": invoiceLines[0], "Rechnungsdatum": invoiceLines[1], "Total": invoiceLines[2], "Montant": invoiceLines[3]}
	for _, w := range page.Words {
		if w.Conf != 1 || w.Page != 1 {
			t.Errorf("word %+v", w)
		}
		l, ok := first[w.Text]
		if !ok {
			continue
		}
		if x := l.x / 210; math.Abs(w.Box.X0-x) > 0.01 {
			t.Errorf("%s starts at %.3f, want %.3f", w.Text, w.Box.X0, x)
		}
		if y := l.y / 297; w.Box.Y0 > y || w.Box.Y1 < y || w.Box.Y1-w.Box.Y0 > 0.03 {
			t.Errorf("%s spans %.3f..%.3f, want around %.3f", w.Text, w.Box.Y0, w.Box.Y1, y)
		}
	}
}
