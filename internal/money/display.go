package money

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Display is the one way a page shows an amount to a person: the currency's minor units, thousands
// separated by commas, then the code ("1,006.74 EUR"). An unknown or empty currency shows the amount
// as stored, grouped the same way, with whatever code there is. The JSON API keeps Format's plain text.
func Display(d decimal.Decimal, currency string) string {
	s := DisplayNumber(d, currency)
	if currency == "" {
		return s
	}
	return s + " " + currency
}

// DisplayNumber is Display without the code, for a table whose header or row names the currency.
func DisplayNumber(d decimal.Decimal, currency string) string {
	if c, ok := Lookup(currency); ok {
		return group(Format(d, c.MinorUnits))
	}
	return group(Canonical(d))
}

// group puts a comma between each three digits of the integer part of a plain decimal text.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.Grow(len(sign) + len(whole) + len(whole)/3 + 1 + len(frac))
	b.WriteString(sign)
	for i := 0; i < len(whole); i++ {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
