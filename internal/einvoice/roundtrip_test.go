package einvoice

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/money"
)

// roundTripFiles are the test documents every renderer must reproduce.
var roundTripFiles = []string{
	"samples/en16931-ubl-example2.xml", "samples/en16931-ubl-creditnote1.xml", "samples/en16931-cii-example2.xml",
	"samples/peppol-bis3-base-example.xml", "samples/mustang-EN16931_Einfach.pdf",
	"ubl-invoice-multirate.xml", "ubl-creditnote.xml", "ubl-corrected-384.xml", "ubl-invoice-bad-total.xml",
	"cii-invoice.xml", "facturx-invoice.pdf",
	"json-invoice-with-totals.json", "json-invoice-without-totals.json", "json-credit-note.json", "json-invoice-bad-total.json",
}

// sameFields compares two documents field by field, Format aside, amounts by value.
func sameFields(t fatalHelper, got, want Document) bool {
	t.Helper()
	// The syntax and the profile it states belong to the source, not to the facts a rewrite keeps.
	got.Format, want.Format = "", ""
	got.Specification, want.Specification = "", ""
	got.Profile, want.Profile = "", ""
	return comparable(t, got) == comparable(t, want)
}

func TestOwnJSONRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range roundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(readTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := d.MarshalOwnJSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON(data)
			if err != nil {
				t.Fatalf("ParseJSON(MarshalOwnJSON): %v\n%s", err, data)
			}
			if back.Format != FormatJSON || !sameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
			}
		})
	}
}

func TestOwnJSONShape(t *testing.T) {
	t.Parallel()
	d, err := Parse(readTestdata(t, "json-invoice-with-totals.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := d.MarshalOwnJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"invoice","type_code":"380","number":"INV-1001","issue_date":"2026-11-20","due_date":"2026-12-20",` +
		`"currency":"EUR","seller":{"name":"Supplier AB","vat_id":"SE556677889901"},"buyer":{"name":"Acme Ltd","vat_id":"GB123456789"},` +
		`"lines":[{"description":"Widget","quantity":"2","unit_price":"50.00","net":"100.00","tax_rate":"25","tax_category":"S"}],` +
		`"tax_subtotals":[{"category":"S","rate":"25","taxable":"100.00","tax":"25.00"}],` +
		`"totals":{"line_total":"100.00","allowances":"0.00","charges":"0.00","net":"100.00","tax":"25.00","gross":"125.00",` +
		`"prepaid":"0.00","rounding":"0.00","payable":"125.00"},"billing_reference":null}`
	if string(data) != want {
		t.Errorf("MarshalOwnJSON\n got %s\nwant %s", data, want)
	}
}

func TestBuildCIIRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range roundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(readTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			xmlData, err := BuildCII(d)
			if err != nil {
				t.Fatal(err)
			}
			if Detect(xmlData) != FormatCII {
				t.Fatalf("BuildCII output is detected as %q", Detect(xmlData))
			}
			back, err := ParseCII(xmlData)
			if err != nil {
				t.Fatalf("ParseCII(BuildCII): %v\n%s", err, xmlData)
			}
			if !sameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
			}
			again, _ := BuildCII(d)
			if !bytes.Equal(xmlData, again) {
				t.Errorf("BuildCII is not deterministic")
			}
		})
	}
}

func TestBuildCIIErrors(t *testing.T) {
	t.Parallel()
	d := testInvoice()
	d.IssueDate = "20.11.2026"
	if _, err := BuildCII(d); err == nil || !strings.HasPrefix(err.Error(), "einvoice: build cii: issue_date") {
		t.Errorf("error = %v, want a build cii error naming issue_date", err)
	}
	d = testInvoice()
	d.DueDate = "later"
	if _, err := BuildCII(d); err == nil || !strings.Contains(err.Error(), "due_date") {
		t.Errorf("error = %v, want an error naming due_date", err)
	}
}

func TestBuildCIIEscapes(t *testing.T) {
	t.Parallel()
	d := testInvoice()
	d.Seller.Name = `Smith & Sons <"Ltd">`
	d.Lines[0].Description = "Line\twith\ttabs\nand a newline\r\nand ' quotes"
	d.Seller.EndpointID, d.Seller.EndpointScheme = "a&b", `"EM"`
	data, err := BuildCII(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCII(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameFields(t, back, d) {
		t.Errorf("escaping lost something\n got %s\nwant %s", comparable(t, back), comparable(t, d))
	}
}

// TestBuildersLeaveOutTheRateOfCategoryO: EN 16931 forbids a VAT rate for category O, not subject to
// VAT (BR-O-05 to BR-O-07), so the builders write none where the model's rate is zero, and the round
// trip still holds; a rate the category should not have is written, for the rules to report.
func TestBuildersLeaveOutTheRateOfCategoryO(t *testing.T) {
	t.Parallel()
	d := testInvoice()
	d.Lines = d.Lines[:1]
	d.Lines[0].TaxCategory, d.Lines[0].TaxRate = "O", decimal.Decimal{}
	d.TaxSubtotals = []TaxSubtotal{{Category: "O", Taxable: dec("100.00"), Tax: dec("0.00")}}
	d.Totals = totals("100.00", "0", "0", "100.00", "0.00", "100.00", "0", "0", "100.00")
	for _, syntax := range []struct {
		name, rate string
		build      func(Document) ([]byte, error)
		parse      func([]byte) (Document, error)
	}{{"cii", "RateApplicablePercent", BuildCII, ParseCII}, {"ubl", "Percent", BuildUBL, ParseUBL}} {
		t.Run(syntax.name, func(t *testing.T) {
			t.Parallel()
			data, err := syntax.build(d)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), ":"+syntax.rate+">"); n != 0 {
				t.Errorf("%d %s elements for category O\n%s", n/2, syntax.rate, data)
			}
			back, err := syntax.parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
			}
			wrong := d
			wrong.Lines = []Line{d.Lines[0]}
			wrong.Lines[0].TaxRate = dec("5")
			data, _ = syntax.build(wrong)
			if n := strings.Count(string(data), ":"+syntax.rate+">"); n != 2 {
				t.Errorf("the line's rate 5 of category O is not written\n%s", data)
			}
		})
	}
}

// Generators for arbitrary, well-formed documents.

var sortedCurrencies = func() []string {
	codes := money.Codes()
	slices.Sort(codes)
	return codes
}()

func textGen(pattern string) *rapid.Generator[string] {
	return rapid.Map(rapid.StringMatching(pattern), strings.TrimSpace)
}

func amountGen(maxScale int32) *rapid.Generator[decimal.Decimal] {
	return rapid.Custom(func(t *rapid.T) decimal.Decimal {
		value, _ := new(big.Int).SetString(rapid.StringMatching(`[0-9]{1,12}`).Draw(t, "digits"), 10)
		if rapid.IntRange(0, 4).Draw(t, "sign") == 0 {
			value.Neg(value)
		}
		return decimal.NewFromBigInt(value, -rapid.Int32Range(0, maxScale).Draw(t, "scale"))
	})
}

var dateGen = rapid.Custom(func(t *rapid.T) string {
	return fmt.Sprintf("%04d-%02d-%02d", rapid.IntRange(2000, 2030).Draw(t, "year"),
		rapid.IntRange(1, 12).Draw(t, "month"), rapid.IntRange(1, 28).Draw(t, "day"))
})

var partyGen = rapid.Custom(func(t *rapid.T) Party {
	p := Party{
		Name:    textGen(`[\p{L}\p{N}&<>"'./ -]{0,24}`).Draw(t, "name"),
		VATID:   textGen(`([A-Z]{2}[0-9A-Z .-]{2,14})?`).Draw(t, "vat"),
		LegalID: textGen(`[0-9A-Z /-]{0,12}`).Draw(t, "legal"),
	}
	if id := textGen(`[0-9a-z@.&]{0,20}`).Draw(t, "endpoint"); id != "" {
		p.EndpointID, p.EndpointScheme = id, textGen(`[0-9A-Z]{0,4}`).Draw(t, "scheme")
	}
	return p
})

var documentGen = rapid.Custom(func(t *rapid.T) Document {
	code := rapid.SampledFrom([]string{"380", "381", "384", "389", "396", "261", "751"}).Draw(t, "type code")
	d := Document{
		Format: FormatJSON, Type: DocTypeFor(code), TypeCode: code,
		Number:       textGen(`[\p{L}\p{N}/ -]{0,16}`).Draw(t, "number"),
		IssueDate:    dateGen.Draw(t, "issue date"),
		Currency:     rapid.SampledFrom(sortedCurrencies).Draw(t, "currency"),
		Seller:       partyGen.Draw(t, "seller"),
		Buyer:        partyGen.Draw(t, "buyer"),
		Lines:        []Line{},
		TaxSubtotals: []TaxSubtotal{},
	}
	if rapid.Bool().Draw(t, "has due date") {
		d.DueDate = dateGen.Draw(t, "due date")
	}
	if rapid.Bool().Draw(t, "has billing reference") {
		d.BillingReference = textGen(`[A-Z0-9-]{1,12}`).Draw(t, "billing reference")
	}
	categories := rapid.SampledFrom([]string{"S", "Z", "E", "AE", "K", "G", "O", "L", "M"})
	for i := range rapid.IntRange(0, 4).Draw(t, "lines") {
		l := Line{
			Description: textGen(`[\p{L}\p{N}&<>"'., -]{0,30}`).Draw(t, fmt.Sprint("description ", i)),
			Quantity:    amountGen(4).Draw(t, "quantity"),
			UnitPrice:   amountGen(4).Draw(t, "unit price"),
			Net:         amountGen(3).Draw(t, "net"),
			TaxRate:     amountGen(2).Draw(t, "rate").Abs(),
			TaxCategory: categories.Draw(t, "category"),
		}
		if rapid.IntRange(0, 3).Draw(t, "has base") == 0 {
			l.PriceBaseQuantity = amountGen(2).Draw(t, "base").Abs()
		}
		if rapid.IntRange(0, 3).Draw(t, "has allowance") == 0 {
			l.Allowances = amountGen(2).Draw(t, "allowances")
		}
		if rapid.IntRange(0, 3).Draw(t, "has charge") == 0 {
			l.Charges = amountGen(2).Draw(t, "charges")
		}
		d.Lines = append(d.Lines, l)
	}
	for range rapid.IntRange(0, 3).Draw(t, "subtotals") {
		d.TaxSubtotals = append(d.TaxSubtotals, TaxSubtotal{
			Category: rapid.SampledFrom([]string{"", "S", "E", "Z"}).Draw(t, "subtotal category"),
			Rate:     amountGen(2).Draw(t, "subtotal rate").Abs(),
			Taxable:  amountGen(3).Draw(t, "taxable"),
			Tax:      amountGen(3).Draw(t, "tax"),
		})
	}
	a := amountGen(3)
	d.Totals = Totals{
		LineTotal: a.Draw(t, "line total"), AllowanceTotal: a.Draw(t, "allowance total"), ChargeTotal: a.Draw(t, "charge total"),
		Net: a.Draw(t, "net total"), Tax: a.Draw(t, "tax total"), Gross: a.Draw(t, "gross"),
		Prepaid: a.Draw(t, "prepaid"), Rounding: a.Draw(t, "rounding"), Payable: a.Draw(t, "payable"),
	}
	return d
})

// TestOwnJSONRoundTripProperty: ParseJSON(MarshalOwnJSON(d)) gives d back, whatever d holds.
func TestOwnJSONRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := documentGen.Draw(t, "document")
		data, err := d.MarshalOwnJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSON(data)
		if err != nil {
			t.Fatalf("ParseJSON: %v\n%s", err, data)
		}
		if !sameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
		}
	})
}

// TestBuildCIIRoundTripProperty: ParseCII(BuildCII(d)) gives d back, and BuildCII is deterministic.
func TestBuildCIIRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := documentGen.Draw(t, "document")
		data, err := BuildCII(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseCII(data)
		if err != nil {
			t.Fatalf("ParseCII: %v\n%s", err, data)
		}
		if !sameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s\n%s", comparable(t, back), comparable(t, d), data)
		}
		if again, _ := BuildCII(d); !bytes.Equal(data, again) {
			t.Fatal("BuildCII is not deterministic")
		}
	})
}
