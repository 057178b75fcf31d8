package en16931

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var updateRulesTable = flag.Bool("update", false, "rewrite ../../docs/en16931-rules.md from Rules()")

// rulesTablePath is the rule table the documentation points to.
const rulesTablePath = "../../docs/en16931-rules.md"

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

// TestRulesTable proves docs/en16931-rules.md lists exactly the rules Rules() judges, with their flag and
// official text. With -update it writes it: go test ./internal/en16931 -run TestRulesTable -update
func TestRulesTable(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.XRechnung() {
			if _, ok := xrechnungRules[r.ID]; !ok || !strings.HasPrefix(r.ID, "BR-DE-") || r.Flag() != "warning" {
				t.Errorf("%s is an XRechnung rule without KoSIT's text, outside BR-DE or not a warning", r.ID)
			}
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

// family is a rule's family: the business rules (BR-…) one by one, the syntax-binding rules by prefix.
func family(id string) string {
	for _, p := range []string{"UBL-CR", "UBL-SR", "UBL-DT", "CII-SR", "CII-DT"} {
		if strings.HasPrefix(id, p+"-") {
			return p
		}
	}
	return ""
}

func rulesTable(rules []Rule) []byte {
	cell := func(s string) string {
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
	}
	var business, xr []Rule
	type count struct{ fatal, warning int }
	families := map[string]*count{}
	for _, r := range rules {
		switch {
		case r.XRechnung():
			xr = append(xr, r)
		case family(r.ID) != "":
			c := families[family(r.ID)]
			if c == nil {
				c = &count{}
				families[family(r.ID)] = c
			}
			if r.Flag() == "fatal" {
				c.fatal++
			} else {
				c.warning++
			}
		default:
			business = append(business, r)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# EN 16931 rules: %d judged as CEN publishes them\n\n", len(rules)-len(xr))
	b.WriteString("Generated from `en16931.Rules()` by `go test ./internal/en16931 -run TestRulesTable -update`; do not edit.\n\n")
	b.WriteString("The product judges an e-invoice by CEN's own validators for EN 16931 (the compiled schematron of the UBL and\n")
	b.WriteString("the CII binding, release of April 2026, EUPL 1.2), evaluated rule by rule: every rule, with its official\n")
	b.WriteString("flag and text, in its official context, in each syntax by that syntax's binding. Nothing is left out. A fatal\n")
	b.WriteString("violation flags the document `invalid_einvoice`; a warning is filed and shown. The test suite gives every\n")
	b.WriteString("e-invoice the project holds, and thousands of variants of them, to CEN's validator run by Saxon and to the\n")
	b.WriteString("product, and fails on any difference.\n\n")
	b.WriteString("## Business rules\n\n")
	b.WriteString("| Rule | Flag | Business term | Syntax | Official message |\n|---|---|---|---|---|\n")
	for _, r := range business {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, r.Flag(), r.BusinessTerm, strings.ToUpper(strings.Join(r.Syntaxes, ", ")), cell(r.Message()))
	}
	b.WriteString("\n## Syntax-binding rules\n\nRules on the XML of one syntax (elements it may not carry, cardinalities, data types), judged as published:\n\n")
	b.WriteString("| Family | Fatal | Warning |\n|---|---|---|\n")
	names := make([]string, 0, len(families))
	for f := range families {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		fmt.Fprintf(&b, "| %s-* | %d | %d |\n", f, families[f].fatal, families[f].warning)
	}
	fmt.Fprintf(&b, "\n## XRechnung (BR-DE-*): %d implemented, as warnings\n\n", len(xr))
	b.WriteString("KoSIT's rules of XRechnung 3.0 (github.com/itplr-kosit/xrechnung-schematron, `XRechnung-UBL-validation.sch`,\n")
	b.WriteString("`XRechnung-CII-validation.sch`, `common.sch`), judged only when the specification identifier (BT-24) starts with\n")
	fmt.Fprintf(&b, "`%s`, and always as a warning in this product: a German CIUS rule never\n", XRechnungPrefix)
	b.WriteString("makes an EN 16931 invoice invalid here. KoSIT's own flag is shown beside it. The message is KoSIT's text (German, as\n")
	b.WriteString("published; the UBL file's wording where the CII file's differs).\n\n")
	slices.SortStableFunc(xr, func(a, b Rule) int { return strings.Compare(xrOrder(a.ID), xrOrder(b.ID)) })
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
