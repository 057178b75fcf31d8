package en16931

import (
	"os"
	"strings"
	"testing"
)

// TestCIIUnitTests is the CII binding's counterpart of CEN's UBL unit tests: for each rule, a copy of the official
// CII example broken in one place makes the rule fire fatal, and the same example unbroken does not.
func TestCIIUnitTests(t *testing.T) {
	example, err := os.ReadFile("testdata/examples/en16931-cii-example2.xml")
	if err != nil {
		t.Fatal(err)
	}
	original := string(example)
	tests := []struct {
		rule, old, new string
		last           bool // break the last occurrence instead of the first
	}{
		{"BR-01", "<ram:ID>urn:cen.eu:en16931:2017</ram:ID>", "<ram:ID> </ram:ID>", false},
		{"BR-02", "<ram:ID>TOSL108</ram:ID>", "<ram:ID></ram:ID>", false},
		{"BR-05", "<ram:InvoiceCurrencyCode>NOK</ram:InvoiceCurrencyCode>", "", false},
		{"BR-06", "<ram:Name>Salescompany ltd.</ram:Name>", "", false},
		{"BR-07", "<ram:Name>The Buyercompany</ram:Name>", "", false},
		{"BR-CL-04", "<ram:InvoiceCurrencyCode>NOK</ram:InvoiceCurrencyCode>", "<ram:InvoiceCurrencyCode>NKR</ram:InvoiceCurrencyCode>", false},
		{"BR-CL-03", `<ram:TaxTotalAmount currencyID="NOK">`, `<ram:TaxTotalAmount currencyID="XYZ">`, false},
		{"BR-CL-14", "<ram:CountryID>NO</ram:CountryID>", "<ram:CountryID>NOR</ram:CountryID>", false},
		{"BR-CL-23", `<ram:BilledQuantity unitCode="MTR">`, `<ram:BilledQuantity unitCode="METRE">`, false},
		{"BR-CL-16", "<ram:TypeCode>30</ram:TypeCode>", "<ram:TypeCode>3000</ram:TypeCode>", false},
		{"BR-CL-01", "<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>999</ram:TypeCode>", false},
		{"BR-CO-10", "<ram:LineTotalAmount>1436.5</ram:LineTotalAmount>", "<ram:LineTotalAmount>1437.5</ram:LineTotalAmount>", false},
		{"BR-CO-11", "<ram:AllowanceTotalAmount>100</ram:AllowanceTotalAmount>", "<ram:AllowanceTotalAmount>90</ram:AllowanceTotalAmount>", false},
		{"BR-CO-12", "<ram:ChargeTotalAmount>100</ram:ChargeTotalAmount>", "<ram:ChargeTotalAmount>110</ram:ChargeTotalAmount>", false},
		{"BR-CO-13", "<ram:TaxBasisTotalAmount>1436.5</ram:TaxBasisTotalAmount>", "<ram:TaxBasisTotalAmount>1436.6</ram:TaxBasisTotalAmount>", false},
		{"BR-CO-14", `<ram:TaxTotalAmount currencyID="NOK">365.28</ram:TaxTotalAmount>`, `<ram:TaxTotalAmount currencyID="NOK">365.29</ram:TaxTotalAmount>`, false},
		{"BR-CO-15", "<ram:GrandTotalAmount>1801.78</ram:GrandTotalAmount>", "<ram:GrandTotalAmount>1802.78</ram:GrandTotalAmount>", false},
		{"BR-CO-16", "<ram:DuePayableAmount>801.78</ram:DuePayableAmount>", "<ram:DuePayableAmount>802.78</ram:DuePayableAmount>", false},
		{"BR-DEC-18", "<ram:DuePayableAmount>801.78</ram:DuePayableAmount>", "<ram:DuePayableAmount>801.780</ram:DuePayableAmount>", false},
		{"BR-16", "<ram:IncludedSupplyChainTradeLineItem>", "<ram:IgnoredLineItem>", false},
		{"BR-25", "<ram:Name>Network cable</ram:Name>", "<ram:Name></ram:Name>", false},
		{"BR-S-08", "<ram:BasisAmount>1460.5</ram:BasisAmount>", "<ram:BasisAmount>1470.5</ram:BasisAmount>", false},
		{"BR-S-09", "<ram:CalculatedAmount>365.13</ram:CalculatedAmount>", "<ram:CalculatedAmount>375.13</ram:CalculatedAmount>", false},
		{"BR-E-10", "<ram:ExemptionReason>Exempt New Means of Transport</ram:ExemptionReason>", "", false},
		{"BR-29", `<udt:DateTimeString format="102">20130601</udt:DateTimeString>`, `<udt:DateTimeString format="102">20130701</udt:DateTimeString>`, true},
		{"BR-61", "<ram:IBANID>NO9386011117947</ram:IBANID>", "", false},
		{"BR-56", "<ram:ID schemeID=\"VA\">NO967611265MVA</ram:ID>", "", false},
		{"BR-33", "<ram:ReasonCode>95</ram:ReasonCode>\n                <ram:Reason>Promotion discount</ram:Reason>", "", false},
	}
	base, err := FromCII(example)
	if err != nil {
		t.Fatal(err)
	}
	unbroken := map[string]bool{}
	for _, v := range Check(base) {
		unbroken[v.Rule] = true
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			if unbroken[tc.rule] {
				t.Fatalf("%s fires on the unbroken example", tc.rule)
			}
			if !strings.Contains(original, tc.old) {
				t.Fatalf("the example has no %q", tc.old)
			}
			broken := strings.Replace(original, tc.old, tc.new, 1)
			if tc.last {
				i := strings.LastIndex(original, tc.old)
				broken = original[:i] + tc.new + original[i+len(tc.old):]
			}
			if tc.rule == "BR-16" {
				broken = strings.ReplaceAll(broken, "IncludedSupplyChainTradeLineItem>", "IgnoredLineItem>")
			}
			violations, err := Validate("cii", []byte(broken))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range violations {
				if v.Rule == tc.rule && v.Fatal() {
					t.Logf("%s %s %s: %s", v.Rule, v.BusinessTerm, v.Field, v.Message)
					return
				}
			}
			t.Fatalf("%s does not fire on the broken copy: %v", tc.rule, violations)
		})
		seen[tc.rule] = true
	}
	if len(seen) < 20 {
		t.Fatalf("only %d rules covered", len(seen))
	}
}

// TestCIICreditNoteTypeCodes: CII has one root for invoices and credit notes, so BR-CL-01 there accepts
// both lists (EN16931-CII-codes.sch); a 381 credit note is not a violation.
func TestCIICreditNoteTypeCodes(t *testing.T) {
	example, err := os.ReadFile("testdata/examples/en16931-cii-example2.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"381", "396", "261"} {
		data := strings.Replace(string(example), "<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>"+code+"</ram:TypeCode>", 1)
		vs, err := Validate("cii", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.Rule == "BR-CL-01" {
				t.Errorf("type code %s: %s", code, v.Message)
			}
		}
	}
}
