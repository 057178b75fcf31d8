package xmltext

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"greatbook/internal/einvoice"
)

// Hard caps on the structure of an XML document, checked in one linear pass before it is decoded: a
// document over one is refused with a *ParseError whose Code is CodeInputCap and whose Field names the
// cap. Real invoices stay far below them (UBL and CII nest about a dozen deep).
const (
	maxXMLDepth     = 128
	maxXMLElements  = 1_000_000
	maxXMLAttrBytes = 64 << 10
)

// checkXMLCaps refuses XML that nests deeper than maxXMLDepth, has more than maxXMLElements elements or
// an attribute over maxXMLAttrBytes. Malformed XML passes: the decoder reports it in its own words.
// It stops, refusing, once dl has passed.
func checkXMLCaps(dl *einvoice.Deadline, format einvoice.Format, data []byte) *einvoice.ParseError {
	dec := newXMLReaderDecoder(dl.Reader(data))
	depth, elements := 0, 0
	for {
		if dl.Tick() {
			return dl.CapError(format)
		}
		tok, err := dec.RawToken()
		if err != nil {
			if dl.Passed() {
				return dl.CapError(format)
			}
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			elements++
			if depth > maxXMLDepth {
				return einvoice.CapErrorf(format, "xml_depth", "elements nest more than %d deep", maxXMLDepth)
			}
			if elements > maxXMLElements {
				return einvoice.CapErrorf(format, "xml_elements", "more than %d elements", maxXMLElements)
			}
			for _, a := range t.Attr {
				if len(a.Value) > maxXMLAttrBytes {
					return einvoice.CapErrorf(format, "xml_attribute_bytes", "the attribute %s is %d bytes long, over %d", einvoice.ClipText(a.Name.Local), len(a.Value), maxXMLAttrBytes)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// UnreadableCharset refuses XML whose declaration names a charset no decoder here reads; nil for
// anything else.
func UnreadableCharset(data []byte) *einvoice.ParseError {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '<' {
		return nil
	}
	dec := newXMLDecoder(data)
	var unknown string
	read := dec.CharsetReader
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		r, err := read(label, input)
		if err != nil {
			unknown = label
		}
		return r, err
	}
	_, _ = dec.Token()
	if unknown == "" {
		return nil
	}
	return &einvoice.ParseError{Format: einvoice.FormatUnknown, Field: "encoding", Code: einvoice.CodeUnsupportedCharset,
		Reason: fmt.Sprintf("the XML declares the charset %q, which cannot be read; send it as UTF-8", einvoice.ClipText(unknown))}
}
