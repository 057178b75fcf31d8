package read

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/einvoice/pdf"
	"greatbook/internal/einvoice/ubl"
)

func assertTotals(t *testing.T, got, want einvoice.Totals) {
	t.Helper()
	fields := []struct {
		name      string
		got, want decimal.Decimal
	}{
		{"line_total", got.LineTotal, want.LineTotal}, {"allowances", got.AllowanceTotal, want.AllowanceTotal},
		{"charges", got.ChargeTotal, want.ChargeTotal}, {"net", got.Net, want.Net}, {"tax", got.Tax, want.Tax},
		{"gross", got.Gross, want.Gross}, {"prepaid", got.Prepaid, want.Prepaid},
		{"rounding", got.Rounding, want.Rounding}, {"payable", got.Payable, want.Payable},
	}
	for _, f := range fields {
		if !f.got.Equal(f.want) {
			t.Errorf("totals.%s = %s, want %s", f.name, f.got, f.want)
		}
	}
}

type wantLine struct {
	description                         string
	quantity, unitPrice, net, rate, cat string
}

type wantDocument struct {
	file             string
	format           einvoice.Format
	docType          einvoice.DocType
	typeCode         string
	number           string
	issueDate        string
	dueDate          string
	currency         string
	seller           einvoice.Party
	buyerName        string
	sourceRef        string
	lines            int
	firstLine        wantLine
	subtotals        int
	totals           einvoice.Totals
	billingReference string
	findings         []string // finding codes ValidateAt reports; none for a valid document
}

func checkDocument(t *testing.T, w wantDocument) {
	t.Helper()
	data := einvoicetest.ReadTestdata(t, w.file)
	if got := Detect(data); got != w.format {
		t.Errorf("Detect = %q, want %q", got, w.format)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checks := []struct{ name, got, want string }{
		{"format", string(d.Format), string(w.format)},
		{"type", string(d.Type), string(w.docType)},
		{"type_code", d.TypeCode, w.typeCode},
		{"number", d.Number, w.number},
		{"issue_date", d.IssueDate, w.issueDate},
		{"due_date", d.DueDate, w.dueDate},
		{"currency", d.Currency, w.currency},
		{"buyer.name", d.Buyer.Name, w.buyerName},
		{"source_ref", d.SourceRef(), w.sourceRef},
		{"billing_reference", d.BillingReference, w.billingReference},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	seller := d.Seller
	seller.Address = einvoice.Address{} // the identity only: TestBuyerAddressFromUBLAndCII reads addresses
	if seller != w.seller {
		t.Errorf("seller = %+v, want %+v", d.Seller, w.seller)
	}
	if len(d.Lines) != w.lines {
		t.Fatalf("%d lines, want %d", len(d.Lines), w.lines)
	}
	if len(d.TaxSubtotals) != w.subtotals {
		t.Errorf("%d tax subtotals, want %d", len(d.TaxSubtotals), w.subtotals)
	}
	l, wl := d.Lines[0], w.firstLine
	if l.Description != wl.description || !l.Quantity.Equal(einvoicetest.Dec(wl.quantity)) || !l.UnitPrice.Equal(einvoicetest.Dec(wl.unitPrice)) ||
		!l.Net.Equal(einvoicetest.Dec(wl.net)) || !l.TaxRate.Equal(einvoicetest.Dec(wl.rate)) || l.TaxCategory != wl.cat {
		t.Errorf("first line = %q %s × %s = %s at %s%% %s, want %+v",
			l.Description, l.Quantity, l.UnitPrice, l.Net, l.TaxRate, l.TaxCategory, wl)
	}
	assertTotals(t, d.Totals, w.totals)

	var codes []string
	for _, f := range einvoice.ValidateAt(d, einvoicetest.Now) {
		codes = append(codes, f.Code)
		if len(w.findings) == 0 {
			t.Errorf("unexpected finding %+v", f)
		}
	}
	if strings.Join(codes, ",") != strings.Join(w.findings, ",") {
		t.Errorf("findings %v, want %v", codes, w.findings)
	}
}

// TestPublishedSamples reads every published EN 16931 sample and checks the values in the file, and that
// each ingests without a finding.
func TestPublishedSamples(t *testing.T) {
	t.Parallel()
	tosl108Seller := einvoice.Party{Name: "Salescompany ltd.", VATID: "NO123456789MVA", LegalID: "123456789"}
	tosl108Totals := einvoicetest.TotalsOf("1436.50", "100.00", "100.00", "1436.50", "365.28", "1801.78", "1000.00", "0", "801.78")
	tests := []wantDocument{
		{
			file: "samples/en16931-ubl-example2.xml", format: einvoice.FormatUBL, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "TOSL108", issueDate: "2013-06-30", dueDate: "2013-07-20", currency: "NOK",
			seller: tosl108Seller, buyerName: "The Buyercompany", sourceRef: "vat:NO123456789MVA/TOSL108",
			lines: 5, firstLine: wantLine{"Laptop computer", "2", "1273.00", "1273.00", "25", "S"},
			subtotals: 3, totals: tosl108Totals,
		},
		{
			file: "samples/en16931-ubl-creditnote1.xml", format: einvoice.FormatUBL, docType: einvoice.TypeCreditNote, typeCode: "381",
			number: "018304 / 28865", issueDate: "2019-09-23", currency: "EUR",
			seller: einvoice.Party{
				Name: "My Supplier Company", VATID: "BE0000000196",
				EndpointID: "0000000196", EndpointScheme: "0201", LegalID: "0000000196",
			},
			buyerName: "My Customer Company", sourceRef: "vat:BE0000000196/018304 / 28865",
			lines: 1, firstLine: wantLine{"Exonération du versement du PP", "1.00", "100.11", "100.11", "0.00", "E"},
			subtotals: 1, totals: einvoicetest.TotalsOf("100.11", "0", "0", "100.11", "0.00", "100.11", "0", "0", "100.11"),
		},
		{
			file: "samples/en16931-cii-example2.xml", format: einvoice.FormatCII, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "TOSL108", issueDate: "2013-06-30", dueDate: "2013-07-20", currency: "NOK",
			seller: tosl108Seller, buyerName: "The Buyercompany", sourceRef: "vat:NO123456789MVA/TOSL108",
			lines: 5, firstLine: wantLine{"Laptop computer", "1", "1273", "1273", "25", "S"},
			subtotals: 3, totals: tosl108Totals,
		},
		{
			file: "samples/peppol-bis3-base-example.xml", format: einvoice.FormatUBL, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "Snippet1", issueDate: "2017-11-13", dueDate: "2017-12-01", currency: "EUR",
			seller: einvoice.Party{
				Name: "SupplierOfficialName Ltd", VATID: "GB1232434",
				EndpointID: "9482348239847239874", EndpointScheme: "0088", LegalID: "GB983294",
			},
			buyerName: "Buyer Official Name", sourceRef: "vat:GB1232434/SNIPPET1",
			lines: 2, firstLine: wantLine{"item name", "7", "400", "2800", "25.0", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("1300", "0", "25", "1325", "331.25", "1656.25", "0", "0", "1656.25"),
		},
		{
			file: "samples/mustang-EN16931_Einfach.pdf", format: einvoice.FormatFacturX, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "471102", issueDate: "2024-11-15", currency: "EUR",
			seller:    einvoice.Party{Name: "Lieferant GmbH", VATID: "DE123456789"},
			buyerName: "Kunden AG Mitte", sourceRef: "vat:DE123456789/471102",
			lines: 2, firstLine: wantLine{"Trennblätter A4", "20.0000", "9.9000", "198.00", "19.00", "S"},
			subtotals: 2, totals: einvoicetest.TotalsOf("473.00", "0.00", "0.00", "473.00", "56.87", "529.87", "0.00", "0", "529.87"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			checkDocument(t, tt)
			// The clock does not matter for the samples: Validate with the real time finds nothing either.
			d, _ := Parse(einvoicetest.ReadTestdata(t, tt.file))
			if findings := einvoice.Validate(d); findings != nil {
				t.Errorf("Validate: %+v", findings)
			}
		})
	}
}

// TestOwnTestdata reads the project's own test documents.
func TestOwnTestdata(t *testing.T) {
	t.Parallel()
	nordisk := einvoice.Party{
		Name: "Nordisk Konsult AB", VATID: "SE556677889901",
		EndpointID: "5566778899", EndpointScheme: "0007", LegalID: "5566778899",
	}
	// UBL names the seller by its registration name (BT-27), the trading name being BT-28.
	nordiskUBL := nordisk
	nordiskUBL.Name = "Nordisk Konsult Aktiebolag"
	multirateTotals := einvoicetest.TotalsOf("20872.00", "0", "0", "20872.00", "3449.07", "24321.07", "0", "-0.07", "24321.00")
	papeterie := einvoice.Party{
		Name: "Papeterie Müller GmbH", VATID: "DE 999.999.999",
		EndpointID: "rechnung@papeterie-mueller.invalid", EndpointScheme: "EM", LegalID: "HRB 99999",
	}
	papeterieTotals := einvoicetest.TotalsOf("226.80", "5.00", "9.90", "231.70", "34.45", "266.15", "50.00", "0", "216.15")
	papeterieLine := wantLine{"Druckerpapier A4, 80 g/m²", "40", "12.50", "50.00", "19", "S"}
	supplierAB := einvoice.Party{Name: "Supplier AB", VATID: "SE556677889901"}
	tests := []wantDocument{
		{
			file: "ubl-invoice-multirate.xml", format: einvoice.FormatUBL, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "NK-2026-0042", issueDate: "2026-11-20", dueDate: "2026-12-20", currency: "SEK",
			seller: nordiskUBL, buyerName: "Acme Svenska AB", sourceRef: "vat:SE556677889901/NK-2026-0042",
			lines: 5, firstLine: wantLine{"Konsulttimmar", "10", "1200.00", "12000.00", "25", "S"},
			subtotals: 4, totals: multirateTotals,
		},
		{
			file: "ubl-invoice-bad-total.xml", format: einvoice.FormatUBL, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "NK-2026-0043", issueDate: "2026-11-20", dueDate: "2026-12-20", currency: "SEK",
			seller: nordiskUBL, buyerName: "Acme Svenska AB", sourceRef: "vat:SE556677889901/NK-2026-0043",
			lines: 5, firstLine: wantLine{"Konsulttimmar", "10", "1200.00", "12000.00", "25", "S"},
			subtotals: 4, totals: einvoicetest.TotalsOf("20872.00", "0", "0", "20872.00", "3449.07", "24321.07", "0", "-0.07", "24231.00"),
			findings: []string{einvoice.CodePayable},
		},
		{
			file: "ubl-creditnote.xml", format: einvoice.FormatUBL, docType: einvoice.TypeCreditNote, typeCode: "381",
			number: "NK-KR-2026-0007", issueDate: "2026-11-25", dueDate: "2026-12-10", currency: "SEK",
			seller: nordiskUBL, buyerName: "Acme Svenska AB", sourceRef: "vat:SE556677889901/NK-KR-2026-0007",
			lines: 1, firstLine: wantLine{"Hotellövernattning", "1", "1450.00", "1450.00", "12", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("1450.00", "0", "0", "1450.00", "174.00", "1624.00", "0", "0", "1624.00"),
			billingReference: "NK-2026-0042",
		},
		{
			file: "ubl-corrected-384.xml", format: einvoice.FormatUBL, docType: einvoice.TypeInvoice, typeCode: "384",
			number: "NK-2026-0017-K1", issueDate: "2026-11-03", dueDate: "2026-12-03", currency: "SEK",
			seller: nordiskUBL, buyerName: "Acme Svenska AB", sourceRef: "vat:SE556677889901/NK-2026-0017-K1",
			lines: 1, firstLine: wantLine{"Konsulttimmar", "8", "1200.00", "9600.00", "25", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("9600.00", "0", "0", "9600.00", "2400.00", "12000.00", "0", "0", "12000.00"),
			billingReference: "NK-2026-0017",
		},
		{
			file: "cii-invoice.xml", format: einvoice.FormatCII, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "RE-2026-1187", issueDate: "2026-11-20", dueDate: "2026-12-20", currency: "EUR",
			seller: papeterie, buyerName: "Acme Deutschland GmbH", sourceRef: "vat:DE999999999/RE-2026-1187",
			lines: 4, firstLine: papeterieLine, subtotals: 2, totals: papeterieTotals,
		},
		{
			file: "facturx-invoice.pdf", format: einvoice.FormatFacturX, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "RE-2026-1187", issueDate: "2026-11-20", dueDate: "2026-12-20", currency: "EUR",
			seller: papeterie, buyerName: "Acme Deutschland GmbH", sourceRef: "vat:DE999999999/RE-2026-1187",
			lines: 4, firstLine: papeterieLine, subtotals: 2, totals: papeterieTotals,
		},
		{
			file: "json-invoice-with-totals.json", format: einvoice.FormatJSON, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "INV-1001", issueDate: "2026-11-20", dueDate: "2026-12-20", currency: "EUR",
			seller: supplierAB, buyerName: "Acme Ltd", sourceRef: "vat:SE556677889901/INV-1001",
			lines: 1, firstLine: wantLine{"Widget", "2", "50.00", "100.00", "25", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("100.00", "0", "0", "100.00", "25.00", "125.00", "0", "0", "125.00"),
		},
		{
			file: "json-invoice-without-totals.json", format: einvoice.FormatJSON, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "INV-1002", issueDate: "2026-11-21", dueDate: "2026-12-21", currency: "SEK",
			seller:    einvoice.Party{Name: "Supplier AB", VATID: "SE556677889901", EndpointID: "5566778899", EndpointScheme: "0007"},
			buyerName: "Acme Svenska AB", sourceRef: "vat:SE556677889901/INV-1002",
			lines: 5, firstLine: wantLine{"Licence, monthly", "3", "19.99", "59.97", "25", "S"},
			subtotals: 4, totals: einvoicetest.TotalsOf("300.97", "0", "0", "300.97", "47.99", "348.96", "0", "0", "348.96"),
		},
		{
			file: "json-credit-note.json", format: einvoice.FormatJSON, docType: einvoice.TypeCreditNote, typeCode: "381",
			number: "CN-0007", issueDate: "2026-11-25", currency: "JPY",
			seller:    einvoice.Party{Name: "Kaisha Supplies KK", LegalID: "1234567890123"},
			buyerName: "Acme Japan KK", sourceRef: "legal:1234567890123/CN-0007",
			lines: 1, firstLine: wantLine{"Returned toner cartridges", "3", "1250", "3750", "10", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("3750", "0", "0", "3750", "375", "4125", "0", "0", "4125"),
			billingReference: "INV-0999",
		},
		{
			file: "json-invoice-bad-total.json", format: einvoice.FormatJSON, docType: einvoice.TypeInvoice, typeCode: "380",
			number: "INV-1003", issueDate: "2026-11-22", dueDate: "2026-12-22", currency: "EUR",
			seller: supplierAB, buyerName: "Acme Ltd", sourceRef: "vat:SE556677889901/INV-1003",
			lines: 2, firstLine: wantLine{"Widget", "2", "50.00", "100.00", "25", "S"},
			subtotals: 1, totals: einvoicetest.TotalsOf("120.00", "0", "0", "120.00", "30.00", "150.00", "0", "0", "152.00"),
			findings: []string{einvoice.CodePayable},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			checkDocument(t, tt)
		})
	}
}

func TestNoStructuredData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
	}{
		{"pdf without embedded xml", einvoicetest.ReadTestdata(t, "no-embedded-xml.pdf")},
		{"png", einvoicetest.ReadTestdata(t, "scanned-invoice.png")},
		{"empty", nil},
		{"whitespace", []byte(" \n\t")},
		{"plain text", []byte("Invoice 42, total 100 EUR")},
		{"other xml", []byte(`<?xml version="1.0"?><order xmlns="urn:example"><id>1</id></order>`)},
		{"ubl order", []byte(`<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>`)},
		{"invoice root in no namespace", []byte(`<Invoice><ID>1</ID></Invoice>`)},
		{"xml cut before the root", []byte(`<?xml version="1.0"?><!-- `)},
		{"pdf with only a non-invoice attachment", einvoicetest.PDF{Attachments: []einvoicetest.EmbeddedFile{{Name: "notes.xml", Data: []byte("<notes/>"), Flate: true}}}.Build()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect(tt.data); got != einvoice.FormatUnknown {
				t.Errorf("Detect = %q, want unknown", got)
			}
			_, err := Parse(tt.data)
			if !errors.Is(err, einvoice.ErrNoStructuredData) {
				t.Errorf("Parse error = %v, want ErrNoStructuredData", err)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want einvoice.Format
	}{
		{"ubl invoice", `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, einvoice.FormatUBL},
		{"ubl credit note with prefix", `<?xml version="1.0"?><cn:CreditNote xmlns:cn="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>`, einvoice.FormatUBL},
		{"ubl invoice with bom and comment", "\ufeff<?xml version=\"1.0\"?>\n<!-- x --><Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\"/>", einvoice.FormatUBL},
		{"credit note element in the invoice namespace", `<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, einvoice.FormatUnknown},
		{"cii", `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`, einvoice.FormatCII},
		{"latin-1 cii", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rsm:CrossIndustryInvoice xmlns:rsm=\"urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100\"><x>\xe9</x></rsm:CrossIndustryInvoice>", einvoice.FormatCII},
		{"json object", ` {"type": "invoice"}`, einvoice.FormatJSON},
		{"json array", `[{"type": "invoice"}]`, einvoice.FormatUnknown},
		{"json mentioning a pdf", `{"description": "%PDF-1.7"}`, einvoice.FormatJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect([]byte(tt.data)); got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	ubl := string(einvoicetest.ReadTestdata(t, "ubl-invoice-multirate.xml"))
	cii := string(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	tests := []struct {
		name   string
		data   string
		format einvoice.Format
		field  string
		reason string // a part of the reason
	}{
		{"unknown json field", string(einvoicetest.ReadTestdata(t, "json-unknown-field.json")), einvoice.FormatJSON, "isue_date", "unknown field"},
		{"json number as money", string(einvoicetest.ReadTestdata(t, "json-numeric-money.json")), einvoice.FormatJSON, "lines[0].unit_price", "not a JSON number"},
		{"json number as total", `{"type":"invoice","lines":[],"totals":{"payable":125}}`, einvoice.FormatJSON, "totals.payable", "not a JSON number"},
		{"json exponent", `{"type":"invoice","lines":[{"quantity":"1e2","unit_price":"1","tax_rate":"0"}]}`, einvoice.FormatJSON, "lines[0].quantity", "not a plain decimal"},
		{"json thousands separator", `{"type":"invoice","lines":[{"quantity":"1","unit_price":"1,000.00","tax_rate":"0"}]}`, einvoice.FormatJSON, "lines[0].unit_price", "not a plain decimal"},
		{"json missing quantity", `{"type":"invoice","lines":[{"unit_price":"1","tax_rate":"0"}]}`, einvoice.FormatJSON, "lines[0].quantity", "required"},
		{"json null unit price", `{"type":"invoice","lines":[{"quantity":"1","unit_price":null,"tax_rate":"0"}]}`, einvoice.FormatJSON, "lines[0].unit_price", "required"},
		{"json boolean rate", `{"type":"invoice","lines":[{"quantity":"1","unit_price":"1","tax_rate":true}]}`, einvoice.FormatJSON, "lines[0].tax_rate", "decimal string"},
		{"json unknown type", `{"type":"bill"}`, einvoice.FormatJSON, "type", "neither"},
		{"json type code contradicts type", `{"type":"invoice","type_code":"381"}`, einvoice.FormatJSON, "type_code", "credit_note"},
		{"json number as string field", `{"type":"invoice","number":1001}`, einvoice.FormatJSON, "number", "JSON number"},
		{"json unknown party field", `{"type":"invoice","seller":{"name":"A","vat":"SE1"}}`, einvoice.FormatJSON, "vat", "unknown field"},
		{"json trailing data", `{"type":"invoice"} {"type":"invoice"}`, einvoice.FormatJSON, "", "after the document"},
		{"json malformed", `{"type":"invoice",`, einvoice.FormatJSON, "", "cut short"},
		{"json syntax", `{"type" "invoice"}`, einvoice.FormatJSON, "", "malformed JSON"},
		{"ubl malformed", strings.Replace(ubl, "</cac:LegalMonetaryTotal>", "", 1), einvoice.FormatUBL, "", "malformed XML"},
		{"ubl bad amount", strings.Replace(ubl, ">24321.00<", ">24.321,00<", 1), einvoice.FormatUBL, "LegalMonetaryTotal/PayableAmount", "not a decimal"},
		{"ubl exponent amount", strings.Replace(ubl, ">3449.07<", ">3.44907E3<", 1), einvoice.FormatUBL, "TaxTotal/TaxAmount", "not a decimal"},
		{"cii bad date format", strings.Replace(cii, `format="102">20261120`, `format="610">202611`, 1), einvoice.FormatCII, "ExchangedDocument/IssueDateTime", "format 102"},
		{"cii date in no format", strings.Replace(cii, `format="102">20261120`, `format="102">20.11.2026`, 1), einvoice.FormatCII, "ExchangedDocument/IssueDateTime", "format 102"},
		{"cii bad quantity", strings.Replace(cii, `unitCode="C62">40<`, `unitCode="C62">forty<`, 1), einvoice.FormatCII, "IncludedSupplyChainTradeLineItem[0]/SpecifiedLineTradeDelivery/BilledQuantity", "not a decimal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.data))
			if tt.format == einvoice.FormatUnknown {
				if !errors.Is(err, einvoice.ErrNoStructuredData) {
					t.Fatalf("error = %v, want ErrNoStructuredData", err)
				}
				return
			}
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *ParseError", err)
			}
			if pe.Format != tt.format || pe.Field != tt.field || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("ParseError = %+v, want format %q field %q reason containing %q", pe, tt.format, tt.field, tt.reason)
			}
			if !strings.HasPrefix(pe.Error(), "einvoice: parse "+string(tt.format)+": ") {
				t.Errorf("Error() = %q, want the package: what failed: cause shape", pe.Error())
			}
		})
	}
}

func TestParseWrongRoot(t *testing.T) {
	t.Parallel()
	ciiData := einvoicetest.ReadTestdata(t, "cii-invoice.xml")
	ublData := einvoicetest.ReadTestdata(t, "ubl-invoice-multirate.xml")
	var pe *einvoice.ParseError
	if _, err := ubl.Parse(ciiData); !errors.As(err, &pe) || pe.Format != einvoice.FormatUBL {
		t.Errorf("ubl.Parse(cii) error = %v, want a UBL ParseError", err)
	}
	if _, err := cii.Parse(ublData); !errors.As(err, &pe) || pe.Format != einvoice.FormatCII {
		t.Errorf("cii.Parse(ubl) error = %v, want a CII ParseError", err)
	}
	if _, err := pdf.ParseUntil(nil, ublData); !errors.Is(err, einvoice.ErrNoStructuredData) {
		t.Errorf("pdf.ParseUntil(ubl) error = %v, want ErrNoStructuredData", err)
	}
}

func TestTypeCodes(t *testing.T) {
	t.Parallel()
	base := string(einvoicetest.ReadTestdata(t, "ubl-corrected-384.xml"))
	cii := string(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	tests := []struct {
		code string
		want einvoice.DocType
	}{
		{"380", einvoice.TypeInvoice}, {"384", einvoice.TypeInvoice}, {"389", einvoice.TypeInvoice}, {"751", einvoice.TypeInvoice},
		{"381", einvoice.TypeCreditNote}, {"396", einvoice.TypeCreditNote}, {"261", einvoice.TypeCreditNote}, {"532", einvoice.TypeCreditNote},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			d, err := Parse([]byte(strings.Replace(base, ">384<", ">"+tt.code+"<", 1)))
			if err != nil || d.Type != tt.want || d.TypeCode != tt.code {
				t.Errorf("UBL %s: type %q code %q err %v, want %q", tt.code, d.Type, d.TypeCode, err, tt.want)
			}
			d, err = Parse([]byte(strings.Replace(cii, "<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>"+tt.code+"</ram:TypeCode>", 1)))
			if err != nil || d.Type != tt.want || d.TypeCode != tt.code {
				t.Errorf("CII %s: type %q code %q err %v, want %q", tt.code, d.Type, d.TypeCode, err, tt.want)
			}
		})
	}
}

// TestSameInvoiceAnyFormat shows the point of SourceRef: the same invoice as UBL and CII (the EN 16931
// examples), or as CII and as a Factur-X PDF, is one source.
func TestSameInvoiceAnyFormat(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"samples/en16931-ubl-example2.xml", "samples/en16931-cii-example2.xml"},
		{"cii-invoice.xml", "facturx-invoice.pdf"},
	}
	for _, p := range pairs {
		a, errA := Parse(einvoicetest.ReadTestdata(t, p[0]))
		b, errB := Parse(einvoicetest.ReadTestdata(t, p[1]))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a.SourceRef() != b.SourceRef() {
			t.Errorf("%s gives %q, %s gives %q", p[0], a.SourceRef(), p[1], b.SourceRef())
		}
	}
	cii, _ := Parse(einvoicetest.ReadTestdata(t, "cii-invoice.xml"))
	pdf, _ := Parse(einvoicetest.ReadTestdata(t, "facturx-invoice.pdf"))
	cii.Format, pdf.Format = "", ""
	if einvoicetest.Comparable(t, cii) != einvoicetest.Comparable(t, pdf) {
		t.Errorf("the Factur-X PDF and its embedded CII give different documents")
	}
}

// TestFormatParsers: each format's own parser reads its files as Parse does.
func TestFormatParsers(t *testing.T) {
	t.Parallel()
	parsers := map[einvoice.Format]func([]byte) (einvoice.Document, error){
		einvoice.FormatUBL: ubl.Parse, einvoice.FormatCII: cii.Parse, einvoice.FormatFacturX: func(data []byte) (einvoice.Document, error) { return pdf.ParseUntil(nil, data) }, einvoice.FormatJSON: ownjson.Parse,
	}
	for _, file := range einvoicetest.RoundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			data := einvoicetest.ReadTestdata(t, file)
			viaParse, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			direct, err := parsers[Detect(data)](data)
			if err != nil {
				t.Fatal(err)
			}
			if einvoicetest.Comparable(t, direct) != einvoicetest.Comparable(t, viaParse) {
				t.Errorf("the format's parser and Parse disagree")
			}
		})
	}
}
