package bookkeeper

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func invoice() einvoice.Document {
	return einvoice.Document{Type: einvoice.TypeInvoice, Number: "INV-1", IssueDate: "2026-11-20", Currency: "EUR",
		Seller: einvoice.Party{Name: "Supplier AB"},
		TaxSubtotals: []einvoice.TaxSubtotal{
			{Rate: dec("25"), Taxable: dec("100"), Tax: dec("25")},
			{Rate: dec("12"), Taxable: dec("50"), Tax: dec("6")},
		},
		Totals: einvoice.Totals{Net: dec("150"), Tax: dec("31"), Gross: dec("181"), Payable: dec("181")}}
}

func balanced(t interface{ Fatalf(string, ...any) }, lines []struct{ d, c, bd, bc decimal.Decimal }) {
	var d, c, bd, bc decimal.Decimal
	for _, l := range lines {
		d, c, bd, bc = d.Add(l.d), c.Add(l.c), bd.Add(l.bd), bc.Add(l.bc)
	}
	if !d.Equal(c) || !bd.Equal(bc) {
		t.Fatalf("unbalanced: debits %s credits %s, base %s %s", d, c, bd, bc)
	}
}

func TestInvoiceEntry(t *testing.T) {
	req, err := Bill{OrgID: 1, IntakeID: 7, Document: invoice(), Supplier: "vat:SE1", Expense: "6200", BaseCurrency: "EUR", Rate: dec("1")}.Entry()
	if err != nil {
		t.Fatal(err)
	}
	if req.SourceType != "intake" || req.SourceID != "7" || req.EntrySet != "bill" || req.Date != "2026-11-20" {
		t.Fatalf("source key: %+v", req.SourceKey)
	}
	want := []struct {
		account       string
		debit, credit string
	}{{"6200", "50", "0"}, {"6200", "100", "0"}, {"1400", "6", "0"}, {"1400", "25", "0"}, {"2000", "0", "181"}}
	if len(req.Lines) != len(want) {
		t.Fatalf("lines: %+v", req.Lines)
	}
	for i, w := range want {
		l := req.Lines[i]
		if l.Account != w.account || !l.Debit.Equal(dec(w.debit)) || !l.Credit.Equal(dec(w.credit)) {
			t.Errorf("line %d: %s %s/%s, want %+v", i, l.Account, l.Debit, l.Credit, w)
		}
	}
	if req.Lines[3].Dimensions["vat_rate"] != "25" || req.Lines[1].Dimensions["vat_rate"] != "25" || req.Lines[0].Dimensions["supplier"] != "vat:SE1" {
		t.Fatalf("dimensions: %+v", req.Lines)
	}
	// A credit note mirrors it.
	cn := invoice()
	cn.Type = einvoice.TypeCreditNote
	mirror, err := Bill{OrgID: 1, IntakeID: 8, Document: cn, Expense: "6200", BaseCurrency: "EUR", Rate: dec("1")}.Entry()
	if err != nil {
		t.Fatal(err)
	}
	if !mirror.Lines[1].Credit.Equal(dec("100")) || !mirror.Lines[4].Debit.Equal(dec("181")) {
		t.Fatalf("credit note: %+v", mirror.Lines)
	}
}

func TestForeignCurrencyCarriesBalancedBaseAmounts(t *testing.T) {
	d := invoice()
	d.Currency = "SEK"
	req, err := Bill{OrgID: 1, IntakeID: 9, Document: d, Expense: "6000", BaseCurrency: "EUR", Rate: dec("0.087133")}.Entry()
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ d, c, bd, bc decimal.Decimal }
	for _, l := range req.Lines {
		if l.BaseDebit == nil && l.BaseCredit == nil {
			t.Fatalf("a foreign line without base amounts: %+v", l)
		}
		r := struct{ d, c, bd, bc decimal.Decimal }{d: l.Debit, c: l.Credit}
		if l.BaseDebit != nil {
			r.bd = *l.BaseDebit
		}
		if l.BaseCredit != nil {
			r.bc = *l.BaseCredit
		}
		rows = append(rows, r)
	}
	balanced(t, rows)
	if !rows[1].bd.Equal(dec("8.71")) {
		t.Fatalf("100 SEK at 0.087133: %s", rows[1].bd)
	}
}

// Whatever the document, the entry balances in its currency and in base.
func TestEveryEntryBalances(t *testing.T) {
	amount := func(t *rapid.T, label string) decimal.Decimal {
		return decimal.New(rapid.Int64Range(-1_000_000, 10_000_000).Draw(t, label), -2)
	}
	rapid.Check(t, func(t *rapid.T) {
		d := invoice()
		if rapid.Bool().Draw(t, "credit note") {
			d.Type = einvoice.TypeCreditNote
		}
		d.TaxSubtotals = nil
		n := rapid.IntRange(0, 4).Draw(t, "subtotals")
		tax := decimal.Zero
		for i := range n {
			st := einvoice.TaxSubtotal{Rate: decimal.New(int64(i*6), 0), Tax: amount(t, fmt.Sprint("tax", i))}
			d.TaxSubtotals = append(d.TaxSubtotals, st)
			tax = tax.Add(st.Tax)
		}
		d.Totals.Net = amount(t, "net")
		d.Totals.Tax = tax.Add(amount(t, "untaxed rest"))
		d.Totals.Prepaid = amount(t, "prepaid").Abs()
		d.Totals.Rounding = decimal.New(rapid.Int64Range(-99, 99).Draw(t, "rounding"), -2)
		d.Totals.Payable = d.Totals.Net.Add(d.Totals.Tax).Sub(d.Totals.Prepaid).Add(d.Totals.Rounding)
		base, rate := "EUR", dec("1")
		if rapid.Bool().Draw(t, "foreign") {
			d.Currency, rate = "SEK", decimal.New(rapid.Int64Range(1, 10_000_000).Draw(t, "rate"), -6)
		}
		req, err := Bill{OrgID: 1, IntakeID: 1, Document: d, Expense: "6000", BaseCurrency: base, Rate: rate}.Entry()
		if err != nil {
			return // nothing to post: every amount zero
		}
		var rows []struct{ d, c, bd, bc decimal.Decimal }
		for _, l := range req.Lines {
			if l.Debit.IsNegative() || l.Credit.IsNegative() || l.Debit.IsPositive() == l.Credit.IsPositive() {
				t.Fatalf("a line must have exactly one positive side: %+v", l)
			}
			r := struct{ d, c, bd, bc decimal.Decimal }{d: l.Debit, c: l.Credit, bd: l.Debit, bc: l.Credit}
			if d.Currency != base {
				r.bd, r.bc = decimal.Zero, decimal.Zero
				if l.BaseDebit != nil {
					r.bd = *l.BaseDebit
				}
				if l.BaseCredit != nil {
					r.bc = *l.BaseCredit
				}
			}
			rows = append(rows, r)
		}
		balanced(t, rows)
	})
}

func TestALongSellerNameStillMakesAValidDescription(t *testing.T) {
	t.Parallel()
	d := invoice()
	d.Seller.Name = "a" + strings.Repeat("ö", 400) // a two-byte character straddles byte 500
	req, err := Bill{OrgID: 1, IntakeID: 7, Document: d, Supplier: "vat:SE1", Expense: "6200", BaseCurrency: "EUR", Rate: dec("1")}.Entry()
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(req.Description) || len(req.Description) > 500 {
		t.Fatalf("description of %d bytes, valid UTF-8 %v", len(req.Description), utf8.ValidString(req.Description))
	}
}

// TestEntryFromTheStatedAmounts: the entry is built from the document's
// stated totals and VAT breakdown, and credits accounts payable with the
// amount due (BT-115) to the cent, whatever the document looks like.
func TestEntryFromTheStatedAmounts(t *testing.T) {
	t.Parallel()
	type line struct{ account, debit, credit, kind string }
	tests := []struct {
		name   string
		change func(d *einvoice.Document)
		want   []line
	}{
		{"no lines, a VAT breakdown (Factur-X BASIC WL)", func(d *einvoice.Document) { d.Lines = nil },
			[]line{{"6000", "50", "0", ""}, {"6000", "100", "0", ""}, {"1400", "6", "0", ""}, {"1400", "25", "0", ""}, {"2000", "0", "181", ""}}},
		{"paid in advance and rounded", func(d *einvoice.Document) {
			d.Totals.Prepaid, d.Totals.Rounding, d.Totals.Payable = dec("100"), dec("0.40"), dec("81.40")
		}, []line{{"6000", "50", "0", ""}, {"6000", "100", "0", ""}, {"1400", "6", "0", ""}, {"1400", "25", "0", ""},
			{"6000", "0.4", "0", "rounding"}, {"1500", "0", "100", ""}, {"2000", "0", "81.4", ""}}},
		{"a negative breakdown (returns) and document charges in the net", func(d *einvoice.Document) {
			d.TaxSubtotals[1] = einvoice.TaxSubtotal{Rate: dec("12"), Taxable: dec("-50"), Tax: dec("-6")}
			d.TaxSubtotals[0] = einvoice.TaxSubtotal{Rate: dec("25"), Taxable: dec("110"), Tax: dec("27.50")}
			d.Totals = einvoice.Totals{LineTotal: dec("50"), ChargeTotal: dec("10"), Net: dec("60"), Tax: dec("21.50"), Gross: dec("81.50"), Payable: dec("81.50")}
		}, []line{{"6000", "0", "50", ""}, {"6000", "110", "0", ""}, {"1400", "0", "6", ""}, {"1400", "27.5", "0", ""}, {"2000", "0", "81.5", ""}}},
		{"only totals (Factur-X MINIMUM)", func(d *einvoice.Document) { d.TaxSubtotals = nil },
			[]line{{"6000", "150", "0", ""}, {"1400", "31", "0", ""}, {"2000", "0", "181", ""}}},
		{"an amount due that does not add up, approved anyway", func(d *einvoice.Document) { d.Totals.Payable = dec("182") },
			[]line{{"6000", "50", "0", ""}, {"6000", "100", "0", ""}, {"1400", "6", "0", ""}, {"1400", "25", "0", ""}, {"2000", "0", "182", ""},
				{"6000", "1", "0", "discrepancy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := invoice()
			tt.change(&d)
			req, err := Bill{OrgID: 1, IntakeID: 7, Document: d, Expense: "6000", BaseCurrency: "EUR", Rate: dec("1")}.Entry()
			if err != nil {
				t.Fatal(err)
			}
			var got []line
			for _, l := range req.Lines {
				got = append(got, line{l.Account, plain(l.Debit), plain(l.Credit), l.Dimensions["kind"]})
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("lines\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func plain(d decimal.Decimal) string {
	if d.IsZero() {
		return "0"
	}
	return d.String()
}
