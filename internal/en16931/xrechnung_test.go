package en16931

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// edit is one change to an example: the n-th match of re (0: every match) becomes repl.
type edit struct {
	re   string
	n    int
	repl string
}

func applyEdits(t *testing.T, s string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		re := regexp.MustCompile(e.re)
		count := 0
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			count++
			if e.n == 0 || count == e.n {
				return re.ReplaceAllString(m, e.repl)
			}
			return m
		})
		if count < e.n || count == 0 {
			t.Fatalf("edit %q: %d matches, wanted match %d", e.re, count, e.n)
		}
	}
	return s
}

// xrExample is an official example as an XRechnung 3.0 document: BT-24 says XRechnung and a buyer reference
// (BT-10, the Leitweg-ID) is added; the examples already have the seller contact, the cities and post codes.
type xrExample struct {
	file, format string
	xrechnung    []edit
}

var xrExamples = []xrExample{
	{"testdata/examples/en16931-ubl-example2.xml", "ubl", []edit{
		{`<cbc:CustomizationID>[^<]*`, 1, "<cbc:CustomizationID>" + xrCIUSID},
		{`<cbc:AccountingCost>`, 1, "<cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>\n    <cbc:AccountingCost>"},
	}},
	{"testdata/examples/en16931-cii-example2.xml", "cii", []edit{
		{`(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*`, 1, "${1}" + xrCIUSID},
		{`<ram:ApplicableHeaderTradeAgreement>`, 1, "<ram:ApplicableHeaderTradeAgreement>\n            <ram:BuyerReference>04011000-12345-34</ram:BuyerReference>"},
	}},
}

func (x xrExample) read(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(x.file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func validateString(t *testing.T, format, s string) []Violation {
	t.Helper()
	vs, err := Validate(format, []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestXRechnungExamplesAreClean proves the XRechnung copies of the official UBL and CII examples have no BR-DE
// finding and no fatal one.
func TestXRechnungExamplesAreClean(t *testing.T) {
	for _, x := range xrExamples {
		s := applyEdits(t, x.read(t), x.xrechnung)
		inv, _ := map[string]func([]byte) (*Invoice, error){"ubl": FromUBL, "cii": FromCII}[x.format]([]byte(s))
		if !inv.IsXRechnung() {
			t.Fatalf("%s: the copy is not XRechnung", x.file)
		}
		for _, v := range validateString(t, x.format, s) {
			if v.Fatal() || strings.HasPrefix(v.Rule, "BR-DE-") {
				t.Errorf("%s: %s %s %s: %s", x.file, v.Rule, v.Flag, v.Field, v.Message)
			}
		}
	}
}

// xrBroken are broken copies: each names the BR-DE rule it must raise and its edits in UBL and CII.
var xrBroken = []struct {
	rule     string
	ubl, cii []edit
}{
	{"BR-DE-1", []edit{{`(?s)<cac:PaymentMeans>.*?</cac:PaymentMeans>`, 0, ""}},
		[]edit{{`(?s)<ram:SpecifiedTradeSettlementPaymentMeans>.*?</ram:SpecifiedTradeSettlementPaymentMeans>`, 0, ""}}},
	{"BR-DE-2", []edit{{`(?s)<cac:Contact>.*?</cac:Contact>`, 1, ""}},
		[]edit{{`(?s)<ram:DefinedTradeContact>.*?</ram:DefinedTradeContact>`, 1, ""}}},
	{"BR-DE-3", []edit{{`<cbc:CityName>[^<]*</cbc:CityName>`, 1, ""}}, []edit{{`<ram:CityName>[^<]*</ram:CityName>`, 1, ""}}},
	{"BR-DE-4", []edit{{`<cbc:PostalZone>[^<]*</cbc:PostalZone>`, 1, "<cbc:PostalZone> </cbc:PostalZone>"}},
		[]edit{{`<ram:PostcodeCode>[^<]*</ram:PostcodeCode>`, 1, ""}}},
	{"BR-DE-5", []edit{{`<cbc:Name>Antonio Salesmacher</cbc:Name>`, 1, ""}},
		[]edit{{`<ram:PersonName>Antonio Salesmacher</ram:PersonName>`, 1, ""}}},
	{"BR-DE-6", []edit{{`<cbc:Telephone>[^<]*</cbc:Telephone>`, 1, ""}},
		[]edit{{`(?s)<ram:TelephoneUniversalCommunication>.*?</ram:TelephoneUniversalCommunication>`, 1, ""}}},
	{"BR-DE-7", []edit{{`<cbc:ElectronicMail>[^<]*</cbc:ElectronicMail>`, 1, ""}},
		[]edit{{`(?s)<ram:EmailURIUniversalCommunication>.*?</ram:EmailURIUniversalCommunication>`, 1, ""}}},
	{"BR-DE-8", []edit{{`<cbc:CityName>[^<]*</cbc:CityName>`, 2, ""}}, []edit{{`<ram:CityName>[^<]*</ram:CityName>`, 2, ""}}},
	{"BR-DE-9", []edit{{`<cbc:PostalZone>[^<]*</cbc:PostalZone>`, 2, ""}}, []edit{{`<ram:PostcodeCode>[^<]*</ram:PostcodeCode>`, 2, ""}}},
	{"BR-DE-10", []edit{{`<cbc:CityName>DeliveryCity</cbc:CityName>`, 1, ""}}, []edit{{`<ram:CityName>DeliveryCity</ram:CityName>`, 1, ""}}},
	{"BR-DE-11", []edit{{`<cbc:PostalZone>523427</cbc:PostalZone>`, 1, ""}}, []edit{{`<ram:PostcodeCode>523427</ram:PostcodeCode>`, 1, ""}}},
	{"BR-DE-14", []edit{{`(?s)(<cac:TaxSubtotal>.*?)<cbc:Percent>[^<]*</cbc:Percent>`, 1, "${1}"}},
		[]edit{{`(?s)(</ram:SpecifiedTradeSettlementPaymentMeans>\s*<ram:ApplicableTradeTax>.*?)<ram:RateApplicablePercent>[^<]*</ram:RateApplicablePercent>`, 1, "${1}"}}},
	{"BR-DE-15", []edit{{`<cbc:BuyerReference>[^<]*</cbc:BuyerReference>`, 1, ""}},
		[]edit{{`<ram:BuyerReference>[^<]*</ram:BuyerReference>`, 1, ""}}},
	{"BR-DE-16", []edit{{`(?s)<cac:PartyTaxScheme>\s*<cbc:CompanyID>NO123456789MVA.*?</cac:PartyTaxScheme>`, 1, ""},
		{`(?s)<cac:TaxRepresentativeParty>.*?</cac:TaxRepresentativeParty>`, 1, ""}},
		[]edit{{`(?s)<ram:SpecifiedTaxRegistration>.*?</ram:SpecifiedTaxRegistration>`, 1, ""},
			{`(?s)<ram:SellerTaxRepresentativeTradeParty>.*?</ram:SellerTaxRepresentativeTradeParty>`, 1, ""}}},
	{"BR-DE-17", []edit{{`<cbc:InvoiceTypeCode>380`, 1, "<cbc:InvoiceTypeCode>383"}},
		[]edit{{`(<ram:ID>TOSL108</ram:ID>\s*<ram:TypeCode>)380`, 1, "${1}383"}}},
	{"BR-DE-18", []edit{{`(?s)(<cac:PaymentTerms>\s*<cbc:Note>)[^<]*`, 1, "${1}#SKONTO#TAGE=7#PROZENT=2#\n"}},
		[]edit{{`(?s)(<ram:SpecifiedTradePaymentTerms>\s*<ram:Description>)[^<]*`, 1, "${1}#SKONTO#TAGE=7#PROZENT=2.00#"}}},
	{"BR-DE-19", []edit{{`<cbc:PaymentMeansCode>30`, 1, "<cbc:PaymentMeansCode>58"}, {`NO9386011117947`, 1, "NO9386011117948"}},
		[]edit{{`(<ram:TypeCode>)30(</ram:TypeCode>\s*<ram:PayeePartyCreditorFinancialAccount>\s*<ram:IBANID>)NO9386011117947`, 1, "${1}58${2}NO9386011117948"}}},
	{"BR-DE-21", []edit{{`xrechnung_3\.0`, 1, "xrechnung_2.3"}}, []edit{{`xrechnung_3\.0`, 1, "xrechnung_2.3"}}},
	{"BR-DE-22", []edit{{`(?s)<cac:ExternalReference>.*?</cac:ExternalReference>`, 1,
		`<cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="test.pdf">AA==</cbc:EmbeddedDocumentBinaryObject>`}},
		[]edit{{`</ram:ApplicableHeaderTradeAgreement>`, 1, `<ram:AdditionalReferencedDocument><ram:IssuerAssignedID>Doc3</ram:IssuerAssignedID><ram:TypeCode>916</ram:TypeCode>` +
			`<ram:AttachmentBinaryObject mimeCode="application/pdf" filename="EHF.pdf">AA==</ram:AttachmentBinaryObject></ram:AdditionalReferencedDocument></ram:ApplicableHeaderTradeAgreement>`}}},
	{"BR-DE-23-a", []edit{{`(?s)<cac:PayeeFinancialAccount>.*?</cac:PayeeFinancialAccount>`, 0, ""}},
		[]edit{{`(?s)<ram:PayeePartyCreditorFinancialAccount>.*?</ram:PayeePartyCreditorFinancialAccount>`, 0, ""}}},
	{"BR-DE-23-b", []edit{{`</cac:PayeeFinancialAccount>`, 1, "</cac:PayeeFinancialAccount><cac:CardAccount><cbc:PrimaryAccountNumberID>1234</cbc:PrimaryAccountNumberID><cbc:NetworkID>VISA</cbc:NetworkID></cac:CardAccount>"}},
		[]edit{{`<ram:CreditorReferenceID>[^<]*</ram:CreditorReferenceID>|<ram:PaymentReference>`, 1, "<ram:CreditorReferenceID>DE98ZZZ09999999999</ram:CreditorReferenceID><ram:PaymentReference>"}}},
	{"BR-DE-24-a", []edit{{`<cbc:PaymentMeansCode>30`, 1, "<cbc:PaymentMeansCode>48"}},
		[]edit{{`(<ram:TypeCode>)30(</ram:TypeCode>\s*<ram:PayeePartyCreditorFinancialAccount>)`, 0, "${1}48${2}"}}},
	{"BR-DE-25-a", []edit{{`<cbc:PaymentMeansCode>30`, 1, "<cbc:PaymentMeansCode>59"}},
		[]edit{{`(<ram:TypeCode>)30(</ram:TypeCode>\s*<ram:PayeePartyCreditorFinancialAccount>)`, 0, "${1}59${2}"}}},
	{"BR-DE-26", []edit{{`<cbc:InvoiceTypeCode>380`, 1, "<cbc:InvoiceTypeCode>384"}},
		[]edit{{`(<ram:ID>TOSL108</ram:ID>\s*<ram:TypeCode>)380`, 1, "${1}384"}}},
	{"BR-DE-27", []edit{{`<cbc:Telephone>[^<]*</cbc:Telephone>`, 1, "<cbc:Telephone>+4 (no)</cbc:Telephone>"}},
		[]edit{{`<ram:CompleteNumber>[^<]*</ram:CompleteNumber>`, 1, "<ram:CompleteNumber>+4 (no)</ram:CompleteNumber>"}}},
	{"BR-DE-28", []edit{{`<cbc:ElectronicMail>[^<]*</cbc:ElectronicMail>`, 1, "<cbc:ElectronicMail>antonio at salescompany</cbc:ElectronicMail>"}},
		[]edit{{`antonio@salescompany.no`, 1, "antonio at salescompany"}}},
}

// TestXRechnungBrokenCopies proves each broken XRechnung copy names its BR-DE rule as a warning, that the
// BR-DE rules add no fatal finding (the fatal findings are those of the same copy without the XRechnung
// BT-24), and that the same broken copy without the XRechnung specification identifier has no BR-DE finding.
func TestXRechnungBrokenCopies(t *testing.T) {
	for _, b := range xrBroken {
		for _, x := range xrExamples {
			edits := map[string][]edit{"ubl": b.ubl, "cii": b.cii}[x.format]
			t.Run(b.rule+"/"+x.format, func(t *testing.T) {
				broken := applyEdits(t, applyEdits(t, x.read(t), x.xrechnung), edits)
				named := false
				fatal := map[string]int{}
				for _, v := range validateString(t, x.format, broken) {
					if strings.HasPrefix(v.Rule, "BR-DE-") && v.Fatal() {
						t.Errorf("%s is fatal", v.Rule)
					}
					if v.Rule == b.rule {
						named = true
						if v.Flag != "warning" || !strings.HasPrefix(v.Message, "["+b.rule+"]") {
							t.Errorf("%s: flag %s, message %q", v.Rule, v.Flag, v.Message)
						}
					}
					if v.Fatal() {
						fatal[v.Rule]++
					}
				}
				if !named {
					t.Errorf("%s not named", b.rule)
				}
				// The same broken copy as plain EN 16931: BT-24 back to the example's own.
				plain := regexp.MustCompile(regexp.QuoteMeta(xrCIUSID)+`|urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_2\.3`).
					ReplaceAllString(broken, "urn:cen.eu:en16931:2017")
				plainFatal := map[string]int{}
				for _, v := range validateString(t, x.format, plain) {
					if strings.HasPrefix(v.Rule, "BR-DE-") {
						t.Errorf("without the XRechnung BT-24: %s %s", v.Rule, v.Message)
					}
					if v.Fatal() {
						plainFatal[v.Rule]++
					}
				}
				if len(fatal) != len(plainFatal) {
					t.Errorf("fatal findings as XRechnung %v, as EN 16931 %v", fatal, plainFatal)
				}
			})
		}
	}
}

func TestIBANAndSkonto(t *testing.T) {
	for iban, ok := range map[string]bool{"DE02120300000000202051": true, "DE02 1203 0000 0000 2020 51": true,
		"NO9386011117947": true, "DE02120300000000202052": false, "de02120300000000202051": false, "": false} {
		if ibanOK(Text{Value: iban, Present: true}) != ok {
			t.Errorf("IBAN %q: want %v", iban, ok)
		}
	}
	for terms, ok := range map[string]bool{
		"Zahlbar in 30 Tagen":             true,
		"#SKONTO#TAGE=14#PROZENT=2.00#\n": true,
		"#SKONTO#TAGE=14#PROZENT=2.00#BASISBETRAG=100.00#\n#SKONTO#TAGE=30#PROZENT=1.00#\n": true,
		"#SKONTO#TAGE=14#PROZENT=2.00#":   false, // no line break at the end
		"#SKONTO#TAGE=14#PROZENT=2#\n":    false,
		"#skonto#TAGE=14#PROZENT=2.00#\n": false,
		"#VERZUG#TAGE=14#PROZENT=2.00#\n": false, // not in XRechnung 3.0's pattern
	} {
		if skontoOK(Text{Value: terms, Present: true}) != ok {
			t.Errorf("payment terms %q: want %v", terms, ok)
		}
	}
}

// TestAnOlderXRechnungIsJudgedAndToldItsIdentifier: a document that states XRechnung 2.0's identifier is an
// XRechnung too, judged by the BR-DE rules, and BR-DE-21 warns that its identifier is not XRechnung 3.0's.
func TestAnOlderXRechnungIsJudgedAndToldItsIdentifier(t *testing.T) {
	for _, x := range xrExamples {
		s := applyEdits(t, x.read(t), x.xrechnung)
		if !strings.Contains(s, xrCIUSID) {
			t.Fatalf("%s: the XRechnung copy does not state %s", x.file, xrCIUSID)
		}
		s = strings.Replace(s, xrCIUSID, XRechnungPrefix2+"_2.0", 1)
		var named bool
		for _, v := range validateString(t, x.format, s) {
			if v.Fatal() {
				t.Errorf("%s: fatal %s", x.file, v.Rule)
			}
			named = named || v.Rule == "BR-DE-21"
		}
		if !named {
			t.Errorf("%s: XRechnung 2.0's identifier is not named by BR-DE-21", x.file)
		}
	}
}
