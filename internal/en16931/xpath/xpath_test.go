package xpath

import (
	"errors"
	"strings"
	"testing"
)

var testNS = map[string]string{"a": "urn:a", "xs": "http://www.w3.org/2001/XMLSchema"}

const testDoc = `<r xmlns="urn:a" xmlns:o="urn:other">
  <x n="1">80.80</x><x n="2">  7 </x><x>true</x>
  <d>2024-01-31</d><d>2024-02-01+01:00</d>
  <o:x>9</o:x><empty/>
</r>`

func evalString(t *testing.T, src string) (Sequence, error) {
	t.Helper()
	doc, err := Parse([]byte(testDoc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(src, testNS)
	if err != nil {
		t.Fatal(err)
	}
	return NewRun(doc, 0).Eval(e, doc.Root)
}

// The semantics the official rules depend on, each as Saxon evaluates it.
func TestXPathSemantics(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`count(//a:x)`, "3"},                       // a name test is in its namespace: o:x is not a:x
		{`count(/a:r/*)`, "7"},                      // every element child
		{`//a:x[1] = 80.8`, "true"},                 // untyped against a number compares as doubles
		{`//a:x[1] = '80.8'`, "false"},              // ... against a string as strings
		{`//a:x[2] = 7`, "true"},                    // a double cast ignores surrounding white space
		{`xs:decimal(//a:x[1] - 1) < 79.8`, "true"}, // the double 79.799999… cast exactly, not to 79.8
		{`round(2.5)`, "3"},                         // half towards positive infinity
		{`round(-2.5)`, "-2"},                       //
		{`round(xs:decimal('0.125') * 100) div 100`, "0.13"},
		{`sum(//a:x[position() < 3])`, "87.8"}, // untyped values sum as doubles
		{`1 div 4`, "0.25"},                    // integer division is decimal
		{`every $v in //a:x[@n] satisfies $v > 5`, "true"},
		{`some $v in //a:x[@n] satisfies $v > 50`, "true"},
		{`xs:date(//a:d[2]) > xs:date(//a:d[1])`, "true"}, // dates compare as instants
		{`normalize-space(//a:x[2])`, "7"},
		{`ends-with(name(/a:r/a:empty), 'pty')`, "true"},
		{`//a:x[3] = true()`, "true"}, // untyped against a boolean casts to boolean
		{`exists(//a:x[@n = '2'])`, "true"},
		{`not(//a:empty/text())`, "true"},
		{`string-length(substring-after('VATEX-EU-O', '-'))`, "4"},
		{`contains(' S Z E ', concat(' ', normalize-space(' Z '), ' '))`, "true"},
	} {
		got, err := evalString(t, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		var parts []string
		for _, it := range got {
			parts = append(parts, stringOf(it))
		}
		if s := strings.Join(parts, " "); s != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, s, tc.want)
		}
	}
}

// What the official validator stops on is a dynamic error here too.
func TestXPathDynamicErrors(t *testing.T) {
	for _, src := range []string{
		`normalize-space(//a:x)`, // more than one item
		`xs:decimal(//a:empty)`,  // "" is no decimal
		`//a:x[1] + //a:x[3]`,    // "true" is no double
		`//a:x[3] = 1`,           // ... nor in a comparison
		`xs:date('2024-02-30')`,  // no such day
	} {
		if _, err := evalString(t, src); !IsDynamic(err) {
			t.Errorf("%s: %v, want a dynamic error", src, err)
		}
	}
}

// A run stops when its budget is spent.
func TestXPathBudget(t *testing.T) {
	doc, err := Parse([]byte(`<r xmlns="urn:a">`+strings.Repeat("<x>1</x>", 2000)+`</r>`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(`every $a in //a:x satisfies every $b in //a:x satisfies $a = $b`, testNS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRun(doc, 100_000).Eval(e, doc.Root); !errors.Is(err, ErrBudget) {
		t.Fatalf("a quadratic expression over budget: %v, want ErrBudget", err)
	}
}

// Parse refuses what a namespace-aware reader refuses.
func TestParseRefusesMalformedXML(t *testing.T) {
	for _, src := range []string{`<a:r/>`, `<r></s>`, `<r/><r/>`, `<r>`} {
		if _, err := Parse([]byte(src), Limits{}); err == nil {
			t.Errorf("%s was read", src)
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{`count(//a:x)`, `every $r in a:x satisfies ($r = 1)`, `a:x[1]/xs:decimal(.)`, `(1, 2)[2]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if e, err := Compile(src, testNS); err == nil {
			doc, _ := Parse([]byte(testDoc), Limits{})
			_, _ = NewRun(doc, 100_000).Eval(e, doc.Root)
		}
	})
}
