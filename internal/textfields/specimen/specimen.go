// Package specimen makes invoices whose values are known: PDFs drawn in two
// dozen layouts (four languages, several label wordings, placements, fonts,
// table shapes, number and date formats, one page or several), their
// rasterised "scans", and the measure of how well the text reading
// (packages pagetext and textfields) gets their fields back. Each layout is
// one supplier with a fixed seller, so two specimens of a layout are two
// invoices of the same supplier, as layout learning sees them.
package specimen

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
)

// Specimen is one generated invoice: the layout (supplier) it was drawn
// in, the values drawn (Truth) and the PDF.
type Specimen struct {
	Layout   string
	Language string
	Supplier string
	Truth    einvoice.Document
	PDF      []byte
}

// Placement is where a layout puts the invoice's number and dates.
type Placement int

// The placements of the details.
const (
	DetailsInline  Placement = iota // "Label: value", one per line, at the left
	DetailsStacked                  // labels in a row, each value below its label
	DetailsBox                      // a bordered box of label and value at the top right
	DetailsTable                    // a two-column grid under the buyer's address
)

// Table is how a layout draws its lines.
type Table int

// The table shapes.
const (
	TableGrid  Table = iota // every cell bordered
	TableRules              // a rule under the heading and above the totals
	TablePlain              // no lines at all
)

// Labels are the words a layout prints.
type Labels struct {
	Title, Number, Issue, Due, Net, Tax, Payable, VAT, BillTo, Customer string
	Currency, IBAN, BIC, Page, PayBy                                    string
	Columns                                                             map[byte]string
}

// Layout is one supplier's way of drawing an invoice, and the supplier.
type Layout struct {
	Name     string
	Language string
	Seller   einvoice.Party
	IBAN     string
	BIC      string
	Currency string
	Labels   Labels
	Details  Placement
	Table    Table
	// Columns are the table's columns in order: n position, d description,
	// q quantity, u unit, p unit price, r tax rate, a amount.
	Columns     string
	Font        string
	Size        float64
	Numbers     Numbers
	Dates       Dates
	Rates       []decimal.Decimal
	SellerRight bool // the letterhead at the right
	Footer      bool // the seller's VAT id and IBAN in a footer on every page
	GroupIBAN   bool // the IBAN printed in groups of four
	Customer    bool // a customer number among the details
	MaxLines    int  // lines drawn per invoice: 1 to MaxLines (the long layouts from 26)
	Pattern     string
	Terms       int // days from issue to due
}

// spec is the compact description Layouts expands.
type spec struct {
	name, lang, country, currency, font string
	size                                float64
	details                             Placement
	table                               Table
	cols                                string
	numbers                             Numbers
	dates                               Dates
	variant                             int
	rates                               []string
	long, right, footer                 bool
	pattern                             string
}

var (
	commaDot   = func(m Mark) Numbers { return Numbers{",", ".", m} } // 1,234.56
	dotComma   = func(m Mark) Numbers { return Numbers{".", ",", m} } // 1.234,56
	spaceComma = func(m Mark) Numbers { return Numbers{" ", ",", m} } // 1 234,56
	bareDot    = func(m Mark) Numbers { return Numbers{"", ".", m} }  // 1234.56
	bareComma  = func(m Mark) Numbers { return Numbers{"", ",", m} }  // 1234,56
)

var specs = []spec{
	{"en-classic", "en", "GB", "GBP", "Helvetica", 10, DetailsInline, TableGrid, "dqpa", commaDot(MarkSymbolBefore), DateLong, 0, []string{"20"}, false, false, false, "INV-YYYY-####"},
	{"en-box", "en", "NL", "EUR", "Times", 11, DetailsBox, TableRules, "nduqra", commaDot(MarkCodeAfter), DateISO, 1, []string{"21"}, false, true, false, "#####"},
	{"en-us", "en", "NL", "USD", "Helvetica", 9, DetailsStacked, TablePlain, "dqpa", commaDot(MarkSymbolBefore), DateUS, 2, []string{"21"}, false, false, false, "US-######"},
	{"en-details", "en", "GB", "GBP", "Courier", 9, DetailsTable, TableGrid, "dqura", commaDot(MarkNone), DateSlashes, 3, []string{"20"}, false, false, true, "YYYY/####"},
	{"en-long", "en", "AT", "CHF", "Helvetica", 8, DetailsInline, TableRules, "ndqpra", commaDot(MarkCodeBefore), DateShortMonth, 4, []string{"20", "10"}, true, true, false, "INV####"},
	{"en-euro", "en", "DE", "EUR", "Times", 10, DetailsBox, TableGrid, "dqpa", dotComma(MarkSymbolAfter), DateDots, 5, []string{"19"}, false, false, true, "YYYY-####"},
	{"en-euro-stacked", "en", "BE", "EUR", "Helvetica", 11, DetailsStacked, TableRules, "dqpra", spaceComma(MarkCodeAfter), DateDashes, 6, []string{"21", "6"}, false, false, false, "BE-YYYY-###"},
	{"de-classic", "de", "DE", "EUR", "Helvetica", 10, DetailsInline, TableRules, "ndqupa", dotComma(MarkSymbolAfter), DateDots, 0, []string{"19"}, false, false, true, "RE-YYYY-####"},
	{"de-box", "de", "DE", "EUR", "Times", 10, DetailsBox, TableGrid, "dqpra", dotComma(MarkCodeBefore), DateLongDot, 1, []string{"19", "7"}, false, true, false, "R#####"},
	{"de-details", "de", "AT", "EUR", "Helvetica", 9, DetailsTable, TablePlain, "ndqpa", dotComma(MarkNone), DateDots, 2, []string{"20"}, false, false, false, "YYYY######"},
	{"de-stacked", "de", "AT", "EUR", "Courier", 10, DetailsStacked, TableRules, "dqpa", bareComma(MarkSymbolAfter), DateISO, 3, []string{"20"}, false, false, true, "AR-####"},
	{"de-long", "de", "DE", "EUR", "Helvetica", 8, DetailsInline, TableGrid, "ndqupra", dotComma(MarkCodeAfter), DateDots, 4, []string{"19", "7"}, true, false, true, "YYYY-#####"},
	{"de-chf", "de", "DE", "CHF", "Helvetica", 11, DetailsBox, TableRules, "dqpa", dotComma(MarkCodeBefore), DateLongDot, 5, []string{"19"}, false, true, false, "CH-####"},
	{"fr-classic", "fr", "FR", "EUR", "Helvetica", 10, DetailsInline, TableGrid, "dqpra", spaceComma(MarkSymbolAfter), DateSlashes, 0, []string{"20"}, false, false, false, "FA-YYYY-####"},
	{"fr-box", "fr", "FR", "EUR", "Times", 11, DetailsBox, TableRules, "ndqpa", spaceComma(MarkCodeAfter), DateLong, 1, []string{"20", "5.5"}, false, true, true, "F######"},
	{"fr-details", "fr", "BE", "EUR", "Helvetica", 9, DetailsTable, TablePlain, "dqpa", bareComma(MarkSymbolAfter), DateSlashes, 2, []string{"21"}, false, false, false, "YYYY-###"},
	{"fr-stacked", "fr", "FR", "EUR", "Courier", 9, DetailsStacked, TableGrid, "dqupra", spaceComma(MarkNone), DateLong, 3, []string{"20"}, false, false, false, "FAC-#####"},
	{"fr-long", "fr", "FR", "EUR", "Times", 9, DetailsInline, TableRules, "ndqpra", spaceComma(MarkSymbolAfter), DateSlashes, 0, []string{"20", "10"}, true, false, true, "YYYY-F-####"},
	{"fr-belge", "fr", "BE", "EUR", "Helvetica", 12, DetailsBox, TableGrid, "dqpa", dotComma(MarkSymbolBefore), DateDots, 1, []string{"21"}, false, true, false, "FB/YYYY/###"},
	{"nl-classic", "nl", "NL", "EUR", "Helvetica", 10, DetailsInline, TableRules, "dqpra", dotComma(MarkSymbolBefore), DateDashes, 0, []string{"21"}, false, false, false, "F-YYYY-####"},
	{"nl-box", "nl", "NL", "EUR", "Times", 10, DetailsBox, TableGrid, "ndqpa", dotComma(MarkCodeAfter), DateLong, 1, []string{"21", "9"}, false, true, true, "YYYY####"},
	{"nl-details", "nl", "BE", "EUR", "Helvetica", 9, DetailsTable, TablePlain, "dqupa", dotComma(MarkCodeBefore), DateDashes, 2, []string{"21"}, false, false, false, "VF######"},
	{"nl-stacked", "nl", "NL", "EUR", "Courier", 10, DetailsStacked, TableRules, "dqpa", dotComma(MarkSymbolBefore), DateISO, 3, []string{"21"}, false, false, true, "NL-#####"},
	{"nl-long", "nl", "NL", "EUR", "Helvetica", 8, DetailsInline, TableGrid, "ndqupra", dotComma(MarkNone), DateLong, 0, []string{"21", "9"}, true, false, false, "YYYY-#####"},
	{"nl-usd", "nl", "NL", "USD", "Times", 11, DetailsBox, TableRules, "dqpa", bareDot(MarkCodeBefore), DateDashes, 1, []string{"21"}, false, false, false, "EXP-####"},
	{"en-belgium", "en", "BE", "EUR", "Helvetica", 12, DetailsTable, TableRules, "dqpa", commaDot(MarkSymbolBefore), DateLong, 2, []string{"21"}, false, true, false, "INV/YYYY/####"},
}

// Layouts returns every layout, in a fixed order, with its seller.
func Layouts() []Layout {
	out := make([]Layout, len(specs))
	for i, s := range specs {
		out[i] = s.layout(int64(i))
	}
	return out
}

func (s spec) layout(index int64) Layout {
	r := rand.New(rand.NewSource(7919 * (index + 1)))
	v := vocabs[s.lang]
	pick := func(words []string) string { return words[s.variant%len(words)] }
	names := sellerNames[s.lang]
	place := places[s.country][r.Intn(len(places[s.country]))]
	bank := banks[s.country][r.Intn(len(banks[s.country]))]
	l := Layout{
		Name: s.name, Language: s.lang, Currency: s.currency,
		Seller: einvoice.Party{
			Name:    names[int(index)%len(names)],
			VATID:   vatID(s.country, r),
			Address: einvoice.Address{Line1: place.street, Postcode: place.postcode, City: place.city, Country: s.country},
		},
		BIC: bank[1],
		Labels: Labels{
			Title: pick(v.title), Number: pick(v.number), Issue: pick(v.issue), Due: pick(v.due), Net: pick(v.net),
			Tax: pick(v.tax), Payable: pick(v.payable), VAT: pick(v.vat), BillTo: pick(v.billTo), Customer: pick(v.customer),
			Currency: v.currency, IBAN: v.iban, BIC: v.bic, Page: v.page, PayBy: v.payBy,
			Columns: map[byte]string{'n': v.pos, 'd': v.desc, 'q': v.qty, 'u': v.unit, 'p': v.price, 'r': v.rate, 'a': v.amount},
		},
		Details: s.details, Table: s.table, Columns: s.cols, Font: s.font, Size: s.size,
		Numbers: s.numbers, Dates: s.dates, SellerRight: s.right, Footer: s.footer,
		GroupIBAN: index%3 != 2, Customer: index%2 == 0, MaxLines: 8, Pattern: s.pattern, Terms: []int{14, 30, 10, 21}[index%4],
	}
	l.IBAN = iban(s.country, bank[0], r)
	if s.long {
		l.MaxLines = 40
	}
	for _, rate := range s.rates {
		l.Rates = append(l.Rates, decimal.RequireFromString(rate))
	}
	return l
}

// Generate draws n specimens from seed, cycling through the layouts: the
// same seed gives the same values and the same PDF bytes.
func Generate(seed int64, n int) ([]Specimen, error) {
	layouts := Layouts()
	out := make([]Specimen, 0, n)
	for i := 0; i < n; i++ {
		l := layouts[i%len(layouts)]
		d := l.Invoice(rand.New(rand.NewSource(seed*1_000_003 + int64(i))))
		pdf, err := Render(l, d)
		if err != nil {
			return nil, fmt.Errorf("specimen: %s: %w", l.Name, err)
		}
		out = append(out, Specimen{Layout: l.Name, Language: l.Language, Supplier: l.Name, Truth: d, PDF: pdf})
	}
	return out, nil
}

var start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Invoice draws an invoice of l's seller from r: its number, dates, buyer
// and lines, with totals that add up (net = sum of lines, tax by rate,
// payable = net + tax).
func (l Layout) Invoice(r *rand.Rand) einvoice.Document {
	issue := start.AddDate(0, 0, r.Intn(700))
	b := buyers[r.Intn(len(buyers))]
	d := einvoice.Document{
		Format: einvoice.FormatUnknown, Type: einvoice.TypeInvoice, TypeCode: "380",
		Number:    invoiceNumber(l.Pattern, issue.Year(), r),
		IssueDate: issue.Format("2006-01-02"),
		DueDate:   issue.AddDate(0, 0, l.Terms).Format("2006-01-02"),
		Currency:  l.Currency,
		Seller:    l.Seller,
		Buyer: einvoice.Party{Name: b.name,
			Address: einvoice.Address{Line1: b.street, Postcode: b.postcode, City: b.city, Country: b.country}},
		PayeeIBAN: l.IBAN, PayeeBIC: l.BIC,
	}
	n := 1 + r.Intn(l.MaxLines)
	if l.MaxLines > 8 {
		n = 26 + r.Intn(l.MaxLines-25)
	}
	v := vocabs[l.Language]
	for i := 0; i < n; i++ {
		qty := decimal.NewFromInt(int64(1 + r.Intn(12)))
		if r.Intn(4) == 0 {
			qty = decimal.New(int64(1+r.Intn(40)), -1).Mul(decimal.NewFromInt(5)) // hours in halves
		}
		price := decimal.New(int64(500+r.Intn(150000)), -2)
		line := einvoice.Line{
			Description: v.items[r.Intn(len(v.items))],
			Quantity:    qty, UnitPrice: price,
			Net:     qty.Mul(price).Round(2),
			TaxRate: l.Rates[r.Intn(len(l.Rates))], TaxCategory: "S",
		}
		d.Lines = append(d.Lines, line)
	}
	d.TaxSubtotals = einvoice.ComputeSubtotals(d.Lines, 2)
	net, tax := einvoice.SumLineNets(d.Lines), einvoice.SumSubtotalTax(d.TaxSubtotals)
	d.Totals = einvoice.Totals{LineTotal: net, Net: net, Tax: tax, Gross: net.Add(tax), Payable: net.Add(tax)}
	return d
}

// invoiceNumber fills a pattern: YYYY is the year, each # a digit.
func invoiceNumber(pattern string, year int, r *rand.Rand) string {
	s := strings.ReplaceAll(pattern, "YYYY", fmt.Sprint(year))
	var b strings.Builder
	for i, c := range s {
		if c == '#' {
			if i == strings.IndexByte(s, '#') {
				b.WriteByte(byte('1' + r.Intn(9)))
			} else {
				b.WriteByte(byte('0' + r.Intn(10)))
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
