package en16931

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// vatCategory describes how the VAT category rules of one category code differ (BR-S, BR-Z, BR-E, BR-AE, BR-IC,
// BR-G, BR-O, BR-AF, BR-AG): the rules share a shape, their parameters are what the standard says of each category.
type vatCategory struct {
	prefix string // rule id prefix, e.g. "BR-AE"
	code   string // UNTDID 5305 code, e.g. "AE"
	name   string
	// rate is the rule on the rate of a line, allowance or charge in the category (rules -05, -06, -07).
	rate func(r Amount) bool
	// rateWords names that rule for the message.
	rateWords string
	// perRate: the taxable amount is checked per rate with a tolerance of 1 and the VAT amount is taxable × rate
	// (S, L, M); otherwise the taxable amount must equal the sum exactly and the VAT amount be 0.
	perRate bool
	// exempt: the breakdown must state an exemption reason (E, AE, K, G, O); otherwise it must not.
	exempt bool
	// parties: whether the parties' identifiers allow the category (rules -02, -03, -04).
	parties func(inv *Invoice) bool
}

func sellerAnyTaxID(inv *Invoice) bool {
	return inv.Seller.VATID.Present || inv.Seller.TaxRegistrationID.Present || inv.TaxRep.VATID.Present
}

func rateIs(test func(d decimal.Decimal) bool) func(Amount) bool {
	return func(r Amount) bool { d, ok := r.Dec(); return ok && test(d) }
}

var vatCategories = []vatCategory{
	{prefix: "BR-S", code: "S", name: "standard rated", perRate: true, rateWords: "rate > 0",
		rate: rateIs(func(d decimal.Decimal) bool { return d.IsPositive() }), parties: sellerAnyTaxID},
	{prefix: "BR-Z", code: "Z", name: "zero rated", rateWords: "rate = 0",
		rate: rateIs(func(d decimal.Decimal) bool { return d.IsZero() }), parties: sellerAnyTaxID},
	{prefix: "BR-E", code: "E", name: "exempt from VAT", exempt: true, rateWords: "rate = 0",
		rate: rateIs(func(d decimal.Decimal) bool { return d.IsZero() }), parties: sellerAnyTaxID},
	{prefix: "BR-AE", code: "AE", name: "reverse charge", exempt: true, rateWords: "rate = 0",
		rate: rateIs(func(d decimal.Decimal) bool { return d.IsZero() }),
		parties: func(inv *Invoice) bool {
			return sellerAnyTaxID(inv) && (inv.Buyer.VATID.Present || inv.Buyer.LegalID.Present)
		}},
	{prefix: "BR-IC", code: "K", name: "intra-community supply", exempt: true, rateWords: "rate = 0",
		rate: rateIs(func(d decimal.Decimal) bool { return d.IsZero() }),
		parties: func(inv *Invoice) bool {
			return (inv.Seller.VATID.Present || inv.TaxRep.VATID.Present) && inv.Buyer.VATID.Present
		}},
	{prefix: "BR-G", code: "G", name: "export outside the EU", exempt: true, rateWords: "rate = 0",
		rate:    rateIs(func(d decimal.Decimal) bool { return d.IsZero() }),
		parties: func(inv *Invoice) bool { return inv.Seller.VATID.Present || inv.TaxRep.VATID.Present }},
	{prefix: "BR-O", code: "O", name: "not subject to VAT", exempt: true, rateWords: "no rate",
		rate: func(r Amount) bool { return !r.Present },
		parties: func(inv *Invoice) bool {
			return !inv.Seller.VATID.Present && !inv.TaxRep.VATID.Present && !inv.Buyer.VATID.Present
		}},
	{prefix: "BR-AF", code: "L", name: "IGIC (Canary Islands)", perRate: true, rateWords: "rate ≥ 0",
		rate: rateIs(func(d decimal.Decimal) bool { return !d.IsNegative() }), parties: sellerAnyTaxID},
	{prefix: "BR-AG", code: "M", name: "IPSI (Ceuta and Melilla)", perRate: true, rateWords: "rate ≥ 0",
		rate: rateIs(func(d decimal.Decimal) bool { return !d.IsNegative() }), parties: sellerAnyTaxID},
}

func (c TaxCategory) is(code string) bool { return c.Present && c.IsVAT && c.Code.Norm() == code }

// inCategory is the category of a line, allowance or charge, by code only (the -08 sums do not ask the scheme).
func (c TaxCategory) codeIs(code string) bool { return c.Present && c.Code.Norm() == code }

func init() {
	for _, cat := range vatCategories {
		registerCategoryRules(cat)
	}
	registerCategorySpecificRules()
	registerCodeListRules()
}

// registerCategoryRules adds the rules every VAT category has (BR-S-01 … BR-S-10 and their kin for the
// other categories), as cat's fields specialise them.
func registerCategoryRules(cat vatCategory) {
	id := func(n int) string { return fmt.Sprintf("%s-%02d", cat.prefix, n) }
	// -01: a category used on a line, allowance or charge appears in the VAT breakdown (and for the
	// categories without rate exactly once).
	rule(id(1), "BT-118", "invoice", func(inv *Invoice, fail func(string, string)) {
		used, inBreakdown := 0, 0
		for _, ac := range inv.Allowances {
			if ac.TaxCategory.is(cat.code) {
				used++
			}
		}
		for _, l := range inv.Lines {
			if l.Category.is(cat.code) {
				used++
			}
		}
		for _, tt := range inv.TaxTotals {
			for _, b := range tt.Breakdowns {
				if b.Category.is(cat.code) {
					inBreakdown++
				}
			}
		}
		if cat.perRate {
			if (used > 0) != (inBreakdown > 0) {
				fail("VAT breakdown", fmt.Sprintf("%d lines, allowances or charges in category %s, %d VAT breakdowns", used, cat.code, inBreakdown))
			}
			return
		}
		if (used > 0 || inBreakdown > 0) && inBreakdown != 1 {
			fail("VAT breakdown", fmt.Sprintf("%d VAT breakdowns of category %s, expected 1", inBreakdown, cat.code))
		}
	})
	// -02, -03, -04: the parties' identifiers that the category needs (or, for O, must not have).
	partyRule := func(n int, used func(inv *Invoice) bool) {
		rule(id(n), "BT-31", "invoice", func(inv *Invoice, fail func(string, string)) {
			if used(inv) && !cat.parties(inv) {
				fail("parties", "")
			}
		})
	}
	partyRule(2, func(inv *Invoice) bool {
		for _, l := range inv.Lines {
			if l.Category.is(cat.code) {
				return true
			}
		}
		return false
	})
	acUsed := func(charge bool) func(inv *Invoice) bool {
		return func(inv *Invoice) bool {
			for _, ac := range inv.Allowances {
				if ac.TaxCategory.is(cat.code) && ((charge && ac.IsCharge()) || (!charge && ac.IsAllowance())) {
					return true
				}
			}
			return false
		}
	}
	partyRule(3, acUsed(false))
	partyRule(4, acUsed(true))
	// -05, -06, -07: the rate of a line, allowance or charge in the category.
	rule(id(5), "BT-152", "invoice line VAT category "+cat.code, func(inv *Invoice, fail func(string, string)) {
		for i, l := range inv.Lines {
			if l.Category.is(cat.code) && !cat.rate(l.Category.Rate) {
				fail(lineField(i, l), cat.rateWords+", got "+v(l.Category.Rate))
			}
		}
	})
	acRate := func(n int, charge bool, term string) {
		rule(id(n), term, "document level allowance or charge VAT category "+cat.code, func(inv *Invoice, fail func(string, string)) {
			for i, ac := range inv.Allowances {
				if ac.TaxCategory.is(cat.code) && ((charge && ac.IsCharge()) || (!charge && ac.IsAllowance())) && !cat.rate(ac.TaxCategory.Rate) {
					fail(fmt.Sprintf("allowance or charge %d", i+1), cat.rateWords+", got "+v(ac.TaxCategory.Rate))
				}
			}
		})
	}
	acRate(6, false, "BT-96")
	acRate(7, true, "BT-103")
	// -08, -09, -10: the breakdown of the category.
	each := func(n int, term string, check func(inv *Invoice, b VATBreakdown) (bool, string)) {
		rule(id(n), term, "VAT breakdown of category "+cat.code, func(inv *Invoice, fail func(string, string)) {
			for _, tt := range inv.TaxTotals {
				for _, b := range tt.Breakdowns {
					if !b.Category.is(cat.code) {
						continue
					}
					if ok, detail := check(inv, b); !ok {
						fail(breakdownField(b), detail)
					}
				}
			}
		})
	}
	rule(id(8), "BT-116", "VAT breakdown of category "+cat.code, func(inv *Invoice, fail func(string, string)) {
		var sums map[string]decimal.Decimal // computed once per invoice, so the rule stays linear
		for _, tt := range inv.TaxTotals {
			for _, b := range tt.Breakdowns {
				if !b.Category.is(cat.code) {
					continue
				}
				if sums == nil {
					sums = categorySums(inv, cat.code, cat.perRate)
				}
				key := ""
				if cat.perRate {
					key = rateKey(b.Category.Rate)
				}
				sum, found := sums[key]
				if ok, detail := taxableMatches(inv, cat, b, sum, found); !ok {
					fail(breakdownField(b), detail)
				}
			}
		}
	})
	each(9, "BT-117", func(_ *Invoice, b VATBreakdown) (bool, string) {
		tax, ok := b.TaxAmount.Dec()
		if !cat.perRate {
			return ok && tax.IsZero(), "VAT amount " + v(b.TaxAmount) + ", expected 0"
		}
		detail := fmt.Sprintf("VAT %s ≠ taxable %s × rate %s %%", v(b.TaxAmount), v(b.TaxableAmount), v(b.Category.Rate))
		taxable, ok2 := b.TaxableAmount.Dec()
		rate, ok3 := b.Category.Rate.Dec()
		if !ok || !ok2 || !ok3 {
			return false, detail
		}
		want := round2(taxable.Abs().Mul(rate.Div(hundred)))
		one := decimal.NewFromInt(1)
		return tax.Abs().Sub(one).LessThan(want) && tax.Abs().Add(one).GreaterThan(want), detail
	})
	each(10, "BT-120", func(_ *Invoice, b VATBreakdown) (bool, string) {
		has := b.Category.ExemptionReason.Present || b.Category.ExemptionReasonCode.Present
		return has == cat.exempt, ""
	})
}

// registerCategorySpecificRules adds the category specific rules on the whole invoice.
func registerCategorySpecificRules() {
	hasBreakdown := func(inv *Invoice, code string) bool {
		for _, tt := range inv.TaxTotals {
			for _, b := range tt.Breakdowns {
				if b.Category.is(code) {
					return true
				}
			}
		}
		return false
	}
	documentRule("BR-IC-11", "BT-72", func(inv *Invoice) bool {
		if !hasBreakdown(inv, "K") {
			return true
		}
		p := inv.Period
		return len([]rune(inv.Delivery.ActualDate.Value)) > 1 || (p.Present && (p.Start.Present || p.End.Present || p.DescriptionCode.Present))
	})
	documentRule("BR-IC-12", "BT-80", func(inv *Invoice) bool {
		return !hasBreakdown(inv, "K") || len([]rune(inv.Delivery.Address.Country.Value)) > 1
	})
	notO := func(c TaxCategory) bool { return c.Present && c.IsVAT && c.Code.Norm() != "O" }
	documentRule("BR-O-11", "BG-23", func(inv *Invoice) bool {
		if !hasBreakdown(inv, "O") {
			return true
		}
		for _, tt := range inv.TaxTotals {
			for _, b := range tt.Breakdowns {
				if notO(b.Category) {
					return false
				}
			}
		}
		return true
	})
	documentRule("BR-O-12", "BT-151", func(inv *Invoice) bool {
		if !hasBreakdown(inv, "O") {
			return true
		}
		for _, l := range inv.Lines {
			if notO(l.Category) {
				return false
			}
		}
		return true
	})
	acNotO := func(charge bool) func(inv *Invoice) bool {
		return func(inv *Invoice) bool {
			if !hasBreakdown(inv, "O") {
				return true
			}
			for _, ac := range inv.Allowances {
				if notO(ac.TaxCategory) && ((charge && ac.IsCharge()) || (!charge && ac.IsAllowance())) {
					return false
				}
			}
			return true
		}
	}
	documentRule("BR-O-13", "BT-95", acNotO(false))
	documentRule("BR-O-14", "BT-102", acNotO(true))
}

// registerCodeListRules adds the code list rules (BR-CL-*): every coded value is judged where it occurs.
func registerCodeListRules() {
	for _, list := range []CodeList{CodeList01, CodeList03, CodeList04, CodeList05, CodeList06, CodeList07, CodeList10,
		CodeList11, CodeList13, CodeList14, CodeList15, CodeList16, CodeList17, CodeList18, CodeList19, CodeList20,
		CodeList21, CodeList22, CodeList23, CodeList24, CodeList25, CodeList26} {
		list := list
		rule(string(list), "", "every coded value of the list", func(inv *Invoice, fail func(string, string)) {
			for _, c := range inv.Codes {
				rid := CodeList(strings.TrimSuffix(string(c.List), "-CreditNote"))
				if rid != list {
					continue
				}
				if c.List == CodeList24 {
					if !inCodeList(c.List, c.Value.Value) || c.Value.Value != c.Value.Norm() {
						fail(c.Term, fmt.Sprintf("%q", c.Value.Value))
					}
					continue
				}
				if !inCodeList(c.List, c.Value.Value) {
					fail(c.Term, fmt.Sprintf("%q", c.Value.Value))
				}
			}
		})
	}
}

// rateKey is a rate as a map key: the same number written differently ("19", "19.00") is one key; an absent or
// unreadable rate has its own.
func rateKey(r Amount) string {
	d, ok := r.Dec()
	if !ok {
		return "?"
	}
	return d.String()
}

// categorySums is, for one category, Σ line net amounts + charges − allowances per rate (or under "" when the
// category's taxable amount is not split by rate), with whether anything carried that rate. It is computed once
// per invoice and category, so the -08 rules stay linear however many breakdowns and lines there are.
func categorySums(inv *Invoice, code string, perRate bool) map[string]decimal.Decimal {
	sums := map[string]decimal.Decimal{}
	add := func(c TaxCategory, d decimal.Decimal) {
		if !c.codeIs(code) {
			return
		}
		k := ""
		if perRate {
			k = rateKey(c.Rate)
		}
		sums[k] = sums[k].Add(d)
	}
	for _, l := range inv.Lines {
		d, _ := l.NetAmount.Dec()
		add(l.Category, d)
	}
	for _, ac := range inv.Allowances {
		d, _ := ac.Amount.Dec()
		switch {
		case ac.IsCharge():
			add(ac.TaxCategory, d)
		case ac.IsAllowance():
			add(ac.TaxCategory, d.Neg())
		default:
			add(ac.TaxCategory, decimal.Zero)
		}
	}
	return sums
}

// taxableMatches is the -08 test of one breakdown against its category's sum.
func taxableMatches(inv *Invoice, cat vatCategory, b VATBreakdown, sum decimal.Decimal, found bool) (bool, string) {
	taxable, ok := b.TaxableAmount.Dec()
	detail := fmt.Sprintf("taxable amount %s ≠ Σ line net amounts + charges − allowances in category %s %s", v(b.TaxableAmount), cat.code, f(sum))
	if !ok {
		return false, detail
	}
	if cat.perRate {
		if !b.Category.Rate.Present {
			return true, ""
		}
		one := decimal.NewFromInt(1)
		return found && taxable.Sub(one).LessThan(sum) && taxable.Add(one).GreaterThan(sum), detail
	}
	return len(inv.Lines) > 0 && taxable.Equal(sum), detail
}
