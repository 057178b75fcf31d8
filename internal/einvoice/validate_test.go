package einvoice_test

import (
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	type finding struct{ code, field string }
	tests := []struct {
		name   string
		change func(d *einvoice.Document)
		want   []finding
	}{
		{"valid", func(d *einvoice.Document) {}, nil},

		{"type missing", func(d *einvoice.Document) { d.Type = "" }, []finding{{einvoice.CodeRequired, "type"}}},
		{"type unknown", func(d *einvoice.Document) { d.Type = "bill" }, []finding{{einvoice.CodeInvalidType, "type"}}},
		{"number missing", func(d *einvoice.Document) { d.Number = " " }, []finding{{einvoice.CodeNumberMissing, "number"}}},
		{"currency missing", func(d *einvoice.Document) { d.Currency = "" }, []finding{{einvoice.CodeCurrencyMissing, "currency"}}},
		{"currency lower case", func(d *einvoice.Document) { d.Currency = "eur" }, []finding{{einvoice.CodeInvalidCurrency, "currency"}}},
		{"currency not iso", func(d *einvoice.Document) { d.Currency = "EURO" }, []finding{{einvoice.CodeInvalidCurrency, "currency"}}},
		{"currency a metal", func(d *einvoice.Document) { d.Currency = "XAU" }, []finding{{einvoice.CodeInvalidCurrency, "currency"}}},
		{"seller without name or id", func(d *einvoice.Document) { d.Seller = einvoice.Party{} }, []finding{{einvoice.CodeSellerName, "seller.name"}}},
		{"seller with only a vat id", func(d *einvoice.Document) { d.Seller = einvoice.Party{VATID: "SE556677889901"} }, []finding{{einvoice.CodeSellerName, "seller.name"}}},
		{"seller with only an endpoint", func(d *einvoice.Document) {
			d.Seller = einvoice.Party{EndpointID: "5566778899", EndpointScheme: "0007"}
		}, []finding{{einvoice.CodeSellerName, "seller.name"}}},
		{"seller name blank", func(d *einvoice.Document) { d.Seller.Name = " \t" }, []finding{{einvoice.CodeSellerName, "seller.name"}}},
		{"no lines", func(d *einvoice.Document) { d.Lines = nil }, []finding{{einvoice.CodeNoLines, "lines"}}},

		{"issue date missing", func(d *einvoice.Document) { d.IssueDate = "" }, []finding{{einvoice.CodeIssueDateMissing, "issue_date"}}},
		{"issue date not a day", func(d *einvoice.Document) { d.IssueDate = "2026-02-30" }, []finding{{einvoice.CodeInvalidDate, "issue_date"}}},
		{"issue date in another form", func(d *einvoice.Document) { d.IssueDate = "20.11.2026" }, []finding{{einvoice.CodeInvalidDate, "issue_date"}}},
		{"issue date before 2000", func(d *einvoice.Document) { d.IssueDate, d.DueDate = "1999-12-31", "" }, []finding{{einvoice.CodeIssueDateOutOfRange, "issue_date (warning)"}}},
		{"issue date 2000-01-01", func(d *einvoice.Document) { d.IssueDate, d.DueDate = "2000-01-01", "" }, nil},
		{"issue date eleven months ahead", func(d *einvoice.Document) { d.IssueDate, d.DueDate = "2027-11-01", "" }, nil},
		{"issue date over a year ahead", func(d *einvoice.Document) { d.IssueDate, d.DueDate = "2027-12-03", "" }, []finding{{einvoice.CodeIssueDateOutOfRange, "issue_date (warning)"}}},
		{"due date before issue", func(d *einvoice.Document) { d.DueDate = "2026-11-19" }, []finding{{einvoice.CodeDueBeforeIssue, "due_date (warning)"}}},
		{"due date on issue", func(d *einvoice.Document) { d.DueDate = "2026-11-20" }, nil},
		{"due date not a date", func(d *einvoice.Document) { d.DueDate = "soon" }, []finding{{einvoice.CodeInvalidDate, "due_date"}}},

		{"line net wrong", func(d *einvoice.Document) { d.Lines[1].Net = einvoicetest.Dec("33.00"); fixSums(d) }, []finding{{einvoice.CodeLineNet, "lines[1].net (warning)"}}},
		{"line net within half a cent", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice = einvoicetest.Dec("3"), einvoicetest.Dec("9.9999")
		}, nil},
		{"line net a cent off", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice = einvoicetest.Dec("3"), einvoicetest.Dec("9.9966")
		}, []finding{{einvoice.CodeLineNet, "lines[1].net (warning)"}}},
		{"price per base quantity", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = einvoicetest.Dec("1500"), einvoicetest.Dec("2.00"), einvoicetest.Dec("100")
		}, nil},
		{"base quantity wrongly holding the price", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = einvoicetest.Dec("3"), einvoicetest.Dec("10.00"), einvoicetest.Dec("10.00")
		}, nil},
		{"base quantity that fits neither reading", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = einvoicetest.Dec("3"), einvoicetest.Dec("12.00"), einvoicetest.Dec("2")
		}, []finding{{einvoice.CodeLineNet, "lines[1].net (warning)"}}},
		{"line with line-level allowances is not recomputed", func(d *einvoice.Document) {
			d.Lines[1].Net, d.Lines[1].Allowances = einvoicetest.Dec("33.00"), einvoicetest.Dec("1.00")
			fixSums(d)
		}, nil},

		{"line total not the sum", func(d *einvoice.Document) { d.Totals.LineTotal = einvoicetest.Dec("131.00") }, []finding{
			{einvoice.CodeLineTotal, "totals.line_total"}, {einvoice.CodeNetTotal, "totals.net"},
		}},
		{"document allowance not subtracted", func(d *einvoice.Document) { d.Totals.AllowanceTotal = einvoicetest.Dec("10.00") }, []finding{{einvoice.CodeNetTotal, "totals.net"}}},
		{"document allowance and charge", func(d *einvoice.Document) {
			d.Totals.AllowanceTotal, d.Totals.ChargeTotal, d.Totals.Net = einvoicetest.Dec("10.00"), einvoicetest.Dec("4.00"), einvoicetest.Dec("124.00")
			d.TaxSubtotals[0].Taxable, d.TaxSubtotals[0].Tax = einvoicetest.Dec("94.00"), einvoicetest.Dec("23.50")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("25.30"), einvoicetest.Dec("149.30"), einvoicetest.Dec("149.30")
		}, nil},
		{"tax not the sum of subtotals", func(d *einvoice.Document) {
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("26.00"), einvoicetest.Dec("156.00"), einvoicetest.Dec("156.00")
		}, []finding{{einvoice.CodeTaxTotal, "totals.tax"}}},
		{"subtotal tax a cent off is rounding", func(d *einvoice.Document) {
			d.TaxSubtotals[1].Tax = einvoicetest.Dec("1.81")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("26.81"), einvoicetest.Dec("156.81"), einvoicetest.Dec("156.81")
		}, nil},
		{"subtotal tax two cents off", func(d *einvoice.Document) {
			d.TaxSubtotals[1].Tax = einvoicetest.Dec("1.82")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("26.82"), einvoicetest.Dec("156.82"), einvoicetest.Dec("156.82")
		}, []finding{{einvoice.CodeSubtotalTax, "tax_subtotals[1].tax (warning)"}}},
		{"gross not net plus tax", func(d *einvoice.Document) { d.Totals.Gross = einvoicetest.Dec("156.08") }, []finding{
			{einvoice.CodeGrossTotal, "totals.gross"}, {einvoice.CodePayable, "totals.payable"},
		}},
		{"payable ignores prepaid", func(d *einvoice.Document) { d.Totals.Prepaid = einvoicetest.Dec("50.00") }, []finding{{einvoice.CodePayable, "totals.payable"}}},
		{"payable with prepaid and rounding", func(d *einvoice.Document) {
			d.Totals.Prepaid, d.Totals.Rounding, d.Totals.Payable = einvoicetest.Dec("50.00"), einvoicetest.Dec("0.20"), einvoicetest.Dec("107.00")
		}, nil},

		{"credit note with the standard's positive amounts", func(d *einvoice.Document) { d.Type, d.TypeCode = einvoice.TypeCreditNote, "381" }, nil},
		{"credit note with negative amounts that add up", func(d *einvoice.Document) {
			d.Type, d.TypeCode = einvoice.TypeCreditNote, "381"
			for i := range d.Lines {
				d.Lines[i].Quantity, d.Lines[i].Net = d.Lines[i].Quantity.Neg(), d.Lines[i].Net.Neg()
			}
			for i := range d.TaxSubtotals {
				d.TaxSubtotals[i].Taxable, d.TaxSubtotals[i].Tax = d.TaxSubtotals[i].Taxable.Neg(), d.TaxSubtotals[i].Tax.Neg()
			}
			d.Totals = einvoicetest.TotalsOf("-130.00", "0", "0", "-130.00", "-26.80", "-156.80", "0", "0", "-156.80")
		}, nil},
		{"yen are compared to the yen", func(d *einvoice.Document) {
			d.Currency = "JPY"
			d.Lines[0].UnitPrice, d.Lines[0].Net = einvoicetest.Dec("50.2"), einvoicetest.Dec("100")
			d.Totals.LineTotal = einvoicetest.Dec("130.4")
		}, nil},
		{"three-decimal currency", func(d *einvoice.Document) {
			d.Currency = "KWD"
			d.Lines[0].UnitPrice, d.Lines[0].Net = einvoicetest.Dec("50.0005"), einvoicetest.Dec("100.001")
			fixSums(d)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := einvoicetest.Invoice()
			tt.change(&d)
			got := einvoice.ValidateAt(d, einvoicetest.Now)
			var gotPairs, wantPairs []string
			for _, f := range got {
				pair := f.Code + " " + f.Field
				if !f.Fatal() {
					pair += " (" + string(f.Severity) + ")"
				}
				gotPairs = append(gotPairs, pair)
				if f.Message == "" {
					t.Errorf("finding %+v has no message", f)
				}
			}
			for _, f := range tt.want {
				wantPairs = append(wantPairs, f.code+" "+f.field)
			}
			if strings.Join(gotPairs, "; ") != strings.Join(wantPairs, "; ") {
				t.Errorf("findings\n got %v\nwant %v\n%+v", gotPairs, wantPairs, got)
			}
			if len(tt.want) == 0 && got != nil {
				t.Errorf("ValidateAt returned %#v, want nil", got)
			}
		})
	}
}

// fixSums recomputes the totals from the lines, so a test can break one line rule alone.
func fixSums(d *einvoice.Document) {
	minor := einvoice.MinorUnitsOf(d.Currency)
	d.TaxSubtotals = einvoice.ComputeSubtotals(d.Lines, minor)
	d.Totals.LineTotal = einvoice.SumLineNets(d.Lines)
	d.Totals.Net = d.Totals.LineTotal.Sub(d.Totals.AllowanceTotal).Add(d.Totals.ChargeTotal)
	d.Totals.Tax = einvoice.SumSubtotalTax(d.TaxSubtotals)
	d.Totals.Gross = d.Totals.Net.Add(d.Totals.Tax)
	d.Totals.Payable = d.Totals.Gross.Sub(d.Totals.Prepaid).Add(d.Totals.Rounding)
}

func TestValidateMessages(t *testing.T) {
	t.Parallel()
	d, err := read.Parse(einvoicetest.ReadTestdata(t, "ubl-invoice-bad-total.xml"))
	if err != nil {
		t.Fatal(err)
	}
	findings := einvoice.ValidateAt(d, einvoicetest.Now)
	if len(findings) != 1 {
		t.Fatalf("findings %+v, want one", findings)
	}
	want := einvoice.Finding{
		Code:     einvoice.CodePayable,
		Severity: einvoice.SeverityFatal,
		Field:    "totals.payable",
		Message:  "amount due (BT-115) 24231.00 is not total with VAT 24321.07 − paid 0.00 + rounding -0.07 = 24321.00",
	}
	if findings[0] != want {
		t.Errorf("finding\n got %+v\nwant %+v", findings[0], want)
	}
}

// TestNeverStricterThanTheStandard: invoices that EN 16931 accepts and the product's own arithmetic
// once refused come out with warnings at most, and the standard's fatal rules keep their official ids.
func TestNeverStricterThanTheStandard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		change    func(d *einvoice.Document)
		wantFatal []string // codes, in order; nil: no fatal finding
	}{
		{"return line with a positive quantity and a negative net", func(d *einvoice.Document) {
			d.Lines = append(d.Lines, einvoice.Line{Description: "Returned widget", Quantity: einvoicetest.Dec("1"), UnitPrice: einvoicetest.Dec("50.00"), Net: einvoicetest.Dec("-50.00"), TaxRate: einvoicetest.Dec("25"), TaxCategory: "S"})
			fixSums(d)
		}, nil},
		{"price per base quantity of 2", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity, d.Lines[1].Net = einvoicetest.Dec("3"), einvoicetest.Dec("20.00"), einvoicetest.Dec("2"), einvoicetest.Dec("30.00")
			fixSums(d)
		}, nil},
		{"line net rounded from the unrounded price behind a 4-decimal price", func(d *einvoice.Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].Net = einvoicetest.Dec("1000"), einvoicetest.Dec("0.3333"), einvoicetest.Dec("333.33")
			fixSums(d)
		}, nil},
		{"due date before the issue date of a prepaid invoice", func(d *einvoice.Document) {
			d.DueDate = "2026-11-01"
			d.Totals.Prepaid, d.Totals.Payable = d.Totals.Gross, einvoicetest.Dec("0")
		}, nil},
		{"HUF VAT subtotal rounded to whole forint", func(d *einvoice.Document) {
			d.Currency = "HUF"
			d.Lines = []einvoice.Line{{Description: "Szolgáltatás", Quantity: einvoicetest.Dec("1"), UnitPrice: einvoicetest.Dec("12345"), Net: einvoicetest.Dec("12345"), TaxRate: einvoicetest.Dec("27"), TaxCategory: "S"}}
			d.TaxSubtotals = []einvoice.TaxSubtotal{{Category: "S", Rate: einvoicetest.Dec("27"), Taxable: einvoicetest.Dec("12345"), Tax: einvoicetest.Dec("3333")}} // 3333.15 exactly
			d.Totals = einvoicetest.TotalsOf("12345", "0", "0", "12345", "3333", "15678", "0", "0", "15678")
		}, nil},
		{"VAT subtotal rounded down where the ledger rounds half up", func(d *einvoice.Document) {
			d.TaxSubtotals[1].Taxable = einvoicetest.Dec("30.10") // 1.806
			d.Lines[1].UnitPrice, d.Lines[1].Net = einvoicetest.Dec("10.0333"), einvoicetest.Dec("30.10")
			d.TaxSubtotals[1].Tax = einvoicetest.Dec("1.80")
			d.Totals = einvoicetest.TotalsOf("130.10", "0", "0", "130.10", "26.80", "156.90", "0", "0", "156.90")
		}, nil},

		{"amount due is not total with VAT − paid + rounding", func(d *einvoice.Document) { d.Totals.Payable = einvoicetest.Dec("157.80") }, []string{einvoice.CodePayable}},
		{"currency is not ISO 4217", func(d *einvoice.Document) { d.Currency = "EUX" }, []string{einvoice.CodeInvalidCurrency}},
		{"seller name missing", func(d *einvoice.Document) { d.Seller.Name = "" }, []string{einvoice.CodeSellerName}},
		{"VAT subtotal more than one unit off", func(d *einvoice.Document) {
			d.TaxSubtotals[0].Tax = einvoicetest.Dec("26.01")
			d.Totals = einvoicetest.TotalsOf("130.00", "0", "0", "130.00", "27.81", "157.81", "0", "0", "157.81")
		}, []string{einvoice.CodeVATCategoryTax}},
		{"zero rate with tax", func(d *einvoice.Document) {
			d.Lines[1].TaxRate, d.TaxSubtotals[1].Rate = einvoicetest.Dec("0"), einvoicetest.Dec("0")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("26.80"), einvoicetest.Dec("156.80"), einvoicetest.Dec("156.80")
		}, []string{einvoice.CodeVATCategoryTax}},
		{"line total is not the sum of the lines", func(d *einvoice.Document) { d.Totals.LineTotal = einvoicetest.Dec("130.02") }, []string{einvoice.CodeLineTotal, einvoice.CodeNetTotal}},
		{"gross is not net + tax", func(d *einvoice.Document) {
			d.Totals.Gross, d.Totals.Payable = einvoicetest.Dec("156.90"), einvoicetest.Dec("156.90")
		}, []string{einvoice.CodeGrossTotal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := einvoicetest.Invoice()
			tt.change(&d)
			var fatal []string
			for _, f := range einvoice.ValidateAt(d, einvoicetest.Now) {
				if f.Fatal() {
					fatal = append(fatal, f.Code)
				}
			}
			if strings.Join(fatal, ",") != strings.Join(tt.wantFatal, ",") {
				t.Errorf("fatal findings %v, want %v\n%+v", fatal, tt.wantFatal, einvoice.ValidateAt(d, einvoicetest.Now))
			}
		})
	}
}

// TestSchematronRounding: halves round toward positive infinity, as XPath's round does.
func TestSchematronRounding(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1.005": "1.01", "-1.005": "-1", "2.344": "2.34", "-2.346": "-2.35", "0": "0"} {
		if got := einvoice.SchematronRound2(einvoicetest.Dec(in)); !got.Equal(einvoicetest.Dec(want)) {
			t.Errorf("einvoice.SchematronRound2(%s) = %s, want %s", in, got, want)
		}
	}
}
