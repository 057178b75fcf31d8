package mutate

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// element is one element as written: its qualified name and attributes with
// the prefixes of the source (namespace declarations included), and its
// content, elements and text in order.
type element struct {
	name    xml.Name // Space is the prefix as written
	attrs   []xml.Attr
	content []any // *element or string
	parent  *element
}

func (e *element) local() string { return e.name.Local }

// text is the element's own text, its text children joined.
func (e *element) text() string {
	var b strings.Builder
	for _, c := range e.content {
		if s, ok := c.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

// setText replaces the element's text children with s (elements stay).
func (e *element) setText(s string) {
	var kept []any
	for _, c := range e.content {
		if _, ok := c.(string); !ok {
			kept = append(kept, c)
		}
	}
	e.content = append([]any{s}, kept...)
}

func (e *element) children() []*element {
	var out []*element
	for _, c := range e.content {
		if ch, ok := c.(*element); ok {
			out = append(out, ch)
		}
	}
	return out
}

// hasElements reports whether the element contains elements (a group).
func (e *element) hasElements() bool { return len(e.children()) > 0 }

// parse reads a document into its root element, keeping prefixes as written
// and dropping comments, processing instructions and the declaration.
func parse(data []byte) (*element, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var root *element
	var stack []*element
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e := &element{name: t.Name, attrs: append([]xml.Attr(nil), t.Attr...)}
			if len(stack) > 0 {
				e.parent = stack[len(stack)-1]
				e.parent.content = append(e.parent.content, e)
			} else if root == nil {
				root = e
			}
			stack = append(stack, e)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, fmt.Errorf("mutate: unbalanced end element")
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].content = append(stack[len(stack)-1].content, string(t))
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("mutate: no root element")
	}
	return root, nil
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// write serialises the tree back to XML, with a declaration.
func write(root *element) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	var walk func(e *element)
	walk = func(e *element) {
		b.WriteString("<" + qualified(e.name))
		for _, a := range e.attrs {
			b.WriteString(" " + qualified(a.Name) + `="` + attrEscaper.Replace(a.Value) + `"`)
		}
		if len(e.content) == 0 {
			b.WriteString("/>")
			return
		}
		b.WriteString(">")
		for _, c := range e.content {
			switch c := c.(type) {
			case *element:
				walk(c)
			case string:
				b.WriteString(textEscaper.Replace(c))
			}
		}
		b.WriteString("</" + qualified(e.name) + ">")
	}
	walk(root)
	return b.Bytes()
}

// all lists the elements of the tree in document order, the root first.
func all(root *element) []*element {
	var out []*element
	var walk func(e *element)
	walk = func(e *element) {
		out = append(out, e)
		for _, c := range e.children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// remove takes e out of its parent.
func remove(e *element) {
	p := e.parent
	for i, c := range p.content {
		if c == any(e) {
			p.content = append(p.content[:i:i], p.content[i+1:]...)
			return
		}
	}
}

// clone copies e and everything in it.
func clone(e *element, parent *element) *element {
	c := &element{name: e.name, attrs: append([]xml.Attr(nil), e.attrs...), parent: parent}
	for _, x := range e.content {
		switch x := x.(type) {
		case *element:
			c.content = append(c.content, clone(x, c))
		case string:
			c.content = append(c.content, x)
		}
	}
	return c
}

// The escapes a serialiser needs, and no more: white space stays as written.
var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\t", "&#9;", "\n", "&#10;", "\r", "&#13;")
)
