package textfields

import (
	"strings"

	"greatbook/internal/apchecks"
	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

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

// The confidences of the parties' names: under a buyer heading, a company
// name (by its legal form) in the letterhead or further down, and a bare
// first line.
const (
	headedNameConfidence     = 0.85
	letterheadNameConfidence = 0.8
	footerNameConfidence     = 0.65
	bareNameConfidence       = 0.6
)

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
				// The heading is the buyer name's label.
				r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: headedNameConfidence * ocrFactor(ws), Page: l.page, Box: wordsBox(ws),
					Label: joinWords(l.words[run[0]:run[1]])}, field: FieldBuyerName, line: l})
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
			conf := footerNameConfidence
			if l.box.Y0 < 0.25 {
				conf = letterheadNameConfidence
			}
			r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: conf * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, field: FieldSellerName, line: l})
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
		r.add(candidate{Field: Field{Value: joinWords(ws), Confidence: bareNameConfidence * ocrFactor(ws), Page: l.page, Box: wordsBox(ws)}, field: FieldSellerName, line: l})
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

// maxRunsPerLine bounds the runs of a line looked at for a block heading:
// a heading stands in a line of a few columns, never in a run of hundreds.
const maxRunsPerLine = 12
