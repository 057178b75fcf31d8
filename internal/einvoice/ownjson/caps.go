package ownjson

import (
	"encoding/json"
	"strconv"

	"greatbook/internal/einvoice"
)

// Hard caps on the structure of a JSON document, checked in one pass before it is decoded: a document over
// one is refused with a *ParseError whose Code is CodeInputCap and whose Field names the cap.
const (
	maxJSONDepth  = 64
	maxJSONValues = 1_000_000 // tokens: keys, values and brackets
)

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
func checkJSON(dl *einvoice.Deadline, data []byte) *einvoice.ParseError {
	dec := json.NewDecoder(dl.Reader(data))
	dec.UseNumber()
	var stack jsonStack
	var key string
	for values := 1; ; values++ {
		if dl.Tick() {
			return dl.CapError(einvoice.FormatJSON)
		}
		tok, err := dec.Token()
		if err != nil {
			if dl.Passed() {
				return dl.CapError(einvoice.FormatJSON)
			}
			return nil
		}
		if values > maxJSONValues {
			return einvoice.CapErrorf(einvoice.FormatJSON, "json_values", "more than %d keys, values and brackets", maxJSONValues)
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expectKey {
				if k, ok := tok.(string); ok {
					if top.keys[k] {
						return einvoice.ParseErrorf(einvoice.FormatJSON, stack.childPath(k), "duplicate key (each field may appear once in an object)")
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
				return einvoice.CapErrorf(einvoice.FormatJSON, "json_depth", "objects and arrays nest more than %d deep", maxJSONDepth)
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
