package einvoice

import (
	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

var (
	one     = decimal.NewFromInt(1)
	hundred = decimal.NewFromInt(100)
)

// MinorUnitsOf returns the minor units of a currency, and two for a code ISO 4217 does not know (Validate
// reports the code; the arithmetic still needs a precision).
func MinorUnitsOf(currency string) int32 {
	if c, ok := money.Lookup(currency); ok {
		return c.MinorUnits
	}
	return 2
}

// baseQuantity returns the price base quantity of a line, one when the source gave none.
func (l Line) baseQuantity() decimal.Decimal {
	if l.PriceBaseQuantity.IsZero() {
		return one
	}
	return l.PriceBaseQuantity
}

// ExpectedNet is the line net EN 16931 computes for l (BT-131): quantity × unit price ÷ price base
// quantity + charges − allowances, unrounded.
func (l Line) ExpectedNet() decimal.Decimal { return l.expectedNet(true) }

// expectedNet is quantity × unit price / base quantity + charges − allowances, unrounded (EN 16931's
// calculation of BT-131, which Peppol enforces as PEPPOL-EN16931-R120).
func (l Line) expectedNet(useBase bool) decimal.Decimal {
	gross := l.Quantity.Mul(l.UnitPrice)
	if useBase {
		gross = gross.Div(l.baseQuantity())
	}
	return gross.Add(l.Charges).Sub(l.Allowances)
}

// ComputeSubtotals groups line nets by VAT category and rate, in the order the groups first appear, and
// computes each group's tax rounded half away from zero to the currency's minor units.
func ComputeSubtotals(lines []Line, minor int32) []TaxSubtotal {
	type key struct{ category, rate string }
	index := map[key]int{}
	subtotals := []TaxSubtotal{}
	for _, l := range lines {
		k := key{l.TaxCategory, money.Canonical(l.TaxRate)}
		i, ok := index[k]
		if !ok {
			i = len(subtotals)
			index[k] = i
			subtotals = append(subtotals, TaxSubtotal{Category: l.TaxCategory, Rate: l.TaxRate})
		}
		subtotals[i].Taxable = subtotals[i].Taxable.Add(l.Net)
	}
	for i := range subtotals {
		subtotals[i].Tax = taxOf(subtotals[i].Taxable, subtotals[i].Rate, minor)
	}
	return subtotals
}

// taxOf is taxable × rate / 100, rounded half away from zero to minor units.
func taxOf(taxable, rate decimal.Decimal, minor int32) decimal.Decimal {
	return taxable.Mul(rate).Div(hundred).Round(minor)
}

// SumLineNets is the sum of the line net amounts (EN 16931 BT-106 as it should be).
func SumLineNets(lines []Line) decimal.Decimal {
	var sum decimal.Decimal
	for _, l := range lines {
		sum = sum.Add(l.Net)
	}
	return sum
}

// SumSubtotalTax is the sum of the VAT breakdown's tax amounts (BT-110 as it should be).
func SumSubtotalTax(subtotals []TaxSubtotal) decimal.Decimal {
	var sum decimal.Decimal
	for _, s := range subtotals {
		sum = sum.Add(s.Tax)
	}
	return sum
}

// schematronRound is XPath's fn:round: to the nearest integer, halves toward positive infinity
// (-2.5 rounds to -2), as CEN's Schematron rounds.
func schematronRound(x decimal.Decimal) decimal.Decimal {
	return x.Add(decimal.New(5, -1)).Floor()
}

// schematronRound2 is the Schematron's round(x * 10 * 10) div 100: two decimals, halves up.
func schematronRound2(x decimal.Decimal) decimal.Decimal {
	return schematronRound(x.Mul(hundred)).Div(hundred)
}
