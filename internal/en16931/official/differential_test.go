package official_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"greatbook/internal/en16931"
	"greatbook/internal/en16931/mutate"
	"greatbook/internal/en16931/official"
)

var (
	mutantCount    = flag.Int("official.mutants", 2000, "how many mutants the differential test has the official validator judge")
	mutantDuration = flag.Duration("official.duration", 0, "judge mutants for this long instead (make fuzz-long)")
	mutantSeed     = flag.Uint64("official.seed", 1, "the mutants' seed")
	showAll        = flag.Bool("official.verbose", false, "log every difference, not only the first of each kind")
	keepDir        = flag.String("official.keep", "", "write every document whose verdicts differ into this folder")
)

// document is one document given to both validators.
type document struct {
	name, syntax string
	data         []byte
	edits        []string
}

// syntaxOf tells a document's syntax by its root element ("" when neither).
func syntaxOf(data []byte) string {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "Invoice", "CreditNote":
				return "ubl"
			case "CrossIndustryInvoice":
				return "cii"
			}
			return ""
		}
	}
}

var testStart = regexp.MustCompile(`<test[\s>]`)

// unitTests are the documents of a testSet file of CEN's unit tests, each named by its file, rule and
// expected verdict.
func unitTests(t *testing.T, file, syntax string) []document {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []document
	for i, test := range testStart.Split(string(data), -1)[1:] {
		head, doc, found := bytes.Cut([]byte(test), []byte("</assert>"))
		if !found {
			continue
		}
		doc, _, _ = bytes.Cut(doc, []byte("</test>"))
		verdict := ""
		for _, v := range []string{"success", "error", "warning"} {
			if _, rest, ok := bytes.Cut(head, []byte("<"+v+">")); ok {
				rule, _, _ := bytes.Cut(rest, []byte("<"))
				verdict = v + " " + strings.TrimSpace(string(rule))
			}
		}
		out = append(out, document{name: fmt.Sprintf("%s #%d (%s)", strings.TrimPrefix(file, "../testdata/"), i+1, verdict), syntax: syntax, data: doc})
	}
	return out
}

// corpus is every e-invoice the project holds: the documents of CEN's unit tests (UBL and CII), the
// published examples, and the e-invoices of the product's own test data.
func corpus(t *testing.T) []document {
	t.Helper()
	var docs []document
	ubl, _ := filepath.Glob("../testdata/unit-ubl/*/*.xml")
	for _, f := range ubl {
		docs = append(docs, unitTests(t, f, "ubl")...)
	}
	cii, _ := filepath.Glob("../testdata/unit-cii/*.xml")
	for _, f := range cii {
		docs = append(docs, unitTests(t, f, "cii")...)
	}
	if len(ubl) == 0 || len(cii) == 0 {
		t.Fatal("no unit tests")
	}
	for _, dir := range []string{"../testdata/examples", "../../einvoice/testdata", "../../einvoice/testdata/samples", "../../../testdata/hostile"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// A document type declaration is refused before any rule runs (no DTD or entity is read), so the
			// rules' verdict does not apply; Saxon would expand a billion laughs for minutes.
			if bytes.Contains(data, []byte("<!DOCTYPE")) {
				continue
			}
			if s := syntaxOf(data); s != "" {
				docs = append(docs, document{name: strings.TrimLeft(f, "./"), syntax: s, data: data})
			}
		}
	}
	return docs
}

// difference is one document whose fatal verdicts differ.
type difference struct {
	doc                       document
	officialOnly, productOnly []string
}

func (d difference) kind() string {
	return fmt.Sprintf("official only %v, product only %v", d.officialOnly, d.productOnly)
}

// tally is what the comparison saw.
type tally struct {
	judged, unjudged, warningDiffs int
	diffs                          []difference
	why                            map[string]int
}

// judge gives doc to both validators and records how their verdicts compare.
func (tl *tally) judge(t *testing.T, v *official.Validator, doc document) {
	t.Helper()
	began := time.Now()
	defer func() {
		if d := time.Since(began); d > time.Second {
			t.Logf("slow: %s took %v", doc.name, d)
		}
	}()
	verdict, err := v.Judge(doc.syntax, doc.data)
	if err != nil {
		t.Fatalf("%s: %v", doc.name, err)
	}
	if verdict.Err != "" {
		tl.unjudged++
		why := verdict.Err
		if len(why) > 80 {
			why = why[:80]
		}
		tl.why[why]++
		return
	}
	tl.judged++
	violations, err := en16931.Validate(doc.syntax, doc.data)
	product := map[string]string{}
	if err != nil {
		product["(not judged: "+err.Error()+")"] = "fatal"
	}
	for _, v := range violations {
		if !strings.HasPrefix(v.Rule, "BR-DE-") || strings.HasPrefix(v.Rule, "BR-DEC") {
			product[v.Rule] = v.Flag
		}
	}
	diff := difference{doc: doc}
	fatal := slices.Compact(slices.Sorted(slices.Values(verdict.Fatal)))
	for _, r := range fatal {
		if product[r] != "fatal" {
			diff.officialOnly = append(diff.officialOnly, r)
		}
		delete(product, r)
	}
	for r, flag := range product {
		if flag == "fatal" {
			diff.productOnly = append(diff.productOnly, r)
		} else if !slices.Contains(verdict.Warning, r) {
			tl.warningDiffs++
		}
	}
	for _, r := range verdict.Warning {
		if _, ok := product[r]; !ok {
			tl.warningDiffs++
		}
	}
	if len(diff.officialOnly)+len(diff.productOnly) > 0 {
		sort.Strings(diff.officialOnly)
		sort.Strings(diff.productOnly)
		tl.diffs = append(tl.diffs, diff)
	}
}

// TestTheOfficialValidatorAgrees gives every e-invoice the project holds, and thousands of mutants of them
// (and of their conversion into the other syntax), to CEN's own validator run by Saxon and to the product,
// and fails naming each document whose fatal verdicts differ. Warnings are compared and counted too.
func TestTheOfficialValidatorAgrees(t *testing.T) {
	v, err := official.Start(official.Options{StylesheetDir: "../cen"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	tl := &tally{why: map[string]int{}}
	docs := corpus(t)
	for _, doc := range docs {
		tl.judge(t, v, doc)
	}
	held := len(docs)

	var bases []document
	for _, doc := range docs {
		if !strings.HasPrefix(doc.name, "unit-") && !strings.Contains(doc.name, "hostile") {
			bases = append(bases, doc)
			if c, ok := mutate.Convert(doc.syntax, doc.data); ok {
				bases = append(bases, document{name: doc.name + " in " + strings.ToUpper(c.Syntax), syntax: c.Syntax, data: c.Doc})
			}
		}
	}
	rng := rand.New(rand.NewPCG(*mutantSeed, 0x6d757461))
	mutants := 0
	deadline := time.Now().Add(*mutantDuration)
	judgedBefore := tl.judged
	for {
		if *mutantDuration > 0 && !time.Now().Before(deadline) || *mutantDuration == 0 && tl.judged-judgedBefore >= *mutantCount {
			break
		}
		base := bases[rng.IntN(len(bases))]
		m, err := mutate.Mutate(rng, base.syntax, base.data, 1+rng.IntN(3))
		if err != nil {
			t.Fatalf("mutate %s: %v", base.name, err)
		}
		mutants++
		tl.judge(t, v, document{name: fmt.Sprintf("mutant %d of %s", mutants, base.name), syntax: m.Syntax, data: m.Doc, edits: m.Edits})
	}

	kinds := map[string]int{}
	for _, d := range tl.diffs {
		kinds[d.kind()]++
		if *keepDir != "" {
			if err := os.MkdirAll(*keepDir, 0o755); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(*keepDir, fmt.Sprintf("difference-%d.%s.xml", len(kinds), d.doc.syntax))
			if err := os.WriteFile(name, d.doc.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if kinds[d.kind()] == 1 || *showAll {
			t.Errorf("%s: %s\n\tedits: %s", d.doc.name, d.kind(), strings.Join(d.doc.edits, "; "))
		}
	}
	for why, n := range tl.why {
		t.Logf("not judged by the official validator (%d): %s", n, why)
	}
	summary := fmt.Sprintf("official validator: %d documents (%d the project holds, %d mutants of seed %d; %d the official validator could not judge), "+
		"%d differences in fatal verdicts, %d in warnings\n", held+mutants, held, mutants, *mutantSeed, tl.unjudged, len(tl.diffs), tl.warningDiffs)
	t.Log(summary)
	// make test prints the line after the suite, whose passing packages' output go test does not show.
	if f := os.Getenv("GREATBOOK_OFFICIAL_SUMMARY"); f != "" {
		if err := os.WriteFile(f, []byte(summary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tl.warningDiffs > 0 {
		t.Errorf("%d warnings differ", tl.warningDiffs)
	}
}
