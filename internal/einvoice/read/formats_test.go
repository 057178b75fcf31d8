package read

import (
	"errors"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// TestProfilesAreReadAndValid reads every test document the project writes for a profile, and the
// published samples, with its format and profile; each is valid as its profile defines it (BASIC WL
// and MINIMUM without lines, MINIMUM without a VAT breakdown), with the totals it states.
func TestProfilesAreReadAndValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file          string
		format        einvoice.Format
		profile       einvoice.Profile
		number        string
		lines, vat    int
		net, tax      string
		prepaid       string
		payable       string
		sellerVAT     string
		dueDate       string
		specification string
	}{
		{"zugferd1-comfort.xml", einvoice.FormatZUGFeRD1, einvoice.ProfileZUGFeRD1Comfort, "ZF1-2026-0815", 2, 2, "473.00", "56.87", "50.00", "479.87", "DE123456789", "2026-12-05", "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort"},
		{"zugferd1-invoice.pdf", einvoice.FormatFacturX, einvoice.ProfileZUGFeRD1Comfort, "ZF1-2026-0815", 2, 2, "473.00", "56.87", "50.00", "479.87", "DE123456789", "2026-12-05", "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort"},
		{"zugferd1-basic.xml", einvoice.FormatZUGFeRD1, einvoice.ProfileZUGFeRD1Basic, "ZF1-B-0042", 1, 1, "198.00", "37.62", "0", "235.62", "DE987654321", "", "urn:ferd:CrossIndustryDocument:invoice:1p0:basic"},
		{"facturx-minimum.xml", einvoice.FormatCII, einvoice.ProfileMinimum, "FX-MIN-2026-117", 0, 0, "840.00", "159.60", "0", "999.60", "DE811122233", "", "urn:factur-x.eu:1p0:minimum"},
		{"facturx-basicwl.xml", einvoice.FormatCII, einvoice.ProfileBasicWL, "FX-WL-2026-0031", 0, 2, "700.00", "109.00", "0.00", "809.00", "DE276543210", "2026-12-14", "urn:factur-x.eu:1p0:basicwl"},
		{"facturx-basicwl.pdf", einvoice.FormatFacturX, einvoice.ProfileBasicWL, "FX-WL-2026-0031", 0, 2, "700.00", "109.00", "0.00", "809.00", "DE276543210", "2026-12-14", "urn:factur-x.eu:1p0:basicwl"},
		{"cii-invoice.xml", einvoice.FormatCII, einvoice.ProfileEN16931, "", 0, 0, "", "", "", "", "", "", "urn:cen.eu:en16931:2017"},
		{"samples/en16931-cii-example2.xml", einvoice.FormatCII, einvoice.ProfileEN16931, "", 0, 0, "", "", "", "", "", "", "urn:cen.eu:en16931:2017"},
		{"samples/en16931-ubl-example2.xml", einvoice.FormatUBL, einvoice.ProfileEN16931, "", 0, 0, "", "", "", "", "", "", "urn:cen.eu:en16931:2017"},
		{"samples/peppol-bis3-base-example.xml", einvoice.FormatUBL, einvoice.ProfilePeppol, "", 0, 0, "", "", "", "", "", "", "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"},
		{"samples/mustang-EN16931_Einfach.pdf", einvoice.FormatFacturX, einvoice.ProfileEN16931, "", 0, 0, "", "", "", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data := einvoicetest.ReadTestdata(t, tt.file)
			d, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Format != tt.format || d.Profile != tt.profile {
				t.Errorf("format %q profile %q, want %q %q", d.Format, d.Profile, tt.format, tt.profile)
			}
			if tt.specification != "" && d.Specification != tt.specification {
				t.Errorf("specification %q, want %q", d.Specification, tt.specification)
			}
			if got := Detect(data); got != tt.format {
				t.Errorf("Detect = %q, want %q", got, tt.format)
			}
			if fs := einvoice.ValidateAt(d, einvoicetest.Now); len(fs) != 0 {
				t.Errorf("findings on a valid %s document: %+v", tt.profile, fs)
			}
			if tt.number == "" {
				return // its facts are checked where the other formats are
			}
			if d.Number != tt.number || d.Type != einvoice.TypeInvoice || d.Currency != "EUR" || d.Seller.VATID != tt.sellerVAT || d.DueDate != tt.dueDate {
				t.Errorf("header: %s", einvoicetest.Comparable(t, d))
			}
			if len(d.Lines) != tt.lines || len(d.TaxSubtotals) != tt.vat {
				t.Errorf("%d lines and %d VAT subtotals, want %d and %d", len(d.Lines), len(d.TaxSubtotals), tt.lines, tt.vat)
			}
			for name, pair := range map[string][2]string{
				"net": {d.Totals.Net.String(), tt.net}, "tax": {d.Totals.Tax.String(), tt.tax},
				"prepaid": {d.Totals.Prepaid.String(), tt.prepaid}, "payable": {d.Totals.Payable.String(), tt.payable},
			} {
				if !einvoicetest.Dec(pair[0]).Equal(einvoicetest.Dec(pair[1])) {
					t.Errorf("%s = %s, want %s", name, pair[0], pair[1])
				}
			}
		})
	}
}

// TestNotAnInvoice: a CII-family document that is not an invoice is refused saying what it is, not as
// unreadable and not as a document without structured data.
func TestNotAnInvoice(t *testing.T) {
	t.Parallel()
	type notInvoice struct {
		name   string
		data   []byte
		format einvoice.Format
		says   string
	}
	tests := []notInvoice{
		{"order-x order", einvoicetest.ReadTestdata(t, "orderx-order.xml"), einvoice.FormatCII, "an Order-X order (type code 220), not an invoice"},
		{"order-x order in a pdf", einvoicetest.ReadTestdata(t, "orderx-order.pdf"), einvoice.FormatFacturX, "an Order-X order (type code 220), not an invoice"},
		{"cii with a despatch advice type code", einvoicetest.ReadTestdata(t, "cii-despatch-advice.xml"), einvoice.FormatCII, "a despatch advice (UNTDID 1001 type code 351), not an invoice"},
		{"cii with an order type code", []byte(strings.Replace(string(einvoicetest.ReadTestdata(t, "facturx-basicwl.xml")), "<ram:TypeCode>380<", "<ram:TypeCode>220<", 1)), einvoice.FormatCII, "an order (UNTDID 1001 type code 220)"},
		{"cii with an unlisted type code", []byte(strings.Replace(string(einvoicetest.ReadTestdata(t, "facturx-basicwl.xml")), "<ram:TypeCode>380<", "<ram:TypeCode>999<", 1)), einvoice.FormatCII, "a document (UNTDID 1001 type code 999)"},
		{"zugferd 1 with a despatch advice type code", []byte(strings.Replace(string(einvoicetest.ReadTestdata(t, "zugferd1-comfort.xml")), "<ram:TypeCode>380<", "<ram:TypeCode>351<", 1)), einvoice.FormatZUGFeRD1, "a despatch advice"},
		{"un/cefact despatch advice", []byte(`<rsm:CrossIndustryDespatchAdvice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryDespatchAdvice:100"/>`), einvoice.FormatCII, "a UN/CEFACT despatch advice, not an invoice"},
		{"un/cefact order", []byte(`<rsm:CrossIndustryOrder xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryOrder:100"/>`), einvoice.FormatCII, "a UN/CEFACT order, not an invoice"},
		{"other un/cefact message", []byte(`<rsm:CrossIndustryQuotation xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryQuotation:100"/>`), einvoice.FormatCII, "a UN/CEFACT CrossIndustryQuotation message, not an invoice"},
	}
	// Order-X writes its root in urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100, without
	// the "standard" of CII's namespaces (orderx-order.xml); the same message with it, in another version
	// of the namespace, and the other messages of the CII family in the versions they are published in
	// are refused alike, bare and embedded in a PDF.
	orderX := string(einvoicetest.ReadTestdata(t, "orderx-order.xml"))
	const scrdm = "urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100"
	if !strings.Contains(orderX, `"`+scrdm+`"`) {
		t.Fatalf("orderx-order.xml is not in the namespace %s", scrdm)
	}
	for _, m := range []struct{ name, data, says string }{
		{"order-x order in the namespace with standard", strings.Replace(orderX, scrdm, "urn:un:unece:uncefact:data:standard:SCRDMCCBDACIOMessageStructure:100", 1), "an Order-X order (type code 220), not an invoice"},
		{"order-x order in another version of the namespace", strings.Replace(orderX, scrdm, "urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:2", 1), "an Order-X order (type code 220), not an invoice"},
		{"order-x order response", strings.Replace(orderX, "<ram:TypeCode>220<", "<ram:TypeCode>231<", 1), "an Order-X order response (type code 231)"},
		{"un/cefact order response", `<rsm:CrossIndustryOrderResponse xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryOrderResponse:25"/>`, "a UN/CEFACT order response, not an invoice"},
		{"un/cefact order change", `<rsm:CrossIndustryOrderChange xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryOrderChange:2"/>`, "a UN/CEFACT order change, not an invoice"},
		{"un/cefact despatch advice of version 3", `<rsm:CrossIndustryDespatchAdvice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryDespatchAdvice:3"><rsm:ExchangedDocument/></rsm:CrossIndustryDespatchAdvice>`, "a UN/CEFACT despatch advice, not an invoice"},
		{"un/cefact despatch advice under a capital Standard", `<rsm:CrossIndustryDespatchAdvice xmlns:rsm="urn:un:unece:uncefact:data:Standard:CrossIndustryDespatchAdvice:2"/>`, "a UN/CEFACT despatch advice, not an invoice"},
		{"un/cefact delivery note", `<rsm:CrossIndustryDeliveryNote xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryDeliveryNote:100"/>`, "a UN/CEFACT delivery note, not an invoice"},
	} {
		pdf := einvoicetest.PDF{Lines: []string{"An order, not an invoice"}, Attachments: []einvoicetest.EmbeddedFile{{Name: "order-x.xml", Data: []byte(m.data), Flate: true}}}.Build()
		tests = append(tests, notInvoice{m.name, []byte(m.data), einvoice.FormatCII, m.says}, notInvoice{m.name + " in a pdf", pdf, einvoice.FormatFacturX, m.says})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect(tt.data); got != tt.format {
				t.Errorf("Detect = %q, want %q", got, tt.format)
			}
			_, err := Parse(tt.data)
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) || pe.Code != einvoice.CodeNotAnInvoice || pe.Format != tt.format {
				t.Fatalf("Parse error = %#v (%v), want a %s ParseError with code %s", pe, err, tt.format, einvoice.CodeNotAnInvoice)
			}
			if !strings.Contains(pe.Reason, tt.says) {
				t.Errorf("reason %q does not say %q", pe.Reason, tt.says)
			}
		})
	}
	// A type code that is not a number is an invoice with a malformed code, for Validate to name.
	d, err := Parse([]byte(strings.Replace(string(einvoicetest.ReadTestdata(t, "facturx-basicwl.xml")), "<ram:TypeCode>380<", "<ram:TypeCode>38O<", 1)))
	if err != nil {
		t.Fatalf("Parse of a malformed type code: %v", err)
	}
	if fs := einvoice.ValidateAt(d, einvoicetest.Now); len(fs) != 1 || fs[0].Code != einvoice.CodeTypeCodeList {
		t.Errorf("findings %+v, want one %s", fs, einvoice.CodeTypeCodeList)
	}
}

// TestZUGFeRD1UnderTheXMLCaps: the ZUGFeRD 1.0 parser refuses XML over a structural cap before
// decoding it, as the UBL and CII parsers do.
func TestZUGFeRD1UnderTheXMLCaps(t *testing.T) {
	t.Parallel()
	const overTheDepthCap = 129 // one level more than the XML readers' cap of 128
	deep := `<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0">` +
		strings.Repeat("<a>", overTheDepthCap) + strings.Repeat("</a>", overTheDepthCap) + `</rsm:CrossIndustryDocument>`
	for _, data := range [][]byte{[]byte(deep), einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "ZUGFeRD-invoice.xml", Data: []byte(deep)}}}.Build()} {
		_, err := Parse(data)
		if !einvoicetest.IsCapError(err, "xml_depth") {
			t.Errorf("Parse = %v, want the xml_depth cap", err)
		}
	}
}

// TestEveryStatedProfileIsNamed: the profile a document states is named whichever syntax states it,
// and a valid document stays valid whatever profile with lines it states.
func TestEveryStatedProfileIsNamed(t *testing.T) {
	t.Parallel()
	restate := func(file, from, to string) []byte {
		s := string(einvoicetest.ReadTestdata(t, file))
		if !strings.Contains(s, from) {
			t.Fatalf("%s does not state %s", file, from)
		}
		return []byte(strings.Replace(s, from, to, 1))
	}
	const cii, ubl, zf1 = "cii-invoice.xml", "samples/peppol-bis3-base-example.xml", "zugferd1-comfort.xml"
	const en16931 = "<ram:ID>urn:cen.eu:en16931:2017</ram:ID>"
	const peppol = "<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>"
	tests := []struct {
		name string
		data []byte
		want einvoice.Profile
	}{
		{"factur-x basic", restate(cii, en16931, "<ram:ID>urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic</ram:ID>"), einvoice.ProfileBasic},
		{"factur-x extended", restate(cii, en16931, "<ram:ID>urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended</ram:ID>"), einvoice.ProfileExtended},
		{"xrechnung cii", restate(cii, en16931, "<ram:ID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</ram:ID>"), einvoice.ProfileXRechnung},
		{"xrechnung ubl", restate(ubl, peppol, "<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>"), einvoice.ProfileXRechnung},
		{"peppol ubl", einvoicetest.ReadTestdata(t, ubl), einvoice.ProfilePeppol},
		{"zugferd 1.0 extended", restate(zf1, "invoice:1p0:comfort<", "invoice:1p0:extended<"), einvoice.ProfileZUGFeRD1Extended},
		{"unknown", restate(cii, en16931, "<ram:ID>urn:example.com:my-own-profile</ram:ID>"), einvoice.ProfileOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if d.Profile != tt.want {
				t.Errorf("profile %q (specification %q), want %q", d.Profile, d.Specification, tt.want)
			}
			if fs := einvoice.ValidateAt(d, einvoicetest.Now); len(fs) != 0 {
				t.Errorf("findings: %+v", fs)
			}
		})
	}
}
