package einvoice

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	type finding struct{ code, field string }
	tests := []struct {
		name   string
		change func(d *Document)
		want   []finding
	}{
		{"valid", func(d *Document) {}, nil},

		{"type missing", func(d *Document) { d.Type = "" }, []finding{{CodeRequired, "type"}}},
		{"type unknown", func(d *Document) { d.Type = "bill" }, []finding{{CodeInvalidType, "type"}}},
		{"number missing", func(d *Document) { d.Number = " " }, []finding{{CodeNumberMissing, "number"}}},
		{"currency missing", func(d *Document) { d.Currency = "" }, []finding{{CodeCurrencyMissing, "currency"}}},
		{"currency lower case", func(d *Document) { d.Currency = "eur" }, []finding{{CodeInvalidCurrency, "currency"}}},
		{"currency not iso", func(d *Document) { d.Currency = "EURO" }, []finding{{CodeInvalidCurrency, "currency"}}},
		{"currency a metal", func(d *Document) { d.Currency = "XAU" }, []finding{{CodeInvalidCurrency, "currency"}}},
		{"seller without name or id", func(d *Document) { d.Seller = Party{} }, []finding{{CodeSellerName, "seller.name"}}},
		{"seller with only a vat id", func(d *Document) { d.Seller = Party{VATID: "SE556677889901"} }, []finding{{CodeSellerName, "seller.name"}}},
		{"seller with only an endpoint", func(d *Document) { d.Seller = Party{EndpointID: "5566778899", EndpointScheme: "0007"} }, []finding{{CodeSellerName, "seller.name"}}},
		{"seller name blank", func(d *Document) { d.Seller.Name = " \t" }, []finding{{CodeSellerName, "seller.name"}}},
		{"no lines", func(d *Document) { d.Lines = nil }, []finding{{CodeNoLines, "lines"}}},

		{"issue date missing", func(d *Document) { d.IssueDate = "" }, []finding{{CodeIssueDateMissing, "issue_date"}}},
		{"issue date not a day", func(d *Document) { d.IssueDate = "2026-02-30" }, []finding{{CodeInvalidDate, "issue_date"}}},
		{"issue date in another form", func(d *Document) { d.IssueDate = "20.11.2026" }, []finding{{CodeInvalidDate, "issue_date"}}},
		{"issue date before 2000", func(d *Document) { d.IssueDate, d.DueDate = "1999-12-31", "" }, []finding{{CodeIssueDateOutOfRange, "issue_date (warning)"}}},
		{"issue date 2000-01-01", func(d *Document) { d.IssueDate, d.DueDate = "2000-01-01", "" }, nil},
		{"issue date eleven months ahead", func(d *Document) { d.IssueDate, d.DueDate = "2027-11-01", "" }, nil},
		{"issue date over a year ahead", func(d *Document) { d.IssueDate, d.DueDate = "2027-12-03", "" }, []finding{{CodeIssueDateOutOfRange, "issue_date (warning)"}}},
		{"due date before issue", func(d *Document) { d.DueDate = "2026-11-19" }, []finding{{CodeDueBeforeIssue, "due_date (warning)"}}},
		{"due date on issue", func(d *Document) { d.DueDate = "2026-11-20" }, nil},
		{"due date not a date", func(d *Document) { d.DueDate = "soon" }, []finding{{CodeInvalidDate, "due_date"}}},

		{"line net wrong", func(d *Document) { d.Lines[1].Net = Dec("33.00"); fixSums(d) }, []finding{{CodeLineNet, "lines[1].net (warning)"}}},
		{"line net within half a cent", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice = Dec("3"), Dec("9.9999")
		}, nil},
		{"line net a cent off", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice = Dec("3"), Dec("9.9966")
		}, []finding{{CodeLineNet, "lines[1].net (warning)"}}},
		{"price per base quantity", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = Dec("1500"), Dec("2.00"), Dec("100")
		}, nil},
		{"base quantity wrongly holding the price", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = Dec("3"), Dec("10.00"), Dec("10.00")
		}, nil},
		{"base quantity that fits neither reading", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity = Dec("3"), Dec("12.00"), Dec("2")
		}, []finding{{CodeLineNet, "lines[1].net (warning)"}}},
		{"line with line-level allowances is not recomputed", func(d *Document) {
			d.Lines[1].Net, d.Lines[1].Allowances = Dec("33.00"), Dec("1.00")
			fixSums(d)
		}, nil},

		{"line total not the sum", func(d *Document) { d.Totals.LineTotal = Dec("131.00") }, []finding{
			{CodeLineTotal, "totals.line_total"}, {CodeNetTotal, "totals.net"},
		}},
		{"document allowance not subtracted", func(d *Document) { d.Totals.AllowanceTotal = Dec("10.00") }, []finding{{CodeNetTotal, "totals.net"}}},
		{"document allowance and charge", func(d *Document) {
			d.Totals.AllowanceTotal, d.Totals.ChargeTotal, d.Totals.Net = Dec("10.00"), Dec("4.00"), Dec("124.00")
			d.TaxSubtotals[0].Taxable, d.TaxSubtotals[0].Tax = Dec("94.00"), Dec("23.50")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = Dec("25.30"), Dec("149.30"), Dec("149.30")
		}, nil},
		{"tax not the sum of subtotals", func(d *Document) {
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = Dec("26.00"), Dec("156.00"), Dec("156.00")
		}, []finding{{CodeTaxTotal, "totals.tax"}}},
		{"subtotal tax a cent off is rounding", func(d *Document) {
			d.TaxSubtotals[1].Tax = Dec("1.81")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = Dec("26.81"), Dec("156.81"), Dec("156.81")
		}, nil},
		{"subtotal tax two cents off", func(d *Document) {
			d.TaxSubtotals[1].Tax = Dec("1.82")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = Dec("26.82"), Dec("156.82"), Dec("156.82")
		}, []finding{{CodeSubtotalTax, "tax_subtotals[1].tax (warning)"}}},
		{"gross not net plus tax", func(d *Document) { d.Totals.Gross = Dec("156.08") }, []finding{
			{CodeGrossTotal, "totals.gross"}, {CodePayable, "totals.payable"},
		}},
		{"payable ignores prepaid", func(d *Document) { d.Totals.Prepaid = Dec("50.00") }, []finding{{CodePayable, "totals.payable"}}},
		{"payable with prepaid and rounding", func(d *Document) {
			d.Totals.Prepaid, d.Totals.Rounding, d.Totals.Payable = Dec("50.00"), Dec("0.20"), Dec("107.00")
		}, nil},

		{"credit note with the standard's positive amounts", func(d *Document) { d.Type, d.TypeCode = TypeCreditNote, "381" }, nil},
		{"credit note with negative amounts that add up", func(d *Document) {
			d.Type, d.TypeCode = TypeCreditNote, "381"
			for i := range d.Lines {
				d.Lines[i].Quantity, d.Lines[i].Net = d.Lines[i].Quantity.Neg(), d.Lines[i].Net.Neg()
			}
			for i := range d.TaxSubtotals {
				d.TaxSubtotals[i].Taxable, d.TaxSubtotals[i].Tax = d.TaxSubtotals[i].Taxable.Neg(), d.TaxSubtotals[i].Tax.Neg()
			}
			d.Totals = TotalsOf("-130.00", "0", "0", "-130.00", "-26.80", "-156.80", "0", "0", "-156.80")
		}, nil},
		{"yen are compared to the yen", func(d *Document) {
			d.Currency = "JPY"
			d.Lines[0].UnitPrice, d.Lines[0].Net = Dec("50.2"), Dec("100")
			d.Totals.LineTotal = Dec("130.4")
		}, nil},
		{"three-decimal currency", func(d *Document) {
			d.Currency = "KWD"
			d.Lines[0].UnitPrice, d.Lines[0].Net = Dec("50.0005"), Dec("100.001")
			fixSums(d)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Invoice()
			tt.change(&d)
			got := ValidateAt(d, Now)
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
func fixSums(d *Document) {
	minor := MinorUnitsOf(d.Currency)
	d.TaxSubtotals = ComputeSubtotals(d.Lines, minor)
	d.Totals.LineTotal = SumLineNets(d.Lines)
	d.Totals.Net = d.Totals.LineTotal.Sub(d.Totals.AllowanceTotal).Add(d.Totals.ChargeTotal)
	d.Totals.Tax = SumSubtotalTax(d.TaxSubtotals)
	d.Totals.Gross = d.Totals.Net.Add(d.Totals.Tax)
	d.Totals.Payable = d.Totals.Gross.Sub(d.Totals.Prepaid).Add(d.Totals.Rounding)
}

func TestValidateMessages(t *testing.T) {
	t.Parallel()
	d, err := Parse(ReadTestdata(t, "ubl-invoice-bad-total.xml"))
	if err != nil {
		t.Fatal(err)
	}
	findings := ValidateAt(d, Now)
	if len(findings) != 1 {
		t.Fatalf("findings %+v, want one", findings)
	}
	want := Finding{
		Code:     CodePayable,
		Severity: SeverityFatal,
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
		change    func(d *Document)
		wantFatal []string // codes, in order; nil: no fatal finding
	}{
		{"return line with a positive quantity and a negative net", func(d *Document) {
			d.Lines = append(d.Lines, Line{Description: "Returned widget", Quantity: Dec("1"), UnitPrice: Dec("50.00"), Net: Dec("-50.00"), TaxRate: Dec("25"), TaxCategory: "S"})
			fixSums(d)
		}, nil},
		{"price per base quantity of 2", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].PriceBaseQuantity, d.Lines[1].Net = Dec("3"), Dec("20.00"), Dec("2"), Dec("30.00")
			fixSums(d)
		}, nil},
		{"line net rounded from the unrounded price behind a 4-decimal price", func(d *Document) {
			d.Lines[1].Quantity, d.Lines[1].UnitPrice, d.Lines[1].Net = Dec("1000"), Dec("0.3333"), Dec("333.33")
			fixSums(d)
		}, nil},
		{"due date before the issue date of a prepaid invoice", func(d *Document) {
			d.DueDate = "2026-11-01"
			d.Totals.Prepaid, d.Totals.Payable = d.Totals.Gross, Dec("0")
		}, nil},
		{"HUF VAT subtotal rounded to whole forint", func(d *Document) {
			d.Currency = "HUF"
			d.Lines = []Line{{Description: "Szolgáltatás", Quantity: Dec("1"), UnitPrice: Dec("12345"), Net: Dec("12345"), TaxRate: Dec("27"), TaxCategory: "S"}}
			d.TaxSubtotals = []TaxSubtotal{{Category: "S", Rate: Dec("27"), Taxable: Dec("12345"), Tax: Dec("3333")}} // 3333.15 exactly
			d.Totals = TotalsOf("12345", "0", "0", "12345", "3333", "15678", "0", "0", "15678")
		}, nil},
		{"VAT subtotal rounded down where the ledger rounds half up", func(d *Document) {
			d.TaxSubtotals[1].Taxable = Dec("30.10") // 1.806
			d.Lines[1].UnitPrice, d.Lines[1].Net = Dec("10.0333"), Dec("30.10")
			d.TaxSubtotals[1].Tax = Dec("1.80")
			d.Totals = TotalsOf("130.10", "0", "0", "130.10", "26.80", "156.90", "0", "0", "156.90")
		}, nil},

		{"amount due is not total with VAT − paid + rounding", func(d *Document) { d.Totals.Payable = Dec("157.80") }, []string{CodePayable}},
		{"currency is not ISO 4217", func(d *Document) { d.Currency = "EUX" }, []string{CodeInvalidCurrency}},
		{"seller name missing", func(d *Document) { d.Seller.Name = "" }, []string{CodeSellerName}},
		{"VAT subtotal more than one unit off", func(d *Document) {
			d.TaxSubtotals[0].Tax = Dec("26.01")
			d.Totals = TotalsOf("130.00", "0", "0", "130.00", "27.81", "157.81", "0", "0", "157.81")
		}, []string{CodeVATCategoryTax}},
		{"zero rate with tax", func(d *Document) {
			d.Lines[1].TaxRate, d.TaxSubtotals[1].Rate = Dec("0"), Dec("0")
			d.Totals.Tax, d.Totals.Gross, d.Totals.Payable = Dec("26.80"), Dec("156.80"), Dec("156.80")
		}, []string{CodeVATCategoryTax}},
		{"line total is not the sum of the lines", func(d *Document) { d.Totals.LineTotal = Dec("130.02") }, []string{CodeLineTotal, CodeNetTotal}},
		{"gross is not net + tax", func(d *Document) { d.Totals.Gross, d.Totals.Payable = Dec("156.90"), Dec("156.90") }, []string{CodeGrossTotal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Invoice()
			tt.change(&d)
			var fatal []string
			for _, f := range ValidateAt(d, Now) {
				if f.Fatal() {
					fatal = append(fatal, f.Code)
				}
			}
			if strings.Join(fatal, ",") != strings.Join(tt.wantFatal, ",") {
				t.Errorf("fatal findings %v, want %v\n%+v", fatal, tt.wantFatal, ValidateAt(d, Now))
			}
		})
	}
}

// TestSchematronRounding: halves round toward positive infinity, as XPath's round does.
func TestSchematronRounding(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1.005": "1.01", "-1.005": "-1", "2.344": "2.34", "-2.346": "-2.35", "0": "0"} {
		if got := schematronRound2(Dec(in)); !got.Equal(Dec(want)) {
			t.Errorf("schematronRound2(%s) = %s, want %s", in, got, want)
		}
	}
}
