package xpath

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// ErrBudget is returned when an evaluation would do more work than its
// run allows.
var ErrBudget = errors.New("xpath: the document needs more work than its size allows")

// Run evaluates expressions over one document, sharing a work budget and
// the values of absolute paths that depend on nothing but the document.
type Run struct {
	doc    *Document
	steps  int64
	budget int64
	cache  map[*pathExpr]Sequence
	index  map[symbol][]*Node // elements by name, in document order
	kids   map[kidKey]Sequence
	attrs  map[symbol][]*Node // attributes by name, in document order
	args   []Sequence         // the arguments of the function calls under way
	root   context            // the context of the expressions a caller evaluates, reused
}

// namedAttributes returns the document's attributes of a name, in document order.
func (r *Run) namedAttributes(sym symbol) []*Node {
	if r.attrs == nil {
		r.attrs = map[symbol][]*Node{}
		var walk func(*Node)
		walk = func(n *Node) {
			for _, a := range n.Attrs {
				r.attrs[a.name] = append(r.attrs[a.name], a)
			}
			for _, c := range n.Children {
				if c.Kind == ElementNode {
					walk(c)
				}
			}
		}
		walk(r.doc.Root)
		r.tick(r.doc.Nodes)
	}
	return r.attrs[sym]
}

// named returns the document's elements of a name, in document order.
func (r *Run) named(sym symbol) []*Node {
	if r.index == nil {
		r.index = map[symbol][]*Node{}
		var walk func(*Node)
		walk = func(n *Node) {
			for _, c := range n.Children {
				if c.Kind == ElementNode {
					r.index[c.name] = append(r.index[c.name], c)
					walk(c)
				}
			}
		}
		walk(r.doc.Root)
		r.tick(r.doc.Nodes)
	}
	return r.index[sym]
}

// NewRun starts evaluating over doc with a budget of work units (nodes
// visited and items compared); budget <= 0 means none.
func NewRun(doc *Document, budget int64) *Run {
	r := &Run{doc: doc, budget: budget, cache: map[*pathExpr]Sequence{}, kids: map[kidKey]Sequence{}}
	r.root.run = r
	return r
}

// Steps is the work done so far.
func (r *Run) Steps() int64 { return r.steps }

type budgetExceeded struct{}

func (r *Run) tick(n int) {
	r.steps += int64(n)
	if r.budget > 0 && r.steps > r.budget {
		panic(budgetExceeded{})
	}
}

// Eval evaluates e with context node n and returns the result.
func (r *Run) Eval(e *Expr, n *Node) (s Sequence, err error) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(budgetExceeded); !ok {
				panic(p)
			}
			s, err = nil, ErrBudget
		}
	}()
	return e.root.eval(&context{run: r, item: n, pos: 1, size: 1})
}

// Test evaluates e as a boolean (its effective boolean value).
func (r *Run) Test(e *Expr, n *Node) (ok bool, err error) {
	err = r.Guard(func() { ok, err = r.TestUnguarded(e, n) })
	return ok, err
}

// Guard runs f, which evaluates with TestUnguarded, and returns ErrBudget when the run's budget ran out
// on the way (f is then left where it stood).
func (r *Run) Guard(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(budgetExceeded); !ok {
				panic(p)
			}
			err = ErrBudget
		}
	}()
	f()
	return nil
}

// TestUnguarded is Test for a caller that evaluates many expressions inside one Guard: a spent budget
// unwinds to that Guard.
func (r *Run) TestUnguarded(e *Expr, n *Node) (bool, error) {
	r.root.item, r.root.pos, r.root.size, r.root.vars = n, 1, 1, nil
	s, err := e.root.eval(&r.root)
	if err != nil {
		return false, err
	}
	return ebv(s)
}

type context struct {
	run       *Run
	item      Item
	pos, size int
	vars      *binding
}

type binding struct {
	name  string
	value Sequence
	next  *binding
}

func (c *context) with(item Item, pos, size int) *context {
	return &context{run: c.run, item: item, pos: pos, size: size, vars: c.vars}
}

type expr interface {
	eval(c *context) (Sequence, error)
}

type (
	literal struct {
		v   Item
		seq Sequence // Sequence{v}, shared
	}
	varRef      struct{ name string }
	contextItem struct{}
	parenExpr   struct{ e expr }
	seqExpr     struct{ items []expr }
	logicExpr   struct {
		or   bool
		l, r expr
	}
	compareExpr struct {
		op      string
		general bool
		l, r    expr
	}
	arithExpr struct {
		op   string
		l, r expr
	}
	negExpr   struct{ e expr }
	unionExpr struct{ l, r expr }
	quantExpr struct {
		every bool
		vars  []string
		ins   []expr
		sat   expr
	}
	ifExpr   struct{ cond, then, els expr }
	castExpr struct {
		e                  expr
		typ                string
		castable, optional bool
	}
	callExpr struct {
		name string
		f    function
		args []expr
		re   *regexp.Regexp // matches() with a constant pattern
		// simple: not(), exists() or empty() of a path of named child steps, tested without making nodes.
		simple []nodeTest
	}
	pathExpr struct {
		start     int    // the token the path starts at, while parsing
		key       string // an absolute path's text, by which identical ones are shared
		absolute  bool
		steps     []*step
		cacheable bool // absolute and free of variables: one value per document
	}
)

func (e *literal) eval(*context) (Sequence, error) { return e.seq, nil }

func (e *varRef) eval(c *context) (Sequence, error) {
	for b := c.vars; b != nil; b = b.next {
		if b.name == e.name {
			return b.value, nil
		}
	}
	return nil, errorf("variable $%s is not bound", e.name)
}

func (e *contextItem) eval(c *context) (Sequence, error) {
	if c.item == nil {
		return nil, errorf("the context item is absent")
	}
	return Sequence{c.item}, nil
}

func (e *parenExpr) eval(c *context) (Sequence, error) { return e.e.eval(c) }

func (e *seqExpr) eval(c *context) (Sequence, error) {
	var out Sequence
	for _, it := range e.items {
		s, err := it.eval(c)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

func (e *logicExpr) eval(c *context) (Sequence, error) {
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	lb, err := ebv(l)
	if err != nil {
		return nil, err
	}
	if lb == e.or {
		return boolean(lb), nil
	}
	r, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	rb, err := ebv(r)
	return boolean(rb), err
}

func (e *compareExpr) eval(c *context) (Sequence, error) {
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	r, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	if !e.general {
		a, err := single(l, "the first operand of a value comparison")
		if err != nil {
			return nil, err
		}
		b, err := single(r, "the second operand of a value comparison")
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		ok, err := compareValues(a, b, e.op, false)
		return boolean(ok), err
	}
	la, ra := atomize(l), atomize(r)
	c.run.tick(len(la) * len(ra))
	for _, a := range la {
		for _, b := range ra {
			ok, err := compareValues(a, b, e.op, true)
			if err != nil {
				return nil, err
			}
			if ok {
				return trueSequence, nil
			}
		}
	}
	return falseSequence, nil
}

// compareValues compares two atomic values as a general (true) or value
// comparison does.
func compareValues(a, b Item, op string, general bool) (bool, error) {
	var err error
	if general {
		_, au := a.(untypedValue)
		_, bu := b.(untypedValue)
		switch {
		case au && bu:
			a, b = stringValue(stringOf(a)), stringValue(stringOf(b))
		case au:
			a, err = castLike(a, b)
		case bu:
			b, err = castLike(b, a)
		}
		if err != nil {
			return false, err
		}
	} else {
		if u, ok := a.(untypedValue); ok {
			a = stringValue(u)
		}
		if u, ok := b.(untypedValue); ok {
			b = stringValue(u)
		}
	}
	cmp, err := compareTyped(a, b)
	if err != nil {
		return false, err
	}
	if cmp == 2 { // NaN
		return op == "!=", nil
	}
	switch op {
	case "=":
		return cmp == 0, nil
	case "!=":
		return cmp != 0, nil
	case "<":
		return cmp < 0, nil
	case "<=":
		return cmp <= 0, nil
	case ">":
		return cmp > 0, nil
	case ">=":
		return cmp >= 0, nil
	}
	return false, errorf("unknown comparison %s", op)
}

// castLike casts an untyped value for comparison with other.
func castLike(u, other Item) (Item, error) {
	switch other.(type) {
	case integerValue, decimalValue, doubleValue:
		f, err := toDouble(u)
		return doubleValue(f), err
	case booleanValue:
		b, err := toBoolean(u)
		return booleanValue(b), err
	case dateValue:
		return toDate(u)
	}
	return stringValue(stringOf(u)), nil
}

// compareTyped returns -1, 0 or 1, or 2 when a NaN makes them unordered.
func compareTyped(a, b Item) (int, error) {
	if isNumeric(a) && isNumeric(b) {
		_, ad := a.(doubleValue)
		_, bd := b.(doubleValue)
		if ad || bd {
			x, _ := toDouble(a)
			y, _ := toDouble(b)
			switch {
			case math.IsNaN(x) || math.IsNaN(y):
				return 2, nil
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
		x, _ := toDecimal(a)
		y, _ := toDecimal(b)
		return x.Cmp(y), nil
	}
	switch x := a.(type) {
	case stringValue:
		if y, ok := b.(stringValue); ok {
			switch {
			case string(x) < string(y):
				return -1, nil
			case string(x) > string(y):
				return 1, nil
			}
			return 0, nil
		}
	case booleanValue:
		if y, ok := b.(booleanValue); ok {
			switch {
			case x == y:
				return 0, nil
			case !bool(x):
				return -1, nil
			}
			return 1, nil
		}
	case dateValue:
		if y, ok := b.(dateValue); ok {
			return x.instant.Compare(y.instant), nil
		}
	}
	return 0, errorf("cannot compare %s with %s", typeName(a), typeName(b))
}

func (e *arithExpr) eval(c *context) (Sequence, error) {
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	r, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	a, err := single(l, "the first operand of '"+e.op+"'")
	if err != nil {
		return nil, err
	}
	b, err := single(r, "the second operand of '"+e.op+"'")
	if err != nil || a == nil || b == nil {
		return nil, err
	}
	v, err := arithmetic(e.op, a, b)
	if err != nil {
		return nil, err
	}
	return Sequence{v}, nil
}

func numericOperand(v Item) (Item, error) {
	switch v.(type) {
	case untypedValue:
		f, err := toDouble(v)
		return doubleValue(f), err
	case integerValue, decimalValue, doubleValue:
		return v, nil
	}
	return nil, errorf("arithmetic on %s is not supported", typeName(v))
}

// divisionPlaces is the decimal places of a decimal division that does not
// come out exact (Saxon keeps at least 18).
const divisionPlaces = 20

func arithmetic(op string, a, b Item) (Item, error) {
	a, err := numericOperand(a)
	if err != nil {
		return nil, err
	}
	b, err = numericOperand(b)
	if err != nil {
		return nil, err
	}
	_, ad := a.(doubleValue)
	_, bd := b.(doubleValue)
	if ad || bd {
		x, _ := toDouble(a)
		y, _ := toDouble(b)
		switch op {
		case "+":
			return doubleValue(x + y), nil
		case "-":
			return doubleValue(x - y), nil
		case "*":
			return doubleValue(x * y), nil
		case "div":
			return doubleValue(x / y), nil
		case "mod":
			return doubleValue(math.Mod(x, y)), nil
		case "idiv":
			if y == 0 {
				return nil, errorf("integer division by zero")
			}
			return integerValue(int64(math.Trunc(x / y))), nil
		}
	}
	ai, aInt := a.(integerValue)
	bi, bInt := b.(integerValue)
	if aInt && bInt && op != "div" {
		switch op {
		case "+":
			return integerValue(ai + bi), nil
		case "-":
			return integerValue(ai - bi), nil
		case "*":
			return integerValue(ai * bi), nil
		case "idiv", "mod":
			if bi == 0 {
				return nil, errorf("integer division by zero")
			}
			if op == "idiv" {
				return integerValue(ai / bi), nil
			}
			return integerValue(ai % bi), nil
		}
	}
	x, _ := toDecimal(a)
	y, _ := toDecimal(b)
	switch op {
	case "+":
		return decimalValue{x.Add(y)}, nil
	case "-":
		return decimalValue{x.Sub(y)}, nil
	case "*":
		return decimalValue{x.Mul(y)}, nil
	case "div":
		if y.IsZero() {
			return nil, errorf("decimal divide by zero")
		}
		q := x.DivRound(y, divisionPlaces)
		if q.Mul(y).Equal(x) {
			return decimalValue{q}, nil
		}
		return decimalValue{q}, nil
	case "idiv":
		if y.IsZero() {
			return nil, errorf("integer division by zero")
		}
		return integerValue(x.Div(y).Truncate(0).IntPart()), nil
	case "mod":
		if y.IsZero() {
			return nil, errorf("decimal modulo by zero")
		}
		return decimalValue{x.Mod(y)}, nil
	}
	return nil, errorf("unknown operator %s", op)
}

func (e *negExpr) eval(c *context) (Sequence, error) {
	s, err := e.e.eval(c)
	if err != nil {
		return nil, err
	}
	v, err := single(s, "the operand of unary minus")
	if err != nil || v == nil {
		return nil, err
	}
	v, err = numericOperand(v)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case integerValue:
		return Sequence{-x}, nil
	case decimalValue:
		return Sequence{decimalValue{x.d.Neg()}}, nil
	case doubleValue:
		return Sequence{-x}, nil
	}
	return nil, nil
}

func (e *unionExpr) eval(c *context) (Sequence, error) {
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	r, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	all := append(append(Sequence{}, l...), r...)
	for _, it := range all {
		if _, ok := it.(*Node); !ok {
			return nil, errorf("the operands of a union must be nodes")
		}
	}
	return documentOrder(all), nil
}

func (e *quantExpr) eval(c *context) (Sequence, error) {
	ok, err := e.bind(c, 0)
	return boolean(ok), err
}

func (e *quantExpr) bind(c *context, i int) (bool, error) {
	if i == len(e.vars) {
		s, err := e.sat.eval(c)
		if err != nil {
			return false, err
		}
		return ebv(s)
	}
	in, err := e.ins[i].eval(c)
	if err != nil {
		return false, err
	}
	for _, it := range in {
		inner := &context{run: c.run, item: c.item, pos: c.pos, size: c.size, vars: &binding{e.vars[i], Sequence{it}, c.vars}}
		ok, err := e.bind(inner, i+1)
		if err != nil {
			return false, err
		}
		if ok != e.every {
			return ok, nil
		}
	}
	return e.every, nil
}

func (e *ifExpr) eval(c *context) (Sequence, error) {
	s, err := e.cond.eval(c)
	if err != nil {
		return nil, err
	}
	ok, err := ebv(s)
	if err != nil {
		return nil, err
	}
	if ok {
		return e.then.eval(c)
	}
	return e.els.eval(c)
}

func (e *castExpr) eval(c *context) (Sequence, error) {
	s, err := e.e.eval(c)
	if err != nil {
		return nil, err
	}
	v, err := single(s, "the value in a 'cast as' expression")
	if err != nil {
		if e.castable {
			return Sequence{booleanValue(false)}, nil
		}
		return nil, err
	}
	if v == nil {
		if e.castable {
			return Sequence{booleanValue(e.optional)}, nil
		}
		if e.optional {
			return nil, nil
		}
		return nil, errorf("an empty sequence is not allowed in 'cast as %s'", e.typ)
	}
	out, err := castTo(v, e.typ)
	if e.castable {
		return Sequence{booleanValue(err == nil)}, nil
	}
	if err != nil {
		return nil, err
	}
	return Sequence{out}, nil
}

func (e *callExpr) eval(c *context) (Sequence, error) {
	c.run.tick(1)
	if e.simple != nil {
		if n, ok := c.item.(*Node); ok {
			found := existsPath(c.run, n, e.simple)
			return boolean(found == (e.name == "exists")), nil
		}
	}
	if e.name == "ends-with" && len(e.args) == 2 {
		// ends-with(name(), 'Suffix'), which the syntax rules' patterns ask of every element: no values made.
		if name, ok := e.args[0].(*callExpr); ok && name.name == "name" && len(name.args) == 0 {
			if lit, ok := e.args[1].(*literal); ok {
				if n, ok := c.item.(*Node); ok && (n.Kind == ElementNode || n.Kind == AttributeNode) {
					return boolean(strings.HasSuffix(n.Name(), stringOf(lit.v))), nil
				}
			}
		}
	}
	if e.re != nil {
		s, err := e.args[0].eval(c)
		if err != nil {
			return nil, err
		}
		str, err := stringArg(s, "matches()")
		if err != nil {
			return nil, err
		}
		return boolean(e.re.MatchString(str)), nil
	}
	// The arguments live on the run's stack while the call runs (calls nest; none keeps its arguments).
	r := c.run
	base := len(r.args)
	defer func() { clear(r.args[base:]); r.args = r.args[:base] }()
	for _, a := range e.args {
		s, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		r.args = append(r.args, s)
	}
	return e.f.call(c, r.args[base:base+len(e.args):base+len(e.args)])
}

// documentOrder returns the nodes of s in document order without duplicates (s itself may be shared and
// is left as it is).
func documentOrder(s Sequence) Sequence {
	if slices.IsSortedFunc(s, func(a, b Item) int { return a.(*Node).order - b.(*Node).order }) {
		return slices.CompactFunc(slices.Clone(s), func(a, b Item) bool { return a.(*Node) == b.(*Node) })
	}
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b Item) int { return a.(*Node).order - b.(*Node).order })
	return slices.CompactFunc(s, func(a, b Item) bool { return a.(*Node) == b.(*Node) })
}

var _ = decimal.Zero

// existsPath reports whether n has a descendant along tests (child steps, the last maybe an attribute).
func existsPath(r *Run, n *Node, tests []nodeTest) bool {
	t := tests[0]
	if t.attribute {
		r.tick(len(n.Attrs))
		for _, a := range n.Attrs {
			if a.name == t.sym {
				return true
			}
		}
		return false
	}
	r.tick(len(n.Children))
	for _, m := range n.Children {
		if m.Kind == ElementNode && m.name == t.sym && (len(tests) == 1 || existsPath(r, m, tests[1:])) {
			return true
		}
	}
	return false
}
