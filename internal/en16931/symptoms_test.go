package en16931

import (
	"slices"
	"testing"

	"greatbook/internal/en16931/official"
)

const (
	ciiOpen = `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
		xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
		xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"><rsm:SupplyChainTradeTransaction>`
	ciiClose = `</rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`
	ublOpen  = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
		xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
		xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`
	ublClose = `</Invoice>`
)

func ciiSettlement(inner string) string {
	return ciiOpen + `<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>` + inner +
		`</ram:ApplicableHeaderTradeSettlement>` + ciiClose
}

func ciiTax(calculated, basis, rate, extra string) string {
	return `<ram:ApplicableTradeTax><ram:CalculatedAmount>` + calculated + `</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode>` +
		`<ram:BasisAmount>` + basis + `</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode>` + extra +
		`<ram:RateApplicablePercent>` + rate + `</ram:RateApplicablePercent></ram:ApplicableTradeTax>`
}

// TestTheBindingsSymptoms are the verdicts on which the rules once differed from CEN's validator, each
// the official one: the CII binding judged as CII's schematron has it, not as UBL's, and the details of
// the standard a reading by hand got wrong. Each failed before the rules became CEN's own.
func TestTheBindingsSymptoms(t *testing.T) {
	oracle, err := official.Start(official.Options{StylesheetDir: "cen"})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	for _, tc := range []struct {
		name, syntax, doc, rule string
		fires                   bool
	}{
		{"CII: a zero-VAT invoice without TaxTotalAmount keeps BR-CO-15", "cii", ciiSettlement(
			`<ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:LineTotalAmount>100.00</ram:LineTotalAmount>` +
				`<ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount><ram:GrandTotalAmount>100.00</ram:GrandTotalAmount>` +
				`<ram:DuePayableAmount>100.00</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>`), "BR-CO-15", false},
		{"CII: ... and BR-CO-14 has no context without TaxTotalAmount", "cii", ciiSettlement(ciiTax("0.00", "100.00", "0", "") +
			`<ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>` +
			`</ram:SpecifiedTradeSettlementHeaderMonetarySummation>`), "BR-CO-14", false},
		{"CII: tax point date code 29 is in UNTDID 2475", "cii", ciiSettlement(ciiTax("19.00", "100.00", "19", "<ram:DueDateTypeCode>29</ram:DueDateTypeCode>")), "BR-CL-06", false},
		{"CII: tax point date code 35 (UBL's list) is not", "cii", ciiSettlement(ciiTax("19.00", "100.00", "19", "<ram:DueDateTypeCode>35</ram:DueDateTypeCode>")), "BR-CL-06", true},
		{"CII: a VAT amount off by exactly 1.00 is within BR-CO-17", "cii", ciiSettlement(ciiTax("20.00", "100.00", "19", "")), "BR-CO-17", false},
		{"CII: ... by 1.01 is not", "cii", ciiSettlement(ciiTax("20.01", "100.00", "19", "")), "BR-CO-17", true},
		{"CII: BR-CL-07 judges the reference type code", "cii", ciiOpen + `<ram:ApplicableHeaderTradeAgreement><ram:AdditionalReferencedDocument>` +
			`<ram:IssuerAssignedID>X</ram:IssuerAssignedID><ram:TypeCode>130</ram:TypeCode><ram:ReferenceTypeCode>NOPE</ram:ReferenceTypeCode>` +
			`</ram:AdditionalReferencedDocument></ram:ApplicableHeaderTradeAgreement>` + ciiClose, "BR-CL-07", true},
		{"CII: BR-CL-11 judges a buyer ID's scheme", "cii", ciiOpen + `<ram:ApplicableHeaderTradeAgreement><ram:BuyerTradeParty>` +
			`<ram:ID schemeID="9999">12345</ram:ID><ram:Name>B</ram:Name></ram:BuyerTradeParty></ram:ApplicableHeaderTradeAgreement>` + ciiClose, "BR-CL-11", true},
		{"UBL: BR-CL-22 compares exemption codes upper-cased", "ubl", ublOpen + `<cac:TaxTotal><cac:TaxSubtotal><cac:TaxCategory><cbc:ID>E</cbc:ID>` +
			`<cbc:TaxExemptionReasonCode>vatex-eu-132-1g</cbc:TaxExemptionReasonCode><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme>` +
			`</cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>` + ublClose, "BR-CL-22", false},
		{"UBL: dates with a time zone are dates (BR-30)", "ubl", ublOpen + `<cac:InvoiceLine><cac:InvoicePeriod><cbc:StartDate>2016-01-01+01:00</cbc:StartDate>` +
			`<cbc:EndDate>2016-01-31+01:00</cbc:EndDate></cac:InvoicePeriod></cac:InvoiceLine>` + ublClose, "BR-30", false},
		{"UBL: an element outside its namespace is not read", "ubl", ublOpen + `<cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity>` +
			`<o:RegistrationName xmlns:o="urn:example:other">Seller</o:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>` + ublClose, "BR-06", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := Validate(tc.syntax, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			fired := slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == tc.rule && v.Fatal() })
			if fired != tc.fires {
				t.Fatalf("%s fires: %v, want %v (violations %v)", tc.rule, fired, tc.fires, vs)
			}
			verdict, err := oracle.Judge(tc.syntax, []byte(tc.doc))
			if err != nil || verdict.Err != "" {
				t.Fatalf("the official validator: %v %s", err, verdict.Err)
			}
			if slices.Contains(verdict.Fatal, tc.rule) != tc.fires {
				t.Fatalf("the official validator says %s fires: %v; the expectation is wrong", tc.rule, !tc.fires)
			}
		})
	}
}
