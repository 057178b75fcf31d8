package pagetext

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxWordsPerPage bounds the words kept of one page: an invoice has a few
// hundred; a page past this is refused as a LimitError with What "words".
const MaxWordsPerPage = 20000

// pdfOutputCap bounds pdftotext's XHTML for one document: about 120 bytes a
// word at the cap of words on every page read.
func pdfOutputCap(pages int) int { return pages*MaxWordsPerPage*120 + 1<<16 }

// pdfPage is what pdfinfo says of one page: its size in points as shown
// (the crop box, turned by the page's rotation), and whether that rotation
// is a quarter turn either way.
type pdfPage struct {
	width, height float64
	quarterTurned bool
}

// pdfInfo runs pdfinfo for the page count and the sizes of pages first..last
// (last is capped at the count).
func (r *reader) pdfInfo(first, last int) (count int, sizes map[int]pdfPage, err error) {
	out, err := r.run("pdfinfo", []string{"-f", strconv.Itoa(first), "-l", strconv.Itoa(last), "in.pdf"}, 4<<20, "words")
	if err != nil {
		return 0, nil, unreadable(err)
	}
	sizes = map[int]pdfPage{}
	rotations := map[int]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch f := strings.Fields(key); {
		case key == "Pages":
			count, _ = strconv.Atoi(value)
		case len(f) == 3 && f[0] == "Page" && f[2] == "size":
			n, _ := strconv.Atoi(f[1])
			var p pdfPage
			if _, err := fmt.Sscanf(value, "%g x %g", &p.width, &p.height); err == nil {
				sizes[n] = p
			}
		case len(f) == 3 && f[0] == "Page" && f[2] == "rot":
			n, _ := strconv.Atoi(f[1])
			rotations[n], _ = strconv.Atoi(value)
		}
	}
	for n, rot := range rotations {
		if p, ok := sizes[n]; ok && (rot == 90 || rot == 270) {
			sizes[n] = pdfPage{width: p.height, height: p.width, quarterTurned: true}
		}
	}
	if count < 1 {
		return 0, nil, &UnreadableError{Reason: "the PDF has no pages"}
	}
	return count, sizes, nil
}

// textLayer runs pdftotext on pages 1..last and returns each page's words
// from the text layer, boxes in fractions of the page as shown.
func (r *reader) textLayer(last int, sizes map[int]pdfPage) ([]Page, error) {
	out, err := r.run("pdftotext", []string{"-bbox-layout", "-enc", "UTF-8", "-f", "1", "-l", strconv.Itoa(last), "in.pdf", "-"}, pdfOutputCap(last), "words")
	if err != nil {
		return nil, unreadable(err)
	}
	turned := map[int]bool{}
	for n, p := range sizes {
		turned[n] = p.quarterTurned
	}
	return parseBBoxLayout(out, last, turned)
}

// parseBBoxLayout reads pdftotext's -bbox-layout XHTML: each page element
// (width and height in points) holds flow, block, line and word elements in
// reading order; a word carries its box as xMin, yMin, xMax, yMax from the
// top left. pdftotext gives a page turned a quarter by its /Rotate the
// width and height of the page unturned, but its words' boxes on the page
// turned; quarterTurned says which pages to swap the two of. At most
// maxPages pages and MaxWordsPerPage words a page are kept.
func parseBBoxLayout(doc []byte, maxPages int, quarterTurned map[int]bool) ([]Page, error) {
	d := xml.NewDecoder(bytes.NewReader(xmlSafe(doc)))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	var pages []Page
	var page *Page
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &UnreadableError{Reason: "pdftotext's output: " + err.Error()}
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch start.Name.Local {
		case "page":
			if len(pages) == maxPages {
				return pages, nil
			}
			n, w, h := len(pages)+1, attrFloat(start, "width"), attrFloat(start, "height")
			if quarterTurned[n] {
				w, h = h, w
			}
			pages = append(pages, Page{Number: n, Source: TextLayer, Width: w, Height: h, Words: []Word{}})
			page = &pages[len(pages)-1]
		case "word":
			if page == nil {
				continue
			}
			var text string
			if err := d.DecodeElement(&text, &start); err != nil {
				return nil, &UnreadableError{Reason: "pdftotext's output: " + err.Error()}
			}
			text = strings.TrimSpace(text)
			if text == "" || page.Width <= 0 || page.Height <= 0 {
				continue
			}
			if len(page.Words) == MaxWordsPerPage {
				return nil, &LimitError{What: "words", Limit: fmt.Sprintf("%d words on page %d", MaxWordsPerPage, page.Number)}
			}
			page.Words = append(page.Words, Word{
				Text: text,
				Page: page.Number,
				Box: normalise(attrFloat(start, "xMin"), attrFloat(start, "yMin"),
					attrFloat(start, "xMax"), attrFloat(start, "yMax"), page.Width, page.Height),
				Conf: 1,
			})
		}
	}
	return pages, nil
}

// xmlSafe replaces what XML forbids (control characters a PDF's fonts may
// map glyphs to, and invalid UTF-8) with spaces, so one odd glyph does not
// lose a document's text.
func xmlSafe(doc []byte) []byte {
	doc = bytes.ToValidUTF8(doc, []byte(" "))
	return bytes.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError {
			return ' '
		}
		return r
	}, doc)
}

func attrFloat(e xml.StartElement, name string) float64 {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return number(a.Value)
		}
	}
	return 0
}

// number parses a tool's number; anything but a finite one is 0, so that
// no NaN reaches a box (JSON has none).
func number(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// normalise turns a box in units of a w×h page into fractions of it,
// clamped to the page.
func normalise(x0, y0, x1, y1, w, h float64) Box {
	c := func(v float64) float64 { return min(max(v, 0), 1) }
	return Box{X0: c(x0 / w), Y0: c(y0 / h), X1: c(x1 / w), Y1: c(y1 / h)}
}

// unreadable turns a PDF tool's own failure into an UnreadableError; limits,
// a missing tool and cancellation pass through.
func unreadable(err error) error {
	var te *toolError
	if !errors.As(err, &te) {
		return err
	}
	reason := te.message
	if strings.Contains(strings.ToLower(reason), "password") {
		reason = "the PDF is encrypted: " + reason
	}
	return &UnreadableError{Reason: reason}
}
