package einvoice

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
)

// Hard caps on the structure of a document, checked in one linear pass before it is decoded: a
// document over one is refused with a *ParseError whose Code is CodeInputCap and whose Field names the
// cap. Real invoices stay far below them (UBL and CII nest about a dozen deep).
const (
	maxXMLDepth     = 128
	maxXMLElements  = 1_000_000
	maxXMLAttrBytes = 64 << 10
	maxJSONDepth    = 64
	maxJSONValues   = 1_000_000 // tokens: keys, values and brackets
)

// checkXMLCaps refuses XML that nests deeper than maxXMLDepth, has more than maxXMLElements elements or
// an attribute over maxXMLAttrBytes. Malformed XML passes: the decoder reports it in its own words.
// It stops, refusing, once dl has passed.
func checkXMLCaps(dl *Deadline, format Format, data []byte) *ParseError {
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
				return CapErrorf(format, "xml_depth", "elements nest more than %d deep", maxXMLDepth)
			}
			if elements > maxXMLElements {
				return CapErrorf(format, "xml_elements", "more than %d elements", maxXMLElements)
			}
			for _, a := range t.Attr {
				if len(a.Value) > maxXMLAttrBytes {
					return CapErrorf(format, "xml_attribute_bytes", "the attribute %s is %d bytes long, over %d", ClipText(a.Name.Local), len(a.Value), maxXMLAttrBytes)
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
func UnreadableCharset(data []byte) *ParseError {
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
	return &ParseError{Format: FormatUnknown, Field: "encoding", Code: CodeUnsupportedCharset,
		Reason: fmt.Sprintf("the XML declares the charset %q, which cannot be read; send it as UTF-8", ClipText(unknown))}
}

// jsonStack is the containers checkJSON is inside, innermost last.
type jsonStack []*jsonFrame

type jsonFrame struct {
	object    bool
	expectKey bool
	keys      map[string]bool
	path      string
	index     int
}

// childPath is the path of the value about to be read in the innermost container.
func (stack jsonStack) childPath(key string) string {
	if len(stack) == 0 {
		return ""
	}
	top := stack[len(stack)-1]
	if !top.object {
		return top.path + "[" + strconv.Itoa(top.index) + "]"
	}
	if top.path == "" {
		return key
	}
	return top.path + "." + key
}

// valueDone moves the innermost container past a value.
func (stack jsonStack) valueDone() {
	if len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	if top.object {
		top.expectKey = true
	} else {
		top.index++
	}
}

// checkJSON reads the first JSON value of data token by token and refuses it when it nests deeper than
// maxJSONDepth, has more than maxJSONValues tokens, or an object repeats a key (encoding/json would keep the last one silently, so two
// readers could disagree on what the document says). Malformed JSON passes: the decoder reports it.
// It stops, refusing, once dl has passed.
func checkJSON(dl *Deadline, data []byte) *ParseError {
	dec := json.NewDecoder(dl.Reader(data))
	dec.UseNumber()
	var stack jsonStack
	var key string
	for values := 1; ; values++ {
		if dl.Tick() {
			return dl.CapError(FormatJSON)
		}
		tok, err := dec.Token()
		if err != nil {
			if dl.Passed() {
				return dl.CapError(FormatJSON)
			}
			return nil
		}
		if values > maxJSONValues {
			return CapErrorf(FormatJSON, "json_values", "more than %d keys, values and brackets", maxJSONValues)
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expectKey {
				if k, ok := tok.(string); ok {
					if top.keys[k] {
						return ParseErrorf(FormatJSON, stack.childPath(k), "duplicate key (each field may appear once in an object)")
					}
					top.keys[k] = true
					top.expectKey, key = false, k
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= maxJSONDepth {
				return CapErrorf(FormatJSON, "json_depth", "objects and arrays nest more than %d deep", maxJSONDepth)
			}
			object := tok == json.Delim('{')
			f := &jsonFrame{object: object, expectKey: object, path: stack.childPath(key)}
			if object {
				f.keys = map[string]bool{}
			}
			stack = append(stack, f)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
			stack.valueDone()
		default:
			if len(stack) == 0 {
				return nil
			}
			stack.valueDone()
		}
	}
}
