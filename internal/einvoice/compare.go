package einvoice

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"greatbook/internal/money"
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
		return fmt.Sprintf("%s: %s × %s = %s at %s%%", l.Description, l.Quantity, l.UnitPrice, money.DisplayNumber(l.Net, d.Currency), l.TaxRate)
	}
	for i := 0; i < max(len(a.Lines), len(b.Lines)); i++ {
		add(fmt.Sprintf("line %d", i+1), line(a, i), line(b, i))
	}
	sub := func(d Document, i int) string {
		if i >= len(d.TaxSubtotals) {
			return ""
		}
		s := d.TaxSubtotals[i]
		return fmt.Sprintf("%s%% on %s = %s", s.Rate, money.DisplayNumber(s.Taxable, d.Currency), money.DisplayNumber(s.Tax, d.Currency))
	}
	for i := 0; i < max(len(a.TaxSubtotals), len(b.TaxSubtotals)); i++ {
		add(fmt.Sprintf("VAT %d", i+1), sub(a, i), sub(b, i))
	}
	add("net", money.Display(a.Totals.Net, a.Currency), money.Display(b.Totals.Net, b.Currency))
	add("tax", money.Display(a.Totals.Tax, a.Currency), money.Display(b.Totals.Tax, b.Currency))
	add("payable", money.Display(a.Totals.Payable, a.Currency), money.Display(b.Totals.Payable, b.Currency))
	return out
}

// PrettyCap is the size of the pretty-printed original the document page shows; past it the page
// points to the original itself.
const PrettyCap = 400_000

// maxPrettyIndent caps the indentation of the pretty-printed original: past 32 levels every line is
// indented as the 32nd, so that the output stays within a constant factor of the input however deep
// the nesting (without it, n levels cost n² bytes of spaces).
const maxPrettyIndent = 32

// prettyTruncated ends a pretty-printed original that reached its cap.
const prettyTruncated = "\n… (open the original for the rest)"

// Pretty renders a document's original for reading, within PrettyCap bytes.
func Pretty(data []byte) string { return PrettyLimit(data, PrettyCap) }

// PrettyLimit renders a document's original for reading: XML indented, JSON indented, anything else as it
// is. The work is linear in the input and the output is at most maxBytes (plus a line saying where it
// stopped): the cap is checked while writing, never after building.
func PrettyLimit(data []byte, maxBytes int) string {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	out := &cappedWriter{limit: max(maxBytes, 0)}
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		if json.Valid(trimmed) {
			indentJSON(out, trimmed)
			return out.String()
		}
	case bytes.HasPrefix(trimmed, []byte("<")):
		if indentXML(out, trimmed) == nil {
			return out.String()
		}
	}
	out = &cappedWriter{limit: max(maxBytes, 0)}
	out.Write(data)
	return out.String()
}

// cappedWriter keeps the first limit bytes written to it, cut at a character boundary, and notes that
// the rest was dropped.
type cappedWriter struct {
	b     strings.Builder
	limit int
	full  bool
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.WriteString(string(p[:min(len(p), w.limit-w.b.Len()+1)]))
	return len(p), nil
}

func (w *cappedWriter) WriteString(s string) {
	if w.full {
		return
	}
	room := w.limit - w.b.Len()
	if len(s) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.b.WriteString(s[:cut])
		w.full = true
		return
	}
	w.b.WriteString(s)
}

func (w *cappedWriter) String() string {
	if w.full {
		return w.b.String() + prettyTruncated
	}
	return w.b.String()
}

func (w *cappedWriter) newline(depth int) {
	w.WriteString("\n")
	w.WriteString(indentSpaces[:2*min(max(depth, 0), maxPrettyIndent)])
}

var indentSpaces = strings.Repeat("  ", maxPrettyIndent)

// indentJSON writes valid JSON indented by two spaces, as json.Indent does, in one pass.
func indentJSON(w *cappedWriter, data []byte) {
	depth := 0
	for i := 0; i < len(data) && !w.full; i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			j := i + 1
			for ; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					j++
				}
			}
			w.Write(data[i:min(j+1, len(data))])
			i = j
		case '{', '[':
			w.WriteString(string(c))
			k := i + 1
			for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
				k++
			}
			if k < len(data) && (data[k] == '}' || data[k] == ']') {
				w.WriteString(string(data[k]))
				i = k
				continue
			}
			depth++
			w.newline(depth)
		case '}', ']':
			depth--
			w.newline(depth)
			w.WriteString(string(c))
		case ',':
			w.WriteString(",")
			w.newline(depth)
		case ':':
			w.WriteString(": ")
		default:
			w.WriteString(string(c))
		}
	}
}

// indentXML re-indents XML token by token, keeping prefixes, attributes and text exactly (no namespace
// rewriting).
func indentXML(w *cappedWriter, data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	depth := 0
	lastWasText := false
	first := true
	name := func(n xml.Name) string {
		if n.Space != "" {
			return n.Space + ":" + n.Local
		}
		return n.Local
	}
	indent := func() {
		if first {
			first = false
			return
		}
		w.newline(depth)
	}
	for !w.full {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			indent()
			w.WriteString("<" + name(t.Name))
			for _, a := range t.Attr {
				w.WriteString(" " + name(a.Name) + `="`)
				_ = xml.EscapeText(w, []byte(a.Value))
				w.WriteString(`"`)
			}
			w.WriteString(">")
			depth++
			lastWasText = false
		case xml.EndElement:
			depth--
			if !lastWasText {
				indent()
			}
			w.WriteString("</" + name(t.Name) + ">")
			lastWasText = false
		case xml.CharData:
			if text := bytes.TrimSpace(t); len(text) > 0 {
				_ = xml.EscapeText(w, text)
				lastWasText = true
			}
		case xml.ProcInst:
			indent()
			w.WriteString("<?" + t.Target + " " + string(t.Inst) + "?>")
		case xml.Comment:
			indent()
			w.WriteString("<!--" + string(t) + "-->")
		}
	}
	return nil
}
