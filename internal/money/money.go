// Package money holds the decimal rules GreatBook applies to amounts: the ISO 4217 currencies with their
// minor units, one canonical text for a decimal (so equal amounts compare equal as text), a fixed-digit
// rendering for display and JSON, and a strict parser that accepts plain decimals only.
package money

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// MaxTextLength bounds the length of a decimal text Parse accepts. No invoice amount needs more digits,
// and the bound keeps hostile input from costing big-number arithmetic.
const MaxTextLength = 64

// ErrSyntax is wrapped by every error Parse returns, so callers can tell a malformed amount apart.
var ErrSyntax = errors.New("not a plain decimal")

// Canonical returns the one text GreatBook stores and compares for a decimal value: no exponent, no
// trailing fractional zeros, no sign on zero. "10.0", "10.00" and "1e1" all give "10".
func Canonical(d decimal.Decimal) string {
	if d.IsZero() {
		return "0"
	}
	if d.Exponent() >= 0 {
		return d.StringFixed(0)
	}
	s := d.StringFixed(-d.Exponent()) // exact: no digit is rounded away
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Format renders d with exactly minorUnits fractional digits, rounding half away from zero, for display
// and for the JSON API ("100.00"). It never writes an exponent or a negative zero.
func Format(d decimal.Decimal, minorUnits int32) string {
	if minorUnits < 0 {
		minorUnits = 0
	}
	s := d.StringFixed(minorUnits)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}

// Parse reads a plain decimal: an optional leading '-', one or more digits, and optionally '.' followed by
// one or more digits. It refuses exponents, a leading '+', spaces, thousands separators, NaN and the empty
// string, so that what a person typed is exactly what is stored.
func Parse(s string) (decimal.Decimal, error) {
	if err := checkPlain(s); err != nil {
		return decimal.Decimal{}, fmt.Errorf("money: parse %q: %w", clip(s), err)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("money: parse %q: %w: %v", clip(s), ErrSyntax, err)
	}
	return d, nil
}

func checkPlain(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty", ErrSyntax)
	}
	if len(s) > MaxTextLength {
		return fmt.Errorf("%w: longer than %d characters", ErrSyntax, MaxTextLength)
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	intDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		intDigits++
	}
	if intDigits == 0 {
		return fmt.Errorf("%w: expected a digit at offset %d", ErrSyntax, i)
	}
	if i == len(s) {
		return nil
	}
	if s[i] != '.' {
		return fmt.Errorf("%w: unexpected %q at offset %d", ErrSyntax, s[i], i)
	}
	i++
	fracDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		fracDigits++
	}
	if fracDigits == 0 {
		return fmt.Errorf("%w: expected a digit after '.'", ErrSyntax)
	}
	if i != len(s) {
		return fmt.Errorf("%w: unexpected %q at offset %d", ErrSyntax, s[i], i)
	}
	return nil
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// clip keeps error messages short when the input is long.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "..."
	}
	return s
}
