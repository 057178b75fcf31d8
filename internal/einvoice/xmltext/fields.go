// Package xmltext is what the XML syntax readers and writers share: a strict decoder within caps on a
// document's structure, the reading of XML text into the model's values, and an indented writer with
// the rules both builders follow in writing a Document out.
package xmltext

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/ianaindex"

	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

// newXMLDecoder returns a strict decoder that also reads the legacy charsets an XML declaration may name
// (ISO-8859-1, windows-1252, ...), as some ERP exports still do.
func newXMLDecoder(data []byte) *xml.Decoder {
	return newXMLReaderDecoder(bytes.NewReader(data))
}

// newXMLReaderDecoder is newXMLDecoder reading from r.
func newXMLReaderDecoder(r io.Reader) *xml.Decoder {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		enc, err := ianaindex.IANA.Encoding(label)
		if err != nil || enc == nil {
			return nil, fmt.Errorf("unsupported charset %q", label)
		}
		return enc.NewDecoder().Reader(input), nil
	}
	return dec
}

// Root returns the name of the first element of an XML document.
func Root(data []byte) (xml.Name, bool) {
	dec := newXMLDecoder(data)
	for {
		tok, err := dec.Token()
		if err != nil {
			return xml.Name{}, false
		}
		if start, ok := tok.(xml.StartElement); ok {
			return start.Name, true
		}
	}
}

// Decode unmarshals data into v, turning a syntax error into a ParseError for format. XML over a
// structural cap is refused before it is decoded. Both passes stop once dl has passed.
func Decode(dl *einvoice.Deadline, format einvoice.Format, data []byte, v any) error {
	if err := checkXMLCaps(dl, format, data); err != nil {
		return err
	}
	if err := newXMLReaderDecoder(dl.Reader(data)).Decode(v); err != nil {
		return einvoice.ParseErrorf(format, "", "malformed XML: %v", err)
	}
	return nil
}

// AmountText is an XML amount or quantity with the attributes EN 16931 puts on them.
type AmountText struct {
	Value    string `xml:",chardata"`
	Currency string `xml:"currencyID,attr"`
	Unit     string `xml:"unitCode,attr"`
}

// IDText is an XML identifier with its scheme.
type IDText struct {
	Value  string `xml:",chardata"`
	Scheme string `xml:"schemeID,attr"`
}

// FieldReader converts the text of XML elements into model values, keeping the first error so that the
// extraction code reads straight through.
type FieldReader struct {
	Format einvoice.Format      // the format its errors name
	Err    *einvoice.ParseError // the first field that could not be read, nil while every one could
}

// Decimal reads an xs:decimal: surrounding whitespace and a leading '+' are allowed, as are ".5" and
// "5."; an absent or empty element reads as zero.
func (r *FieldReader) Decimal(field, text string) decimal.Decimal {
	s := strings.TrimSpace(text)
	if s == "" {
		return decimal.Decimal{}
	}
	s = strings.TrimPrefix(s, "+")
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	if strings.HasPrefix(body, ".") {
		body = "0" + body
	}
	body = strings.TrimSuffix(body, ".")
	if neg {
		body = "-" + body
	}
	d, err := money.Parse(body)
	if err != nil {
		if r.Err == nil {
			r.Err = einvoice.ParseErrorf(r.Format, field, "not a decimal: %q", einvoice.ClipText(s))
		}
		return decimal.Decimal{}
	}
	return d
}

// ISODate reads an xs:date, dropping a time zone suffix. Text that is not a date is kept as it is, for
// Validate to report.
func ISODate(text string) string {
	s := strings.TrimSpace(text)
	if len(s) > 10 && isDateShape(s[:10]) {
		rest := s[10:]
		if rest == "Z" || (len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
			return s[:10]
		}
	}
	return s
}

func isDateShape(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	return AllDigits(s[:4]) && AllDigits(s[5:7]) && AllDigits(s[8:])
}

// Date102 reads a UN/CEFACT date. Format 102 (CCYYMMDD) is the only one EN 16931 allows for the dates
// the readers read; an absent format with eight digits is taken as 102, and a value already written
// YYYY-MM-DD (a common slip) is taken as it is. Anything else is refused rather than guessed.
func (r *FieldReader) Date102(field, text, format string) string {
	s := strings.TrimSpace(text)
	f := strings.TrimSpace(format)
	if s == "" {
		return ""
	}
	if (f == "102" || f == "") && len(s) == 8 && AllDigits(s) {
		return s[:4] + "-" + s[4:6] + "-" + s[6:]
	}
	if isDateShape(s) {
		return s
	}
	if r.Err == nil {
		r.Err = einvoice.ParseErrorf(r.Format, field, "date %q in format %q, want format 102 (CCYYMMDD)", einvoice.ClipText(s), einvoice.ClipText(f))
	}
	return ""
}

// AllDigits reports a non-empty string of ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Text trims the whitespace XML pretty-printing puts around values.
func Text(s string) string { return strings.TrimSpace(s) }

// FirstText returns the first non-empty trimmed value.
func FirstText(values ...string) string {
	for _, v := range values {
		if t := Text(v); t != "" {
			return t
		}
	}
	return ""
}

// IsTrue reads an xs:boolean.
func IsTrue(s string) bool {
	t := Text(s)
	return t == "true" || t == "1"
}
