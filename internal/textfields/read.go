package textfields

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/apchecks"
	"greatbook/internal/einvoice"
	"greatbook/internal/money"
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

// addTaxSums adds, for tax amounts read on consecutive lines (one per VAT
// rate, "MwSt. 19 %" and "MwSt. 7 %" with no line of their total), their
// sum as a candidate for the tax; the choice of the totals takes it when
// net + tax = payable says so.
func (r *reader) addTaxSums() {
	cs := r.cands[FieldTax]
	var run []candidate
	flush := func() {
		if len(run) < 2 {
			return
		}
		sum := run[0]
		for _, c := range run[1:] {
			sum.amount = sum.amount.Add(c.amount)
			sum.Box = union(sum.Box, c.Box)
			sum.Confidence = min(sum.Confidence, c.Confidence)
			sum.Label += " + " + c.Label
		}
		sum.Value = money.Canonical(sum.amount)
		r.cands[FieldTax] = append(r.cands[FieldTax], sum)
	}
	for _, c := range cs {
		if n := len(run); n > 0 {
			prev := run[n-1]
			if c.line == nil || prev.line == nil || c.line.page != prev.line.page || c.line.index != prev.line.index+1 ||
				c.line.box.Y0-prev.line.box.Y1 > 2*prev.line.height() {
				flush()
				run = nil
			}
		}
		if c.line != nil && !c.anchored {
			run = append(run, c)
		}
	}
	flush()
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

// partyAt says whose block word i of a line stands in: the buyer's when a
// buyer word precedes it in its run ("Ihre USt-IdNr."), else the heading
// of the block above it in its column, read up to the first wide gap.
func (r *reader) partyAt(l *textLine, i int) string {
	block := l.words[firstWordOfBlock(l, i) : i+1]
	before := strings.ToLower(joinWords(block))
	for _, s := range buyerStems {
		if strings.Contains(before, s) {
			return "buyer"
		}
	}
	lines := r.pageLines(l)
	idx := lineIndex(lines, l)
	x := wordsBox(block)
	top := l.box.Y0
	for k := idx - 1; k >= 0 && k >= idx-12; k-- {
		above := &lines[k]
		for n, run := range above.runs() {
			if n >= maxRunsPerLine {
				break
			}
			b := wordsBox(above.words[run[0]:run[1]])
			if b.X1 < x.X0-0.1 || b.X0 > x.X1+0.1 {
				continue
			}
			if top-b.Y1 > 3*l.height() {
				return ""
			}
			if p := partyOf(above.words[run[0]:run[1]]); p != "" {
				return p
			}
			top = b.Y0
		}
	}
	return ""
}

// firstWordOfBlock is the index of the word that opens the run of closely
// spaced words holding word j, looking back a label's length at most.
func firstWordOfBlock(l *textLine, j int) int {
	for k := j; j > 0 && k-j < 8 && l.gapAfter(j-1) < 1.5; {
		j--
	}
	return j
}

// maxRunsPerLine bounds the runs of a line looked at for a block heading:
// a heading stands in a line of a few columns, never in a run of hundreds.
const maxRunsPerLine = 12

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
}

// legalForms are the words that end a company's name.
var legalForms = map[string]bool{
	"gmbh": true, "ag": true, "kg": true, "ohg": true, "ug": true, "kgaa": true, "ev": true, "mbh": true,
	"ltd": true, "limited": true, "plc": true, "llc": true, "llp": true, "inc": true, "corp": true,
	"sa": true, "sas": true, "sarl": true, "sàrl": true, "eurl": true, "sasu": true, "bv": true, "nv": true, "vof": true,
	"se": true, "gbr": true, "co": true,
}

// readNames reads the seller's name (the first company name on the first
// page outside the buyer's block) and the buyer's (the first line of the
// block a buyer heading opens).
func (r *reader) readNames() {
	if len(r.pages) == 0 {
		return
	}
	lines := r.pages[0]
	sellerFound, buyerFound := false, false
	for i := range lines {
		l := &lines[i]
		for _, run := range l.runs() {
			if buyerFound || partyOf(l.words[run[0]:run[1]]) != "buyer" {
				continue
			}
			if ws := nameAfterHeading(lines, i, run); len(ws) > 0 {
				r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: 0.6 * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, field: FieldBuyerName, line: l})
				buyerFound = true
			}
		}
		if sellerFound {
			continue
		}
		for j, tok := range l.toks {
			if !legalForms[tok] || j == 0 || !isLabelWord(l.words[j-1].Text) || r.partyAt(l, j) == "buyer" {
				continue
			}
			start := firstWordOfBlock(l, j)
			for start < j && (strings.HasSuffix(l.words[start].Text, ":") || normToken(l.words[start].Text) == "name") {
				start++
			}
			for k := j - 1; k > start; k-- {
				if strings.ContainsAny(l.words[k].Text, "·|•") {
					start = k + 1
					break
				}
			}
			end := j + 1
			for end < len(l.toks) && legalForms[l.toks[end]] || end < len(l.toks) && l.toks[end] == "&" {
				end++
			}
			ws := l.words[start:end]
			r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: 0.6 * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, field: FieldSellerName, line: l})
			sellerFound = true
			break
		}
	}
	if !sellerFound {
		r.letterhead(lines)
	}
}

// letterhead takes the first run of words at the top of the first page
// for the seller's name, when it is no title or label: a letterhead
// without a legal form ("Harbour Office Systems").
func (r *reader) letterhead(lines []textLine) {
	for i := range lines {
		l := &lines[i]
		if l.box.Y0 > 0.2 {
			return
		}
		run := l.runs()[0]
		ws := l.words[run[0]:run[1]]
		if len(ws) > 6 || len(r.hitsOf[l]) > 0 || !isLabelWord(ws[0].Text) || partyOf(ws) != "" || hasDocumentStem(l.toks[0]) {
			continue
		}
		r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: 0.5 * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, field: FieldSellerName, line: l})
		return
	}
}

// nameAfterHeading is the name a buyer heading introduces: the words right
// of it on its line, else the next line's words in its column.
func nameAfterHeading(lines []textLine, i int, run [2]int) []pagetext.Word {
	l := &lines[i]
	for j := run[0]; j < run[1]; j++ {
		if strings.HasSuffix(l.words[j].Text, ":") && j+1 < run[1] {
			return l.words[j+1 : run[1]]
		}
	}
	if end := run[1]; strings.HasSuffix(l.words[end-1].Text, ":") && end < len(l.words) {
		return runFrom(l, l.words[end])
	}
	head := wordsBox(l.words[run[0]:run[1]])
	var first []pagetext.Word
	prev := l
	for k := i + 1; k < len(lines) && k <= i+4; k++ {
		next := &lines[k]
		if next.box.Y0-prev.box.Y1 > 3*l.height() {
			break
		}
		prev = next
		var ws []pagetext.Word
		for _, w := range next.words {
			if w.Box.X1 >= head.X0-0.02 && w.Box.X0 <= head.X1+0.25 {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			continue
		}
		// A "Name:" row names the party; other labelled rows (its number)
		// are passed over for the first unlabelled one.
		if label := normToken(ws[0].Text); strings.HasSuffix(ws[0].Text, ":") {
			if label == "name" || label == "nom" || label == "naam" {
				for j := range next.words {
					if next.words[j] == ws[0] && j+1 < len(next.words) {
						return runFrom(next, next.words[j+1])
					}
				}
			}
			continue
		}
		if first == nil {
			first = ws
		}
	}
	return first
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

// supplierKey names the seller for layout learning: its VAT id, else the
// account it asks to be paid to, else its name folded.
func supplierKey(d einvoice.Document) string {
	if id := normaliseVATID(d.Seller.VATID); id != "" {
		return id
	}
	if d.PayeeIBAN != "" {
		return apchecks.NormalizeIBAN(d.PayeeIBAN)
	}
	if n := apchecks.NormalizeName(d.Seller.Name); n != "" {
		return "name:" + n
	}
	return ""
}

// SupplierKey is the key of the seller of the document t holds, as a
// reading of it at first sight gives it.
func SupplierKey(t pagetext.Text) string { return Read(t, nil).SupplierKey }

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

// chooseVATIDs takes the seller's VAT id from the candidates outside the
// buyer's block, and the buyer's from those inside it.
func (r *reader) chooseVATIDs(chosen map[string]candidate) {
	var seller, buyer *candidate
	all := append(append([]candidate{}, r.cands[FieldSellerVAT]...), r.cands[kindBuyerVAT]...)
	for i := range all {
		c := &all[i]
		if c.party == "buyer" && !c.anchored {
			if buyer == nil || better(*c, *buyer, false) {
				buyer = c
			}
			continue
		}
		if seller == nil || better(*c, *seller, false) {
			seller = c
		}
	}
	if seller != nil {
		chosen[FieldSellerVAT] = *seller
	}
	if buyer != nil && (seller == nil || buyer.Value != seller.Value) {
		chosen[kindBuyerVAT] = *buyer
	}
}

// chooseTotals picks net, tax and payable together: the most confident
// combination, one where net + tax = payable winning over any other.
func (r *reader) chooseTotals(chosen map[string]candidate) {
	top := func(field string) []*candidate {
		cs := append([]candidate{}, r.cands[field]...)
		if field == FieldPayable {
			for _, g := range r.cands[kindGross] {
				g.Confidence *= 0.95
				cs = append(cs, g)
			}
		}
		sort.SliceStable(cs, func(i, j int) bool { return better(cs[i], cs[j], true) })
		out := []*candidate{nil}
		for i := range cs {
			if i >= 6 {
				break
			}
			out = append(out, &cs[i])
		}
		return out
	}
	nets, taxes, payables := top(FieldNet), top(FieldTax), top(FieldPayable)
	score := func(c *candidate) float64 {
		if c == nil {
			return 0
		}
		if c.anchored {
			return c.Confidence + 1
		}
		return c.Confidence
	}
	var bestN, bestT, bestP *candidate
	bestScore := -1.0
	for _, n := range nets {
		for _, t := range taxes {
			for _, p := range payables {
				s := score(n) + score(t) + score(p)
				if n != nil && t != nil && p != nil && n.amount.Add(t.amount).Equal(p.amount) && !p.amount.IsZero() {
					s += 1.5
				}
				if s > bestScore {
					bestScore, bestN, bestT, bestP = s, n, t, p
				}
			}
		}
	}
	for i, c := range []*candidate{bestN, bestT, bestP} {
		if c != nil {
			chosen[[]string{FieldNet, FieldTax, FieldPayable}[i]] = *c
		}
	}
	if g, ok := r.best(kindGross); ok {
		chosen[kindGross] = g
	}
}

// check raises the confidence of values that pass their checks and lowers
// that of values that fail them.
func (r *reader) check(chosen map[string]candidate) {
	set := func(f string, conf float64) {
		c := chosen[f]
		c.Confidence = conf
		chosen[f] = c
	}
	if c, ok := chosen[FieldIBAN]; ok {
		if _, valid := validIBAN(c.Value); valid {
			set(FieldIBAN, min(0.99, max(c.Confidence+0.1, 0.9*ocrFactor(nil))))
		} else {
			set(FieldIBAN, min(c.Confidence, 0.5))
		}
	}
	for _, f := range []string{FieldSellerVAT, kindBuyerVAT} {
		c, ok := chosen[f]
		if !ok {
			continue
		}
		switch checkVATID(c.Value) {
		case vatValid:
			set(f, min(0.99, max(c.Confidence+0.1, 0.85)))
		case vatInvalid:
			set(f, min(c.Confidence, 0.5))
		case vatUnknown:
			set(f, min(c.Confidence, 0.6))
		}
	}
	n, okN := chosen[FieldNet]
	t, okT := chosen[FieldTax]
	p, okP := chosen[FieldPayable]
	if okN && okT && okP {
		if n.amount.Add(t.amount).Equal(p.amount) {
			for _, f := range []string{FieldNet, FieldTax, FieldPayable} {
				set(f, max(chosen[f].Confidence, 0.95))
			}
		} else {
			for _, f := range []string{FieldNet, FieldTax, FieldPayable} {
				set(f, min(chosen[f].Confidence, 0.6))
			}
		}
	}
	for _, f := range []string{FieldIssueDate, FieldDueDate} {
		if c, ok := chosen[f]; ok && !plausibleDate(c.Value, r.now) {
			set(f, min(c.Confidence, 0.4))
		}
	}
	if due, ok := chosen[FieldDueDate]; ok {
		if issue, ok := chosen[FieldIssueDate]; ok && due.Value < issue.Value {
			set(FieldDueDate, min(due.Confidence, 0.5))
		}
	}
	if c, ok := chosen[FieldCurrency]; ok {
		if _, known := money.Lookup(c.Value); !known {
			set(FieldCurrency, min(c.Confidence, 0.3))
		}
	}
}

// runFrom is the closely spaced words of a line from word w on.
func runFrom(l *textLine, w pagetext.Word) []pagetext.Word {
	for j := range l.words {
		if l.words[j] != w {
			continue
		}
		end := j
		for end+1 < len(l.words) && l.gapAfter(end) < 1.5 {
			end++
		}
		return l.words[j : end+1]
	}
	return nil
}
