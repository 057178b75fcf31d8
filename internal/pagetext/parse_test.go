package pagetext

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

const bboxPage = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml">
<head><title></title></head><body><doc>
  <page width="200.000000" height="100.000000">
    <flow><block xMin="10" yMin="10" xMax="90" yMax="20"><line xMin="10" yMin="10" xMax="90" yMax="20">
      <word xMin="10.000000" yMin="10.000000" xMax="50.000000" yMax="20.000000">Fa&amp;ture</word>
      <word xMin="60" yMin="10" xMax="90" yMax="20">n&#176;` + "\x01\x02" + `7</word>
      <word xMin="-5" yMin="90" xMax="250" yMax="120">clamped</word>
    </line></block></flow>
  </page>
  <page width="200" height="100"></page>
</doc></body></html>`

func TestParseBBoxLayout(t *testing.T) {
	t.Parallel()
	pages, err := parseBBoxLayout([]byte(bboxPage), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 || pages[1].Number != 2 || len(pages[1].Words) != 0 {
		t.Fatalf("pages %+v", pages)
	}
	words := pages[0].Words
	want := []Word{
		{Text: "Fa&ture", Page: 1, Box: Box{0.05, 0.1, 0.25, 0.2}, Conf: 1},
		{Text: "n°  7", Page: 1, Box: Box{0.3, 0.1, 0.45, 0.2}, Conf: 1},
		{Text: "clamped", Page: 1, Box: Box{0, 0.9, 1, 1}, Conf: 1},
	}
	if fmt.Sprint(words) != fmt.Sprint(want) {
		t.Fatalf("words\n%v, want\n%v", words, want)
	}
	if pages, _ := parseBBoxLayout([]byte(bboxPage), 1, nil); len(pages) != 1 {
		t.Errorf("%d pages kept of at most 1", len(pages))
	}
}

func TestParseBBoxLayoutCapsWordsPerPage(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	doc.WriteString(`<doc><page width="100" height="100">`)
	for range MaxWordsPerPage + 1 {
		doc.WriteString(`<word xMin="1" yMin="1" xMax="2" yMax="2">w</word>`)
	}
	doc.WriteString(`</page></doc>`)
	if _, err := parseBBoxLayout([]byte(doc.String()), 1, nil); limitWhat(err) != "words" {
		t.Fatalf("%v, want the words limit", err)
	}
}

func TestParseTSV(t *testing.T) {
	t.Parallel()
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t1000\t500\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t100\t50\t200\t25\t96.5\tRechnung\n" +
		"5\t1\t1\t1\t1\t2\t320\t50\t100\t25\t-1\tnoise\n" +
		"5\t1\t1\t1\t1\t3\t450\t50\t100\t25\t80\t  \n" +
		"5\t1\t1\t1\t1\t4\t900\t480\t200\t40\t42\tEUR\n" +
		"5\t1\t1\t1\t1\t5\t100\t100\t100\t25\t90\tn\x00\x017\n" +
		"5\t1\t1\t1\t1\t6\t100\t150\t100\t25\t90\t\xff\xfeTotal\x1b\n" +
		"5\t1\t1\t1\t1\t7\t100\t200\t100\t25\t90\t\x00\x1f\xc3\n" +
		"5\tbroken\n"
	words, err := parseTSV([]byte(tsv), 1000, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Word{
		{Text: "Rechnung", Page: 3, Box: Box{0.1, 0.1, 0.3, 0.15}, Conf: 0.965},
		{Text: "EUR", Page: 3, Box: Box{0.9, 0.96, 1, 1}, Conf: 0.42},
		{Text: "n  7", Page: 3, Box: Box{0.1, 0.2, 0.2, 0.25}, Conf: 0.9},
		{Text: "Total", Page: 3, Box: Box{0.1, 0.3, 0.2, 0.35}, Conf: 0.9},
	}
	if fmt.Sprint(words) != fmt.Sprint(want) {
		t.Fatalf("words\n%v, want\n%v", words, want)
	}
}

func TestStatedDPI(t *testing.T) {
	t.Parallel()
	jfif := func(units byte, density uint16) []byte {
		return []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, units, byte(density >> 8), byte(density), 0, 72, 0, 0, 0xff, 0xd9}
	}
	for _, c := range []struct {
		name    string
		content []byte
		format  string
		want    int
	}{
		{"jfif per inch", jfif(1, 300), "jpeg", 300},
		{"jfif per cm", jfif(2, 118), "jpeg", 300},
		{"jfif aspect only", jfif(0, 1), "jpeg", 0},
		{"png without pHYs", hugePNG(10, 10), "png", 0},
		{"truncated png", hugePNG(10, 10)[:20], "png", 0},
		{"tiff without resolution", hugeTIFF(10, 10), "tiff", 0},
	} {
		if got := statedDPI(c.content, c.format); got != c.want {
			t.Errorf("%s: %d dpi, want %d", c.name, got, c.want)
		}
	}
}

// inPage reports whether a box is within the page (and no NaN).
func inPage(b Box) bool {
	for _, v := range []float64{b.X0, b.Y0, b.X1, b.Y1} {
		if !(v >= 0 && v <= 1) {
			return false
		}
	}
	return true
}

func FuzzParseBBoxLayout(f *testing.F) {
	f.Add([]byte(bboxPage))
	f.Add([]byte(`<page width="0" height="0"><word xMin="a">x</word></page>`))
	f.Add([]byte(`<page width="NaN" height="1"><word xMin="NaN" xMax="+Inf">x</word></page>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		pages, err := parseBBoxLayout(doc, 3, map[int]bool{2: true})
		if err != nil {
			return
		}
		if len(pages) > 3 {
			t.Fatalf("%d pages", len(pages))
		}
		for _, p := range pages {
			for _, w := range p.Words {
				if !inPage(w.Box) || w.Text == "" {
					t.Fatalf("word %+v", w)
				}
			}
		}
	})
}

func FuzzParseTSV(f *testing.F) {
	f.Add([]byte("5\t1\t1\t1\t1\t1\t100\t50\t200\t25\t96.5\tRechnung\n"))
	f.Add([]byte("5\t1\t1\t1\t1\t1\tx\t-50\t1e309\tNaN\t1000\tz\n"))
	f.Fuzz(func(t *testing.T, tsv []byte) {
		words, err := parseTSV(tsv, 640, 480, 1)
		if err != nil {
			return
		}
		for _, w := range words {
			if !(w.Conf >= 0 && w.Conf <= 1) || !inPage(w.Box) || w.Text == "" || !utf8.ValidString(w.Text) || strings.ContainsRune(w.Text, 0) {
				t.Fatalf("word %+v", w)
			}
		}
	})
}

func FuzzStatedDPI(f *testing.F) {
	f.Add(hugePNG(10, 10), "png")
	f.Add(hugeJPEG(10, 10), "jpeg")
	f.Add(hugeTIFF(10, 10), "tiff")
	f.Fuzz(func(t *testing.T, content []byte, format string) {
		statedDPI(content, format)
	})
}
