package textfields

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"greatbook/internal/apchecks"
	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// The confidences of values read by a layout: found by the learned label
// again, or only in the learned place.
const (
	anchoredConfidence = 0.93
	placedConfidence   = 0.8
)

// How far a learned label may have moved on the next invoice of its
// supplier, in fractions of the page, and how far around the learned value
// box its words are looked for.
const (
	labelShiftX = 0.2
	labelShiftY = 0.12
	boxPad      = 0.03
)

// Learn records where the values a person confirmed (d) stand in the text
// of their document: each value's words, found whatever local format they
// are printed in, and the label left of them on their line or above them.
// Fields whose value d lacks, or that the text does not show, are left out.
func Learn(t pagetext.Text, d einvoice.Document) Layout {
	r := &reader{pages: buildLines(t), hitsOf: map[*textLine][]labelHit{}, headers: map[*textLine]bool{}, now: time.Now()}
	for p := range r.pages {
		for i := range r.pages[p] {
			r.hits = append(r.hits, findLabels(&r.pages[p][i])...)
		}
	}
	r.lang = detectLanguage(r.hits, r.pages)
	r.dayFirst = !(r.lang == "en" && r.dollarsOutnumberEuros())

	want := map[string]string{
		FieldNumber: d.Number, FieldIssueDate: d.IssueDate, FieldDueDate: d.DueDate,
		FieldSellerName: d.Seller.Name, FieldSellerVAT: d.Seller.VATID, FieldIBAN: d.PayeeIBAN, FieldBuyerName: d.Buyer.Name,
	}
	amounts := map[string]decimal.Decimal{FieldNet: d.Totals.Net, FieldTax: d.Totals.Tax, FieldPayable: d.Totals.Payable}
	layout := Layout{Fields: map[string]Anchor{}}
	for _, f := range fieldOrder {
		if f == FieldCurrency {
			continue
		}
		var match func(string) bool
		if target, ok := amounts[f]; ok {
			if target.IsZero() && f != FieldTax {
				continue
			}
			match = func(s string) bool {
				a, _, ok := parseAmount(s, r.lang)
				return ok && a.Equal(target)
			}
		} else if want[f] == "" {
			continue
		} else {
			match = r.matcher(f, want[f])
		}
		if a, ok := r.learnField(f, match); ok {
			layout.Fields[f] = a
		}
	}
	return layout
}

// matcher says whether printed words are a field's confirmed value.
func (r *reader) matcher(field, target string) func(string) bool {
	switch kindOf(field) {
	case "date":
		return func(s string) bool { iso, ok := parseDate(s, r.dayFirst); return ok && iso == target }
	case "vat":
		return func(s string) bool { return apchecks.NormalizeVATID(s) == apchecks.NormalizeVATID(target) }
	case FieldIBAN:
		return func(s string) bool { return apchecks.NormalizeIBAN(s) == apchecks.NormalizeIBAN(target) }
	case FieldNumber:
		compact := func(s string) string {
			return strings.ToUpper(strings.Join(strings.Fields(strings.Trim(s, ":#;, ")), ""))
		}
		return func(s string) bool { return compact(s) == compact(target) }
	}
	name := apchecks.NormalizeName(target)
	return func(s string) bool { return name != "" && apchecks.NormalizeName(s) == name }
}

// occurrence is one place a confirmed value is printed, with its label.
type occurrence struct {
	line   *textLine
	words  []pagetext.Word
	label  []pagetext.Word
	number int // order on the document
}

// learnField finds the words of a confirmed value and the label before
// them. Of several places, one with a label wins; among those the last for
// an amount (the totals close the document) and the first for any other.
func (r *reader) learnField(field string, match func(string) bool) (Anchor, bool) {
	var found []occurrence
	window := maxWindow
	switch kindOf(field) {
	case "text":
		window = 8
	case FieldIBAN:
		window = 9 // "DE89 3704 0044 0532 0130 00" and the longer countries' groups
	}
	n := 0
	for p := range r.pages {
		for i := range r.pages[p] {
			l := &r.pages[p][i]
			for j := 0; j < len(l.words); j++ {
				for k := min(window, len(l.words)-j); k >= 1; k-- {
					if !match(joinWords(l.words[j : j+k])) {
						continue
					}
					o := occurrence{line: l, words: l.words[j : j+k], label: r.labelBefore(p, i, j, k), number: n}
					n++
					found = append(found, o)
					j += k - 1
					break
				}
			}
		}
	}
	if len(found) == 0 {
		return Anchor{}, false
	}
	best := found[0]
	last := kindOf(field) == "amount"
	for _, o := range found[1:] {
		switch {
		case len(o.label) > 0 && len(best.label) == 0:
			best = o
		case len(o.label) > 0 == (len(best.label) > 0) && last:
			best = o
		}
	}
	a := Anchor{Page: best.line.page, Box: wordsBox(best.words)}
	if len(best.label) > 0 {
		a.Label, a.LabelBox = joinWords(best.label), wordsBox(best.label)
	}
	return a, true
}

// labelBefore is the label of the value at words [j, j+k) of line i of
// page p: the closely spaced words with letters left of it on its line,
// else the words above it in its column on the line before.
func (r *reader) labelBefore(p, i, j, k int) []pagetext.Word {
	l := &r.pages[p][i]
	if j > 0 && isLabelWord(l.words[j-1].Text) {
		start := j - 1
		for start > 0 && l.gapAfter(start-1) < 1.2 && isLabelWord(l.words[start-1].Text) && j-start < 5 {
			start--
		}
		return l.words[start:j]
	}
	if j > 0 {
		return nil
	}
	vb := wordsBox(l.words[j : j+k])
	for up := i - 1; up >= 0 && up >= i-2; up-- {
		above := &r.pages[p][up]
		if vb.Y0-above.box.Y1 > 3*l.height() {
			break
		}
		var ws []pagetext.Word
		for _, w := range above.words {
			if w.Box.X1 >= vb.X0-0.02 && w.Box.X0 <= vb.X1+0.02 {
				ws = append(ws, w)
			}
		}
		if len(ws) > 0 && len(ws) <= 5 {
			all := true
			for _, w := range ws {
				all = all && isLabelWord(w.Text)
			}
			if all {
				return ws
			}
			return nil
		}
	}
	return nil
}

// isLabelWord says whether a word can be part of a label: more letters
// than digits ("A-100" is a value), and not a currency code standing for
// an amount.
func isLabelWord(s string) bool {
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		}
	}
	return letters > digits && currencyIn(s) == "" && !looksLikeIBANStart(s)
}

// readAnchored reads each field of a layout where the layout says it
// stands: beside or below its label found again near the learned place,
// else in the learned place itself, moved as the labels found moved.
func (r *reader) readAnchored(layout *Layout) {
	type found struct {
		line    *textLine
		box     pagetext.Box
		learned pagetext.Box
		page    int
	}
	labelsFound := map[string]found{}
	for _, f := range fieldOrder {
		a, ok := layout.Fields[f]
		if !ok || a.Label == "" {
			continue
		}
		// The totals move down, even to the next page, as the table grows;
		// the header stays where it was.
		maxDY := labelShiftY
		if kindOf(f) == "amount" {
			maxDY = 1
		}
		if l, box, ok := r.findLabelNear(a, maxDY); ok {
			labelsFound[f] = found{l, box, a.LabelBox, l.page}
		}
	}
	// A value learned without a label moves as the nearest label found
	// again moved: the header's with the header, the totals' with the
	// totals (which a longer table pushes down).
	shiftNear := func(a Anchor) float64 {
		best, shift := math.Inf(1), 0.0
		for _, f := range fieldOrder {
			lf, ok := labelsFound[f]
			if !ok || lf.page != a.Page {
				continue
			}
			if d := math.Abs(lf.learned.Y0 - a.Box.Y0); d < best {
				best, shift = d, lf.box.Y0-lf.learned.Y0
			}
		}
		return shift
	}
	for _, f := range fieldOrder {
		a, ok := layout.Fields[f]
		if !ok {
			continue
		}
		page := a.Page
		region, conf := clampBox(a.Box), placedConfidence
		shiftY := shiftNear(a)
		region.Y0, region.Y1 = region.Y0+shiftY, region.Y1+shiftY
		var labelLine *textLine
		labelEnd := -1.0
		lf, labelled := labelsFound[f]
		if labelled {
			dx, dy := lf.box.X0-a.LabelBox.X0, lf.box.Y0-a.LabelBox.Y0
			region = pagetext.Box{X0: a.Box.X0 + dx, Y0: a.Box.Y0 + dy, X1: a.Box.X1 + dx, Y1: a.Box.Y1 + dy}
			conf, labelLine, labelEnd, page = anchoredConfidence, lf.line, lf.box.X1, lf.page
		}
		for _, ws := range wordsIn(r.linesOfPage(page), region, labelLine, labelEnd, kindOf(f)) {
			v, ok := r.parseValue(f, ws)
			if !ok {
				continue
			}
			// A value in its learned place but without its label found
			// again competes with first sight's; one by its label wins.
			r.add(candidate{Field: Field{Value: v.text, Confidence: conf * ocrFactor(v.words), Page: page, Box: wordsBox(v.words), Label: a.Label},
				field: f, amount: v.amount, currency: v.currency, anchored: labelled, party: "seller"})
			break
		}
	}
}

func (r *reader) linesOfPage(n int) []textLine {
	for p := range r.pages {
		if len(r.pages[p]) > 0 && r.pages[p][0].page == n {
			return r.pages[p]
		}
	}
	return nil
}

// findLabelNear finds an anchor's label again: the occurrence nearest the
// learned place, within labelShiftX across and maxDY down or up. On
// another page than the learned one (totals pushed over), a page counts
// as a page's height of distance.
func (r *reader) findLabelNear(a Anchor, maxDY float64) (*textLine, pagetext.Box, bool) {
	var want []string
	for _, w := range strings.Fields(a.Label) {
		want = append(want, normToken(w))
	}
	if len(want) == 0 {
		return nil, pagetext.Box{}, false
	}
	was := clampBox(a.LabelBox)
	var bestLine *textLine
	var bestBox pagetext.Box
	bestDist := math.Inf(1)
	for p := range r.pages {
		lines := r.pages[p]
		if len(lines) == 0 {
			continue
		}
		pageDist := math.Abs(float64(lines[0].page - a.Page))
		if pageDist > 0 && maxDY < 1 {
			continue
		}
		for i := range lines {
			l := &lines[i]
			if pageDist == 0 && (l.box.Y1 < was.Y0-maxDY || l.box.Y0 > was.Y1+maxDY) {
				continue
			}
			for j := 0; j+len(want) <= len(l.toks); j++ {
				if l.toks[j] != want[0] || !slices.Equal(l.toks[j:j+len(want)], want) {
					continue
				}
				b := wordsBox(l.words[j : j+len(want)])
				dx, dy := math.Abs(b.X0-was.X0), math.Abs(b.Y0-was.Y0)
				if dx > labelShiftX || pageDist == 0 && dy > maxDY {
					continue
				}
				if d := dx + dy + pageDist; d < bestDist {
					bestLine, bestBox, bestDist = l, b, d
				}
			}
		}
	}
	return bestLine, bestBox, bestLine != nil
}

// wordsIn is the words of a value's place, nearest line first: in each
// line crossing the region, the words that overlap it, widened along
// their line to the closely spaced words around (a longer number, a wider
// amount), never into the label.
func wordsIn(lines []textLine, region pagetext.Box, labelLine *textLine, labelEnd float64, kind string) [][]pagetext.Word {
	cy := centreY(region)
	type near struct {
		ws   []pagetext.Word
		dist float64
	}
	var out []near
	for i := range lines {
		l := &lines[i]
		if cy < l.box.Y0-l.height() || cy > l.box.Y1+l.height() {
			continue
		}
		first, last := -1, -1
		for j, w := range l.words {
			if l == labelLine && w.Box.X0 < labelEnd {
				continue
			}
			if w.Box.X1 >= region.X0-boxPad && w.Box.X0 <= region.X1+boxPad {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		if first < 0 {
			continue
		}
		for last+1 < len(l.words) && l.gapAfter(last) < 1.5 {
			last++
		}
		for first > 0 && l.gapAfter(first-1) < 1.5 && !(l == labelLine && l.words[first-1].Box.X0 < labelEnd) &&
			(kind == "amount" && !isLabelWord(l.words[first-1].Text) || kind == "text") {
			first--
		}
		out = append(out, near{l.words[first : last+1], math.Abs(centreY(l.box) - cy)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].dist < out[j].dist })
	ws := make([][]pagetext.Word, len(out))
	for i, n := range out {
		ws[i] = n.ws
	}
	return ws
}
