package textfields

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// The confidences of values found without a label, and the cost of a
// value found below its label rather than beside it.
const (
	patternConfidence = 0.55
	belowPenalty      = 0.04
)

// candidate is one reading of a field; the reader keeps several per field
// and picks the best.
type candidate struct {
	Field
	field    string
	amount   decimal.Decimal
	currency string
	line     *textLine
	party    string // "buyer" or "seller" for VAT ids and names, from the block they stand in
	anchored bool
}

// reader holds one document's lines and labels while it is read.
type reader struct {
	pages    [][]textLine
	hits     []labelHit
	hitsOf   map[*textLine][]labelHit
	headers  map[*textLine]bool
	lang     string
	dayFirst bool
	now      time.Time
	cands    map[string][]candidate
}

// Read reads an invoice's fields from its text. With a layout learned from
// the same supplier it looks first where that layout says each field
// stands, and reads the fields it does not know as at first sight. It never
// fails: what it cannot read is missing from the reading and named in
// Uncertain when it is a Key field.
func Read(t pagetext.Text, l *Layout) Reading {
	return readAt(t, l, time.Now())
}

func readAt(t pagetext.Text, l *Layout, now time.Time) Reading {
	r := &reader{
		pages:   buildLines(t),
		hitsOf:  map[*textLine][]labelHit{},
		headers: map[*textLine]bool{},
		now:     now,
		cands:   map[string][]candidate{},
	}
	for p := range r.pages {
		for i := range r.pages[p] {
			line := &r.pages[p][i]
			hs := findLabels(line)
			r.hits = append(r.hits, hs...)
			r.hitsOf[line] = hs
			if isTableHeader(line) {
				r.headers[line] = true
			}
		}
	}
	r.lang = detectLanguage(r.hits, r.pages)
	r.dayFirst = !(r.lang == "en" && r.dollarsOutnumberEuros())
	r.readLabelled()
	r.readPatterns()
	if l != nil {
		r.readAnchored(l)
	}
	return r.reading(l != nil && len(l.Fields) > 0)
}

// dollarsOutnumberEuros tells American invoices (month first dates) from
// British and European ones.
func (r *reader) dollarsOutnumberEuros() bool {
	dollars, others := 0, 0
	for _, lines := range r.pages {
		for i := range lines {
			for _, w := range lines[i].words {
				switch {
				case strings.Contains(w.Text, "$") || w.Text == "USD":
					dollars++
				case strings.Contains(w.Text, "€") || strings.Contains(w.Text, "£") || w.Text == "EUR" || w.Text == "GBP":
					others++
				}
			}
		}
	}
	return dollars > others
}

func (r *reader) add(c candidate) {
	c.Box = clampBox(c.Box)
	r.cands[c.field] = append(r.cands[c.field], c)
}

// readLabelled reads the value beside or below every label.
func (r *reader) readLabelled() {
	defer r.addTaxSums()
	for _, h := range r.hits {
		field := h.def.kind
		if field == kindOther || field == kindCreditTitle {
			continue
		}
		if h.def.contextual && field == FieldIssueDate && !r.lineHas(h.line, FieldNumber) {
			continue
		}
		conf := h.def.weight
		v, ok := r.parseValue(field, r.rightOf(h))
		if !ok && !r.headers[h.line] {
			v, ok = r.parseValue(field, r.below(h))
			conf -= belowPenalty
		}
		if !ok {
			continue
		}
		c := candidate{Field: Field{Value: v.text, Confidence: conf * ocrFactor(v.words), Page: h.line.page,
			Box: wordsBox(v.words), Label: h.text()}, amount: v.amount, currency: v.currency, line: h.line}
		c.field = field
		if field == FieldSellerVAT || field == kindBuyerVAT {
			c.party = r.partyAt(h.line, h.start)
			if field == kindBuyerVAT {
				c.party = "buyer"
			}
		}
		r.add(c)
	}
}

func (r *reader) lineHas(l *textLine, field string) bool {
	for _, h := range r.hitsOf[l] {
		if h.def.kind == field {
			return true
		}
	}
	return false
}

// rightOf is the words right of a label on its line, up to the next label.
func (r *reader) rightOf(h labelHit) []pagetext.Word {
	end := len(h.line.words)
	for _, o := range r.hitsOf[h.line] {
		if o.start >= h.end && o.start < end {
			end = o.start
		}
	}
	return h.line.words[h.end:end]
}

// below is the words under a label on the next lines of its page (the
// nearest line holding any), those overlapping the label's column.
func (r *reader) below(h labelHit) []pagetext.Word {
	lines := r.pageLines(h.line)
	idx := lineIndex(lines, h.line)
	if idx < 0 {
		return nil
	}
	lb := wordsBox(h.line.words[h.start:h.end])
	for k := idx + 1; k < len(lines) && k <= idx+3; k++ {
		next := &lines[k]
		if next.box.Y0-h.line.box.Y1 > 4*h.line.height() {
			break
		}
		first, last := -1, -1
		for j, w := range next.words {
			if w.Box.X1 >= lb.X0-0.02 && w.Box.X0 <= lb.X1+0.02 {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		if first >= 0 {
			// A value wider than its label ("January 19, 2026" under "Due")
			// runs on in closely spaced words.
			for last+1 < len(next.words) && next.gapAfter(last) < 1.5 {
				last++
			}
			return next.words[first : last+1]
		}
	}
	return nil
}

func (r *reader) pageLines(l *textLine) []textLine {
	for p := range r.pages {
		if len(r.pages[p]) > 0 && r.pages[p][0].page == l.page {
			return r.pages[p]
		}
	}
	return nil
}

// lineIndex is a line's place among its page's lines.
func lineIndex(lines []textLine, l *textLine) int {
	if l.index < len(lines) && &lines[l.index] == l {
		return l.index
	}
	return -1
}

// ocrFactor lowers a confidence by the OCR's doubt about the words read.
func ocrFactor(ws []pagetext.Word) float64 { return 0.5 + 0.5*wordsConf(ws) }

// readPatterns reads what needs no label: IBANs and VAT ids by their shape
// and check digits, the currency from the amounts' signs and codes, the
// first date on the first page, the document type from its title, and the
// parties' names.
func (r *reader) readPatterns() {
	currencies := map[string]int{}
	var firstDate *candidate
	for p := range r.pages {
		for i := range r.pages[p] {
			l := &r.pages[p][i]
			for j, w := range l.words {
				if c := currencyIn(w.Text); c != "" {
					currencies[c]++
				} else if _, code := stripCurrency(w.Text); code != "" && strings.ContainsFunc(w.Text, func(r rune) bool { return r >= '0' && r <= '9' }) {
					currencies[code]++
				}
				if looksLikeIBANStart(w.Text) {
					if v, ok := readIBAN(l.words[j:]); ok {
						if _, valid := validIBAN(v.text); valid {
							r.add(candidate{Field: Field{Value: v.text, Confidence: patternConfidence * ocrFactor(v.words), Page: l.page, Box: wordsBox(v.words)}, line: l, field: FieldIBAN})
						}
					}
				}
				if len(w.Text) >= 2 && w.Text[0] >= 'A' && w.Text[0] <= 'Z' && w.Text[1] >= 'A' && w.Text[1] <= 'Z' {
					if v, ok := readVATID(l.words[j:]); ok && checkVATID(v.text) == vatValid {
						r.add(candidate{Field: Field{Value: v.text, Confidence: patternConfidence * ocrFactor(v.words), Page: l.page, Box: wordsBox(v.words)},
							line: l, field: FieldSellerVAT, party: r.partyAt(l, j)})
					}
				}
				if firstDate == nil && p == 0 && j < len(l.words) {
					for n := min(4, len(l.words)-j); n >= 1; n-- {
						if iso, ok := parseDate(joinWords(l.words[j:j+n]), r.dayFirst); ok {
							ws := l.words[j : j+n]
							firstDate = &candidate{Field: Field{Value: iso, Confidence: 0.5 * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, line: l, field: FieldIssueDate}
							break
						}
					}
				}
			}
		}
	}
	if firstDate != nil {
		r.add(*firstDate)
	}
	best, count := "", 0
	for _, c := range slices.Sorted(maps.Keys(currencies)) {
		if n := currencies[c]; n > count {
			best, count = c, n
		}
	}
	if best != "" {
		conf := 0.85
		if len(currencies) > 1 {
			conf = 0.7
		}
		r.add(candidate{Field: Field{Value: best, Confidence: conf}, field: FieldCurrency})
	}
	r.readNames()
	r.readTitleNumber()
}

// readTitleNumber reads a number printed right after the document's title
// word without a label of its own: "INVOICE #4711" (a number glued to its
// "#" is as good as labelled), "Rechnung 4711" (less sure).
func (r *reader) readTitleNumber() {
	for p := range r.pages {
		if p > 0 {
			return
		}
		for i := range r.pages[p] {
			l := &r.pages[p][i]
			for j := 0; j+1 < len(l.toks); j++ {
				if !isTitleWord(l.toks[j]) {
					continue
				}
				next := l.words[j+1]
				t, glued := strings.CutPrefix(next.Text, "#")
				if !isDocumentNumber(strings.Trim(t, ":;,")) || l.gapAfter(j) > 2 {
					continue
				}
				conf := 0.75
				if glued {
					conf = 0.85
				}
				ws := l.words[j+1 : j+2]
				r.add(candidate{Field: Field{Value: strings.Trim(t, ":;,"), Confidence: conf * ocrFactor(ws), Page: l.page, Box: wordsBox(ws),
					Label: l.words[j].Text}, field: FieldNumber, line: l})
				return
			}
		}
	}
}

// isTitleWord says whether a token is a document's title alone.
func isTitleWord(tok string) bool {
	switch tok {
	case "invoice", "rechnung", "facture", "factuur", "gutschrift", "avoir", "creditnota", "bill":
		return true
	}
	return false
}

// best is the most confident candidate of a field; among equals an amount
// lower on the page (the totals stand at the end) and any other value
// higher on it.
func (r *reader) best(field string) (candidate, bool) {
	cs := r.cands[field]
	if len(cs) == 0 {
		return candidate{}, false
	}
	b := cs[0]
	for _, c := range cs[1:] {
		if better(c, b, kindOf(field) == "amount") {
			b = c
		}
	}
	return b, true
}

func better(c, b candidate, later bool) bool {
	if c.anchored != b.anchored {
		return c.anchored
	}
	if c.Confidence != b.Confidence {
		return c.Confidence > b.Confidence
	}
	after := c.Page > b.Page || c.Page == b.Page && c.Box.Y0 > b.Box.Y0
	return after == later
}

// reading picks each field's value, checks them and builds the document.
func (r *reader) reading(anchored bool) Reading {
	chosen := map[string]candidate{}
	for _, f := range []string{FieldNumber, FieldIssueDate, FieldDueDate, FieldCurrency, FieldIBAN, FieldSellerName, FieldBuyerName} {
		if c, ok := r.best(f); ok {
			chosen[f] = c
		}
	}
	r.chooseVATIDs(chosen)
	r.chooseTotals(chosen)
	r.check(chosen)

	out := Reading{Fields: map[string]Field{}, Language: r.lang, Layout: anchored}
	for _, f := range fieldOrder {
		c, ok := chosen[f]
		if !ok {
			continue
		}
		c.Confidence = min(1, max(0, c.Confidence))
		c.Box = clampBox(c.Box)
		out.Fields[f] = c.Field
	}
	d := &out.Document
	d.Type, d.TypeCode = einvoice.TypeInvoice, "380"
	if r.isCreditNote() {
		d.Type, d.TypeCode = einvoice.TypeCreditNote, "381"
	}
	d.Number = chosen[FieldNumber].Value
	d.IssueDate = chosen[FieldIssueDate].Value
	d.DueDate = chosen[FieldDueDate].Value
	d.Currency = chosen[FieldCurrency].Value
	d.Seller.Name = chosen[FieldSellerName].Value
	d.Seller.VATID = chosen[FieldSellerVAT].Value
	d.Buyer.Name = chosen[FieldBuyerName].Value
	d.Buyer.VATID = chosen[kindBuyerVAT].Value
	d.PayeeIBAN = chosen[FieldIBAN].Value
	if c, ok := chosen[FieldNet]; ok {
		d.Totals.Net = c.amount
		d.Totals.LineTotal = c.amount
	}
	if c, ok := chosen[FieldTax]; ok {
		d.Totals.Tax = c.amount
	}
	if c, ok := chosen[FieldPayable]; ok {
		d.Totals.Payable = c.amount
		d.Totals.Gross = c.amount
	}
	if c, ok := chosen[kindGross]; ok {
		d.Totals.Gross = c.amount
	}
	d.Lines = r.readTable()
	d.TaxSubtotals = r.readTaxSubtotals(d.Totals)
	if len(d.Lines) > 0 && len(d.TaxSubtotals) == 1 {
		for i := range d.Lines {
			if d.Lines[i].TaxRate.IsZero() {
				d.Lines[i].TaxRate = d.TaxSubtotals[0].Rate
			}
		}
	}

	for _, f := range fieldOrder {
		c, ok := out.Fields[f]
		if (!ok && isKey(f)) || (ok && c.Confidence < Certain) {
			out.Uncertain = append(out.Uncertain, f)
		}
	}
	out.SupplierKey = supplierKey(out.Document)
	return out
}

// fieldOrder is the order Uncertain names fields in.
var fieldOrder = []string{FieldNumber, FieldIssueDate, FieldDueDate, FieldCurrency, FieldNet, FieldTax, FieldPayable,
	FieldSellerName, FieldSellerVAT, FieldIBAN, FieldBuyerName}

func isKey(f string) bool {
	for _, k := range Key {
		if k == f {
			return true
		}
	}
	return false
}

// isCreditNote says whether the first page's upper part is titled as a
// credit note.
func (r *reader) isCreditNote() bool {
	for _, h := range r.hits {
		if h.def.kind == kindCreditTitle && h.line.page == r.firstPage() && h.line.box.Y0 < 0.4 {
			return true
		}
	}
	return false
}

func (r *reader) firstPage() int {
	if len(r.pages) > 0 && len(r.pages[0]) > 0 {
		return r.pages[0][0].page
	}
	return 1
}
