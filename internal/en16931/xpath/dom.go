// Package xpath evaluates the XPath 2.0 that CEN's compiled EN 16931
// validators are written in, over a document of its own, so that the
// product judges an invoice by the official rules themselves rather than by
// a translation of them. It covers the language those rules use — paths
// with every axis they name, predicates, quantified expressions, general
// and value comparisons, arithmetic on integers, decimals and doubles with
// XPath's promotion rules, casts, and the functions they call — and it
// counts its work, so that a document cannot make it do more than a budget
// proportional to its size.
package xpath

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
)

// Kind is what a node is.
type Kind uint8

// The kinds of node a document holds.
const (
	DocumentNode Kind = iota
	ElementNode
	AttributeNode
	TextNode
)

// Node is one node of a document. Elements keep their namespace (Space), the
// prefix they were written with (for name()), attributes and children in
// document order.
type Node struct {
	Kind     Kind
	name     symbol // interned namespace and local name, for name tests
	Space    string // namespace URI of an element or attribute
	Prefix   string
	Local    string
	Value    string // an attribute's value or a text node's text
	Parent   *Node
	Children []*Node // elements and text, in order
	Attrs    []*Node
	order    int
	str      *string
	qname    string
}

// Name is the node's name as written (prefix:local), as XPath's name().
func (n *Node) Name() string {
	if n.Prefix == "" {
		return n.Local
	}
	if n.qname == "" {
		n.qname = n.Prefix + ":" + n.Local
	}
	return n.qname
}

// StringValue is the node's string value: an element's is the text of all
// its descendants in document order.
func (n *Node) StringValue() string {
	switch n.Kind {
	case AttributeNode, TextNode:
		return n.Value
	}
	if n.str != nil {
		return *n.str
	}
	var b strings.Builder
	var walk func(*Node)
	walk = func(m *Node) {
		for _, c := range m.Children {
			if c.Kind == TextNode {
				b.WriteString(c.Value)
			} else {
				walk(c)
			}
		}
	}
	walk(n)
	s := b.String()
	n.str = &s
	return s
}

// Document is a parsed document with its size, which bounds the work of
// evaluating expressions over it.
type Document struct {
	Root  *Node // the document node
	Nodes int   // elements, attributes and text nodes
}

// Limits bound what Parse reads.
type Limits struct {
	MaxDepth    int
	MaxElements int
}

// ErrTooLarge is returned by Parse for a document beyond its limits.
var ErrTooLarge = errors.New("xpath: document exceeds the reading limits")

// Parse reads an XML document, resolving namespaces. Comments and
// processing instructions are dropped (the rules never read them).
func Parse(data []byte, lim Limits) (*Document, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	doc := &Node{Kind: DocumentNode}
	stack := []*Node{doc}
	order, elements := 1, 0
	var text strings.Builder
	flush := func() {
		if text.Len() == 0 {
			return
		}
		p := stack[len(stack)-1]
		if p.Kind == ElementNode {
			p.Children = append(p.Children, &Node{Kind: TextNode, Value: text.String(), Parent: p, order: order})
			order++
		}
		text.Reset()
	}
	scopes := []map[string]string{{"xml": "http://www.w3.org/XML/1998/namespace"}}
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("xpath: reading xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			flush()
			elements++
			if (lim.MaxElements > 0 && elements > lim.MaxElements) || (lim.MaxDepth > 0 && len(stack) > lim.MaxDepth) {
				return nil, ErrTooLarge
			}
			parent := stack[len(stack)-1]
			if parent.Kind == DocumentNode && len(parent.Children) > 0 {
				return nil, errors.New("xpath: reading xml: more than one root element")
			}
			scope := scopes[len(scopes)-1]
			cloned := false
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					if !cloned {
						scope, cloned = maps.Clone(scope), true
					}
					if a.Name.Space == "xmlns" {
						scope[a.Name.Local] = a.Value
					} else {
						scope[""] = a.Value
					}
				}
			}
			scopes = append(scopes, scope)
			space, ok := scope[t.Name.Space]
			if !ok && t.Name.Space != "" {
				return nil, fmt.Errorf("xpath: reading xml: the prefix %q of <%s> is not bound", t.Name.Space, t.Name.Local)
			}
			e := &Node{Kind: ElementNode, Space: space, Prefix: t.Name.Space, Local: t.Name.Local, Parent: parent, order: order,
				name: intern(space, t.Name.Local)}
			order++
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				aspace := ""
				if a.Name.Space != "" {
					if aspace, ok = scope[a.Name.Space]; !ok {
						return nil, fmt.Errorf("xpath: reading xml: the prefix %q of attribute %s is not bound", a.Name.Space, a.Name.Local)
					}
				}
				e.Attrs = append(e.Attrs, &Node{Kind: AttributeNode, Space: aspace, Prefix: a.Name.Space, Local: a.Name.Local, Value: a.Value, Parent: e, order: order,
					name: intern(aspace, a.Name.Local)})
				order++
			}
			parent.Children = append(parent.Children, e)
			stack = append(stack, e)
		case xml.EndElement:
			flush()
			if len(stack) < 2 {
				return nil, errors.New("xpath: reading xml: unbalanced end element")
			}
			if open := stack[len(stack)-1]; open.Prefix != t.Name.Space || open.Local != t.Name.Local {
				return nil, fmt.Errorf("xpath: reading xml: <%s> closed by </%s>", open.Name(), qname(t.Name))
			}
			stack = stack[:len(stack)-1]
			scopes = scopes[:len(scopes)-1]
		case xml.CharData:
			text.Write(t)
		}
	}
	if len(doc.Children) == 0 {
		return nil, errors.New("xpath: reading xml: no root element")
	}
	if len(stack) != 1 {
		return nil, errors.New("xpath: reading xml: unclosed element")
	}
	return &Document{Root: doc, Nodes: order}, nil
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// Order is the node's place in its document, from 0 to Document.Nodes-1.
func (n *Node) Order() int { return n.order }

// Compare orders two nodes of one document: negative when a comes first.
func Compare(a, b *Node) int { return a.order - b.order }

// symbol is an interned (namespace, local name) pair: name tests compare one number.
type symbol struct{ space, local int32 }

var (
	internMu sync.RWMutex
	interned = map[string]int32{}
)

// internString gives each distinct string a number, the same for every document and expression.
func internString(s string) int32 {
	internMu.RLock()
	id, ok := interned[s]
	internMu.RUnlock()
	if ok {
		return id
	}
	internMu.Lock()
	defer internMu.Unlock()
	id, ok = interned[s]
	if !ok {
		if len(interned) >= maxInterned {
			return -1 // a document's stray names past the cap never equal a test's name
		}
		id = int32(len(interned) + 1)
		interned[s] = id
	}
	return id
}

// maxInterned bounds the table: a document cannot grow it without limit (names beyond it compare unequal to
// every name test, which are all interned when the rules load).
const maxInterned = 1 << 16

func intern(space, local string) symbol { return symbol{internString(space), internString(local)} }
