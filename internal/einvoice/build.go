package einvoice

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// What BuildCII and BuildUBL share: the rules both follow in writing a Document out, and the writer.

// enSpecification is the specification identifier (BT-24) the builders state: the EN 16931 core.
const enSpecification = "urn:cen.eu:en16931:2017"

// documentTypeCode is the type code (BT-3) the builders write. The code must say the document's type
// (CII has no other place to say it, and UBL's root must agree with it): a code that does not (none,
// or one that contradicts the type) becomes the type's standard code, 380 or 381.
func documentTypeCode(d Document) string {
	typeCode := d.TypeCode
	if typeCode == "" || DocTypeFor(typeCode) != d.Type {
		typeCode = "380"
		if d.Type == TypeCreditNote {
			typeCode = "381"
		}
	}
	return typeCode
}

// amountFormat formats amounts in currency with its minor units, or in full where they have more
// decimals than that.
func amountFormat(currency string) func(decimal.Decimal) string {
	minor := MinorUnitsOf(currency)
	return func(v decimal.Decimal) string {
		if v.Round(minor).Equal(v) {
			return money.Format(v, minor)
		}
		return money.Canonical(v)
	}
}

// checkBuildDate refuses a date that is not YYYY-MM-DD, naming the syntax being built and the field;
// an empty date is no date, and passes.
func checkBuildDate(syntax, field, date string) error {
	if date != "" && !isDateShape(date) {
		return fmt.Errorf("einvoice: build %s: %s %q is not YYYY-MM-DD", syntax, field, ClipText(date))
	}
	return nil
}

// addressToWrite is the postal address a builder writes for p: the address as p states it and nothing
// made up, so that a parsed document built again reads the same; or, for a party that states none but
// has a VAT id, the country the id's prefix names, which EN 16931 requires of the seller and the buyer
// (BR-09, BR-11). ok is false when there is neither.
func addressToWrite(p Party) (a Address, ok bool) {
	if p.Address != (Address{}) {
		return p.Address, true
	}
	if country := p.VATCountry(); country != "" {
		return Address{Country: country}, true
	}
	return Address{}, false
}

// statesRate says whether a builder writes a VAT rate: EN 16931 forbids one for category O, not subject
// to VAT (BR-O-05 to BR-O-07), where the model's zero rate stands for none. A rate that category should
// not have is written, for the rules to report.
func statesRate(category string, rate decimal.Decimal) bool {
	return category != "O" || !rate.IsZero()
}

// xmlWriter writes indented XML with escaped text.
type xmlWriter struct {
	buf   bytes.Buffer
	depth int
}

func (w *xmlWriter) raw(s string) { w.buf.WriteString(s) }

func (w *xmlWriter) indent() { w.buf.WriteString(strings.Repeat("  ", w.depth+1)) }

func (w *xmlWriter) open(name string) {
	w.indent()
	w.buf.WriteString("<" + name + ">\n")
	w.depth++
}

func (w *xmlWriter) close(name string) {
	w.depth--
	w.indent()
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) empty(name string) {
	w.indent()
	w.buf.WriteString("<" + name + "/>\n")
}

func (w *xmlWriter) elem(name, value string) {
	w.indent()
	w.buf.WriteString("<" + name + ">")
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) optional(name, value string) {
	if value != "" {
		w.elem(name, value)
	}
}

func (w *xmlWriter) elemAttr(name, attr, attrValue, value string) {
	w.indent()
	w.buf.WriteString("<" + name + " " + attr + `="`)
	xml.EscapeText(&w.buf, []byte(attrValue)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString(`">`)
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}
