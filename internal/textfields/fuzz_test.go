package textfields

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// wordsFromBytes turns fuzz input into a text: each line of data is one
// word, its first eight bytes (when it has them) its box and its page, the
// rest its text; so the fuzzer controls places, overlaps and odd boxes as
// well as the words.
func wordsFromBytes(data []byte) pagetext.Text {
	pages := []pagetext.Page{{Number: 1}, {Number: 2}}
	for _, line := range strings.Split(string(data), "\n") {
		var box pagetext.Box
		p := 0
		if len(line) >= 8 {
			b := []byte(line[:8])
			coord := func(i int) float64 { return float64(binary.BigEndian.Uint16(b[i:i+2])) / 50000 }
			box = pagetext.Box{X0: coord(0), Y0: coord(2), X1: coord(4), Y1: coord(6)}
			p = int(b[0] % 2)
			line = line[8:]
		}
		pages[p].Words = append(pages[p].Words, pagetext.Word{Text: line, Page: p + 1, Box: box, Conf: 0.9})
	}
	return pagetext.Text{Pages: pages, PagesInDocument: 2}
}

// textBytes writes a text the way wordsFromBytes reads it, for seeds.
func textBytes(t pagetext.Text) []byte {
	var b []byte
	for _, p := range t.Pages {
		for _, w := range p.Words {
			var head [8]byte
			for i, v := range []float64{w.Box.X0, w.Box.Y0, w.Box.X1, w.Box.Y1} {
				binary.BigEndian.PutUint16(head[2*i:], uint16(math.Min(v, 1)*50000))
			}
			b = append(b, head[:]...)
			b = append(b, strings.ReplaceAll(w.Text, "\n", " ")...)
			b = append(b, '\n')
		}
	}
	return b
}

func checkInvariants(t *testing.T, r Reading) {
	t.Helper()
	for name, f := range r.Fields {
		for _, v := range []float64{f.Box.X0, f.Box.Y0, f.Box.X1, f.Box.Y1} {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("%s box %+v outside the page", name, f.Box)
			}
		}
		if f.Confidence < 0 || f.Confidence > 1 || math.IsNaN(f.Confidence) {
			t.Fatalf("%s confidence %v", name, f.Confidence)
		}
	}
	for _, k := range Key {
		if _, ok := r.Fields[k]; !ok && !containsString(r.Uncertain, k) {
			t.Fatalf("key field %s neither read nor named uncertain", k)
		}
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzRead(f *testing.F) {
	for _, text := range []pagetext.Text{englishInvoice(), germanInvoice(), frenchInvoice(), dutchInvoice()} {
		f.Add(textBytes(text))
	}
	f.Add([]byte("Rechnung Nr. 1 vom 1.1.2026\nIBAN DE89\n3704\n0044\n0532\n0130\n00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text := wordsFromBytes(data)
		r := Read(text, nil)
		checkInvariants(t, r)
		layout := Learn(text, r.Document)
		checkInvariants(t, Read(text, &layout))
	})
}

// A reading never panics, keeps every box on the page and names every key
// field it did not read, whatever words it is given, at first sight and by
// a layout learned from another text.
func TestReadPropertyAnyWords(t *testing.T) {
	t.Parallel()
	vocabulary := []string{"Invoice", "No:", "Rechnungsnummer:", "Datum", "Total", "MwSt.", "19", "%", "€", "EUR",
		"1.234,56", "1,234.56", "02.01.2026", "2", "Januar", "2026", "IBAN", "DE89", "3704", "0044", "0532", "0130", "00",
		"USt-IdNr.:", "DE136695976", "Kunde", "GmbH", "Description", "Qty", "Amount", "Gutschrift", "N°", "TVA", ":", "", "-"}
	coord := rapid.Float64Range(-0.5, 1.5)
	word := rapid.Custom(func(t *rapid.T) pagetext.Word {
		text := rapid.OneOf(rapid.SampledFrom(vocabulary), rapid.String()).Draw(t, "text")
		return pagetext.Word{Text: text, Page: rapid.IntRange(0, 3).Draw(t, "page"), Conf: rapid.Float64Range(0, 1).Draw(t, "conf"),
			Box: pagetext.Box{X0: coord.Draw(t, "x0"), Y0: coord.Draw(t, "y0"), X1: coord.Draw(t, "x1"), Y1: coord.Draw(t, "y1")}}
	})
	text := rapid.Custom(func(t *rapid.T) pagetext.Text {
		n := rapid.IntRange(0, 3).Draw(t, "pages")
		var pages []pagetext.Page
		for i := range n {
			pages = append(pages, pagetext.Page{Number: rapid.IntRange(0, 4).Draw(t, "number") + i*0, Words: rapid.SliceOfN(word, 0, 80).Draw(t, "words")})
		}
		return pagetext.Text{Pages: pages, PagesInDocument: n}
	})
	rapid.Check(t, func(rt *rapid.T) {
		a, b := text.Draw(rt, "a"), text.Draw(rt, "b")
		r := Read(a, nil)
		checkInvariants(t, r)
		layout := Learn(a, einvoice.Document{Number: rapid.SampledFrom(vocabulary).Draw(rt, "number"), IssueDate: "2026-01-02",
			PayeeIBAN: "DE89370400440532013000", Seller: einvoice.Party{VATID: "DE136695976", Name: "Muster GmbH"}})
		checkInvariants(t, Read(b, &layout))
		if layout.Fields != nil {
			for f, a := range layout.Fields {
				for _, v := range []float64{a.Box.X0, a.Box.Y0, a.Box.X1, a.Box.Y1, a.LabelBox.X0, a.LabelBox.Y1} {
					if v < 0 || v > 1 || math.IsNaN(v) {
						rt.Fatalf("%s anchor %+v outside the page", f, a)
					}
				}
			}
		}
	})
}
