package einvoice

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FieldPair is one field of two documents side by side.
type FieldPair struct {
	Field string
	A, B  string
	Same  bool
}

// SideBySide lists two documents' fields side by side — header, parties,
// each line, tax subtotals, totals — so that a reviewer sees at once whether
// two "duplicates" really are one invoice.
func SideBySide(a, b Document) []FieldPair {
	var out []FieldPair
	add := func(field, x, y string) { out = append(out, FieldPair{Field: field, A: x, B: y, Same: x == y}) }
	add("type", string(a.Type)+" "+a.TypeCode, string(b.Type)+" "+b.TypeCode)
	add("number", a.Number, b.Number)
	add("issue date", a.IssueDate, b.IssueDate)
	add("due date", a.DueDate, b.DueDate)
	add("currency", a.Currency, b.Currency)
	add("seller", a.Seller.Name, b.Seller.Name)
	add("seller VAT id", a.Seller.VATID, b.Seller.VATID)
	add("buyer", a.Buyer.Name, b.Buyer.Name)
	add("refers to", a.BillingReference, b.BillingReference)
	line := func(d Document, i int) string {
		if i >= len(d.Lines) {
			return ""
		}
		l := d.Lines[i]
		return fmt.Sprintf("%s: %s × %s = %s at %s%%", l.Description, l.Quantity, l.UnitPrice, l.Net, l.TaxRate)
	}
	for i := 0; i < max(len(a.Lines), len(b.Lines)); i++ {
		add(fmt.Sprintf("line %d", i+1), line(a, i), line(b, i))
	}
	sub := func(d Document, i int) string {
		if i >= len(d.TaxSubtotals) {
			return ""
		}
		s := d.TaxSubtotals[i]
		return fmt.Sprintf("%s%% on %s = %s", s.Rate, s.Taxable, s.Tax)
	}
	for i := 0; i < max(len(a.TaxSubtotals), len(b.TaxSubtotals)); i++ {
		add(fmt.Sprintf("VAT %d", i+1), sub(a, i), sub(b, i))
	}
	add("net", a.Totals.Net.String(), b.Totals.Net.String())
	add("tax", a.Totals.Tax.String(), b.Totals.Tax.String())
	add("payable", a.Totals.Payable.String(), b.Totals.Payable.String())
	return out
}

// Pretty renders a document's original for reading: XML indented, JSON
// indented. Anything else is returned as it is.
func Pretty(data []byte) string {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		var buf bytes.Buffer
		if json.Indent(&buf, trimmed, "", "  ") == nil {
			return buf.String()
		}
	case bytes.HasPrefix(trimmed, []byte("<")):
		if s, err := indentXML(trimmed); err == nil {
			return s
		}
	}
	return string(data)
}

// indentXML re-indents XML token by token, keeping prefixes, attributes and
// text exactly (no namespace rewriting).
func indentXML(data []byte) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var b strings.Builder
	depth := 0
	lastWasText := false
	name := func(n xml.Name) string {
		if n.Space != "" {
			return n.Space + ":" + n.Local
		}
		return n.Local
	}
	indent := func() { b.WriteString("\n" + strings.Repeat("  ", depth)) }
	for n := 0; n < 200_000; n++ {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return strings.TrimLeft(b.String(), "\n"), nil
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			indent()
			b.WriteString("<" + name(t.Name))
			for _, a := range t.Attr {
				b.WriteString(" " + name(a.Name) + `="`)
				_ = xml.EscapeText(&writer{&b}, []byte(a.Value))
				b.WriteString(`"`)
			}
			b.WriteString(">")
			depth++
			lastWasText = false
		case xml.EndElement:
			depth--
			if !lastWasText {
				indent()
			}
			b.WriteString("</" + name(t.Name) + ">")
			lastWasText = false
		case xml.CharData:
			text := strings.TrimSpace(string(t))
			if text != "" {
				_ = xml.EscapeText(&writer{&b}, []byte(text))
				lastWasText = true
			}
		case xml.ProcInst:
			indent()
			b.WriteString("<?" + t.Target + " " + string(t.Inst) + "?>")
		case xml.Comment:
			indent()
			b.WriteString("<!--" + string(t) + "-->")
		}
	}
	return "", errors.New("einvoice: document too large to indent")
}

type writer struct{ b *strings.Builder }

func (w *writer) Write(p []byte) (int, error) { return w.b.Write(p) }
