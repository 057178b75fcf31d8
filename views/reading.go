package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a-h/templ"

	"greatbook/internal/reading"
	"greatbook/internal/textfields"
)

// ReadingView is what the text reading of a document found, as its type-in
// form and its page show it.
type ReadingView struct {
	reading.Reading
	// Supplier names the supplier whose learned layout read the document
	// (when Reading.LayoutID is set).
	Supplier string
}

// readFields are the fields a reading may place, in the form's order, with
// the id of the form's input each one fills (the totals have none: they
// are computed from the lines, so each has a row of its own).
var readFields = []struct{ name, label, input string }{
	{textfields.FieldNumber, "Number", "t-number"},
	{textfields.FieldIssueDate, "Issue date", "t-issue"},
	{textfields.FieldDueDate, "Due date", "t-due"},
	{textfields.FieldCurrency, "Currency", "t-currency"},
	{textfields.FieldSellerName, "Seller", "t-seller"},
	{textfields.FieldSellerVAT, "Seller VAT id", "t-seller-vat"},
	{textfields.FieldBuyerName, "Buyer", "t-buyer"},
	{textfields.FieldIBAN, "IBAN", "t-iban"},
	{textfields.FieldNet, "Net", "read-net"},
	{textfields.FieldTax, "Tax", "read-tax"},
	{textfields.FieldPayable, "Payable", "read-payable"},
}

// readFieldLabel names a read field for a person.
func readFieldLabel(name string) string {
	for _, f := range readFields {
		if f.name == name {
			return f.label
		}
	}
	return strings.ReplaceAll(name, "_", " ")
}

// readFieldTarget is the id of the element a read field's place leads to.
func readFieldTarget(name string) string {
	for _, f := range readFields {
		if f.name == name {
			return f.input
		}
	}
	return ""
}

// sourceWords says how the document's pages were read.
func (v ReadingView) sourceWords() string {
	switch v.Source {
	case "ocr":
		return "Read by OCR"
	case "mixed":
		return "Read from its text layer and by OCR"
	}
	return "Read from its text layer"
}

// sourceSentence says how the document's pages were read, and by whose
// learned layout (the supplier's name with its bidi controls shown, as
// every supplied text).
func (v ReadingView) sourceSentence() string {
	if v.LayoutID == 0 {
		return v.sourceWords() + "."
	}
	return v.sourceWords() + " by " + ShowBidiControls(orDefault(v.Supplier, "the supplier")) + "’s learned layout."
}

// uncertain reports whether the reading is unsure of field name.
func (v *ReadingView) uncertain(name string) bool {
	return v != nil && slices.Contains(v.Uncertain, name)
}

// read reports whether the reading found or looked for field name: its
// input is marked and its place drawn.
func (v *ReadingView) read(name string) bool {
	if v == nil {
		return false
	}
	_, ok := v.Fields[name]
	return ok || v.uncertain(name)
}

// note is what the form says under an uncertain field: what was read and
// how sure, or that nothing was found.
func (v *ReadingView) note(name string) string {
	if f, ok := v.Fields[name]; ok {
		return fmt.Sprintf("check: read as “%s” with confidence %.2f", f.Value, f.Confidence)
	}
	return "not found on the page — type it in"
}

func noteID(name string) string { return "read-note-" + name }

// inputAttrs mark a read field's input with its field name, described by
// its note when it is uncertain.
func (v *ReadingView) inputAttrs(name string) templ.Attributes {
	if !v.read(name) {
		return nil
	}
	a := templ.Attributes{"data-field": name}
	if v.uncertain(name) {
		a["aria-describedby"] = noteID(name)
	}
	return a
}

// uncertainLabels are the uncertain fields in words, in the form's order.
func (v ReadingView) uncertainLabels() string {
	var out []string
	for _, f := range readFields {
		if slices.Contains(v.Uncertain, f.name) {
			out = append(out, readFieldLabel(f.name))
		}
	}
	return strings.Join(out, ", ")
}

// readPlace is one field's place on a page.
type readPlace struct {
	Field     string
	Read      textfields.Field
	Uncertain bool
}

// readPage is a page that carries read fields, with their places.
type readPage struct {
	Number int
	Places []readPlace
}

// pages are the pages that carry read fields, in order, each with its
// fields' places in the form's order.
func (v ReadingView) pages() []readPage {
	var out []readPage
	for _, rf := range readFields {
		f, ok := v.Fields[rf.name]
		if !ok || f.Page < 1 || f.Box.X1 <= f.Box.X0 || f.Box.Y1 <= f.Box.Y0 {
			continue
		}
		i := slices.IndexFunc(out, func(p readPage) bool { return p.Number == f.Page })
		if i < 0 {
			out = append(out, readPage{Number: f.Page})
			i = len(out) - 1
		}
		out[i].Places = append(out[i].Places, readPlace{Field: rf.name, Read: f, Uncertain: slices.Contains(v.Uncertain, rf.name)})
	}
	slices.SortFunc(out, func(a, b readPage) int { return a.Number - b.Number })
	return out
}

// boxStyle places a field's box over its page's image, in percentages of
// the image, as the reading's fractions of the page.
func boxStyle(p readPlace) templ.SafeCSS {
	b := p.Read.Box
	pct := func(f float64) float64 { return min(max(f, 0), 1) * 100 }
	return templ.SafeCSS(fmt.Sprintf("left:%.2f%%;top:%.2f%%;width:%.2f%%;height:%.2f%%",
		pct(b.X0), pct(b.Y0), pct(b.X1)-pct(b.X0), pct(b.Y1)-pct(b.Y0)))
}

// boxLabel names a place for a screen reader: the field, and what was read there.
func boxLabel(p readPlace) string {
	s := readFieldLabel(p.Field) + ", read here as " + p.Read.Value
	if p.Uncertain {
		s += " (uncertain)"
	}
	return s
}

// readTotals are the totals the reading found or looked for, which the
// form computes from the lines.
func (v *ReadingView) readTotals() []string {
	var out []string
	for _, name := range []string{textfields.FieldNet, textfields.FieldTax, textfields.FieldPayable} {
		if v.read(name) {
			out = append(out, name)
		}
	}
	return out
}

func (v *ReadingView) valueOf(name string) string {
	if f, ok := v.Fields[name]; ok {
		return f.Value
	}
	return "—"
}
