package ownjson_test

import (
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/einvoice/read"
)

func TestOwnJSONRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range einvoicetest.RoundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := read.Parse(einvoicetest.ReadTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := ownjson.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ownjson.Parse(data)
			if err != nil {
				t.Fatalf("Parse(Marshal): %v\n%s", err, data)
			}
			if back.Format != einvoice.FormatJSON || !einvoicetest.SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
			}
		})
	}
}

func TestOwnJSONShape(t *testing.T) {
	t.Parallel()
	d, err := read.Parse(einvoicetest.ReadTestdata(t, "json-invoice-with-totals.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := ownjson.Marshal(d)
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
		t.Errorf("Marshal\n got %s\nwant %s", data, want)
	}
}

// TestOwnJSONRoundTripProperty: Parse(Marshal(d)) gives d back, whatever d holds.
func TestOwnJSONRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := einvoicetest.DocumentGen.Draw(t, "document")
		data, err := ownjson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ownjson.Parse(data)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, data)
		}
		if !einvoicetest.SameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
		}
	})
}
