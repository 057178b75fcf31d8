package textfields

import (
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
	"greatbook/internal/pagetext"
)

// value is one value parsed from words: its canonical form, the words it
// was read from, and for amounts the amount and the currency printed with
// it.
type value struct {
	text     string
	words    []pagetext.Word
	amount   decimal.Decimal
	currency string
}

// kindOf is the kind of value a field holds.
func kindOf(field string) string {
	switch field {
	case FieldIssueDate, FieldDueDate:
		return "date"
	case FieldNet, FieldTax, FieldPayable, kindGross:
		return "amount"
	case FieldSellerVAT, kindBuyerVAT:
		return "vat"
	case FieldIBAN, FieldCurrency, FieldNumber:
		return field
	}
	return "text"
}

// maxWindow is the most words one value spans ("2. Januar 2026", "€ 1 234 567,89").
const maxWindow = 5

// parseValue reads the first value of a field's kind from words (those
// right of or below its label).
func (r *reader) parseValue(field string, ws []pagetext.Word) (value, bool) {
	switch kindOf(field) {
	case "date":
		for start := 0; start < len(ws) && start < 3; start++ {
			for n := min(maxWindow, len(ws)-start); n >= 1; n-- {
				if iso, ok := parseDate(joinWords(ws[start:start+n]), r.dayFirst); ok {
					return value{text: iso, words: ws[start : start+n]}, true
				}
			}
		}
	case "amount":
		return r.firstAmount(ws)
	case FieldNumber:
		for i, w := range ws {
			if i >= 3 {
				break
			}
			t := strings.Trim(w.Text, ":;,#()")
			if t == "" || normToken(t) == "no" || normToken(t) == "nr" {
				continue
			}
			if isDocumentNumber(t) {
				return value{text: t, words: ws[i : i+1]}, true
			}
			break
		}
	case FieldCurrency:
		for i, w := range ws {
			if i >= 3 {
				break
			}
			if c := currencyIn(w.Text); c != "" {
				return value{text: c, words: ws[i : i+1]}, true
			}
		}
	case FieldIBAN:
		for i, w := range ws {
			if i >= 3 {
				break
			}
			if looksLikeIBANStart(w.Text) {
				return readIBAN(ws[i:])
			}
		}
	case "vat":
		for i := range ws {
			if i >= 3 {
				break
			}
			if v, ok := readVATID(ws[i:]); ok {
				return v, true
			}
		}
	default:
		text := strings.TrimSpace(joinWords(ws))
		if text != "" && strings.ContainsFunc(text, unicode.IsLetter) {
			return value{text: text, words: ws}, true
		}
	}
	return value{}, false
}

// isDocumentNumber says whether a word can be an invoice number: up to 40
// characters with a digit, not a date and not an amount with decimals.
func isDocumentNumber(s string) bool {
	if len(s) > 40 || !strings.ContainsFunc(s, unicode.IsDigit) {
		return false
	}
	if _, ok := parseDate(s, true); ok {
		return false
	}
	if strings.Contains(s, "%") {
		return false
	}
	return true
}

// firstAmount is the first amount among words, preferring one written with
// decimals over a bare integer (a count or a rate), and skipping rates
// ("19%", "19 %").
func (r *reader) firstAmount(ws []pagetext.Word) (value, bool) {
	var bare *value
	for start := 0; start < len(ws); start++ {
		if strings.Contains(ws[start].Text, "%") || (start+1 < len(ws) && strings.HasPrefix(ws[start+1].Text, "%")) {
			continue
		}
		for n := min(maxWindow, len(ws)-start); n >= 1; n-- {
			window := ws[start : start+n]
			if strings.Contains(joinWords(window), "%") {
				continue
			}
			d, code, ok := parseAmount(joinWords(window), r.lang)
			if !ok {
				continue
			}
			v := value{text: money.Canonical(d), words: window, amount: d, currency: code}
			if hasDecimals(joinWords(window)) {
				return v, true
			}
			if bare == nil {
				bare = &v
			}
			start += n - 1
			break
		}
	}
	if bare != nil {
		return *bare, true
	}
	return value{}, false
}

// hasDecimals says whether a printed amount has a decimal part of two
// digits or more.
func hasDecimals(s string) bool {
	s = strings.TrimRight(s, " €$£ABCDEFGHIJKLMNOPQRSTUVWXYZ)-")
	k := strings.LastIndexAny(s, ".,")
	return k >= 0 && len(s)-k-1 >= 2 && len(s)-k-1 != 3 || strings.HasSuffix(s, ",-")
}

// readIBAN joins the groups an IBAN is printed in, taking the longest
// prefix that passes its check; a failing one is returned as printed (its
// check fails later).
func readIBAN(ws []pagetext.Word) (value, bool) {
	joined, n := "", 0
	var best value
	for i, w := range ws {
		// OCR may join two groups with a dash or read a dot between them.
		part := strings.NewReplacer("-", "", ".", "").Replace(strings.ToUpper(strings.Trim(w.Text, ":;,()")))
		if i >= 9 || i > 0 && (len(part) > 8 || !isAlnum(part)) || len(joined)+len(part) > 34 {
			break
		}
		joined, n = joined+part, i+1
		if iban, ok := validIBANRead(joined); ok {
			best = value{text: iban, words: ws[:n]}
		}
	}
	if best.text != "" {
		return best, true
	}
	if len(joined) < 15 {
		return value{}, false
	}
	return value{text: joined, words: ws[:n]}, true
}

// validIBANRead is validIBAN, forgiving an OCR's letter O for the digit
// zero in the check digits ("DEO3"), which the check digits then confirm.
func validIBANRead(s string) (string, bool) {
	if iban, ok := validIBAN(s); ok {
		return iban, true
	}
	if len(s) > 4 && strings.ContainsAny(s[2:4], "OIl") {
		return validIBAN(s[:2] + strings.NewReplacer("O", "0", "I", "1", "l", "1").Replace(s[2:4]) + s[4:])
	}
	return "", false
}

func isAlnum(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// readVATID joins the words a VAT id may be printed in ("DE 123 456 789"),
// taking the longest that has its country's shape.
func readVATID(ws []pagetext.Word) (value, bool) {
	first := strings.ToUpper(strings.Trim(ws[0].Text, ":;,()"))
	if len(first) < 2 || first[0] < 'A' || first[0] > 'Z' || first[1] < 'A' || first[1] > 'Z' {
		return value{}, false
	}
	var best value
	joined := ""
	for i, w := range ws {
		if i >= 5 {
			break
		}
		joined += strings.Trim(w.Text, ":;,()")
		id := normaliseVATID(joined)
		if len(id) > 16 {
			break
		}
		if checkVATID(id) != vatUnknown {
			best = value{text: id, words: ws[:i+1]}
		}
	}
	if best.text != "" {
		return best, true
	}
	id := normaliseVATID(first)
	if len(id) >= 8 && len(id) <= 16 && strings.ContainsFunc(id, unicode.IsDigit) {
		return value{text: id, words: ws[:1]}, true
	}
	return value{}, false
}
