package xpath

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Expr is a compiled expression.
type Expr struct {
	src  string
	root expr
}

// String is the expression's source.
func (e *Expr) String() string { return e.src }

// Compile parses src, resolving prefixes with ns (prefix to namespace URI).
func Compile(src string, ns map[string]string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks, ns: ns}
	e, err := p.expr()
	if err != nil {
		return nil, fmt.Errorf("%w in %q", err, src)
	}
	if p.peek().kind != tEOF {
		return nil, fmt.Errorf("xpath: unexpected %q at %d in %q", p.peek().text, p.peek().pos, src)
	}
	optimize(e)
	share(e, ns)
	return &Expr{src: src, root: e}, nil
}

var (
	sharedMu    sync.Mutex
	sharedPaths = map[sharedKey]*pathExpr{}
)

type sharedKey struct {
	ns  string // the namespace map's identity: a path's meaning depends on its prefixes
	src string
}

// share makes the absolute paths of the same text, written in many rules, one expression, so that a run
// computes each once for all of them (a run keeps the value of an absolute path without variables).
func share(e expr, ns map[string]string) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	var walk func(e expr) expr
	walk = func(e expr) expr {
		switch x := e.(type) {
		case *pathExpr:
			if x.cacheable && x.key != "" {
				k := sharedKey{fmt.Sprintf("%p", ns), x.key}
				if y, ok := sharedPaths[k]; ok {
					return y
				}
				sharedPaths[k] = x
			}
			for _, st := range x.steps {
				if st.primary != nil {
					st.primary = walk(st.primary)
				}
				for i := range st.preds {
					st.preds[i] = walk(st.preds[i])
				}
			}
		case *parenExpr:
			x.e = walk(x.e)
		case *seqExpr:
			for i := range x.items {
				x.items[i] = walk(x.items[i])
			}
		case *logicExpr:
			x.l, x.r = walk(x.l), walk(x.r)
		case *compareExpr:
			x.l, x.r = walk(x.l), walk(x.r)
		case *arithExpr:
			x.l, x.r = walk(x.l), walk(x.r)
		case *negExpr:
			x.e = walk(x.e)
		case *unionExpr:
			x.l, x.r = walk(x.l), walk(x.r)
		case *quantExpr:
			for i := range x.ins {
				x.ins[i] = walk(x.ins[i])
			}
			x.sat = walk(x.sat)
		case *ifExpr:
			x.cond, x.then, x.els = walk(x.cond), walk(x.then), walk(x.els)
		case *castExpr:
			x.e = walk(x.e)
		case *callExpr:
			for i := range x.args {
				x.args[i] = walk(x.args[i])
			}
		}
		return e
	}
	walk(e)
}

// optimize marks the absolute paths whose value depends on the document
// alone, so a run computes each once, and turns "//name" into one
// descendant step where no predicate counts positions.
func optimize(e expr) bool {
	usesVars := false
	visit := func(x expr) {
		if x != nil && optimize(x) {
			usesVars = true
		}
	}
	switch x := e.(type) {
	case *varRef:
		return true
	case *parenExpr:
		visit(x.e)
	case *seqExpr:
		for _, it := range x.items {
			visit(it)
		}
	case *logicExpr:
		visit(x.l)
		visit(x.r)
	case *compareExpr:
		visit(x.l)
		visit(x.r)
	case *arithExpr:
		visit(x.l)
		visit(x.r)
	case *negExpr:
		visit(x.e)
	case *unionExpr:
		visit(x.l)
		visit(x.r)
	case *quantExpr:
		for _, in := range x.ins {
			visit(in)
		}
		visit(x.sat)
	case *ifExpr:
		visit(x.cond)
		visit(x.then)
		visit(x.els)
	case *castExpr:
		visit(x.e)
	case *callExpr:
		for _, a := range x.args {
			visit(a)
		}
		if (x.name == "not" || x.name == "exists" || x.name == "empty") && len(x.args) == 1 {
			x.simple = simplePath(x.args[0])
		}
		if x.name == "matches" && len(x.args) == 2 {
			if lit, ok := x.args[1].(*literal); ok {
				if re, err := regexp.Compile(stringOf(lit.v)); err == nil {
					x.re = re // a constant pattern, compiled once
				}
			}
		}
	case *pathExpr:
		var steps []*step
		for i := 0; i < len(x.steps); i++ {
			st := x.steps[i]
			if st.primary == nil && st.axis == axDescendantOrSelf && st.test.kind == testNode && len(st.preds) == 0 && i+1 < len(x.steps) {
				next := *x.steps[i+1]
				switch {
				case next.primary == nil && next.axis == axChild && !positional(next.preds):
					// //name: the descendants of that name
					next.axis = axDescendant
					steps = append(steps, &next)
					i++
					continue
				case next.primary == nil && next.axis == axAttribute && !positional(next.preds):
					// //@name: the attributes of that name of the node and its descendants
					next.axis = axDescendantAttribute
					steps = append(steps, &next)
					i++
					continue
				case next.primary != nil && len(next.preds) == 0:
					// //(a|b): the descendants named a, and those named b
					if u, ok := descendantUnion(next.primary); ok {
						steps = append(steps, &step{primary: u})
						i++
						continue
					}
				}
			}
			steps = append(steps, st)
		}
		x.steps = steps
		for _, st := range x.steps {
			visit(st.primary)
			for _, p := range st.preds {
				visit(p)
			}
		}
		x.cacheable = x.absolute && !usesVars
	}
	return usesVars
}

// positional reports whether a predicate may select by position: a number,
// or a call of position() or last() anywhere in it.
func positional(preds []expr) bool {
	for _, p := range preds {
		switch x := p.(type) {
		case *literal:
			if isNumeric(x.v) {
				return true
			}
		case *arithExpr, *varRef:
			return true
		}
		if callsPosition(p) {
			return true
		}
	}
	return false
}

func callsPosition(e expr) bool {
	found := false
	var walk func(expr)
	walk = func(e expr) {
		switch x := e.(type) {
		case *callExpr:
			if x.name == "position" || x.name == "last" {
				found = true
			}
			for _, a := range x.args {
				walk(a)
			}
		case *logicExpr:
			walk(x.l)
			walk(x.r)
		case *compareExpr:
			walk(x.l)
			walk(x.r)
		case *parenExpr:
			walk(x.e)
		}
	}
	walk(e)
	return found
}

type parser struct {
	src  string
	toks []token
	i    int
	ns   map[string]string
}

func (p *parser) startOf(pe *pathExpr) int { return pe.start }

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return token{kind: tEOF}
}
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isOp(s string) bool   { t := p.peek(); return t.kind == tOp && t.text == s }
func (p *parser) isWord(s string) bool { t := p.peek(); return t.kind == tName && t.text == s }

func (p *parser) want(s string) error {
	if !p.isOp(s) {
		return fmt.Errorf("xpath: expected %q at %d, found %q", s, p.peek().pos, p.peek().text)
	}
	p.i++
	return nil
}

func (p *parser) expr() (expr, error) {
	first, err := p.single()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		return first, nil
	}
	items := []expr{first}
	for p.isOp(",") {
		p.i++
		e, err := p.single()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	return &seqExpr{items}, nil
}

func (p *parser) single() (expr, error) {
	if (p.isWord("every") || p.isWord("some")) && p.peekAt(1).kind == tVar {
		every := p.next().text == "every"
		q := &quantExpr{every: every}
		for {
			v := p.next()
			if v.kind != tVar {
				return nil, fmt.Errorf("xpath: expected a variable at %d", v.pos)
			}
			if !p.isWord("in") {
				return nil, fmt.Errorf("xpath: expected 'in' at %d", p.peek().pos)
			}
			p.i++
			in, err := p.single()
			if err != nil {
				return nil, err
			}
			q.vars, q.ins = append(q.vars, v.text), append(q.ins, in)
			if !p.isOp(",") {
				break
			}
			p.i++
		}
		if !p.isWord("satisfies") {
			return nil, fmt.Errorf("xpath: expected 'satisfies' at %d", p.peek().pos)
		}
		p.i++
		sat, err := p.single()
		if err != nil {
			return nil, err
		}
		q.sat = sat
		return q, nil
	}
	if p.isWord("if") && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
		p.i += 2
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.want(")"); err != nil {
			return nil, err
		}
		if !p.isWord("then") {
			return nil, fmt.Errorf("xpath: expected 'then' at %d", p.peek().pos)
		}
		p.i++
		then, err := p.single()
		if err != nil {
			return nil, err
		}
		if !p.isWord("else") {
			return nil, fmt.Errorf("xpath: expected 'else' at %d", p.peek().pos)
		}
		p.i++
		els, err := p.single()
		if err != nil {
			return nil, err
		}
		return &ifExpr{cond, then, els}, nil
	}
	return p.or()
}

func (p *parser) or() (expr, error) {
	l, err := p.and()
	for err == nil && p.isWord("or") {
		p.i++
		var r expr
		if r, err = p.and(); err == nil {
			l = &logicExpr{or: true, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) and() (expr, error) {
	l, err := p.comparison()
	for err == nil && p.isWord("and") {
		p.i++
		var r expr
		if r, err = p.comparison(); err == nil {
			l = &logicExpr{l: l, r: r}
		}
	}
	return l, err
}

var valueComps = map[string]string{"eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

func (p *parser) comparison() (expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tOp && (t.text == "=" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">="):
		p.i++
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &compareExpr{op: t.text, general: true, l: l, r: r}, nil
	case t.kind == tName && valueComps[t.text] != "":
		p.i++
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &compareExpr{op: valueComps[t.text], l: l, r: r}, nil
	}
	return l, nil
}

func (p *parser) additive() (expr, error) {
	l, err := p.multiplicative()
	for err == nil && (p.isOp("+") || p.isOp("-")) {
		op := p.next().text
		var r expr
		if r, err = p.multiplicative(); err == nil {
			l = &arithExpr{op: op, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) multiplicative() (expr, error) {
	l, err := p.union()
	for err == nil && (p.isOp("*") || p.isWord("div") || p.isWord("idiv") || p.isWord("mod")) {
		op := p.next().text
		var r expr
		if r, err = p.union(); err == nil {
			l = &arithExpr{op: op, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) union() (expr, error) {
	l, err := p.cast()
	for err == nil && (p.isOp("|") || p.isWord("union")) {
		p.i++
		var r expr
		if r, err = p.cast(); err == nil {
			l = &unionExpr{l, r}
		}
	}
	return l, err
}

func (p *parser) cast() (expr, error) {
	e, err := p.unary()
	if err != nil {
		return nil, err
	}
	for (p.isWord("cast") || p.isWord("castable")) && p.peekAt(1).kind == tName && p.peekAt(1).text == "as" {
		castable := p.next().text == "castable"
		p.i++
		typ := p.next()
		if typ.kind != tName {
			return nil, fmt.Errorf("xpath: expected a type at %d", typ.pos)
		}
		optional := false
		if p.isOp("?") {
			p.i++
			optional = true
		}
		e = &castExpr{e: e, typ: typ.text, castable: castable, optional: optional}
	}
	return e, nil
}

func (p *parser) unary() (expr, error) {
	neg := false
	for p.isOp("-") || p.isOp("+") {
		if p.next().text == "-" {
			neg = !neg
		}
	}
	e, err := p.path()
	if err != nil || !neg {
		return e, err
	}
	return &negExpr{e}, nil
}

// path parses a path expression: "/", "//" or a relative path of steps.
func (p *parser) path() (expr, error) {
	e, err := p.pathSteps()
	if pe, ok := e.(*pathExpr); ok && err == nil && pe.absolute {
		pe.key = p.src[p.toks[p.startOf(pe)].pos:p.toks[p.i-1].end()]
	}
	return e, err
}

func (p *parser) pathSteps() (expr, error) {
	start := p.i
	pe := &pathExpr{start: start}
	switch {
	case p.isOp("/"):
		p.i++
		pe.absolute = true
		if !p.startsStep() {
			return pe, nil
		}
	case p.isOp("//"):
		p.i++
		pe.absolute = true
		pe.steps = append(pe.steps, descendantOrSelf())
	}
	s, err := p.step()
	if err != nil {
		return nil, err
	}
	pe.steps = append(pe.steps, s)
	for p.isOp("/") || p.isOp("//") {
		if p.next().text == "//" {
			pe.steps = append(pe.steps, descendantOrSelf())
		}
		s, err := p.step()
		if err != nil {
			return nil, err
		}
		pe.steps = append(pe.steps, s)
	}
	if !pe.absolute && len(pe.steps) == 1 && pe.steps[0].primary != nil && len(pe.steps[0].preds) == 0 {
		return pe.steps[0].primary, nil // a primary expression alone
	}
	return pe, nil
}

func descendantOrSelf() *step { return &step{axis: axDescendantOrSelf, test: nodeTest{kind: testNode}} }

func (p *parser) startsStep() bool {
	t := p.peek()
	switch t.kind {
	case tName, tNumber, tString, tVar:
		return true
	case tOp:
		return t.text == "@" || t.text == "." || t.text == ".." || t.text == "(" || t.text == "*"
	}
	return false
}

var axes = map[string]axis{"child": axChild, "descendant": axDescendant, "descendant-or-self": axDescendantOrSelf, "self": axSelf,
	"parent": axParent, "ancestor": axAncestor, "ancestor-or-self": axAncestorOrSelf, "attribute": axAttribute,
	"following-sibling": axFollowingSibling, "preceding-sibling": axPrecedingSibling, "following": axFollowing, "preceding": axPreceding}

var kindTests = map[string]testKind{"node": testNode, "text": testText, "element": testElement, "attribute": testAttribute,
	"comment": testNone, "processing-instruction": testNone, "document-node": testDocument}

func (p *parser) step() (*step, error) {
	t := p.peek()
	switch {
	case t.kind == tOp && t.text == "..":
		p.i++
		return &step{axis: axParent, test: nodeTest{kind: testNode}}, nil
	case t.kind == tOp && t.text == "@":
		p.i++
		test, err := p.nodeTest(true)
		if err != nil {
			return nil, err
		}
		return p.predicates(&step{axis: axAttribute, test: test})
	case t.kind == tName && p.peekAt(1).kind == tOp && p.peekAt(1).text == "::":
		ax, ok := axes[t.text]
		if !ok {
			return nil, fmt.Errorf("xpath: unknown axis %q at %d", t.text, t.pos)
		}
		p.i += 2
		test, err := p.nodeTest(ax == axAttribute)
		if err != nil {
			return nil, err
		}
		return p.predicates(&step{axis: ax, test: test})
	case t.kind == tName && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" && kindTests[t.text] == 0 && !isKindTest(t.text):
		prim, err := p.functionCall()
		if err != nil {
			return nil, err
		}
		return p.predicates(&step{primary: prim})
	case t.kind == tName || t.kind == tOp && t.text == "*":
		test, err := p.nodeTest(false)
		if err != nil {
			return nil, err
		}
		return p.predicates(&step{axis: axChild, test: test})
	}
	prim, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.predicates(&step{primary: prim})
}

func isKindTest(name string) bool { _, ok := kindTests[name]; return ok }

func (p *parser) predicates(s *step) (*step, error) {
	for p.isOp("[") {
		p.i++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.want("]"); err != nil {
			return nil, err
		}
		s.preds = append(s.preds, e)
	}
	return s, nil
}

func (p *parser) nodeTest(attribute bool) (nodeTest, error) {
	t := p.next()
	if t.kind == tOp && t.text == "*" {
		return nodeTest{kind: testName, anySpace: true, anyLocal: true, attribute: attribute}, nil
	}
	if t.kind != tName {
		return nodeTest{}, fmt.Errorf("xpath: expected a name at %d, found %q", t.pos, t.text)
	}
	if k, ok := kindTests[t.text]; ok && p.isOp("(") {
		p.i++
		if err := p.want(")"); err != nil {
			return nodeTest{}, err
		}
		return nodeTest{kind: k}, nil
	}
	prefix, local, found := strings.Cut(t.text, ":")
	if !found {
		return nodeTest{kind: testName, local: t.text, attribute: attribute, sym: intern("", t.text)}, nil // no default element namespace
	}
	nt := nodeTest{kind: testName, attribute: attribute}
	if prefix == "*" {
		nt.anySpace = true
	} else {
		uri, ok := p.ns[prefix]
		if !ok {
			return nodeTest{}, fmt.Errorf("xpath: unbound prefix %q at %d", prefix, t.pos)
		}
		nt.space = uri
	}
	if local == "*" {
		nt.anyLocal = true
	} else {
		nt.local = local
	}
	nt.sym = intern(nt.space, nt.local)
	return nt, nil
}

func (p *parser) primary() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tString:
		p.i++
		return newLiteral(stringValue(t.text)), nil
	case tNumber:
		p.i++
		return numberLiteral(t.text)
	case tVar:
		p.i++
		return &varRef{t.text}, nil
	case tOp:
		switch t.text {
		case ".":
			p.i++
			return &contextItem{}, nil
		case "(":
			p.i++
			if p.isOp(")") {
				p.i++
				return &seqExpr{}, nil
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.want(")"); err != nil {
				return nil, err
			}
			return &parenExpr{e}, nil
		}
	case tName:
		if p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			return p.functionCall()
		}
	}
	return nil, fmt.Errorf("xpath: unexpected %q at %d", t.text, t.pos)
}

func (p *parser) functionCall() (expr, error) {
	name := p.next().text
	p.i++ // (
	var args []expr
	if !p.isOp(")") {
		for {
			a, err := p.single()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.isOp(",") {
				break
			}
			p.i++
		}
	}
	if err := p.want(")"); err != nil {
		return nil, err
	}
	name = strings.TrimPrefix(name, "fn:")
	f, ok := functions[name]
	if !ok {
		return nil, fmt.Errorf("xpath: unknown function %s()", name)
	}
	if len(args) < f.min || (f.max >= 0 && len(args) > f.max) {
		return nil, fmt.Errorf("xpath: %s() takes %d to %d arguments, got %d", name, f.min, f.max, len(args))
	}
	return &callExpr{name: name, f: f, args: args}, nil
}

// descendantUnion rewrites the union of simple child steps (a | b), taken at every descendant-or-self node,
// as the union of the descendants named a and b; ok is false for any other expression.
func descendantUnion(e expr) (expr, bool) {
	if p, ok := e.(*parenExpr); ok {
		e = p.e
	}
	var parts []expr
	var walk func(e expr) bool
	walk = func(e expr) bool {
		switch x := e.(type) {
		case *unionExpr:
			return walk(x.l) && walk(x.r)
		case *pathExpr:
			if x.absolute || len(x.steps) != 1 || x.steps[0].primary != nil || x.steps[0].axis != axChild || positional(x.steps[0].preds) {
				return false
			}
			st := *x.steps[0]
			st.axis = axDescendant
			parts = append(parts, &pathExpr{steps: []*step{&st}})
			return true
		}
		return false
	}
	if !walk(e) || len(parts) < 2 {
		return nil, false
	}
	u := parts[0]
	for _, p := range parts[1:] {
		u = &unionExpr{u, p}
	}
	return u, true
}

// simplePath returns the node tests of a relative path of named child steps (the last may be an attribute)
// without predicates, whose existence a call can test without making the nodes; nil for any other.
func simplePath(e expr) []nodeTest {
	p, ok := e.(*pathExpr)
	if !ok || p.absolute || len(p.steps) == 0 {
		return nil
	}
	tests := make([]nodeTest, len(p.steps))
	for i, st := range p.steps {
		if st.primary != nil || len(st.preds) > 0 || st.test.kind != testName || st.test.anySpace || st.test.anyLocal ||
			!(st.axis == axChild || st.axis == axAttribute && i == len(p.steps)-1) {
			return nil
		}
		tests[i] = st.test
	}
	return tests
}
