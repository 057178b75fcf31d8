package en16931

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
)

// Limits on the XML the bindings read: a document deeper or larger than this is refused before any rule runs,
// so that reading stays linear in the input and bounded in memory whatever a sender puts in it.
const (
	MaxDepth    = 128     // element nesting
	MaxElements = 200_000 // elements in one document
)

// ErrTooLarge is returned when a document exceeds MaxDepth or MaxElements.
var ErrTooLarge = errors.New("en16931: document exceeds the reading limits")

// node is one element of the parsed document: local name, attributes by local name, own text, children.
type node struct {
	name     string
	attrs    map[string]string
	text     string
	children []*node
	parent   *node
}

// standardNamespaces are the namespaces of the elements the bindings read: UBL 2.1's invoice and credit
// note with its common components, and UN/CEFACT's Cross Industry Invoice with its data types.
var standardNamespaces = map[string]bool{
	"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2":                             true,
	"urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2":                          true,
	"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2":           true,
	"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2":               true,
	"urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2":           true,
	"urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100":                       true,
	"urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100": true,
	"urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100":                        true,
	"urn:un:unece:uncefact:data:standard:QualifiedDataType:100":                          true,
}

// parseTree reads data into a tree of elements, refusing documents beyond the limits.
func parseTree(data []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var root *node
	var stack []*node
	var texts []*strings.Builder      // the text of each open element, so mixed content stays linear
	scopes := []map[string]string{{}} // the namespace prefixes in scope of each open element
	elements := 0
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("en16931: reading xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			if elements > MaxElements || len(stack) >= MaxDepth {
				return nil, ErrTooLarge
			}
			scope := scopes[len(scopes)-1]
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					if len(scope) == len(scopes[len(scopes)-1]) {
						scope = maps.Clone(scope)
					}
					scope[a.Name.Local] = a.Value // the default namespace under "xmlns"
				}
			}
			scopes = append(scopes, scope)
			n := &node{name: t.Name.Local}
			prefix := t.Name.Space
			if prefix == "" {
				prefix = "xmlns"
			}
			if !standardNamespaces[scope[prefix]] {
				// Outside the standards' namespaces an element is not the element of the same local
				// name: the bindings' paths name their namespaces.
				n.name = "{" + scope[prefix] + "}" + t.Name.Local
			}
			for _, a := range t.Attr {
				if a.Name.Space != "" || a.Name.Local == "xmlns" {
					continue // a namespace declaration, or an attribute in a namespace the bindings never name
				}
				if n.attrs == nil {
					n.attrs = map[string]string{}
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				n.parent = p
				p.children = append(p.children, n)
			} else if root != nil {
				return nil, errors.New("en16931: reading xml: more than one root element")
			} else {
				root = n
			}
			stack = append(stack, n)
			texts = append(texts, &strings.Builder{})
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errors.New("en16931: reading xml: unbalanced end element")
			}
			n := stack[len(stack)-1]
			n.text = texts[len(texts)-1].String()
			stack = stack[:len(stack)-1]
			texts = texts[:len(texts)-1]
			scopes = scopes[:len(scopes)-1]
		case xml.CharData:
			if len(texts) > 0 {
				texts[len(texts)-1].Write(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("en16931: reading xml: no root element")
	}
	if len(stack) != 0 {
		return nil, errors.New("en16931: reading xml: unclosed element")
	}
	return root, nil
}

// child returns the first child element with the given local name, or nil.
func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// all returns every child with the given local name.
func (n *node) all(name string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// at follows a slash-separated path of local names, taking the first match at each step.
func (n *node) at(path string) *node {
	for _, p := range strings.Split(path, "/") {
		n = n.child(p)
		if n == nil {
			return nil
		}
	}
	return n
}

// every follows a slash-separated path and returns every element reached, in document order.
func (n *node) every(path string) []*node {
	if n == nil {
		return nil
	}
	cur := []*node{n}
	for _, p := range strings.Split(path, "/") {
		var next []*node
		for _, c := range cur {
			next = append(next, c.all(p)...)
		}
		cur = next
	}
	return cur
}

// txt is the value of an element as a business term: present when the element exists.
func (n *node) txt() Text {
	if n == nil {
		return Text{}
	}
	return Text{Value: n.text, Present: true}
}

// attr is the value of an attribute as a business term: present when the attribute exists.
func (n *node) attr(name string) Text {
	if n == nil {
		return Text{}
	}
	v, ok := n.attrs[name]
	return Text{Value: v, Present: ok}
}

// walk visits every element below and including n.
func (n *node) walk(f func(*node)) {
	if n == nil {
		return
	}
	stack := []*node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f(c)
		for i := len(c.children) - 1; i >= 0; i-- {
			stack = append(stack, c.children[i])
		}
	}
}
