package xpath

type axis uint8

const (
	axChild axis = iota
	axDescendant
	axDescendantOrSelf
	axSelf
	axParent
	axAncestor
	axAncestorOrSelf
	axAttribute
	axFollowingSibling
	axPrecedingSibling
	axFollowing
	axPreceding
	axDescendantAttribute // the attributes of the node and of every descendant (//@name)
)

type testKind uint8

const (
	testName testKind = iota + 1
	testNode
	testText
	testElement
	testAttribute
	testDocument
	testNone // comment(), processing-instruction(): never in a parsed document
)

type nodeTest struct {
	kind               testKind
	space, local       string
	sym                symbol
	anySpace, anyLocal bool
	attribute          bool // on the attribute axis: the name test tests attributes
}

func (t nodeTest) matches(n *Node) bool {
	switch t.kind {
	case testNode:
		return true
	case testText:
		return n.Kind == TextNode
	case testElement:
		return n.Kind == ElementNode
	case testAttribute:
		return n.Kind == AttributeNode
	case testDocument:
		return n.Kind == DocumentNode
	case testName:
		if t.attribute {
			if n.Kind != AttributeNode {
				return false
			}
		} else if n.Kind != ElementNode {
			return false
		}
		return (t.anySpace || n.name.space == t.sym.space) && (t.anyLocal || n.name.local == t.sym.local)
	}
	return false
}

// step is one step of a path: an axis step, or a primary expression
// (a function call, a parenthesised expression, ".") with predicates.
// kidKey names the children of one name of one node.
type kidKey struct {
	n   *Node
	sym symbol
}

type step struct {
	axis    axis
	test    nodeTest
	primary expr
	preds   []expr
}

func (e *pathExpr) eval(c *context) (Sequence, error) {
	if e.cacheable {
		if v, ok := c.run.cache[e]; ok {
			return v, nil
		}
	}
	var cur Sequence
	if e.absolute {
		cur = Sequence{c.run.doc.Root}
	} else {
		if c.item == nil {
			return nil, errorf("the context item is absent")
		}
		cur = Sequence{c.item}
	}
	for i, st := range e.steps {
		next, err := st.apply(c, cur, i == len(e.steps)-1)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	if e.cacheable {
		c.run.cache[e] = cur
	}
	return cur, nil
}

// apply evaluates the step for every item of in.
func (st *step) apply(c *context, in Sequence, last bool) (Sequence, error) {
	var out Sequence
	nodes, atomics := 0, 0
	c.run.tick(len(in))
	for i, it := range in {
		var got Sequence
		if st.primary != nil {
			s, err := st.primary.eval(c.with(it, i+1, len(in)))
			if err != nil {
				return nil, err
			}
			got, err = filter(c, s, st.preds)
			if err != nil {
				return nil, err
			}
		} else {
			n, ok := it.(*Node)
			if !ok {
				return nil, errorf("the context item for an axis step is not a node (%s)", typeName(it))
			}
			cands := st.axisNodes(c, n)
			var err error
			got, err = filter(c, cands, st.preds)
			if err != nil {
				return nil, err
			}
		}
		for _, g := range got {
			if _, ok := g.(*Node); ok {
				nodes++
			} else {
				atomics++
			}
		}
		if len(in) == 1 {
			out = got // shared: nothing below changes it
		} else {
			out = append(out, got...)
		}
	}
	if atomics > 0 {
		if nodes > 0 {
			return nil, errorf("a path step returned both nodes and atomic values")
		}
		if !last {
			return nil, errorf("a path step before the last returned atomic values")
		}
		return out, nil
	}
	if len(in) > 1 || st.axis != axChild && st.axis != axAttribute && st.axis != axSelf && st.axis != axDescendant && st.axis != axDescendantAttribute {
		out = documentOrder(out)
	}
	return out, nil
}

// filter applies predicates to s, each in turn: a number keeps the item at
// that position, anything else its effective boolean value.
func filter(c *context, s Sequence, preds []expr) (Sequence, error) {
	for _, p := range preds {
		var kept Sequence
		c.run.tick(len(s))
		for i, it := range s {
			r, err := p.eval(c.with(it, i+1, len(s)))
			if err != nil {
				return nil, err
			}
			keep := false
			if len(r) == 1 && isNumeric(r[0]) {
				f, _ := toDouble(r[0])
				keep = f == float64(i+1)
			} else if keep, err = ebv(r); err != nil {
				return nil, err
			}
			if keep {
				kept = append(kept, it)
			}
		}
		s = kept
	}
	return s, nil
}

// axisNodes are the nodes on the step's axis from n that pass its node
// test, in axis order (reverse axes nearest first).
func (st *step) axisNodes(c *context, n *Node) Sequence {
	var out Sequence
	add := func(m *Node) {
		if st.test.matches(m) {
			out = append(out, m)
		}
	}
	switch st.axis {
	case axChild:
		if st.test.kind == testName && !st.test.anySpace && !st.test.anyLocal {
			// The children of a name are asked for again and again (each rule walks its own path from the
			// root): the run keeps them, and callers never change the slice they are given.
			k := kidKey{n, st.test.sym}
			if got, ok := c.run.kids[k]; ok {
				c.run.tick(1)
				return got
			}
			c.run.tick(len(n.Children))
			for _, m := range n.Children {
				add(m)
			}
			c.run.kids[k] = out
			return out
		}
		c.run.tick(len(n.Children))
		for _, m := range n.Children {
			add(m)
		}
	case axAttribute:
		c.run.tick(len(n.Attrs))
		for _, m := range n.Attrs {
			add(m)
		}
	case axDescendantAttribute:
		if n.Kind == DocumentNode && st.test.kind == testName && !st.test.anySpace && !st.test.anyLocal {
			found := c.run.namedAttributes(st.test.sym)
			c.run.tick(len(found) + 1)
			for _, m := range found {
				out = append(out, m)
			}
			break
		}
		var walk func(*Node)
		walk = func(m *Node) {
			c.run.tick(len(m.Attrs) + 1)
			for _, a := range m.Attrs {
				add(a)
			}
			for _, k := range m.Children {
				walk(k)
			}
		}
		walk(n)
	case axSelf:
		add(n)
	case axParent:
		if n.Parent != nil {
			add(n.Parent)
		}
	case axAncestor, axAncestorOrSelf:
		m := n
		if st.axis == axAncestor {
			m = n.Parent
		}
		for ; m != nil; m = m.Parent {
			c.run.tick(1)
			add(m)
		}
	case axDescendant, axDescendantOrSelf:
		if n.Kind == DocumentNode && st.axis == axDescendant && st.test.kind == testName && !st.test.anySpace && !st.test.anyLocal {
			// From the root every element of a name: the run's index.
			found := c.run.named(st.test.sym)
			c.run.tick(len(found) + 1)
			for _, m := range found {
				out = append(out, m)
			}
			break
		}
		if st.axis == axDescendantOrSelf {
			add(n)
		}
		var walk func(*Node)
		walk = func(m *Node) {
			c.run.tick(len(m.Children))
			for _, k := range m.Children {
				add(k)
				walk(k)
			}
		}
		walk(n)
	case axFollowingSibling, axPrecedingSibling:
		if n.Parent == nil || n.Kind == AttributeNode {
			break
		}
		sibs := n.Parent.Children
		at := 0
		for i, m := range sibs {
			if m == n {
				at = i
			}
		}
		c.run.tick(len(sibs))
		if st.axis == axFollowingSibling {
			for _, m := range sibs[at+1:] {
				add(m)
			}
		} else {
			for i := at - 1; i >= 0; i-- {
				add(sibs[i])
			}
		}
	case axFollowing, axPreceding:
		// Every node after (before) n in document order that is not its
		// descendant (ancestor); attributes are never on these axes.
		var all []*Node
		var walk func(*Node)
		walk = func(m *Node) {
			c.run.tick(1)
			all = append(all, m)
			for _, k := range m.Children {
				walk(k)
			}
		}
		walk(c.run.doc.Root)
		isAncestor := map[*Node]bool{}
		for m := n.Parent; m != nil; m = m.Parent {
			isAncestor[m] = true
		}
		if st.axis == axFollowing {
			past := n
			if n.Kind == AttributeNode {
				past = n.Parent
			}
			end := past.lastDescendantOrder()
			for _, m := range all {
				if m.order > end {
					add(m)
				}
			}
		} else {
			for i := len(all) - 1; i >= 0; i-- {
				if m := all[i]; m.order < n.order && !isAncestor[m] && m.Kind != DocumentNode {
					add(m)
				}
			}
		}
	}
	return out
}

func (n *Node) lastDescendantOrder() int {
	for len(n.Children) > 0 {
		n = n.Children[len(n.Children)-1]
	}
	return n.order
}
