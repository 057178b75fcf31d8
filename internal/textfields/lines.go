package textfields

import (
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// The columns of a table of invoice lines.
const (
	colOther = iota
	colDescription
	colQuantity
	colPrice
	colAmount
	colRate
)

// columnWords are the header words of each column in the four languages,
// the first match in this order deciding ("VAT rate" is a rate, "Unit
// price" a price, "Line total" an amount).
var columnWords = []struct {
	col   int
	words []string
}{
	{colRate, []string{"%", "vat", "tax", "mwst", "ust", "steuersatz", "mwst-satz", "ust-satz", "tva", "btw", "taux", "btw-tarief", "steuer"}},
	{colPrice, []string{"price", "unit", "rate", "einzelpreis", "e-preis", "preis", "nettopreis", "stückpreis", "einzel", "prix", "pu", "prijs", "stukprijs", "eenheidsprijs", "tarif", "unitaire"}},
	{colQuantity, []string{"qty", "quantity", "menge", "anzahl", "qté", "quantité", "qte", "aantal", "hoeveelheid", "stk", "hours", "stunden"}},
	{colAmount, []string{"amount", "total", "net", "betrag", "gesamt", "gesamtpreis", "nettobetrag", "summe", "montant", "ht", "bedrag", "totaal", "subtotaal", "netto", "gesamtbetrag", "line"}},
	{colDescription, []string{"description", "item", "items", "article", "product", "service", "services", "bezeichnung", "beschreibung", "artikel", "leistung", "artikelbezeichnung", "désignation", "designation", "libellé", "omschrijving", "dienst", "details", "produit"}},
}

// headerCell is one column's header: its words' span and its column kind.
type headerCell struct {
	col    int
	x0, x1 float64
}

// headerCells splits a line into cells (closely spaced words) and names
// each cell's column.
func headerCells(l *textLine) []headerCell {
	var cells []headerCell
	start := 0
	for i := range l.words {
		if l.gapAfter(i) < 0.9 && i+1 < len(l.words) {
			continue
		}
		toks := l.toks[start : i+1]
		cells = append(cells, headerCell{col: columnOf(toks), x0: l.words[start].Box.X0, x1: l.words[i].Box.X1})
		start = i + 1
	}
	return cells
}

func columnOf(toks []string) int {
	for _, c := range columnWords {
		for _, t := range toks {
			for _, w := range c.words {
				if t == w || strings.TrimSuffix(t, "%") == w {
					return c.col
				}
			}
		}
	}
	return colOther
}

// isTableHeader says whether a line heads a table of invoice lines: an
// amount column and two more of description, quantity, price.
func isTableHeader(l *textLine) bool {
	if len(l.words) < 3 || len(l.words) > 30 {
		return false
	}
	seen := map[int]bool{}
	for _, c := range headerCells(l) {
		seen[c.col] = true
	}
	n := 0
	for _, c := range []int{colDescription, colQuantity, colPrice} {
		if seen[c] {
			n++
		}
	}
	return seen[colAmount] && n >= 2
}

// maxTableLines bounds the lines read from one document's tables.
const maxTableLines = 500

// readTable reads the invoice lines under each table header: each word
// goes to the column whose header it stands under, a row counts when its
// amount column holds an amount, and the table ends at the first totals
// label or a wide vertical gap.
func (r *reader) readTable() []einvoice.Line {
	var out []einvoice.Line
	for p := range r.pages {
		lines := r.pages[p]
		for i := range lines {
			if !r.headers[&lines[i]] {
				continue
			}
			cells := headerCells(&lines[i])
			last := lines[i].box.Y1
			for k := i + 1; k < len(lines) && len(out) < maxTableLines; k++ {
				row := &lines[k]
				if r.headers[row] || row.box.Y0-last > 10*row.height() || r.isTotalsLine(row) {
					break
				}
				line, ok := r.tableRow(row, cells)
				if !ok {
					continue
				}
				out = append(out, line)
				last = row.box.Y1
			}
		}
	}
	return out
}

func (r *reader) isTotalsLine(l *textLine) bool {
	for _, h := range r.hitsOf[l] {
		switch h.def.kind {
		case FieldNet, FieldTax, FieldPayable, kindGross:
			if h.start == 0 || h.def.weight >= 0.9 {
				return true
			}
		}
	}
	return false
}

// tableRow reads one row of a table by its header's cells.
func (r *reader) tableRow(l *textLine, cells []headerCell) (einvoice.Line, bool) {
	byCol := map[int][]pagetext.Word{}
	for _, w := range l.words {
		byCol[cells[nearestCell(cells, w.Box)].col] = append(byCol[cells[nearestCell(cells, w.Box)].col], w)
	}
	var line einvoice.Line
	net, ok := r.firstAmount(byCol[colAmount])
	if !ok || len(byCol[colDescription]) == 0 {
		return line, false
	}
	line.Net = net.amount
	line.Description = joinWords(byCol[colDescription])
	if q, ok := r.firstAmount(byCol[colQuantity]); ok {
		line.Quantity = q.amount
	}
	if pr, ok := r.firstAmount(byCol[colPrice]); ok {
		line.UnitPrice = pr.amount
	}
	for _, w := range byCol[colRate] {
		if rate, ok := parsePercent(w.Text, r.lang); ok {
			line.TaxRate = rate
			break
		}
		if rate, _, ok := parseAmount(w.Text, r.lang); ok && rate.LessThanOrEqual(decimal.NewFromInt(30)) && !rate.IsNegative() {
			line.TaxRate = rate
			break
		}
	}
	if line.Quantity.IsZero() && !line.UnitPrice.IsZero() {
		line.Quantity = decimal.NewFromInt(1)
	}
	if line.UnitPrice.IsZero() && !line.Quantity.IsZero() {
		line.UnitPrice = line.Net.DivRound(line.Quantity, 4)
	}
	return line, true
}

// nearestCell is the cell a word stands under: the one its span overlaps
// most, else the nearest.
func nearestCell(cells []headerCell, b pagetext.Box) int {
	best, bestScore := 0, -1e9
	for i, c := range cells {
		overlap := min(b.X1, c.x1) - max(b.X0, c.x0)
		if overlap > bestScore {
			best, bestScore = i, overlap
		}
	}
	return best
}

// maxNumbersPerLine bounds the numbers tried as a VAT breakdown's taxable
// amount, rate and tax on one line.
const maxNumbersPerLine = 8

type number struct {
	d       decimal.Decimal
	percent bool
}

// readTaxSubtotals reads a VAT breakdown: lines holding a taxable amount,
// a rate and the tax that rate gives. When none is legible, or they do not
// add up to the tax read, it is one subtotal of the net and tax at the rate
// stated beside the tax (or the only rate of the lines).
func (r *reader) readTaxSubtotals(t einvoice.Totals) []einvoice.TaxSubtotal {
	var subs []einvoice.TaxSubtotal
	seen := map[string]bool{}
	for p := range r.pages {
		for i := range r.pages[p] {
			l := &r.pages[p][i]
			if s, ok := r.breakdownLine(l); ok && !seen[s.Rate.String()] {
				seen[s.Rate.String()] = true
				subs = append(subs, s)
			}
		}
	}
	if len(subs) > 0 {
		sum := decimal.Zero
		for _, s := range subs {
			sum = sum.Add(s.Tax)
		}
		if t.Tax.IsZero() || sum.Equal(t.Tax) {
			return subs
		}
	}
	if t.Net.IsZero() && t.Tax.IsZero() {
		return nil
	}
	rate, ok := r.statedRate()
	if !ok {
		return nil
	}
	return []einvoice.TaxSubtotal{{Category: "S", Rate: rate, Taxable: t.Net, Tax: t.Tax}}
}

func (r *reader) breakdownLine(l *textLine) (einvoice.TaxSubtotal, bool) {
	var nums []number
	for j, w := range l.words {
		if len(nums) >= maxNumbersPerLine {
			break
		}
		if p, ok := parsePercent(w.Text, r.lang); ok {
			nums = append(nums, number{p, true})
			continue
		}
		if j+1 < len(l.words) && l.words[j+1].Text == "%" {
			if p, _, ok := parseAmount(w.Text, r.lang); ok {
				nums = append(nums, number{p, true})
			}
			continue
		}
		if d, _, ok := parseAmount(w.Text, r.lang); ok {
			nums = append(nums, number{d, false})
		}
	}
	if len(nums) < 3 {
		return einvoice.TaxSubtotal{}, false
	}
	hundred, tolerance := decimal.NewFromInt(100), decimal.RequireFromString("0.011")
	for a := 0; a < len(nums); a++ {
		for k := 0; k < len(nums); k++ {
			rate := nums[k]
			if k == a || rate.d.IsZero() || rate.d.GreaterThan(decimal.NewFromInt(30)) || rate.d.Exponent() < -2 {
				continue
			}
			for t := a + 1; t < len(nums); t++ {
				if t == k || nums[a].percent || nums[t].percent || !nums[a].d.IsPositive() || !nums[t].d.IsPositive() {
					continue
				}
				want := nums[a].d.Mul(rate.d).Div(hundred)
				if want.Sub(nums[t].d).Abs().LessThanOrEqual(tolerance) && nums[t].d.LessThan(nums[a].d) {
					return einvoice.TaxSubtotal{Category: "S", Rate: rate.d, Taxable: nums[a].d, Tax: nums[t].d}, true
				}
			}
		}
	}
	return einvoice.TaxSubtotal{}, false
}

// statedRate is the rate printed on the tax label's line ("MwSt. 19 %"),
// else the one rate every line of the table has.
func (r *reader) statedRate() (decimal.Decimal, bool) {
	for _, h := range r.hits {
		if h.def.kind != FieldTax {
			continue
		}
		for j, w := range h.line.words {
			if p, ok := parsePercent(w.Text, r.lang); ok {
				return p, true
			}
			if j+1 < len(h.line.words) && h.line.words[j+1].Text == "%" {
				if p, _, ok := parseAmount(strings.Trim(w.Text, "("), r.lang); ok {
					return p, true
				}
			}
		}
	}
	return decimal.Decimal{}, false
}
