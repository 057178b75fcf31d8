package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/en16931"
	"greatbook/internal/intake"
)

// The published examples the broken copies are made from (testdata/samples, as published).
const (
	ublInvoice = "samples/en16931-ubl-example2.xml"
	ublCredit  = "samples/en16931-ubl-creditnote1.xml"
	peppolUBL  = "samples/peppol-bis3-base-example.xml"
	ciiInvoice = "samples/en16931-cii-example2.xml"
)

// brokenCopy is a published example changed in one place so that it breaks one fatal EN 16931 rule.
type brokenCopy struct {
	sample string
	rule   string // the official rule id the filed document must name as a fatal finding
	what   string
	from   string // occurs exactly once in the sample
	to     string
	// cut: from and to are markers, each occurring exactly once, and the text between them is removed.
	cut bool
}

func (b brokenCopy) apply(t *testing.T, sample string) []byte {
	t.Helper()
	if n := strings.Count(sample, b.from); n != 1 {
		t.Fatalf("%q occurs %d times in %s, want once", b.from, n, b.sample)
	}
	if !b.cut {
		return []byte(strings.Replace(sample, b.from, b.to, 1))
	}
	if n := strings.Count(sample, b.to); n != 1 {
		t.Fatalf("%q occurs %d times in %s, want once", b.to, n, b.sample)
	}
	start := strings.Index(sample, b.from) + len(b.from)
	end := strings.Index(sample, b.to)
	if end < start {
		t.Fatalf("%q comes before %q in %s", b.to, b.from, b.sample)
	}
	return []byte(sample[:start] + sample[end:])
}

// brokenCopies are published examples, each broken in one place, with the rule the break violates.
var brokenCopies = []brokenCopy{
	// Totals (BG-22).
	{ublInvoice, "BR-CO-16", "amount due is not total with VAT − paid + rounding",
		`<cbc:PayableAmount currencyID="NOK">801.78<`, `<cbc:PayableAmount currencyID="NOK">811.78<`, false},
	{ciiInvoice, "BR-CO-16", "amount due is not total with VAT − paid + rounding",
		`<ram:DuePayableAmount>801.78<`, `<ram:DuePayableAmount>811.78<`, false},
	{ublInvoice, "BR-CO-15", "total with VAT is not total without VAT + VAT",
		`<cbc:TaxInclusiveAmount currencyID="NOK">1801.78<`, `<cbc:TaxInclusiveAmount currencyID="NOK">1811.78<`, false},
	{ciiInvoice, "BR-CO-15", "total with VAT is not total without VAT + VAT",
		`<ram:GrandTotalAmount>1801.78<`, `<ram:GrandTotalAmount>1811.78<`, false},
	{ublInvoice, "BR-CO-13", "total without VAT is not lines − allowances + charges",
		`<cbc:TaxExclusiveAmount currencyID="NOK">1436.50<`, `<cbc:TaxExclusiveAmount currencyID="NOK">1446.50<`, false},
	{ciiInvoice, "BR-CO-13", "total without VAT is not lines − allowances + charges",
		`<ram:TaxBasisTotalAmount>1436.5<`, `<ram:TaxBasisTotalAmount>1446.5<`, false},
	{ublInvoice, "BR-CO-10", "sum of line nets is not the sum of the lines",
		`<cbc:LineExtensionAmount currencyID="NOK">1436.50<`, `<cbc:LineExtensionAmount currencyID="NOK">1446.50<`, false},
	{ciiInvoice, "BR-CO-10", "sum of line nets is not the sum of the lines",
		`<ram:LineTotalAmount>1436.5<`, `<ram:LineTotalAmount>1446.5<`, false},
	{ublInvoice, "BR-CO-11", "sum of allowances is not the sum of the document allowances",
		`<cbc:AllowanceTotalAmount currencyID="NOK">100.00<`, `<cbc:AllowanceTotalAmount currencyID="NOK">90.00<`, false},
	{peppolUBL, "BR-CO-12", "sum of charges is not the sum of the document charges",
		`<cbc:ChargeTotalAmount currencyID="EUR">25<`, `<cbc:ChargeTotalAmount currencyID="EUR">35<`, false},
	{ublInvoice, "BR-CO-14", "total VAT is not the sum of the breakdown's VAT",
		`<cbc:TaxAmount currencyID="NOK">365.28<`, `<cbc:TaxAmount currencyID="NOK">365.38<`, false},
	{ciiInvoice, "BR-CO-14", "total VAT is not the sum of the breakdown's VAT",
		`<ram:TaxTotalAmount currencyID="NOK">365.28<`, `<ram:TaxTotalAmount currencyID="NOK">365.38<`, false},
	{ublInvoice, "BR-DEC-18", "amount due with three decimals",
		`<cbc:PayableAmount currencyID="NOK">801.78<`, `<cbc:PayableAmount currencyID="NOK">801.780<`, false},
	// VAT breakdown (BG-23).
	{ublInvoice, "BR-CO-17", "category VAT is not taxable amount × rate",
		`<cbc:TaxAmount currencyID="NOK">365.13<`, `<cbc:TaxAmount currencyID="NOK">375.13<`, false},
	{ciiInvoice, "BR-CO-17", "category VAT is not taxable amount × rate",
		`<ram:CalculatedAmount>365.13<`, `<ram:CalculatedAmount>375.13<`, false},
	{ublInvoice, "BR-S-08", "standard rated taxable amount is not the sum of its lines, allowances and charges",
		`<cbc:TaxableAmount currencyID="NOK">1460.50<`, `<cbc:TaxableAmount currencyID="NOK">1470.50<`, false},
	{ciiInvoice, "BR-S-08", "standard rated taxable amount is not the sum of its lines, allowances and charges",
		`<ram:BasisAmount>1460.5<`, `<ram:BasisAmount>1470.5<`, false},
	{ublInvoice, "BR-E-10", "exempt breakdown without an exemption reason",
		`<cbc:TaxExemptionReason>Exempt New Means of Transport</cbc:TaxExemptionReason>`, ``, false},
	// Parties.
	{peppolUBL, "BR-06", "seller without its legal name",
		`<cbc:RegistrationName>SupplierOfficialName Ltd</cbc:RegistrationName>`, ``, false},
	{ciiInvoice, "BR-06", "seller without its name",
		`<ram:Name>Salescompany ltd.</ram:Name>`, ``, false},
	{peppolUBL, "BR-09", "seller address without a country",
		`<cbc:IdentificationCode>GB</cbc:IdentificationCode>`, ``, false},
	{peppolUBL, "BR-CL-14", "seller country not ISO 3166-1",
		`<cbc:IdentificationCode>GB<`, `<cbc:IdentificationCode>UK<`, false},
	{ublInvoice, "BR-CO-09", "seller VAT identifier without a country prefix",
		`<cbc:CompanyID>NO123456789MVA<`, `<cbc:CompanyID>123456789MVA<`, false},
	{ciiInvoice, "BR-CO-09", "seller VAT identifier without a country prefix",
		`<ram:ID schemeID="VA">NO123456789MVA<`, `<ram:ID schemeID="VA">123456789MVA<`, false},
	{peppolUBL, "BR-CL-10", "buyer identifier with a scheme not in ISO 6523",
		`<cbc:ID schemeID="0002">FR23342<`, `<cbc:ID schemeID="9999">FR23342<`, false},
	{peppolUBL, "BR-CL-11", "buyer legal registration with a scheme not in ISO 6523",
		`<cbc:CompanyID schemeID="0183">`, `<cbc:CompanyID schemeID="9999">`, false},
	{ublCredit, "BR-CL-25", "seller endpoint with a scheme not in the EAS list",
		`<cbc:EndpointID schemeID="0201">0000000196<`, `<cbc:EndpointID schemeID="X999">0000000196<`, false},
	// The document.
	{ublInvoice, "BR-02", "no invoice number",
		`<cbc:ID>TOSL108</cbc:ID>`, `<cbc:ID></cbc:ID>`, false},
	{ublInvoice, "BR-CL-04", "currency not ISO 4217",
		`<cbc:DocumentCurrencyCode>NOK<`, `<cbc:DocumentCurrencyCode>NOX<`, false},
	{ciiInvoice, "BR-CL-04", "currency not ISO 4217",
		`<ram:InvoiceCurrencyCode>NOK<`, `<ram:InvoiceCurrencyCode>NOX<`, false},
	{ublCredit, "BR-05", "no currency",
		`<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>`, ``, false},
	{ublInvoice, "BR-CL-16", "payment means not UNTDID 4461",
		`<cbc:PaymentMeansCode>30<`, `<cbc:PaymentMeansCode>999<`, false},
	{ublCredit, "BR-16", "an EN 16931 credit note without lines",
		`</cac:LegalMonetaryTotal>`, `</CreditNote>`, true},
	{ciiInvoice, "BR-16", "an EN 16931 invoice without lines",
		`<rsm:SupplyChainTradeTransaction>`, `<ram:ApplicableHeaderTradeAgreement>`, true},
	// Lines (BG-25).
	{ublInvoice, "BR-CL-23", "unit of measure not UNECE Rec 20",
		`unitCode="MTR">250<`, `unitCode="METRE">250<`, false},
	{ciiInvoice, "BR-CL-23", "unit of measure not UNECE Rec 20",
		`unitCode="MTR">250<`, `unitCode="METRE">250<`, false},
	{ublInvoice, "BR-25", "line item without a name",
		`<cbc:Name>Network cable</cbc:Name>`, ``, false},
	{ciiInvoice, "BR-25", "line item without a name",
		`<ram:Name>Network cable</ram:Name>`, ``, false},
	{peppolUBL, "BR-27", "negative item net price",
		`<cbc:PriceAmount currencyID="EUR">500<`, `<cbc:PriceAmount currencyID="EUR">-500<`, false},
	{ublInvoice, "BR-CL-21", "item standard identifier with a scheme not in ISO 6523",
		`<cbc:ID schemeID="0088">1234567890128<`, `<cbc:ID schemeID="9999">1234567890128<`, false},
}

// TestABrokenPublishedExampleNamesTheRuleItBreaks judges documents suppliers really send: each published example,
// as published, is filed pending with no fatal finding; a copy of it broken in one place is filed
// flagged invalid_einvoice, its fields still read, naming the EN 16931 rule it breaks as a fatal
// finding — through the real pipeline, in both syntaxes. The finding is the rules' own (the official
// text, on the rule's business term where it has one), not a product check that shares the code.
func TestABrokenPublishedExampleNamesTheRuleItBreaks(t *testing.T) {
	t.Parallel()
	implemented := map[string]en16931.Rule{}
	all, err := en16931.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		implemented[r.ID] = r
	}
	samples := map[string]string{}
	for _, name := range []string{ublInvoice, ublCredit, peppolUBL, ciiInvoice} {
		samples[name] = string(read(t, name))
		t.Run(name+"/as published", func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, []byte(samples[name]), "application/xml", nil)
			fs := filedFindings(t, d)
			if d.Status != intake.Pending || d.FlagReason != "" || einvoice.HasFatal(fs) {
				t.Fatalf("filed %s %q with findings %+v, want pending without a fatal finding (trace %v)", d.Status, d.FlagReason, fs, trace)
			}
		})
	}
	rules := map[string]bool{}
	for _, b := range brokenCopies {
		rules[b.rule] = true
		official, ok := implemented[b.rule]
		if !ok {
			t.Fatalf("%s is not an implemented rule", b.rule)
		}
		t.Run(b.sample+"/"+b.rule+" "+b.what, func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, b.apply(t, samples[b.sample]), "application/xml", nil)
			fs := filedFindings(t, d)
			if d.Status != intake.Flagged || d.FlagReason != intake.FlagInvalidEInvoice {
				t.Fatalf("filed %s %q with findings %+v, want flagged %s (trace %v)", d.Status, d.FlagReason, fs, intake.FlagInvalidEInvoice, trace)
			}
			if len(d.Fields) == 0 || string(d.Fields) == "null" {
				t.Fatalf("an invalid e-invoice was filed without its fields")
			}
			for _, f := range fs {
				if f.Code == b.rule && f.Fatal() && strings.Contains(f.Message, official.Message()) &&
					(official.BusinessTerm == "" || f.Field == official.BusinessTerm) {
					return
				}
			}
			t.Fatalf("no fatal %s finding with the official text %q in %+v", b.rule, official.Message(), fs)
		})
	}
	if len(rules) < 20 {
		t.Errorf("the broken copies break %d distinct rules; they must cover at least 20", len(rules))
	}
}

func filedFindings(t *testing.T, d intake.Document) []einvoice.Finding {
	t.Helper()
	var fs []einvoice.Finding
	if len(d.Findings) > 0 {
		if err := json.Unmarshal(d.Findings, &fs); err != nil {
			t.Fatal(err)
		}
	}
	return fs
}
