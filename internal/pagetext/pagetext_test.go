package pagetext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// rasterised renders page 1 of pdf as a grey PNG with pdftoppm.
func rasterised(t *testing.T, pdf []byte, dpi int) []byte {
	t.Helper()
	cmd := exec.Command("pdftoppm", "-r", strconv.Itoa(dpi), "-f", "1", "-l", "1", "-gray", "-png")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wordBox finds a word in page and fails the test when it is missing.
func wordBox(t *testing.T, p Page, text string) Box {
	t.Helper()
	for _, w := range p.Words {
		if w.Text == text {
			return w.Box
		}
	}
	t.Fatalf("no word %q in %q", text, wordTexts(p))
	return Box{}
}

// found counts the words of want that are in p.
func found(p Page, want string) (n, of int) {
	have := map[string]bool{}
	for _, w := range p.Words {
		have[w.Text] = true
	}
	for _, w := range strings.Fields(want) {
		of++
		if have[w] {
			n++
		}
	}
	return n, of
}

func near(a, b Box, within float64) bool {
	return math.Abs(a.X0-b.X0) < within && math.Abs(a.Y0-b.Y0) < within &&
		math.Abs(a.X1-b.X1) < within && math.Abs(a.Y1-b.Y1) < within
}

const invoiceWords = "Invoice number INV-2024-001 Rechnungsdatum 12.03.2024 Total due 1234.56 EUR Montant TTC"

// An image is OCRed: most words are found, at the places the text layer
// gives them.
func TestReadImageByOCR(t *testing.T) {
	t.Parallel()
	pdf := pdfWith(t, invoiceLines)
	layer, err := Read(context.Background(), pdf, "application/pdf", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Read(context.Background(), rasterised(t, pdf, 150), "image/png", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	page := text.Pages[0]
	if page.Source != OCR || text.PagesInDocument != 1 {
		t.Fatalf("page %+v of %d", page, text.PagesInDocument)
	}
	// pdftoppm states the resolution in the PNG, so the page has A4's size.
	if math.Abs(page.Width-595) > 2 || math.Abs(page.Height-842) > 2 {
		t.Errorf("page size %.1f×%.1f", page.Width, page.Height)
	}
	if n, of := found(page, invoiceWords); n < of-2 {
		t.Fatalf("OCR found %d of %d words: %q", n, of, wordTexts(page))
	}
	for _, w := range []string{"Invoice", "Total", "Montant"} {
		if got, want := wordBox(t, page, w), wordBox(t, layer.Pages[0], w); !near(got, want, 0.01) {
			t.Errorf("%s at %+v by OCR, %+v by the text layer", w, got, want)
		}
	}
	for _, w := range page.Words {
		if w.Conf <= 0 || w.Conf > 1 {
			t.Errorf("word %+v", w)
		}
	}
}

// A PDF page that is only a picture has no text layer and is OCRed; a page
// beside it with text is read from its layer.
func TestReadScannedPDFPage(t *testing.T) {
	t.Parallel()
	scan := rasterised(t, pdfWith(t, invoiceLines), 150)
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 16)
	p.AddPage()
	p.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(scan))
	p.ImageOptions("scan", 0, 0, 210, 297, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	p.AddPage()
	p.Text(20, 30, "Page two has a text layer")
	var pdf bytes.Buffer
	if err := p.Output(&pdf); err != nil {
		t.Fatal(err)
	}
	text, err := Read(context.Background(), pdf.Bytes(), "application/pdf", Limits{DPI: 150})
	if err != nil {
		t.Fatal(err)
	}
	if len(text.Pages) != 2 {
		t.Fatalf("%d pages", len(text.Pages))
	}
	scanned, layered := text.Pages[0], text.Pages[1]
	if scanned.Source != OCR || layered.Source != TextLayer {
		t.Fatalf("sources %s, %s", scanned.Source, layered.Source)
	}
	if n, of := found(scanned, invoiceWords); n < of-2 {
		t.Fatalf("OCR found %d of %d words: %q", n, of, wordTexts(scanned))
	}
	if x := wordBox(t, scanned, "Invoice").X0; math.Abs(x-20.0/210) > 0.01 {
		t.Errorf("Invoice starts at %.3f", x)
	}
	for _, w := range scanned.Words {
		if w.Page != 1 {
			t.Fatalf("word %+v", w)
		}
	}
	if got := wordTexts(layered); got != "Page two has a text layer" {
		t.Errorf("page 2: %q", got)
	}
}

// A page turned a quarter or upside down is read upright (a quarter by
// tesseract's layout analysis itself; upside down after its orientation
// detection), the words' boxes on the page as given.
func TestReadTurnedImage(t *testing.T) {
	t.Parallel()
	upright := rasterised(t, pdfWith(t, invoiceLines), 150)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "upright.png"), upright, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, turns := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d quarter turns", turns), func(t *testing.T) {
			t.Parallel()
			turned, err := turnImage(filepath.Join(dir, "upright.png"), turns)
			if err != nil {
				t.Fatal(err)
			}
			text, err := Read(context.Background(), turned, "image/png", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			page := text.Pages[0]
			if n, of := found(page, invoiceWords); n < of-2 {
				t.Fatalf("OCR found %d of %d words: %q", n, of, wordTexts(page))
			}
			b := wordBox(t, page, "Invoice")
			want := turnForward(Box{X0: 20.0 / 210, Y0: 0.09, X1: 0.17, Y1: 30.0 / 297}, turns)
			if !near(b, want, 0.02) {
				t.Errorf("Invoice at %+v, want about %+v", b, want)
			}
		})
	}
}

// turnForward is turnBack's inverse: a box on an image as it was, onto the
// image turned clockwise by quarter turns.
func turnForward(b Box, turns int) Box {
	for range (4 - turns) % 4 {
		b = turnBack(b, 1)
	}
	return b
}

// An image of low resolution, a 9 pt line at 72 dpi, is read at twice its
// size, where tesseract finds its words.
func TestReadLowResolutionImage(t *testing.T) {
	t.Parallel()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 9)
	p.AddPage()
	for _, l := range invoiceLines {
		p.Text(l.x, l.y, l.text)
	}
	var pdf bytes.Buffer
	if err := p.Output(&pdf); err != nil {
		t.Fatal(err)
	}
	text, err := Read(context.Background(), rasterised(t, pdf.Bytes(), 72), "image/png", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	page := text.Pages[0]
	if n, of := found(page, invoiceWords); n < of-2 {
		t.Fatalf("OCR found %d of %d words: %q", n, of, wordTexts(page))
	}
	// The page keeps the image's own size: 72 dpi is 1 pixel a point.
	if math.Abs(page.Width-596) > 1 || math.Abs(page.Height-842) > 1 {
		t.Errorf("page size %.1f×%.1f", page.Width, page.Height)
	}
	if x := wordBox(t, page, "Invoice").X0; math.Abs(x-20.0/210) > 0.01 {
		t.Errorf("Invoice starts at %.3f", x)
	}
}

// RenderPage gives a PDF page as a PNG at the dpi asked, and an image as
// itself re-encoded.
func TestRenderPage(t *testing.T) {
	t.Parallel()
	pdf := pdfWith(t, invoiceLines, []line{{20, 30, "Second page"}})
	img, err := RenderPage(context.Background(), pdf, "application/pdf", 2, 50, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	// A4 at 50 dpi, rounded up.
	if cfg.Width != 414 || cfg.Height != 585 {
		t.Errorf("page 2 at 50 dpi is %d×%d", cfg.Width, cfg.Height)
	}
	var ue *UnreadableError
	if _, err := RenderPage(context.Background(), pdf, "application/pdf", 3, 50, Limits{}); !errors.As(err, &ue) {
		t.Errorf("page 3 of 2: %v", err)
	}

	scan := rasterised(t, pdf, 40)
	again, err := RenderPage(context.Background(), scan, "image/png", 1, 300, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := png.Decode(bytes.NewReader(scan))
	if err != nil {
		t.Fatal(err)
	}
	b, err := png.Decode(bytes.NewReader(again))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds() != b.Bounds() || a.At(100, 100) != b.At(100, 100) {
		t.Errorf("the image came back as %v, not %v", b.Bounds(), a.Bounds())
	}
}
