package bookkeeper

import (
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
)

// cents draws an amount in cents between lo and hi.
func cents(t *rapid.T, lo, hi int64, label string) decimal.Decimal {
	return decimal.New(rapid.Int64Range(lo, hi).Draw(t, label), -2)
}

// codedDocument draws a document as EN 16931 states it: lines with their
// nets and VAT rates, a document-level allowance or charge, the VAT
// breakdown by rate, a rounding amount and a prepaid amount; an invoice or
// a credit note, in the base currency or another.
func codedDocument(t *rapid.T) einvoice.Document {
	rates := []decimal.Decimal{dec("0"), dec("7"), dec("12"), dec("25")}
	d := einvoice.Document{Type: rapid.SampledFrom([]einvoice.DocType{einvoice.TypeInvoice, einvoice.TypeCreditNote}).Draw(t, "type"),
		Number: "P-1", IssueDate: "2026-12-01", Currency: rapid.SampledFrom([]string{"EUR", "SEK", "USD"}).Draw(t, "currency"),
		Seller: einvoice.Party{Name: "Supplier"}}
	taxable := map[int]decimal.Decimal{}
	net := decimal.Zero
	for range rapid.IntRange(0, 6).Draw(t, "lines") {
		n := cents(t, 1, 1_000_000, "line net")
		r := rapid.IntRange(0, len(rates)-1).Draw(t, "line rate")
		d.Lines = append(d.Lines, einvoice.Line{Net: n, TaxRate: rates[r]})
		taxable[r], net = taxable[r].Add(n), net.Add(n)
	}
	// The allowances and charges at document level, or the whole net of a
	// document without lines.
	lo := int64(-50_000)
	if len(d.Lines) == 0 {
		lo = 100
	}
	rest := cents(t, lo, 50_000, "document level")
	r := rapid.IntRange(0, len(rates)-1).Draw(t, "document level rate")
	taxable[r], net = taxable[r].Add(rest), net.Add(rest)
	if !net.IsPositive() {
		t.Skip("allowances beyond the lines")
	}
	tax := decimal.Zero
	for i, rate := range rates {
		if v, ok := taxable[i]; ok {
			st := einvoice.TaxSubtotal{Rate: rate, Taxable: v, Tax: v.Mul(rate).Div(dec("100")).Round(2)}
			d.TaxSubtotals, tax = append(d.TaxSubtotals, st), tax.Add(st.Tax)
		}
	}
	gross := net.Add(tax)
	if !gross.IsPositive() {
		t.Skip("an allowance taxed beyond the lines")
	}
	rounding := cents(t, -49, 49, "rounding")
	prepaid := decimal.New(rapid.Int64Range(0, gross.Shift(2).IntPart()/2).Draw(t, "prepaid"), -2)
	d.Totals = einvoice.Totals{Net: net, Tax: tax, Gross: gross, Prepaid: prepaid, Rounding: rounding, Payable: gross.Sub(prepaid).Add(rounding)}
	return d
}

// randomCoding splits each of d's coding targets into one to three rows
// on random accounts and cost centres, summing to its net to the cent.
func randomCoding(t *rapid.T, d einvoice.Document) []coding.Row {
	var rows []coding.Row
	for _, tg := range coding.Targets(d) {
		left := tg.Net
		for k := rapid.IntRange(1, 3).Draw(t, "rows"); k > 0; k-- {
			amount := left
			if k > 1 {
				amount = decimal.New(rapid.Int64Range(0, left.Abs().Shift(2).IntPart()).Draw(t, "split"), -2)
				if left.IsNegative() {
					amount = amount.Neg()
				}
			}
			dims := map[string]string{}
			if cc := rapid.SampledFrom([]string{"", "OPS", "RND"}).Draw(t, "cost centre"); cc != "" {
				dims["cost_center"] = cc
			}
			rows = append(rows, coding.Row{Line: tg.Line, Account: rapid.SampledFrom([]string{"6000", "6100", "6200"}).Draw(t, "account"),
				Dimensions: dims, Amount: amount})
			left = left.Sub(amount)
		}
	}
	return rows
}

// For any document and any coding of it (splits included), the entry
// balances in the document's currency and in base, and its first lines are
// the coding's rows, in order, to the cent: each on its account, with its
// dimensions and the supplier's, for its amount (mirrored for a credit
// note; a row of zero posts no line).
func TestACodedBillBalancesAndDebitsTheCodingRowByRow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := codedDocument(t)
		rows := randomCoding(t, d)
		if !coding.Covers(d, rows) {
			t.Fatalf("the drawn coding does not cover the document: %+v", rows)
		}
		rate := decimal.NewFromInt(1)
		if d.Currency != "EUR" {
			rate = decimal.New(rapid.Int64Range(1, 20_000_000).Draw(t, "rate"), -6)
		}
		req, err := Bill{OrgID: 1, IntakeID: 3, Document: d, Supplier: "vat:SE1", Coding: rows, BaseCurrency: "EUR", Rate: rate}.Entry()
		if err != nil {
			t.Fatal(err)
		}
		var sums [4]decimal.Decimal
		for _, l := range req.Lines {
			sums[0], sums[1] = sums[0].Add(l.Debit), sums[1].Add(l.Credit)
			if l.BaseDebit != nil {
				sums[2] = sums[2].Add(*l.BaseDebit)
			}
			if l.BaseCredit != nil {
				sums[3] = sums[3].Add(*l.BaseCredit)
			}
		}
		if !sums[0].Equal(sums[1]) || !sums[2].Equal(sums[3]) {
			t.Fatalf("unbalanced: %s/%s, base %s/%s: %+v", sums[0], sums[1], sums[2], sums[3], req.Lines)
		}
		sign := decimal.NewFromInt(1)
		if d.Type == einvoice.TypeCreditNote {
			sign = sign.Neg()
		}
		i := 0
		for _, r := range rows {
			if r.Amount.IsZero() {
				continue
			}
			l := req.Lines[i]
			i++
			if l.Account != r.Account || !l.Debit.Sub(l.Credit).Equal(r.Amount.Mul(sign)) {
				t.Fatalf("line %d: %s %s/%s, want row %+v", i-1, l.Account, l.Debit, l.Credit, r)
			}
			if l.Dimensions["supplier"] != "vat:SE1" || l.Dimensions["cost_center"] != r.Dimensions["cost_center"] || l.Dimensions["kind"] != "" {
				t.Fatalf("line %d dimensions %v, want the row's %v and the supplier", i-1, l.Dimensions, r.Dimensions)
			}
			if d.Currency != "EUR" {
				base := l.BaseDebit
				if base == nil {
					base = l.BaseCredit
				}
				if want := l.Debit.Add(l.Credit).Mul(rate).Round(2); !base.Equal(want) {
					t.Fatalf("line %d base %s, want %s at rate %s", i-1, base, want, rate)
				}
			}
		}
		for _, l := range req.Lines[i:] {
			if l.Dimensions["kind"] == "discrepancy" {
				t.Fatalf("a consistent document posted a discrepancy: %+v", req.Lines)
			}
		}
	})
}
