package ubl_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/einvoice/ubl"
	"greatbook/internal/einvoice/xmltext"
)

func TestBuildUBLRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range einvoicetest.RoundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := read.Parse(einvoicetest.ReadTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			xmlData, err := ubl.Build(d)
			if err != nil {
				t.Fatal(err)
			}
			if read.Detect(xmlData) != einvoice.FormatUBL {
				t.Fatalf("BuildUBL output is detected as %q", read.Detect(xmlData))
			}
			back, err := ubl.Parse(xmlData)
			if err != nil {
				t.Fatalf("ParseUBL(BuildUBL): %v\n%s", err, xmlData)
			}
			if !einvoicetest.SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
			}
			if err := checkUBLSchemaOrder(xmlData); err != nil {
				t.Errorf("%v\n%s", err, xmlData)
			}
			again, _ := ubl.Build(d)
			if !bytes.Equal(xmlData, again) {
				t.Errorf("BuildUBL is not deterministic")
			}
		})
	}
}

// TestBuildUBLCreditNote: a credit note is a UBL CreditNote, its lines CreditNoteLines with a
// CreditedQuantity; an invoice is an Invoice of InvoiceLines with an InvoicedQuantity.
func TestBuildUBLCreditNote(t *testing.T) {
	t.Parallel()
	creditNote := []string{"<cbc:CreditNoteTypeCode>", "<cac:CreditNoteLine>", "<cbc:CreditedQuantity "}
	invoice := []string{"<cbc:InvoiceTypeCode>", "<cac:InvoiceLine>", "<cbc:InvoicedQuantity "}
	for _, tt := range []struct {
		file         string
		root         string
		want, absent []string
	}{
		{"ubl-creditnote.xml", "CreditNote", creditNote, invoice},
		{"samples/en16931-ubl-creditnote1.xml", "CreditNote", creditNote, invoice},
		{"json-credit-note.json", "CreditNote", creditNote, invoice},
		{"ubl-invoice-multirate.xml", "Invoice", invoice, creditNote},
		{"ubl-corrected-384.xml", "Invoice", invoice, creditNote},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			d, err := read.Parse(einvoicetest.ReadTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := ubl.Build(d)
			if err != nil {
				t.Fatal(err)
			}
			if root, _ := xmltext.Root(data); root.Local != tt.root {
				t.Errorf("root %s, want %s", root.Local, tt.root)
			}
			if n := strings.Count(string(data), tt.want[0]); n != 1 {
				t.Errorf("%d %s, want one", n, tt.want[0])
			}
			for _, want := range tt.want[1:] {
				if n := strings.Count(string(data), want); n != len(d.Lines) {
					t.Errorf("%d %s for %d lines", n, want, len(d.Lines))
				}
			}
			for _, absent := range tt.absent {
				if strings.Contains(string(data), absent) {
					t.Errorf("a UBL %s with %s", tt.root, absent)
				}
			}
		})
	}
}

// TestBuildUBLCreditNoteDueDate: UBL 2.1 gives a credit note no DueDate. Its due date goes with the
// payee's account in PaymentMeans where there is one, and in PaymentTerms where there is none (no
// payment means code is made up), and ParseUBL reads it back from either.
func TestBuildUBLCreditNoteDueDate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, iban string
		want       []string
	}{
		{"with a payee account", "SE4550000000058398257466", []string{
			"<cac:PaymentMeans>", "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>",
			"<cbc:PaymentDueDate>2026-12-20</cbc:PaymentDueDate>", "<cbc:ID>SE4550000000058398257466</cbc:ID>"}},
		{"without a payee account", "", []string{"<cac:PaymentTerms>", "<cbc:PaymentDueDate>2026-12-20</cbc:PaymentDueDate>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := completeInvoice()
			d.Type, d.TypeCode, d.BillingReference = einvoice.TypeCreditNote, "381", "INV-1"
			d.PayeeIBAN = tt.iban
			data, err := ubl.Build(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(string(data), want) {
					t.Errorf("no %s in\n%s", want, data)
				}
			}
			if strings.Contains(string(data), "<cbc:DueDate>") || (tt.iban == "" && strings.Contains(string(data), "<cac:PaymentMeans>")) {
				t.Errorf("a credit note with a DueDate, or payment means made up\n%s", data)
			}
			back, err := ubl.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if !einvoicetest.SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
			}
		})
	}
}

// completeInvoice is a document with every business term EN 16931 requires.
func completeInvoice() einvoice.Document {
	d := einvoicetest.Invoice()
	d.Seller.Address = einvoice.Address{Line1: "Storgatan 1", City: "Stockholm", Postcode: "111 22", Country: "SE"}
	d.Buyer = einvoice.Party{Name: "Acme Ltd", VATID: "GB123456789", Address: einvoice.Address{Line1: "1 High Street", City: "London", Postcode: "SW1A 1AA", Country: "GB"}}
	d.PayeeIBAN = "SE4550000000058398257466"
	return d
}

// TestBuildUBLConforms: BuildUBL's output of a document that has what EN 16931 requires breaks none of
// its fatal rules, as the product's own EN 16931 rules judge it (CEN's validator agrees on these; it
// needs Java, which the suite does not). Documents that lack something (an exemption reason, a
// breakdown of document allowances) are not in the list: the model cannot say it.
func TestBuildUBLConforms(t *testing.T) {
	t.Parallel()
	documents := map[string]einvoice.Document{"complete invoice": completeInvoice()}
	creditNote := completeInvoice()
	creditNote.Type, creditNote.TypeCode, creditNote.BillingReference = einvoice.TypeCreditNote, "381", "INV-1"
	documents["complete credit note"] = creditNote
	for _, file := range []string{"samples/mustang-EN16931_Einfach.pdf", "ubl-creditnote.xml", "ubl-corrected-384.xml",
		"json-invoice-with-totals.json", "json-invoice-without-totals.json"} {
		d, err := read.Parse(einvoicetest.ReadTestdata(t, file))
		if err != nil {
			t.Fatal(err)
		}
		documents[file] = d
	}
	for name, d := range documents {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := ubl.Build(d)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ubl.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range back.Conformance {
				if f.Severity == einvoice.SeverityFatal {
					t.Errorf("%s %s: %s", f.Code, f.Field, f.Message)
				}
			}
		})
	}
}

func TestBuildUBLErrors(t *testing.T) {
	t.Parallel()
	d := einvoicetest.Invoice()
	d.IssueDate = "20.11.2026"
	if _, err := ubl.Build(d); err == nil || !strings.HasPrefix(err.Error(), "einvoice: build ubl: issue_date") {
		t.Errorf("error = %v, want a build ubl error naming issue_date", err)
	}
	d = einvoicetest.Invoice()
	d.DueDate = "later"
	if _, err := ubl.Build(d); err == nil || !strings.HasPrefix(err.Error(), "einvoice: build ubl: due_date") {
		t.Errorf("error = %v, want a build ubl error naming due_date", err)
	}
}

func TestBuildUBLEscapes(t *testing.T) {
	t.Parallel()
	d := einvoicetest.Invoice()
	d.Seller.Name = `Smith & Sons <"Ltd">`
	d.Lines[0].Description = "Line\twith\ttabs\nand a newline\r\nand ' quotes"
	d.Seller.EndpointID, d.Seller.EndpointScheme = "a&b", `"EM"`
	d.Currency = `E"R`
	data, err := ubl.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ubl.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !einvoicetest.SameFields(t, back, d) {
		t.Errorf("escaping lost something\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
	}
}

// TestBuildUBLRoundTripProperty: ParseUBL(BuildUBL(d)) gives d back, BuildUBL is deterministic, and its
// elements come in the UBL 2.1 schema's order.
func TestBuildUBLRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := einvoicetest.BuilderDocumentGen.Draw(t, "document")
		data, err := ubl.Build(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ubl.Parse(data)
		if err != nil {
			t.Fatalf("ParseUBL: %v\n%s", err, data)
		}
		if !einvoicetest.SameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s\n%s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d), data)
		}
		if err := checkUBLSchemaOrder(data); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if again, _ := ubl.Build(d); !bytes.Equal(data, again) {
			t.Fatal("BuildUBL is not deterministic")
		}
	})
}

// TestCheckUBLSchemaOrder: the order check finds an element out of the schema's order, one the
// schema requires and one the table does not know.
func TestCheckUBLSchemaOrder(t *testing.T) {
	t.Parallel()
	d := completeInvoice()
	data, err := ubl.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkUBLSchemaOrder(data); err != nil {
		t.Fatal(err)
	}
	swapped := strings.Replace(string(data), "<cbc:ID>INV-1</cbc:ID>\n  <cbc:IssueDate>2026-11-20</cbc:IssueDate>",
		"<cbc:IssueDate>2026-11-20</cbc:IssueDate>\n  <cbc:ID>INV-1</cbc:ID>", 1)
	missing := strings.Replace(string(data), "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>", "", 1)
	unknown := strings.Replace(string(data), "<cbc:DocumentCurrencyCode>", "<cbc:Note>x</cbc:Note><cbc:DocumentCurrencyCode>", 1)
	for name, broken := range map[string]string{"swapped": swapped, "missing": missing, "unknown": unknown} {
		if broken == string(data) {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if err := checkUBLSchemaOrder([]byte(broken)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// ublSchemaSequences are the UBL 2.1 schema's sequences (UBL-Invoice-2.1.xsd, UBL-CreditNote-2.1.xsd and
// UBL-CommonAggregateComponents-2.1.xsd), cut down to the children BuildUBL writes, in the schema's
// order; a "!" marks a child the schema requires (the lines are required too, but a document without
// lines has none to write).
var ublSchemaSequences = map[string][]string{
	"Invoice": {"cbc:CustomizationID", "!cbc:ID", "!cbc:IssueDate", "cbc:DueDate", "cbc:InvoiceTypeCode",
		"cbc:DocumentCurrencyCode", "cac:BillingReference", "!cac:AccountingSupplierParty", "!cac:AccountingCustomerParty",
		"cac:PaymentMeans", "cac:PaymentTerms", "cac:TaxTotal", "!cac:LegalMonetaryTotal", "cac:InvoiceLine"},
	"CreditNote": {"cbc:CustomizationID", "!cbc:ID", "!cbc:IssueDate", "cbc:CreditNoteTypeCode",
		"cbc:DocumentCurrencyCode", "cac:BillingReference", "!cac:AccountingSupplierParty", "!cac:AccountingCustomerParty",
		"cac:PaymentMeans", "cac:PaymentTerms", "cac:TaxTotal", "!cac:LegalMonetaryTotal", "cac:CreditNoteLine"},
	"BillingReference":           {"cac:InvoiceDocumentReference"},
	"InvoiceDocumentReference":   {"!cbc:ID"},
	"AccountingSupplierParty":    {"cac:Party"},
	"AccountingCustomerParty":    {"cac:Party"},
	"Party":                      {"cbc:EndpointID", "cac:PostalAddress", "cac:PartyTaxScheme", "cac:PartyLegalEntity"},
	"PostalAddress":              {"cbc:StreetName", "cbc:AdditionalStreetName", "cbc:CityName", "cbc:PostalZone", "cac:AddressLine", "cac:Country"},
	"AddressLine":                {"!cbc:Line"},
	"Country":                    {"cbc:IdentificationCode"},
	"PartyTaxScheme":             {"cbc:CompanyID", "!cac:TaxScheme"},
	"TaxScheme":                  {"cbc:ID"},
	"PartyLegalEntity":           {"cbc:RegistrationName", "cbc:CompanyID"},
	"PaymentMeans":               {"!cbc:PaymentMeansCode", "cbc:PaymentDueDate", "cac:PayeeFinancialAccount"},
	"PayeeFinancialAccount":      {"cbc:ID", "cac:FinancialInstitutionBranch"},
	"FinancialInstitutionBranch": {"cbc:ID"},
	"PaymentTerms":               {"cbc:PaymentDueDate"},
	"TaxTotal":                   {"!cbc:TaxAmount", "cac:TaxSubtotal"},
	"TaxSubtotal":                {"cbc:TaxableAmount", "!cbc:TaxAmount", "!cac:TaxCategory"},
	"TaxCategory":                {"cbc:ID", "cbc:Percent", "!cac:TaxScheme"},
	"ClassifiedTaxCategory":      {"cbc:ID", "cbc:Percent", "!cac:TaxScheme"},
	"LegalMonetaryTotal": {"cbc:LineExtensionAmount", "cbc:TaxExclusiveAmount", "cbc:TaxInclusiveAmount",
		"cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount", "cbc:PrepaidAmount", "cbc:PayableRoundingAmount", "!cbc:PayableAmount"},
	"InvoiceLine":     {"!cbc:ID", "cbc:InvoicedQuantity", "!cbc:LineExtensionAmount", "cac:AllowanceCharge", "!cac:Item", "cac:Price"},
	"CreditNoteLine":  {"!cbc:ID", "cbc:CreditedQuantity", "cbc:LineExtensionAmount", "cac:AllowanceCharge", "!cac:Item", "cac:Price"},
	"AllowanceCharge": {"!cbc:ChargeIndicator", "!cbc:Amount"},
	"Item":            {"cbc:Name", "cac:ClassifiedTaxCategory"},
	"Price":           {"!cbc:PriceAmount", "cbc:BaseQuantity"},
}

// checkUBLSchemaOrder checks that every element of data is one ublSchemaSequences knows under its
// parent, in the schema's order, and that no required one is missing.
func checkUBLSchemaOrder(data []byte) error {
	prefixes := map[string]string{
		"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2": "cac",
		"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2":     "cbc",
	}
	type open struct {
		name string
		next int      // the index in the parent's sequence the next child may not come before
		seen []string // the children met
	}
	var stack []*open
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				sequence, ok := ublSchemaSequences[parent.name]
				if !ok {
					return fmt.Errorf("%s has a child %s, which BuildUBL should not write", parent.name, tok.Name.Local)
				}
				child := prefixes[tok.Name.Space] + ":" + tok.Name.Local
				i := slices.IndexFunc(sequence, func(s string) bool { return strings.TrimPrefix(s, "!") == child })
				switch {
				case i < 0:
					return fmt.Errorf("%s has a child %s that is not in its sequence", parent.name, child)
				case i < parent.next:
					return fmt.Errorf("%s: %s comes after %s, against the schema's order", parent.name, child, parent.seen[len(parent.seen)-1])
				}
				parent.next, parent.seen = i, append(parent.seen, child)
			}
			stack = append(stack, &open{name: tok.Name.Local})
		case xml.EndElement:
			closed := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, child := range ublSchemaSequences[closed.name] {
				if required, ok := strings.CutPrefix(child, "!"); ok && !slices.Contains(closed.seen, required) {
					return fmt.Errorf("%s lacks %s, which the schema requires", closed.name, required)
				}
			}
		}
	}
}
