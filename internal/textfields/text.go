package textfields

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"greatbook/internal/pagetext"
)

// textLine is the words of one page that share a vertical extent, left to
// right, with each word's normalised token for label matching.
type textLine struct {
	page  int
	index int // among its page's lines, top to bottom
	words []pagetext.Word
	toks  []string
	box   pagetext.Box
	cells [][2]int // runs, once computed
}

// height is the line's height, never zero, so that gaps can be measured
// in line heights.
func (l *textLine) height() float64 { return max(l.box.Y1-l.box.Y0, 0.005) }

// maxWordsPerPage bounds the words read from one page: a real invoice page
// holds a few thousand at most, and the cap keeps a hostile text's cost
// linear in what is read.
const maxWordsPerPage = 20000

// buildLines groups each page's words into lines: sorted by vertical
// centre, a word joins the current line while its centre lies within the
// line's vertical extent. Boxes are clamped into 0..1 first, so every
// place read from a line is a place on the page.
func buildLines(t pagetext.Text) [][]textLine {
	pages := make([][]textLine, 0, len(t.Pages))
	for i, p := range t.Pages {
		n := p.Number
		if n <= 0 {
			n = i + 1
		}
		var words []pagetext.Word
		for _, w := range p.Words {
			if len(words) >= maxWordsPerPage {
				break
			}
			for _, part := range splitWord(w) {
				part.Text = strings.TrimSpace(part.Text)
				if part.Text == "" {
					continue
				}
				part.Page = n
				part.Box = clampBox(part.Box)
				words = append(words, part)
			}
		}
		sort.SliceStable(words, func(a, b int) bool { return centreY(words[a].Box) < centreY(words[b].Box) })
		var lines []textLine
		for _, w := range words {
			c := centreY(w.Box)
			if k := len(lines) - 1; k >= 0 && c >= lines[k].box.Y0 && c <= lines[k].box.Y1 {
				lines[k].words = append(lines[k].words, w)
				lines[k].box = union(lines[k].box, w.Box)
				continue
			}
			lines = append(lines, textLine{page: n, words: []pagetext.Word{w}, box: w.Box})
		}
		for k := range lines {
			l := &lines[k]
			l.index = k
			sort.SliceStable(l.words, func(a, b int) bool { return l.words[a].Box.X0 < l.words[b].Box.X0 })
			l.toks = make([]string, len(l.words))
			for j, w := range l.words {
				l.toks[j] = normToken(w.Text)
			}
		}
		pages = append(pages, lines)
	}
	return pages
}

// splitWord splits a word glued to its label by a colon ("Nr.:4711") into
// the label and the value, sharing the box by character count. A colon
// between digits (a time) is left alone.
func splitWord(w pagetext.Word) []pagetext.Word {
	i := strings.IndexByte(w.Text, ':')
	if i <= 0 || i == len(w.Text)-1 || !strings.ContainsFunc(w.Text[:i], unicode.IsLetter) {
		return []pagetext.Word{w}
	}
	total := float64(len([]rune(w.Text)))
	cut := w.Box.X0 + (w.Box.X1-w.Box.X0)*float64(len([]rune(w.Text[:i+1])))/total
	a, b := w, w
	a.Text, a.Box.X1 = w.Text[:i+1], cut
	b.Text, b.Box.X0 = w.Text[i+1:], cut
	return []pagetext.Word{a, b}
}

func centreY(b pagetext.Box) float64 { return (b.Y0 + b.Y1) / 2 }

func clamp01(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// clampBox is b inside the page, its corners in order.
func clampBox(b pagetext.Box) pagetext.Box {
	b = pagetext.Box{X0: clamp01(b.X0), Y0: clamp01(b.Y0), X1: clamp01(b.X1), Y1: clamp01(b.Y1)}
	if b.X1 < b.X0 {
		b.X0, b.X1 = b.X1, b.X0
	}
	if b.Y1 < b.Y0 {
		b.Y0, b.Y1 = b.Y1, b.Y0
	}
	return b
}

func union(a, b pagetext.Box) pagetext.Box {
	return pagetext.Box{X0: min(a.X0, b.X0), Y0: min(a.Y0, b.Y0), X1: max(a.X1, b.X1), Y1: max(a.Y1, b.Y1)}
}

// wordsBox is the box around words (zero for none).
func wordsBox(ws []pagetext.Word) pagetext.Box {
	if len(ws) == 0 {
		return pagetext.Box{}
	}
	b := ws[0].Box
	for _, w := range ws[1:] {
		b = union(b, w.Box)
	}
	return b
}

// wordsConf is the lowest OCR confidence of words; a confidence of zero or
// less is taken as unstated (hand-built or text-layer words), not as zero.
func wordsConf(ws []pagetext.Word) float64 {
	c := 1.0
	for _, w := range ws {
		if w.Conf > 0 && w.Conf < c {
			c = w.Conf
		}
	}
	return c
}

func joinWords(ws []pagetext.Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Text
	}
	return strings.Join(parts, " ")
}

// foldAccents drops the accents of s ("Fälligkeit" is "Falligkeit",
// "Échéance" "Echeance"), as OCR often drops them.
func foldAccents(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// normToken is a word folded for label matching: NFKC, lower case, accents
// dropped, dots
// dropped ("Nr." and "USt.-Id.-Nr." match "nr" and "ust-id-nr"), the
// numero and degree signs read as "o" ("N°" is "no"), and surrounding
// punctuation trimmed.
func normToken(s string) string {
	s = foldAccents(strings.ToLower(norm.NFKC.String(s)))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return -1
		case '°', 'º':
			return 'o'
		case '’', '`':
			return '\''
		}
		return r
	}, s)
	return strings.Trim(s, ":;,()[]*\"")
}

// gapAfter is the horizontal gap between word i and word i+1 of a line, in
// line heights.
func (l *textLine) gapAfter(i int) float64 {
	if i+1 >= len(l.words) {
		return math.Inf(1)
	}
	return (l.words[i+1].Box.X0 - l.words[i].Box.X1) / l.height()
}

// runs splits a line into runs of closely spaced words (a gap under one
// and a half line heights), as [start, end) word indexes: the cells of a
// table, a label and its value, the columns of a letterhead.
func (l *textLine) runs() [][2]int {
	if l.cells != nil {
		return l.cells
	}
	out := [][2]int{}
	start := 0
	for i := range l.words {
		if l.gapAfter(i) >= 1.5 {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	l.cells = out
	return out
}
