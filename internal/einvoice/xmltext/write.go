package xmltext

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

// What cii.Build and ubl.Build share: the rules both follow in writing a Document out, and the writer.

// ENSpecification is the specification identifier (BT-24) the builders state: the EN 16931 core.
const ENSpecification = "urn:cen.eu:en16931:2017"

// DocumentTypeCode is the type code (BT-3) the builders write. The code must say the document's type
// (CII has no other place to say it, and UBL's root must agree with it): a code that does not (none,
// or one that contradicts the type) becomes the type's standard code, 380 or 381.
func DocumentTypeCode(d einvoice.Document) string {
	typeCode := d.TypeCode
	if typeCode == "" || einvoice.DocTypeFor(typeCode) != d.Type {
		typeCode = "380"
		if d.Type == einvoice.TypeCreditNote {
			typeCode = "381"
		}
	}
	return typeCode
}

// AmountFormat formats amounts in currency with its minor units, or in full where they have more
// decimals than that.
func AmountFormat(currency string) func(decimal.Decimal) string {
	minor := einvoice.MinorUnitsOf(currency)
	return func(v decimal.Decimal) string {
		if v.Round(minor).Equal(v) {
			return money.Format(v, minor)
		}
		return money.Canonical(v)
	}
}

// CheckBuildDate refuses a date that is not YYYY-MM-DD, naming the syntax being built and the field;
// an empty date is no date, and passes.
func CheckBuildDate(syntax, field, date string) error {
	if date != "" && !isDateShape(date) {
		return fmt.Errorf("einvoice: build %s: %s %q is not YYYY-MM-DD", syntax, field, einvoice.ClipText(date))
	}
	return nil
}

// AddressToWrite is the postal address a builder writes for p: the address as p states it and nothing
// made up, so that a parsed document built again reads the same; or, for a party that states none but
// has a VAT id, the country the id's prefix names, which EN 16931 requires of the seller and the buyer
// (BR-09, BR-11). ok is false when there is neither.
func AddressToWrite(p einvoice.Party) (a einvoice.Address, ok bool) {
	if p.Address != (einvoice.Address{}) {
		return p.Address, true
	}
	if country := p.VATCountry(); country != "" {
		return einvoice.Address{Country: country}, true
	}
	return einvoice.Address{}, false
}

// StatesRate says whether a builder writes a VAT rate: EN 16931 forbids one for category O, not subject
// to VAT (BR-O-05 to BR-O-07), where the model's zero rate stands for none. A rate that category should
// not have is written, for the rules to report.
func StatesRate(category string, rate decimal.Decimal) bool {
	return category != "O" || !rate.IsZero()
}

// Writer writes indented XML with escaped text.
type Writer struct {
	buf   bytes.Buffer
	depth int
}

// Bytes is what was written.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }

// Raw writes s as it is: a declaration or a root element with its namespaces.
func (w *Writer) Raw(s string) { w.buf.WriteString(s) }

func (w *Writer) indent() { w.buf.WriteString(strings.Repeat("  ", w.depth+1)) }

// Open starts the element name, on a line of its own, and indents what follows.
func (w *Writer) Open(name string) {
	w.indent()
	w.buf.WriteString("<" + name + ">\n")
	w.depth++
}

// Close ends the element name that Open started.
func (w *Writer) Close(name string) {
	w.depth--
	w.indent()
	w.buf.WriteString("</" + name + ">\n")
}

// Empty writes the element name without content.
func (w *Writer) Empty(name string) {
	w.indent()
	w.buf.WriteString("<" + name + "/>\n")
}

// Elem writes the element name holding the text value, escaped.
func (w *Writer) Elem(name, value string) {
	w.indent()
	w.buf.WriteString("<" + name + ">")
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}

// Optional writes the element name holding value, or nothing when value is empty.
func (w *Writer) Optional(name, value string) {
	if value != "" {
		w.Elem(name, value)
	}
}

// ElemAttr writes the element name with one attribute, attr="attrValue", holding value.
func (w *Writer) ElemAttr(name, attr, attrValue, value string) {
	w.indent()
	w.buf.WriteString("<" + name + " " + attr + `="`)
	xml.EscapeText(&w.buf, []byte(attrValue)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString(`">`)
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}
