package textfields

import (
	"bytes"
	"encoding/xml"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"greatbook/internal/pagetext"
)

// placed is text printed at a place on a page (fractions of the page, top
// left), as a test lays out an invoice by hand.
type placed struct {
	x, y float64
	text string
}

// charWidth and lineHeight approximate a 10-point font on an A4 page.
const (
	charWidth  = 0.0085
	lineHeight = 0.012
)

// page builds a page's words from placed texts: each text is split at
// spaces into words whose width follows their length.
func page(n int, items ...placed) pagetext.Page {
	p := pagetext.Page{Number: n, Source: pagetext.TextLayer, Width: 595, Height: 842}
	for _, it := range items {
		x := it.x
		for _, w := range strings.Fields(it.text) {
			width := float64(utf8.RuneCountInString(w)) * charWidth
			p.Words = append(p.Words, pagetext.Word{Text: w, Page: n, Conf: 1,
				Box: pagetext.Box{X0: x, Y0: it.y, X1: x + width, Y1: it.y + lineHeight}})
			x += width + charWidth
		}
	}
	return p
}

func doc(pages ...pagetext.Page) pagetext.Text {
	return pagetext.Text{Pages: pages, PagesInDocument: len(pages)}
}

// pdfText reads a PDF's words with pdftotext -bbox-layout, as the page
// text reader does.
func pdfText(t *testing.T, path string) pagetext.Text {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("pdftotext is not installed (poppler-utils; make test installs it): %v", err)
	}
	out, err := exec.Command("pdftotext", "-bbox-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	type word struct {
		XMin string `xml:"xMin,attr"`
		YMin string `xml:"yMin,attr"`
		XMax string `xml:"xMax,attr"`
		YMax string `xml:"yMax,attr"`
		Text string `xml:",chardata"`
	}
	type pg struct {
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
		Words  []word `xml:"flow>block>line>word"`
	}
	var html struct {
		Pages []pg `xml:"body>doc>page"`
	}
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	if err := dec.Decode(&html); err != nil {
		t.Fatalf("pdftotext output: %v", err)
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	var text pagetext.Text
	for i, p := range html.Pages {
		w, h := f(p.Width), f(p.Height)
		pp := pagetext.Page{Number: i + 1, Source: pagetext.TextLayer, Width: w, Height: h}
		for _, wd := range p.Words {
			pp.Words = append(pp.Words, pagetext.Word{Text: wd.Text, Page: i + 1, Conf: 1,
				Box: pagetext.Box{X0: f(wd.XMin) / w, Y0: f(wd.YMin) / h, X1: f(wd.XMax) / w, Y1: f(wd.YMax) / h}})
		}
		text.Pages = append(text.Pages, pp)
	}
	text.PagesInDocument = len(text.Pages)
	return text
}
