package einvoice_test

import (
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/storable"
)

func codesAt(fs []einvoice.Finding) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		out[f.Field] = f.Code
	}
	return out
}

// Every string of a document, wherever it sits, is checked and made
// storable: the walk is by reflection, so the fields are not listed here.
func TestStorageFindingsNameEveryUnstorableField(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, field string
		change      func(d *einvoice.Document)
		code        string
	}{
		{"NUL in the seller's name", "seller.name", func(d *einvoice.Document) { d.Seller.Name = "Evil\x00Corp" }, einvoice.CodeUnstorableText},
		{"NUL in the number", "number", func(d *einvoice.Document) { d.Number = "INV\x001" }, einvoice.CodeUnstorableText},
		{"invalid UTF-8 in a line", "lines[1].description", func(d *einvoice.Document) { d.Lines[1].Description = "caf\xe9" }, einvoice.CodeUnstorableText},
		{"invalid UTF-8 in a tax category", "tax_subtotals[0].category", func(d *einvoice.Document) { d.TaxSubtotals[0].Category = "\xff" }, einvoice.CodeUnstorableText},
		{"NUL in the buyer's VAT id", "buyer.vat_id", func(d *einvoice.Document) { d.Buyer.VATID = "\x00" }, einvoice.CodeUnstorableText},
		{"an absurd length", "billing_reference", func(d *einvoice.Document) { d.BillingReference = strings.Repeat("x", storable.MaxText+1) }, einvoice.CodeTextTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := einvoicetest.Invoice()
			tc.change(&d)
			if got := codesAt(einvoice.ValidateAt(d, now))[tc.field]; got != tc.code {
				t.Fatalf("finding at %s: %q, want %q (all: %v)", tc.field, got, tc.code, einvoice.ValidateAt(d, now))
			}
			clean := einvoice.MakeStorable(d)
			if fs := einvoice.StorageFindings(clean); len(fs) != 0 {
				t.Fatalf("made storable, still: %v", fs)
			}
			if fs := einvoice.StorageFindings(einvoicetest.Invoice()); len(fs) != 0 {
				t.Fatalf("MakeStorable changed its argument's lines: %v", fs)
			}
		})
	}
	d := einvoicetest.Invoice()
	d.Seller.Name = "Evil\x00Corp"
	if got := einvoice.MakeStorable(d).Seller.Name; got != "Evil\uFFFDCorp" {
		t.Fatalf("seller name made storable: %q", got)
	}
	if d.Seller.Name != "Evil\x00Corp" {
		t.Fatal("MakeStorable changed its argument")
	}
}

func TestAmountsBeyondTheLedgerAreFindings(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, field string
		change      func(d *einvoice.Document)
	}{
		{"17-digit unit price", "lines[0].unit_price", func(d *einvoice.Document) { d.Lines[0].UnitPrice = einvoicetest.Dec("12345678901234567") }},
		{"40-digit unit price", "lines[0].unit_price", func(d *einvoice.Document) {
			d.Lines[0].UnitPrice = einvoicetest.Dec("1234567890123456789012345678901234567890")
		}},
		{"a derived line net", "lines[0].net", func(d *einvoice.Document) {
			d.Lines[0].Quantity, d.Lines[0].UnitPrice = einvoicetest.Dec("100000000"), einvoicetest.Dec("100000000000")
		}},
		{"17-digit payable", "totals.payable", func(d *einvoice.Document) { d.Totals.Payable = einvoicetest.Dec("10000000000000000") }},
		{"quantity", "lines[1].quantity", func(d *einvoice.Document) { d.Lines[1].Quantity = einvoicetest.Dec("99999999999999999") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := einvoicetest.Invoice()
			tc.change(&d)
			if got := codesAt(einvoice.ValidateAt(d, now))[tc.field]; got != einvoice.CodeAmountOutOfRange {
				t.Fatalf("finding at %s: %q, want %s (all: %v)", tc.field, got, einvoice.CodeAmountOutOfRange, einvoice.ValidateAt(d, now))
			}
		})
	}
	d := einvoicetest.Invoice()
	d.Lines[0].Quantity, d.Lines[0].UnitPrice, d.Lines[0].Net = einvoicetest.Dec("1"), einvoicetest.Dec("9999999999999999.9999"), einvoicetest.Dec("9999999999999999.9999")
	for _, f := range einvoice.ValidateAt(d, now) {
		if f.Code == einvoice.CodeAmountOutOfRange {
			t.Fatalf("the ledger's largest amount refused: %v", f)
		}
	}
}

func TestTaxRatesAndZeroAmounts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		rate string
		bad  bool
	}{{"-25", true}, {"1000", true}, {"100.01", true}, {"0", false}, {"25", false}, {"100", false}} {
		d := einvoicetest.Invoice()
		d.Lines[0].TaxRate = einvoicetest.Dec(tc.rate)
		d.TaxSubtotals[0].Rate = einvoicetest.Dec(tc.rate)
		got := codesAt(einvoice.ValidateAt(d, now))
		if (got["lines[0].tax_rate"] == einvoice.CodeTaxRateOutOfRange) != tc.bad || (got["tax_subtotals[0].rate"] == einvoice.CodeTaxRateOutOfRange) != tc.bad {
			t.Errorf("rate %s: findings %v", tc.rate, got)
		}
	}
	zero, err := ownjson.Parse([]byte(`{"type":"invoice","number":"Z-1","issue_date":"2026-11-20","currency":"EUR",
		"seller":{"name":"Supplier AB"},"lines":[{"description":"free sample","quantity":"1","unit_price":"0","tax_rate":"25"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := codesAt(einvoice.ValidateAt(zero, now))["totals.payable"]; got != einvoice.CodeNothingToPost {
		t.Fatalf("a zero-amount invoice: %v", einvoice.ValidateAt(zero, now))
	}
}
