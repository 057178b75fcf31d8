package pipeline_test

import (
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/en16931/mutate"
	"greatbook/internal/en16931/official"
	"greatbook/internal/intake"
)

// edit replaces from (which must occur once) with to.
func edit(t *testing.T, doc, from, to string) string {
	t.Helper()
	if n := strings.Count(doc, from); n != 1 {
		t.Fatalf("%q occurs %d times, want once", from, n)
	}
	return strings.Replace(doc, from, to, 1)
}

// TestValidInvoicesOfTheBindingsDetailsArePending is the product's side of the official verdict: invoices
// CEN's validator finds valid, of the kinds the product once refused — a CII invoice stating its tax point
// date by code 29, a zero-VAT CII invoice without TaxTotalAmount, a
// UBL exemption code in lower case, UBL dates with a time zone — are filed pending without a fatal finding,
// the product's own readings of the same rules giving way to the official verdict.
func TestValidInvoicesOfTheBindingsDetailsArePending(t *testing.T) {
	t.Parallel()
	oracle, err := official.Start(official.Options{StylesheetDir: "../en16931/cen"})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	ciiXML, ublXML := string(read(t, ciiInvoice)), string(read(t, ublInvoice))

	zero, err := ownjson.Parse([]byte(`{"type":"invoice","number":"Z-1","issue_date":"2026-11-20","currency":"EUR",
		"seller":{"name":"Seller AB","vat_id":"SE556677889901","address":{"country":"SE"}},
		"buyer":{"name":"Buyer GmbH","vat_id":"DE123456789","address":{"country":"DE"}},
		"lines":[{"description":"Export","quantity":"1","unit_price":"100.00","tax_rate":"0"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	zeroCII, err := cii.Build(zero)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(zeroCII), "<ram:TaxTotalAmount")
	end := strings.Index(string(zeroCII), "</ram:TaxTotalAmount>") + len("</ram:TaxTotalAmount>")
	if start < 0 || end < start {
		t.Fatalf("no TaxTotalAmount to remove in\n%s", zeroCII)
	}

	for _, tc := range []struct{ name, syntax, doc string }{
		{"CII tax point date code 29", "cii", edit(t, ciiXML, `<ram:TaxPointDate>
                    <udt:DateString format="102">20130630</udt:DateString>
                </ram:TaxPointDate>`, `<ram:DueDateTypeCode>29</ram:DueDateTypeCode>`)},
		{"CII zero VAT without TaxTotalAmount", "cii", string(zeroCII[:start]) + string(zeroCII[end:])},
		{"UBL exemption code in lower case", "ubl", edit(t, ublXML, `<cbc:TaxExemptionReason>Exempt New Means of Transport</cbc:TaxExemptionReason>`,
			`<cbc:TaxExemptionReasonCode>vatex-eu-132-1g</cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Exempt New Means of Transport</cbc:TaxExemptionReason>`)},
		{"UBL dates with a time zone", "ubl", strings.ReplaceAll(strings.ReplaceAll(ublXML, "2013-06-01<", "2013-06-01+01:00<"), "2013-06-30<", "2013-06-30+01:00<")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			verdict, err := oracle.Judge(tc.syntax, []byte(tc.doc))
			if err != nil || verdict.Err != "" || len(verdict.Fatal) > 0 {
				t.Fatalf("the official validator does not find it valid: %v %s %v", err, verdict.Err, verdict.Fatal)
			}
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, []byte(tc.doc), "application/xml", nil)
			fs := filedFindings(t, d)
			if d.Status != intake.Pending || einvoice.HasFatal(fs) {
				t.Fatalf("filed %s %q with findings %+v, want pending without a fatal finding (trace %v)", d.Status, d.FlagReason, fs, trace)
			}
		})
	}
}

// TestTheFiledVerdictIsTheOfficialOne files published examples and mutants of them through the pipeline
// and compares the fatal findings under CEN's rule ids with the official validator's fatal rules: the same
// set, whatever the product's own checks of those rules would say. The product's own codes (nothing to
// post, amounts the ledger cannot hold) are its business and are not compared.
func TestTheFiledVerdictIsTheOfficialOne(t *testing.T) {
	t.Parallel()
	oracle, err := official.Start(official.Options{StylesheetDir: "../en16931/cen"})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	var bases []struct{ syntax, doc string }
	for _, name := range []string{ublInvoice, ublCredit, peppolUBL, ciiInvoice, "cii-invoice.xml", "ubl-invoice-multirate.xml", "ubl-creditnote.xml"} {
		doc := read(t, name)
		syntax := "ubl"
		if strings.Contains(string(doc), "CrossIndustryInvoice") {
			syntax = "cii"
		}
		bases = append(bases, struct{ syntax, doc string }{syntax, string(doc)})
	}
	rng := rand.New(rand.NewPCG(7, 7))
	compared := 0
	for i := 0; compared < 300; i++ {
		base := bases[i%len(bases)]
		m := mutate.Mutant{Syntax: base.syntax, Doc: []byte(base.doc)}
		if i >= len(bases) {
			if m, err = mutate.Mutate(rng, base.syntax, []byte(base.doc), 1+rng.IntN(2)); err != nil {
				t.Fatal(err)
			}
		}
		verdict, err := oracle.Judge(m.Syntax, m.Doc)
		if err != nil {
			t.Fatal(err)
		}
		if verdict.Err != "" {
			continue
		}
		mem := intake.NewMemoryStore()
		d, _ := offline(t, mem, mem, m.Doc, "application/xml", nil)
		if d.FlagReason == intake.FlagNotAnInvoice || d.FlagReason == "extraction_failed" || d.FlagReason == "needs_manual_extraction" {
			continue // not read as an invoice: no verdict of either to compare
		}
		compared++
		filed := map[string]bool{}
		for _, f := range filedFindings(t, d) {
			if f.Fatal() && ruleIDPattern.MatchString(f.Code) {
				filed[f.Code] = true
			}
		}
		want := map[string]bool{}
		for _, r := range verdict.Fatal {
			want[r] = true
		}
		if !maps.Equal(filed, want) {
			t.Errorf("document %d (%s): filed fatal %v, official fatal %v", i, strings.Join(m.Edits, "; "), slices.Sorted(maps.Keys(filed)), slices.Sorted(maps.Keys(want)))
		}
	}
}

var ruleIDPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)
