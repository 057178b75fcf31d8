package textfields

import (
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// currencySigns are the currency signs and local names invoices write
// instead of an ISO 4217 code, longest first so that "US$" wins over "$".
var currencySigns = []struct{ sign, code string }{
	{"US$", "USD"}, {"SFr.", "CHF"}, {"Fr.", "CHF"}, {"€", "EUR"}, {"£", "GBP"}, {"$", "USD"}, {"¥", "JPY"},
}

// currencyIn returns the currency a word names: an ISO 4217 code money
// knows (upper case), or a currency sign.
func currencyIn(s string) string {
	s = strings.Trim(s, " :;,()")
	if _, ok := money.Lookup(s); ok {
		return s
	}
	for _, c := range currencySigns {
		if s == c.sign {
			return c.code
		}
	}
	return ""
}

// stripCurrency takes a currency code or sign off either end of s.
func stripCurrency(s string) (rest, code string) {
	s = strings.TrimSpace(s)
	for _, c := range currencySigns {
		if r, ok := strings.CutPrefix(s, c.sign); ok {
			return strings.TrimSpace(r), c.code
		}
		if r, ok := strings.CutSuffix(s, c.sign); ok {
			return strings.TrimSpace(r), c.code
		}
	}
	if len(s) > 3 {
		if _, ok := money.Lookup(s[:3]); ok && !isDigitByte(s[0]) {
			return strings.TrimSpace(s[3:]), s[:3]
		}
		if _, ok := money.Lookup(s[len(s)-3:]); ok {
			return strings.TrimSpace(s[:len(s)-3]), s[len(s)-3:]
		}
	}
	return s, ""
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// isSpaceSep says whether r separates thousands as a space does: the
// space, the no-break space and the narrow and thin spaces.
func isSpaceSep(r rune) bool {
	return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009'
}

// parseAmount reads an amount as invoices print it: 1.234,56, 1,234.56,
// 1 234,56 (any space), 1'234.56, 1234.56, with a currency code or sign
// before or after and a sign, a trailing minus or parentheses for a
// negative. A lone separator followed by three digits is a thousands
// separator or a decimal point as lang writes it. It returns the amount and
// the currency named with it ("" when none).
func parseAmount(s, lang string) (decimal.Decimal, string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return decimal.Decimal{}, "", false
	}
	negative := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		negative, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	s, code := stripCurrency(s)
	for _, minus := range []string{"-", "−", "–"} {
		if r, ok := strings.CutPrefix(s, minus); ok {
			negative, s = !negative, strings.TrimSpace(r)
		}
	}
	if code == "" {
		s, code = stripCurrency(s)
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, ",-"), ".-")
	for _, minus := range []string{"-", "−"} {
		if r, ok := strings.CutSuffix(s, minus); ok {
			negative, s = !negative, strings.TrimSpace(r)
		}
	}
	digits, ok := joinSpaceGroups(s)
	if !ok {
		return decimal.Decimal{}, "", false
	}
	plain, ok := plainNumber(digits, lang)
	if !ok {
		return decimal.Decimal{}, "", false
	}
	d, err := decimal.NewFromString(plain)
	if err != nil {
		return decimal.Decimal{}, "", false
	}
	if negative {
		d = d.Neg()
	}
	return d, code, true
}

// joinSpaceGroups joins digit groups separated by spaces when they are
// thousands groups (one to three digits, then groups of exactly three), so
// that "1 234,56" is one number and "2 10,00" (a quantity and a price) none.
func joinSpaceGroups(s string) (string, bool) {
	groups := strings.FieldsFunc(s, isSpaceSep)
	if len(groups) == 0 {
		return "", false
	}
	if len(groups) == 1 {
		return groups[0], true
	}
	for i, g := range groups {
		intPart := g
		if i == len(groups)-1 {
			if k := strings.IndexAny(g, ".,"); k >= 0 {
				intPart = g[:k]
			}
		}
		if !allDigits(intPart) || (i == 0 && (len(intPart) < 1 || len(intPart) > 3)) || (i > 0 && len(intPart) != 3) {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return true
}

// plainNumber turns digits with thousands separators and a decimal mark
// into a plain decimal with a point.
func plainNumber(s, lang string) (string, bool) {
	s = strings.ReplaceAll(s, "'", "")
	s = strings.ReplaceAll(s, "’", "")
	if s == "" || !isDigitByte(s[0]) || !isDigitByte(s[len(s)-1]) && !strings.HasSuffix(s, ".") {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return "", false
		}
	}
	s = strings.TrimSuffix(s, ".")
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	var decimalMark byte
	switch {
	case dots == 0 && commas == 0:
		return s, true
	case dots > 0 && commas > 0:
		decimalMark = s[strings.LastIndexAny(s, ".,")]
		if strings.Count(s, string(decimalMark)) != 1 {
			return "", false
		}
	case dots+commas > 1:
		decimalMark = 0 // several of one mark: thousands separators only
	default:
		mark := byte('.')
		if commas == 1 {
			mark = ','
		}
		decimalMark = mark
		if len(s)-strings.IndexByte(s, mark)-1 == 3 && thousandsMark(lang) == mark {
			decimalMark = 0
		}
	}
	intPart, frac := s, ""
	if decimalMark != 0 {
		k := strings.LastIndexByte(s, decimalMark)
		intPart, frac = s[:k], s[k+1:]
		if !allDigits(frac) {
			return "", false
		}
	}
	groups := strings.FieldsFunc(intPart, func(r rune) bool { return r == '.' || r == ',' })
	if len(groups) > 1 {
		if strings.HasPrefix(intPart, ".") || strings.HasPrefix(intPart, ",") {
			return "", false
		}
		for i, g := range groups {
			if !allDigits(g) || (i == 0 && len(g) > 3) || (i > 0 && len(g) != 3) {
				return "", false
			}
		}
	}
	out := strings.Join(groups, "")
	if !allDigits(out) {
		return "", false
	}
	if frac != "" {
		out += "." + frac
	}
	return out, true
}

// thousandsMark is the mark a language writes alone between thousands:
// "1,234" is a thousand and more in English, "1.234" in German, Dutch and
// French (which write a decimal comma).
func thousandsMark(lang string) byte {
	if lang == "en" {
		return ','
	}
	return '.'
}

// parsePercent reads a rate as "19%", "19 %", "7,5%" or "19.00%".
func parsePercent(s, lang string) (decimal.Decimal, bool) {
	s = strings.Trim(strings.TrimSpace(s), "()")
	r, ok := strings.CutSuffix(s, "%")
	if !ok {
		return decimal.Decimal{}, false
	}
	d, code, ok := parseAmount(strings.TrimSpace(r), lang)
	if !ok || code != "" || d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100)) {
		return decimal.Decimal{}, false
	}
	return d, true
}
