package xpath

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

type function struct {
	min, max int // max < 0: any number
	call     func(c *context, args []Sequence) (Sequence, error)
}

func one(v Item) Sequence { return Sequence{v} }

// The two boolean results, shared: no caller changes a sequence it is given.
var (
	trueSequence  = Sequence{booleanValue(true)}
	falseSequence = Sequence{booleanValue(false)}
)

func boolean(b bool) Sequence {
	if b {
		return trueSequence
	}
	return falseSequence
}

// stringArg is an optional string argument: "" for the empty sequence.
func stringArg(s Sequence, what string) (string, error) {
	switch len(s) {
	case 0:
		return "", nil
	case 1:
		if n, ok := s[0].(*Node); ok {
			return n.StringValue(), nil
		}
		return stringOf(s[0]), nil
	}
	return "", errorf("a sequence of more than one item is not allowed as the argument of %s", what)
}

// normalizeSpace is XPath's normalize-space: s itself when nothing is to be done.
func normalizeSpace(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\t', '\n', '\r':
			clean = false
		case ' ':
			if i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				clean = false
			}
		}
		if !clean {
			break
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// contextString is the string value of the context item, for the functions
// that default to it.
func contextString(c *context, args []Sequence, what string) (string, error) {
	if len(args) > 0 {
		return stringArg(args[0], what)
	}
	if c.item == nil {
		return "", errorf("the context item is absent in %s", what)
	}
	if n, ok := c.item.(*Node); ok {
		return n.StringValue(), nil
	}
	return stringOf(c.item), nil
}

func stringFunction(name string, f func(args []string) Item) function {
	return function{min: 1, max: -1, call: func(c *context, args []Sequence) (Sequence, error) {
		ss := make([]string, len(args))
		for i, a := range args {
			s, err := stringArg(a, name+"()")
			if err != nil {
				return nil, err
			}
			ss[i] = s
		}
		return one(f(ss)), nil
	}}
}

func castFunction(typ string) function {
	return function{min: 1, max: 1, call: func(c *context, args []Sequence) (Sequence, error) {
		v, err := single(args[0], "the argument of "+typ+"()")
		if err != nil || v == nil {
			return nil, err
		}
		out, err := castTo(v, typ)
		if err != nil {
			return nil, err
		}
		return one(out), nil
	}}
}

var functions map[string]function

func init() {
	functions = map[string]function{
		"not":   {1, 1, func(c *context, a []Sequence) (Sequence, error) { b, err := ebv(a[0]); return boolean(!b), err }},
		"true":  {0, 0, func(*context, []Sequence) (Sequence, error) { return boolean(true), nil }},
		"false": {0, 0, func(*context, []Sequence) (Sequence, error) { return boolean(false), nil }},
		"boolean": {1, 1, func(c *context, a []Sequence) (Sequence, error) {
			b, err := ebv(a[0])
			return boolean(b), err
		}},
		"exists": {1, 1, func(c *context, a []Sequence) (Sequence, error) { return boolean(len(a[0]) > 0), nil }},
		"empty":  {1, 1, func(c *context, a []Sequence) (Sequence, error) { return boolean(len(a[0]) == 0), nil }},
		"count":  {1, 1, func(c *context, a []Sequence) (Sequence, error) { return one(integerValue(len(a[0]))), nil }},
		"sum":    {1, 2, sum},
		"round":  {1, 1, numeric("round", round)},
		"abs":    {1, 1, numeric("abs", abs)},
		"normalize-space": {0, 1, func(c *context, a []Sequence) (Sequence, error) {
			s, err := contextString(c, a, "normalize-space()")
			return one(stringValue(normalizeSpace(s))), err
		}},
		"string": {0, 1, func(c *context, a []Sequence) (Sequence, error) {
			s, err := contextString(c, a, "string()")
			return one(stringValue(s)), err
		}},
		"string-length": {0, 1, func(c *context, a []Sequence) (Sequence, error) {
			s, err := contextString(c, a, "string-length()")
			return one(integerValue(utf8.RuneCountInString(s))), err
		}},
		"upper-case":  stringFunction("upper-case", func(s []string) Item { return stringValue(strings.ToUpper(s[0])) }),
		"lower-case":  stringFunction("lower-case", func(s []string) Item { return stringValue(strings.ToLower(s[0])) }),
		"contains":    stringFunction("contains", func(s []string) Item { return booleanValue(strings.Contains(s[0], s[1])) }),
		"starts-with": stringFunction("starts-with", func(s []string) Item { return booleanValue(strings.HasPrefix(s[0], s[1])) }),
		"ends-with":   stringFunction("ends-with", func(s []string) Item { return booleanValue(strings.HasSuffix(s[0], s[1])) }),
		"concat":      stringFunction("concat", func(s []string) Item { return stringValue(strings.Join(s, "")) }),
		"substring-before": stringFunction("substring-before", func(s []string) Item {
			b, _, _ := strings.Cut(s[0], s[1])
			return stringValue(cutOrEmpty(s[0], s[1], b, true))
		}),
		"substring-after": stringFunction("substring-after", func(s []string) Item {
			_, a, _ := strings.Cut(s[0], s[1])
			return stringValue(cutOrEmpty(s[0], s[1], a, false))
		}),
		"substring":  {2, 3, substring},
		"name":       {0, 1, nodeName(func(n *Node) string { return n.Name() })},
		"local-name": {0, 1, nodeName(func(n *Node) string { return n.Local })},
		"distinct-values": {1, 2, func(c *context, a []Sequence) (Sequence, error) {
			var out Sequence
			for _, v := range atomize(a[0]) {
				if u, ok := v.(untypedValue); ok {
					v = stringValue(u)
				}
				dup := false
				for _, w := range out {
					if eq, err := compareValues(v, w, "=", false); err == nil && eq {
						dup = true
						break
					}
				}
				if !dup {
					out = append(out, v)
				}
			}
			return out, nil
		}},
		"matches": {2, 3, func(c *context, a []Sequence) (Sequence, error) {
			s, err := stringArg(a[0], "matches()")
			if err != nil {
				return nil, err
			}
			p, err := stringArg(a[1], "matches()")
			if err != nil {
				return nil, err
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, errorf("invalid regular expression %q", p)
			}
			return boolean(re.MatchString(s)), nil
		}},
		"position": {0, 0, func(c *context, _ []Sequence) (Sequence, error) { return one(integerValue(c.pos)), nil }},
		"last":     {0, 0, func(c *context, _ []Sequence) (Sequence, error) { return one(integerValue(c.size)), nil }},
		"number": {0, 1, func(c *context, a []Sequence) (Sequence, error) {
			var v Item
			if len(a) == 0 {
				v = atomizeOne(c.item)
			} else if s := atomize(a[0]); len(s) > 0 {
				v = s[0]
			}
			if v == nil {
				return one(doubleValue(math.NaN())), nil
			}
			f, err := toDouble(v)
			if err != nil {
				f = math.NaN()
			}
			return one(doubleValue(f)), nil
		}},
		"xs:decimal": castFunction("xs:decimal"),
		"xs:double":  castFunction("xs:double"),
		"xs:date":    castFunction("xs:date"),
		"xs:integer": castFunction("xs:integer"),
		"xs:string":  castFunction("xs:string"),
		"xs:boolean": castFunction("xs:boolean"),
	}
}

func cutOrEmpty(s, sep, part string, before bool) string {
	if sep == "" {
		if before {
			return ""
		}
		return s
	}
	if !strings.Contains(s, sep) {
		return ""
	}
	return part
}

func nodeName(f func(*Node) string) func(c *context, a []Sequence) (Sequence, error) {
	return func(c *context, a []Sequence) (Sequence, error) {
		var it Item = c.item
		if len(a) > 0 {
			if len(a[0]) == 0 {
				return one(stringValue("")), nil
			}
			if len(a[0]) > 1 {
				return nil, errorf("a sequence of more than one item is not allowed as the argument of name()")
			}
			it = a[0][0]
		}
		n, ok := it.(*Node)
		if !ok {
			return nil, errorf("the argument of name() is not a node")
		}
		if n.Kind == TextNode || n.Kind == DocumentNode {
			return one(stringValue("")), nil
		}
		return one(stringValue(f(n))), nil
	}
}

func numeric(name string, f func(Item) Item) func(c *context, a []Sequence) (Sequence, error) {
	return func(c *context, a []Sequence) (Sequence, error) {
		v, err := single(a[0], "the first argument of fn:"+name+"()")
		if err != nil || v == nil {
			return nil, err
		}
		v, err = numericOperand(v)
		if err != nil {
			return nil, err
		}
		return one(f(v)), nil
	}
}

// round rounds half towards positive infinity, keeping the type.
func round(v Item) Item {
	switch x := v.(type) {
	case decimalValue:
		return decimalValue{x.d.Add(decimal.New(5, -1)).Floor()}
	case doubleValue:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return x
		}
		return doubleValue(math.Floor(f + 0.5))
	}
	return v
}

func abs(v Item) Item {
	switch x := v.(type) {
	case integerValue:
		if x < 0 {
			return -x
		}
	case decimalValue:
		return decimalValue{x.d.Abs()}
	case doubleValue:
		return doubleValue(math.Abs(float64(x)))
	}
	return v
}

func sum(c *context, a []Sequence) (Sequence, error) {
	items := atomize(a[0])
	if len(items) == 0 {
		if len(a) > 1 {
			return a[1], nil
		}
		return one(integerValue(0)), nil
	}
	c.run.tick(len(items))
	var total Item = integerValue(0)
	for _, it := range items {
		v, err := numericOperand(it)
		if err != nil {
			return nil, err
		}
		if total, err = arithmetic("+", total, v); err != nil {
			return nil, err
		}
	}
	return one(total), nil
}

// substring is fn:substring with XPath's rounding of positions.
func substring(c *context, a []Sequence) (Sequence, error) {
	s, err := stringArg(a[0], "substring()")
	if err != nil {
		return nil, err
	}
	startV, err := single(a[1], "the second argument of substring()")
	if err != nil || startV == nil {
		return nil, err
	}
	start, err := toDouble(startV)
	if err != nil {
		return nil, err
	}
	start = math.Floor(start + 0.5)
	end := math.Inf(1)
	if len(a) > 2 {
		lv, err := single(a[2], "the third argument of substring()")
		if err != nil || lv == nil {
			return nil, err
		}
		l, err := toDouble(lv)
		if err != nil {
			return nil, err
		}
		end = start + math.Floor(l+0.5)
	}
	var b strings.Builder
	pos := 1.0
	for _, r := range s {
		if pos >= start && pos < end {
			b.WriteRune(r)
		}
		pos++
	}
	return one(stringValue(b.String())), nil
}
