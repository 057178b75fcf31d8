// Package mutate makes variants of an e-invoice for differential testing
// against the official validator: each variant is the document with a few
// random edits of the kinds that break, or only seem to break, a business
// rule — elements dropped, repeated or reordered; amounts moved by a cent,
// a unit or their sign; codes swapped for others inside and outside their
// code lists or written in another case; dates given a time zone; text
// padded with white space; optional groups removed; an element moved out of
// its namespace. The same seed gives the same variants.
package mutate

import (
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/ubl"
)

// Mutant is one variant: its syntax ("ubl" or "cii"), its bytes and the
// edits that made it, in words.
type Mutant struct {
	Syntax string
	Doc    []byte
	Edits  []string
}

// An operator edits the tree in place and says what it did, or returns ""
// when the document offers it nothing to edit.
type operator func(rng *rand.Rand, syntax string, root *element) string

var operators = []struct {
	name   string
	weight int
	op     operator
}{
	{"drop", 4, dropElement},
	{"duplicate", 2, duplicateElement},
	{"reorder", 1, swapSiblings},
	{"amount", 6, moveAmount},
	{"code", 6, swapCode},
	{"case", 2, changeCase},
	{"timezone", 2, addTimezone},
	{"whitespace", 2, padText},
	{"group", 3, removeGroup},
	{"namespace", 1, moveOutOfNamespace},
	{"empty", 1, emptyText},
}

var totalWeight = func() int {
	n := 0
	for _, o := range operators {
		n += o.weight
	}
	return n
}()

// Mutate returns doc with edits random edits (at least one that applied).
func Mutate(rng *rand.Rand, syntax string, doc []byte, edits int) (Mutant, error) {
	root, err := parse(doc)
	if err != nil {
		return Mutant{}, fmt.Errorf("mutate: %w", err)
	}
	m := Mutant{Syntax: syntax}
	for tries := 0; len(m.Edits) < edits && tries < 20*edits; tries++ {
		pick := rng.IntN(totalWeight)
		for _, o := range operators {
			if pick < o.weight {
				if what := o.op(rng, syntax, root); what != "" {
					m.Edits = append(m.Edits, o.name+": "+what)
				}
				break
			}
			pick -= o.weight
		}
	}
	m.Doc = write(root)
	return m, nil
}

func pick[T any](rng *rand.Rand, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[rng.IntN(len(xs))], true
}

func filter(root *element, keep func(*element) bool) []*element {
	var out []*element
	for _, e := range all(root) {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func path(e *element) string {
	var parts []string
	for ; e != nil; e = e.parent {
		parts = append([]string{e.local()}, parts...)
	}
	return strings.Join(parts, "/")
}

func dropElement(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return e.parent != nil && !e.hasElements() }))
	if !ok {
		return ""
	}
	remove(e)
	return path(e)
}

func duplicateElement(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return e.parent != nil }))
	if !ok {
		return ""
	}
	p := e.parent
	for i, c := range p.content {
		if c == any(e) {
			p.content = append(p.content[:i+1:i+1], append([]any{clone(e, p)}, p.content[i+1:]...)...)
			break
		}
	}
	return path(e)
}

func swapSiblings(rng *rand.Rand, _ string, root *element) string {
	p, ok := pick(rng, filter(root, func(e *element) bool { return len(e.children()) >= 2 }))
	if !ok {
		return ""
	}
	var idx []int
	for i, c := range p.content {
		if _, ok := c.(*element); ok {
			idx = append(idx, i)
		}
	}
	k := rng.IntN(len(idx) - 1)
	i, j := idx[k], idx[k+1]
	p.content[i], p.content[j] = p.content[j], p.content[i]
	return path(p.content[i].(*element)) + " <-> " + p.content[j].(*element).local()
}

var numberPattern = regexp.MustCompile(`^\s*-?\d+(\.\d+)?\s*$`)

func isAmount(e *element) bool {
	l := e.local()
	return !e.hasElements() && numberPattern.MatchString(e.text()) &&
		(strings.Contains(l, "Amount") || strings.Contains(l, "Price") || strings.Contains(l, "Quantity") ||
			strings.Contains(l, "Percent") || l == "Percent" || l == "MultiplierFactorNumeric" || l == "BaseQuantity")
}

func moveAmount(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, isAmount))
	if !ok {
		return ""
	}
	before := strings.TrimSpace(e.text())
	d, err := decimal.NewFromString(before)
	if err != nil {
		return ""
	}
	places := int32(0)
	if i := strings.IndexByte(before, '.'); i >= 0 {
		places = int32(len(before) - i - 1)
	}
	var after decimal.Decimal
	switch rng.IntN(6) {
	case 0:
		after = d.Add(decimal.New(1, -2))
	case 1:
		after = d.Sub(decimal.New(1, -2))
	case 2:
		after = d.Add(decimal.New(1, 0))
	case 3:
		after = d.Sub(decimal.New(1, 0))
	case 4:
		after = d.Neg()
	case 5:
		after = decimal.Zero
	}
	text := after.StringFixed(max(places, after.Exponent()*-1))
	if places == 0 && !after.Equal(after.Truncate(0)) {
		text = after.StringFixed(2)
	}
	e.setText(text)
	return fmt.Sprintf("%s %s -> %s", path(e), before, text)
}

// codeLists are values of the coded fields, inside and outside their lists.
var codeLists = map[string][]string{
	"currency":   {"EUR", "USD", "SEK", "NOK", "GBP", "XXX", "EURO", "eur", "ZZZ"},
	"category":   {"S", "Z", "E", "AE", "K", "G", "O", "L", "M", "B", "X", "s"},
	"type":       {"380", "381", "384", "389", "751", "326", "386", "261", "393", "999", "ABC"},
	"taxpoint":   {"3", "35", "432", "5", "29", "72", "1"},
	"country":    {"DE", "FR", "SE", "NO", "GR", "EL", "XK", "XX", "de"},
	"unit":       {"C62", "EA", "HUR", "H87", "XPP", "ZZZ", "XYZ", "c62"},
	"payment":    {"30", "58", "59", "31", "1", "48", "ZZZ", "999"},
	"exemption":  {"VATEX-EU-O", "VATEX-EU-132-1G", "vatex-eu-132-1g", "VATEX-EU-AE", "VATEX-EU-IC", "VATEX-EU-G", "BAD"},
	"scheme":     {"0088", "0184", "0007", "9930", "EM", "0204", "XXXX"},
	"mime":       {"application/pdf", "text/csv", "image/png", "image/jpeg", "text/plain"},
	"allowance":  {"95", "100", "102", "FC", "ABL", "ZZZ", "999"},
	"dateformat": {"102", "610", "203"},
	"taxscheme":  {"VAT", "GST", "vat"},
}

// codeOf says which list an element's text is from ("" when none).
func codeOf(syntax string, e *element) string {
	l, parent := e.local(), ""
	if e.parent != nil {
		parent = e.parent.local()
	}
	switch l {
	case "DocumentCurrencyCode", "TaxCurrencyCode", "InvoiceCurrencyCode":
		return "currency"
	case "InvoiceTypeCode", "CreditNoteTypeCode":
		return "type"
	case "DescriptionCode", "DueDateTypeCode":
		return "taxpoint"
	case "IdentificationCode", "CountryID":
		return "country"
	case "PaymentMeansCode":
		return "payment"
	case "TaxExemptionReasonCode", "ExemptionReasonCode":
		return "exemption"
	case "AllowanceChargeReasonCode", "ReasonCode":
		return "allowance"
	case "CategoryCode":
		return "category"
	case "ID":
		switch parent {
		case "ClassifiedTaxCategory", "TaxCategory":
			return "category"
		case "TaxScheme":
			return "taxscheme"
		}
	case "TypeCode":
		switch parent {
		case "ExchangedDocument":
			return "type"
		case "SpecifiedTradeSettlementPaymentMeans":
			return "payment"
		case "ApplicableTradeTax", "CategoryTradeTax":
			return "taxscheme"
		}
	}
	return ""
}

var codeAttributes = map[string]string{"currencyID": "currency", "unitCode": "unit", "schemeID": "scheme", "mimeCode": "mime", "format": "dateformat"}

func swapCode(rng *rand.Rand, syntax string, root *element) string {
	type target struct {
		e    *element
		attr int
		list string
	}
	var targets []target
	for _, e := range all(root) {
		if list := codeOf(syntax, e); list != "" && !e.hasElements() {
			targets = append(targets, target{e, -1, list})
		}
		for i, a := range e.attrs {
			if list, ok := codeAttributes[a.Name.Local]; ok && a.Name.Space != "xmlns" {
				targets = append(targets, target{e, i, list})
			}
		}
	}
	t, ok := pick(rng, targets)
	if !ok {
		return ""
	}
	value, _ := pick(rng, codeLists[t.list])
	if t.attr >= 0 {
		before := t.e.attrs[t.attr].Value
		t.e.attrs[t.attr].Value = value
		return fmt.Sprintf("%s/@%s %s -> %s", path(t.e), t.e.attrs[t.attr].Name.Local, before, value)
	}
	before := t.e.text()
	t.e.setText(value)
	return fmt.Sprintf("%s %s -> %s", path(t.e), strings.TrimSpace(before), value)
}

func changeCase(rng *rand.Rand, syntax string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool {
		return !e.hasElements() && strings.TrimSpace(e.text()) != "" && (codeOf(syntax, e) != "" || strings.HasSuffix(e.local(), "Code"))
	}))
	if !ok {
		return ""
	}
	before := e.text()
	after := strings.ToLower(before)
	if after == before {
		after = strings.ToUpper(before)
	}
	if after == before {
		return ""
	}
	e.setText(after)
	return fmt.Sprintf("%s %s -> %s", path(e), strings.TrimSpace(before), strings.TrimSpace(after))
}

var (
	ublDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	ciiDate = regexp.MustCompile(`^\d{8}$`)
)

func addTimezone(rng *rand.Rand, syntax string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool {
		t := strings.TrimSpace(e.text())
		return !e.hasElements() && (ublDate.MatchString(t) || ciiDate.MatchString(t))
	}))
	if !ok {
		return ""
	}
	zone, _ := pick(rng, []string{"+01:00", "Z", "-05:00", "+14:00"})
	before := strings.TrimSpace(e.text())
	e.setText(before + zone)
	return fmt.Sprintf("%s %s -> %s", path(e), before, before+zone)
}

func padText(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return !e.hasElements() && strings.TrimSpace(e.text()) != "" }))
	if !ok {
		return ""
	}
	pad, _ := pick(rng, []string{" ", "\n\t\t", "  \n"})
	switch rng.IntN(3) {
	case 0:
		e.setText(pad + e.text())
	case 1:
		e.setText(e.text() + pad)
	default:
		e.setText(pad + e.text() + pad)
	}
	return path(e)
}

func removeGroup(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return e.parent != nil && e.parent.parent != nil && e.hasElements() }))
	if !ok {
		return ""
	}
	remove(e)
	return path(e)
}

// moveOutOfNamespace gives an element a prefix bound, on the root, to a
// namespace of no standard's: a reader that matches local names alone
// still reads it, the official validator does not.
func moveOutOfNamespace(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return e.parent != nil }))
	if !ok {
		return ""
	}
	if _, declared := root.attrDecl("other"); !declared {
		root.attrs = append(root.attrs, xml.Attr{Name: xml.Name{Space: "xmlns", Local: "other"}, Value: "urn:example:not-a-standard"})
	}
	e.name.Space = "other"
	return path(e)
}

func (e *element) attrDecl(prefix string) (int, bool) {
	for i, a := range e.attrs {
		if a.Name.Space == "xmlns" && a.Name.Local == prefix {
			return i, true
		}
	}
	return -1, false
}

func emptyText(rng *rand.Rand, _ string, root *element) string {
	e, ok := pick(rng, filter(root, func(e *element) bool { return !e.hasElements() && strings.TrimSpace(e.text()) != "" }))
	if !ok {
		return ""
	}
	e.setText("")
	return path(e)
}

// Convert reads doc (UBL or CII) into the product's document model and
// writes it in the other syntax: the same invoice as far as the model
// holds it. It returns ok=false when the model cannot read the document.
func Convert(syntax string, doc []byte) (Mutant, bool) {
	switch syntax {
	case "ubl":
		d, err := ubl.Parse(doc)
		if err != nil {
			return Mutant{}, false
		}
		out, err := cii.Build(d)
		return Mutant{Syntax: "cii", Doc: out, Edits: []string{"converted from UBL to CII"}}, err == nil
	case "cii":
		d, err := cii.Parse(doc)
		if err != nil {
			return Mutant{}, false
		}
		out, err := ubl.Build(d)
		return Mutant{Syntax: "ubl", Doc: out, Edits: []string{"converted from CII to UBL"}}, err == nil
	}
	return Mutant{}, false
}
