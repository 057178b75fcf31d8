package xpath

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Item is a node (*Node) or an atomic value.
type Item any

// Sequence is XPath's value: items in order.
type Sequence []Item

// The atomic types the rules meet.
type (
	stringValue  string
	untypedValue string // a node's atomized value: no schema types it
	integerValue int64
	decimalValue struct{ d decimal.Decimal }
	doubleValue  float64
	booleanValue bool
	dateValue    struct {
		instant time.Time // the date's start, in its time zone (UTC when it has none)
		text    string
	}
)

// Error is a dynamic error of evaluation (a value that cannot be cast, more
// than one item where one is allowed): the official validator stops on it.
type Error struct{ msg string }

func (e *Error) Error() string { return "xpath: " + e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// IsDynamic reports whether err is a dynamic error of evaluation.
func IsDynamic(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

func typeName(v Item) string {
	switch v.(type) {
	case *Node:
		return "node"
	case stringValue:
		return "xs:string"
	case untypedValue:
		return "xs:untypedAtomic"
	case integerValue:
		return "xs:integer"
	case decimalValue:
		return "xs:decimal"
	case doubleValue:
		return "xs:double"
	case booleanValue:
		return "xs:boolean"
	case dateValue:
		return "xs:date"
	}
	return fmt.Sprintf("%T", v)
}

// atomize turns nodes into their untyped values (s itself when it holds none).
func atomize(s Sequence) Sequence {
	nodes := false
	for _, it := range s {
		if _, ok := it.(*Node); ok {
			nodes = true
			break
		}
	}
	if !nodes {
		return s
	}
	out := make(Sequence, len(s))
	for i, it := range s {
		out[i] = atomizeOne(it)
	}
	return out
}

// atomizeOne is one item's atomic value.
func atomizeOne(it Item) Item {
	if n, ok := it.(*Node); ok {
		return untypedValue(n.StringValue())
	}
	return it
}

// single atomizes s and returns its one item, nil when empty, an error when
// it holds more than one.
func single(s Sequence, what string) (Item, error) {
	switch len(s) {
	case 0:
		return nil, nil
	case 1:
		return atomizeOne(s[0]), nil
	}
	return nil, errorf("a sequence of more than one item is not allowed as %s", what)
}

// stringOf is an atomic value's string form.
func stringOf(v Item) string {
	switch x := v.(type) {
	case *Node:
		return x.StringValue()
	case stringValue:
		return string(x)
	case untypedValue:
		return string(x)
	case integerValue:
		return strconv.FormatInt(int64(x), 10)
	case decimalValue:
		s := x.d.String()
		return s
	case doubleValue:
		return doubleString(float64(x))
	case booleanValue:
		if x {
			return "true"
		}
		return "false"
	case dateValue:
		return x.text
	}
	return ""
}

func doubleString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case f == math.Trunc(f) && math.Abs(f) < 1e6:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func isNumeric(v Item) bool {
	switch v.(type) {
	case integerValue, decimalValue, doubleValue:
		return true
	}
	return false
}

var (
	decimalLexical = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	doubleLexical  = regexp.MustCompile(`^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([Ee][+-]?[0-9]+)?|-?INF|NaN)$`)
	integerLexical = regexp.MustCompile(`^[+-]?[0-9]+$`)
	dateLexical    = regexp.MustCompile(`^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})(Z|[+-][0-9]{2}:[0-9]{2})?$`)
)

func toDouble(v Item) (float64, error) {
	switch x := v.(type) {
	case integerValue:
		return float64(x), nil
	case decimalValue:
		f, _ := x.d.Float64()
		return f, nil
	case doubleValue:
		return float64(x), nil
	case booleanValue:
		if x {
			return 1, nil
		}
		return 0, nil
	case stringValue, untypedValue:
		s := strings.TrimSpace(stringOf(x))
		if !doubleLexical.MatchString(s) {
			return 0, errorf("cannot convert string %q to xs:double", s)
		}
		switch s {
		case "INF":
			return math.Inf(1), nil
		case "-INF":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, errorf("cannot convert string %q to xs:double", s)
		}
		return f, nil
	}
	return 0, errorf("cannot convert %s to xs:double", typeName(v))
}

func toDecimal(v Item) (decimal.Decimal, error) {
	switch x := v.(type) {
	case integerValue:
		return decimal.NewFromInt(int64(x)), nil
	case decimalValue:
		return x.d, nil
	case doubleValue:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return decimal.Zero, errorf("cannot convert %s to xs:decimal", doubleString(f))
		}
		return exactDecimal(f), nil
	case booleanValue:
		if x {
			return decimal.NewFromInt(1), nil
		}
		return decimal.Zero, nil
	case stringValue, untypedValue:
		s := strings.TrimSpace(stringOf(x))
		if !decimalLexical.MatchString(s) {
			return decimal.Zero, errorf("cannot convert string %q to xs:decimal: no digits in value", s)
		}
		d, err := decimal.NewFromString(strings.TrimPrefix(s, "+"))
		if err != nil {
			return decimal.Zero, errorf("cannot convert string %q to xs:decimal", s)
		}
		return d, nil
	}
	return decimal.Zero, errorf("cannot convert %s to xs:decimal", typeName(v))
}

func toBoolean(v Item) (bool, error) {
	switch x := v.(type) {
	case booleanValue:
		return bool(x), nil
	case stringValue, untypedValue:
		switch strings.TrimSpace(stringOf(x)) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return false, errorf("the string %q cannot be cast to a boolean", stringOf(x))
	case integerValue, decimalValue, doubleValue:
		f, _ := toDouble(x)
		return f != 0 && !math.IsNaN(f), nil
	}
	return false, errorf("cannot cast %s to xs:boolean", typeName(v))
}

func toDate(v Item) (dateValue, error) {
	switch x := v.(type) {
	case dateValue:
		return x, nil
	case stringValue, untypedValue:
		s := strings.TrimSpace(stringOf(x))
		m := dateLexical.FindStringSubmatch(s)
		if m == nil {
			return dateValue{}, errorf("invalid date %q", s)
		}
		year, _ := strconv.Atoi(m[1])
		month, _ := strconv.Atoi(m[2])
		day, _ := strconv.Atoi(m[3])
		loc := time.UTC
		if tz := m[4]; tz != "" && tz != "Z" {
			h, _ := strconv.Atoi(tz[1:3])
			mi, _ := strconv.Atoi(tz[4:6])
			off := h*60 + mi
			if off > 14*60 || mi > 59 {
				return dateValue{}, errorf("invalid time zone in date %q", s)
			}
			if tz[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off*60)
		}
		t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, loc)
		if month < 1 || month > 12 || t.Day() != day || year == 0 {
			return dateValue{}, errorf("invalid date %q", s)
		}
		return dateValue{instant: t, text: s}, nil
	}
	return dateValue{}, errorf("cannot cast %s to xs:date", typeName(v))
}

func toInteger(v Item) (int64, error) {
	switch x := v.(type) {
	case integerValue:
		return int64(x), nil
	case stringValue, untypedValue:
		s := strings.TrimSpace(stringOf(x))
		if !integerLexical.MatchString(s) {
			return 0, errorf("cannot convert string %q to xs:integer", s)
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return 0, errorf("cannot convert string %q to xs:integer", s)
		}
		return n, nil
	}
	d, err := toDecimal(v)
	if err != nil {
		return 0, err
	}
	return d.Truncate(0).IntPart(), nil
}

// castTo casts an atomic value to a named type.
func castTo(v Item, typ string) (Item, error) {
	switch typ {
	case "xs:decimal":
		d, err := toDecimal(v)
		return decimalValue{d}, err
	case "xs:double":
		f, err := toDouble(v)
		return doubleValue(f), err
	case "xs:boolean":
		b, err := toBoolean(v)
		return booleanValue(b), err
	case "xs:date":
		return toDate(v)
	case "xs:integer":
		n, err := toInteger(v)
		return integerValue(n), err
	case "xs:string":
		return stringValue(stringOf(v)), nil
	}
	return nil, errorf("cast to %s is not supported", typ)
}

func numberLiteral(s string) (expr, error) {
	switch {
	case strings.ContainsAny(s, "eE"):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("xpath: bad number %q", s)
		}
		return newLiteral(doubleValue(f)), nil
	case strings.Contains(s, "."):
		d, err := decimal.NewFromString(s)
		if err != nil {
			return nil, fmt.Errorf("xpath: bad number %q", s)
		}
		return newLiteral(decimalValue{d}), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("xpath: bad number %q", s)
	}
	return newLiteral(integerValue(n)), nil
}

// ebv is the effective boolean value of a sequence.
func ebv(s Sequence) (bool, error) {
	if len(s) == 0 {
		return false, nil
	}
	if _, ok := s[0].(*Node); ok {
		return true, nil
	}
	if len(s) > 1 {
		return false, errorf("effective boolean value is not defined for a sequence of two or more items starting with %s", typeName(s[0]))
	}
	switch x := s[0].(type) {
	case booleanValue:
		return bool(x), nil
	case stringValue, untypedValue:
		return stringOf(x) != "", nil
	case integerValue:
		return x != 0, nil
	case decimalValue:
		return !x.d.IsZero(), nil
	case doubleValue:
		return x != 0 && !math.IsNaN(float64(x)), nil
	}
	return false, errorf("effective boolean value is not defined for %s", typeName(s[0]))
}

// exactDecimal is the decimal value of a double exactly (Saxon casts a double to xs:decimal without
// rounding it to its shortest decimal form: 80.8 - 1 is 79.79999999999999715…, not 79.8).
func exactDecimal(f float64) decimal.Decimal {
	r := new(big.Rat).SetFloat64(f)
	places := r.Denom().BitLen() - 1 // the denominator is a power of two: that many decimal places are exact
	d, err := decimal.NewFromString(r.FloatString(places))
	if err != nil {
		return decimal.NewFromFloat(f)
	}
	return d
}

func newLiteral(v Item) *literal { return &literal{v: v, seq: Sequence{v}} }
