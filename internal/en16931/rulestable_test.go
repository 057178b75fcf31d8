package en16931

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var updateRulesTable = flag.Bool("update", false, "rewrite ../../docs/en16931-rules.md from Rules()")

// rulesTablePath is the rule table the README points to.
const rulesTablePath = "../../docs/en16931-rules.md"

// leftOut are the rules of the official schematron (officialRules) that this package does not implement,
// each with the reason. TestRulesTable fails when an official rule is neither implemented nor here.
var leftOut = map[string]string{
	"BR-CO-05": "its official UBL binding's test is literally `true()`: nothing to check (reason code and reason text naming the same allowance is not decidable from the document)",
	"BR-CO-06": "its official UBL binding's test is literally `true()` (charge reason code and reason)",
	"BR-CO-07": "its official UBL binding's test is literally `true()` (line allowance reason code and reason)",
	"BR-CO-08": "its official UBL binding's test is literally `true()` (line charge reason code and reason)",
	"BR-CL-08": "its list (UNTDID 4451 subject codes) is written inline in the model schematron, not in the codes file the lists are generated from, and CEN's unit tests have none for it",
	"BR-B-01":  "Italian split payment (category B): not in the issue's list of VAT categories",
	"BR-B-02":  "Italian split payment (category B): not in the issue's list of VAT categories",
}

// leftOutFamilies are rule families outside the official files this package reads, left out as a whole.
var leftOutFamilies = []struct{ family, reason string }{
	{"BR-CO-25", "not in this version of the schematron (CEN's commit in `internal/en16931/testdata/README.md`); newer versions add it"},
	{"UBL-CR-*, UBL-SR-*, UBL-DT-* (UBL syntax binding: 678, 54 and 24 rules)", "syntax-binding rules, which the issue allows to leave out: they judge the XML's shape, not the invoice; the product's parsers refuse what they cannot read"},
	{"CII-SR-*, CII-DT-* (CII syntax binding: 482 and 101 rules)", "as for UBL"},
}

// xrechnungLeftOut are KoSIT's XRechnung 3.0 rules (XRechnung-UBL/CII-validation.sch) this package does not
// implement, with the reason.
var xrechnungLeftOut = []struct{ id, reason string }{
	{"BR-DE-18-a (CII only)", "BT-20 stated more than once: the model keeps each payment terms text; KoSIT binds it in CII only"},
	{"BR-DE-20", "the debited account (BT-91) is not in the semantic model"},
	{"BR-DE-29, BR-DE-30, BR-DE-31", "direct debit's mandate reference, creditor identifier and debited account (BT-89, BT-90, BT-91) are not in the semantic model"},
	{"BR-DE-TMP-32", "flagged information by KoSIT, provisional (TMP); the delivery date is shown with the document"},
	{"BR-TMP-1, BR-TMP-2", "provisional (TMP) syntax checks: one line VAT group in CII, the shape of an external document URL"},
	{"BR-DEX-* (the XRechnung extension)", "sub invoice lines, third party payments and the extension's code lists are not in the semantic model"},
	{"BR-DE-CVD-* (Clean Vehicles Directive)", "only for the CVD specification identifier, which the product does not distinguish"},
	{"BR-DE-12, BR-DE-13", "not in XRechnung 3.0's schematron (earlier versions)"},
}

// TestRulesTable proves docs/en16931-rules.md lists exactly the rules Rules() implements, with their
// official flag and text, and every official rule left out with the reason. With -update it writes it:
// go test ./internal/en16931 -run TestRulesTable -update
func TestRulesTable(t *testing.T) {
	rules := Rules()
	implemented := map[string]bool{}
	for _, r := range rules {
		if implemented[r.ID] {
			t.Errorf("%s is implemented twice", r.ID)
		}
		implemented[r.ID] = true
		if r.XRechnung() {
			if _, ok := xrechnungRules[r.ID]; !ok || !strings.HasPrefix(r.ID, "BR-DE-") || r.Flag() != "warning" {
				t.Errorf("%s is an XRechnung rule without KoSIT's text, outside BR-DE or not a warning", r.ID)
			}
			continue
		}
		if _, ok := officialRules[r.ID]; !ok {
			t.Errorf("%s is implemented but not in the official schematron", r.ID)
		}
		if _, ok := leftOut[r.ID]; ok {
			t.Errorf("%s is implemented and listed as left out", r.ID)
		}
	}
	for id := range xrechnungRules {
		if !implemented[id] {
			t.Errorf("%s has KoSIT's text but is not implemented", id)
		}
	}
	for id := range officialRules {
		if _, ok := leftOut[id]; !implemented[id] && !ok {
			t.Errorf("%s is in the official schematron, neither implemented nor listed as left out with a reason", id)
		}
	}
	for id := range leftOut {
		if _, ok := officialRules[id]; !ok {
			t.Errorf("%s is listed as left out but is no official rule", id)
		}
	}
	want := rulesTable(rules)
	if *updateRulesTable {
		if err := os.WriteFile(rulesTablePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(rulesTablePath)
	if err != nil {
		t.Fatalf("%v: run go test ./internal/en16931 -run TestRulesTable -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from Rules(): run go test ./internal/en16931 -run TestRulesTable -update", rulesTablePath)
	}
}

func rulesTable(rules []Rule) []byte {
	cell := func(s string) string {
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
	}
	var xr []Rule
	en := rules[:0:0]
	for _, r := range rules {
		if r.XRechnung() {
			xr = append(xr, r)
		} else {
			en = append(en, r)
		}
	}
	rules = en
	flags := map[string]int{}
	for _, r := range rules {
		flags[r.Flag()]++
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# EN 16931 business rules: %d implemented\n\n", len(rules))
	b.WriteString("Generated from `en16931.Rules()` by `go test ./internal/en16931 -run TestRulesTable -update`; do not edit.\n")
	b.WriteString("TestRulesTable fails when this file differs from the rules the code implements, and when a rule of the\n")
	b.WriteString("official schematron (`internal/en16931/testdata/schematron/`) is neither implemented nor left out below.\n\n")
	fmt.Fprintf(&b, "%d rules of %d in the official schematron: %d fatal, %d warning. One rule set over one semantic model judges\n",
		len(rules), len(officialRules), flags["fatal"], flags["warning"])
	b.WriteString("UBL and CII alike. A fatal violation flags the document `invalid_einvoice`; a warning is filed and shown.\n")
	b.WriteString("The message is the official text; a finding adds the place and the numbers involved.\n\n")
	b.WriteString("| Rule | Flag | Business term | Context | Official message |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, r.Flag(), cell(r.BusinessTerm), cell(r.Context), cell(r.Message()))
	}
	b.WriteString("\n## Left out\n\n")
	ids := make([]string, 0, len(leftOut))
	for id := range leftOut {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b.WriteString("| Rule | Flag | Reason | Official message |\n|---|---|---|---|\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", id, officialRules[id].Flag, cell(leftOut[id]), cell(officialRules[id].Message))
	}
	b.WriteString("\nBeyond the official model and code-list files:\n\n")
	for _, f := range leftOutFamilies {
		fmt.Fprintf(&b, "- %s: %s.\n", f.family, f.reason)
	}
	fmt.Fprintf(&b, "\n## XRechnung (BR-DE-*): %d implemented, as warnings\n\n", len(xr))
	b.WriteString("KoSIT's rules of XRechnung 3.0 (github.com/itplr-kosit/xrechnung-schematron, `XRechnung-UBL-validation.sch`,\n")
	b.WriteString("`XRechnung-CII-validation.sch`, `common.sch`), judged only when the specification identifier (BT-24) starts with\n")
	fmt.Fprintf(&b, "`%s`, and always as a warning in this product (issue 12): a German CIUS rule never\n", XRechnungPrefix)
	b.WriteString("makes an EN 16931 invoice invalid here. KoSIT's own flag is shown beside it. The message is KoSIT's text (German, as\n")
	b.WriteString("published; the UBL file's wording where the CII file's differs).\n\n")
	sort.SliceStable(xr, func(i, j int) bool { return xrOrder(xr[i].ID) < xrOrder(xr[j].ID) })
	b.WriteString("| Rule | Flag | KoSIT's flag | Business term | Context | Official message |\n|---|---|---|---|---|---|\n")
	for _, r := range xr {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Flag(), r.OfficialFlag(), cell(r.BusinessTerm), cell(r.Context), cell(r.Message()))
	}
	b.WriteString("\nLeft out:\n\n")
	for _, l := range xrechnungLeftOut {
		fmt.Fprintf(&b, "- %s: %s.\n", l.id, l.reason)
	}
	return b.Bytes()
}

// xrOrder sorts BR-DE-2 before BR-DE-10: the number, then the suffix.
func xrOrder(id string) string {
	num, suffix, _ := strings.Cut(strings.TrimPrefix(id, "BR-DE-"), "-")
	n, _ := strconv.Atoi(num)
	return fmt.Sprintf("%04d-%s", n, suffix)
}
