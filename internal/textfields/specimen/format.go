package specimen

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Numbers is how a layout writes an amount: the thousands and decimal
// separators, and where the currency stands beside it.
type Numbers struct {
	Thousands string // "", ".", ",", " "
	Decimal   string // "," or "."
	Mark      Mark
}

// Mark is where a layout writes the currency beside an amount.
type Mark int

// The places of the currency beside an amount. With MarkNone the document
// names its currency once, in its details or the table's heading.
const (
	MarkNone Mark = iota
	MarkSymbolBefore
	MarkSymbolAfter
	MarkCodeBefore
	MarkCodeAfter
)

var symbols = map[string]string{"EUR": "€", "GBP": "£", "USD": "$"}

// Plain writes v with two decimals in n's separators, without currency.
func (n Numbers) Plain(v decimal.Decimal) string {
	s := v.Abs().StringFixed(2)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v.IsNegative() {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(n.Thousands)
		}
		b.WriteRune(c)
	}
	return b.String() + n.Decimal + frac
}

// Amount writes v as the layout prints amounts, with its currency mark.
func (n Numbers) Amount(v decimal.Decimal, currency string) string {
	s := n.Plain(v)
	sym, ok := symbols[currency]
	if !ok {
		sym = currency
	}
	switch n.Mark {
	case MarkSymbolBefore:
		if ok {
			return sym + " " + s
		}
		return currency + " " + s
	case MarkSymbolAfter:
		return s + " " + sym
	case MarkCodeBefore:
		return currency + " " + s
	case MarkCodeAfter:
		return s + " " + currency
	}
	return s
}

// Quantity writes a quantity without trailing zeros, in n's decimal separator.
func (n Numbers) Quantity(v decimal.Decimal) string {
	return strings.Replace(v.String(), ".", n.Decimal, 1)
}

// Rate writes a tax rate ("19", "5,5").
func (n Numbers) Rate(v decimal.Decimal) string { return n.Quantity(v) }

// Dates is how a layout writes a date.
type Dates int

// The date formats of the layouts.
const (
	DateDots       Dates = iota // 02.01.2026
	DateLong                    // 2 janvier 2026, 2 januari 2026, 2 January 2026
	DateLongDot                 // 2. Januar 2026
	DateUS                      // January 2, 2026
	DateISO                     // 2026-01-02
	DateSlashes                 // 02/01/2026, day first
	DateDashes                  // 02-01-2026, day first
	DateShortMonth              // 02 Jan 2026
)

var months = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	"nl": {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
}

// Format writes iso (YYYY-MM-DD) in f, with month names of lang.
func (f Dates) Format(iso, lang string) string {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return iso
	}
	m := months[lang][t.Month()-1]
	switch f {
	case DateDots:
		return t.Format("02.01.2006")
	case DateLong:
		return fmt.Sprintf("%d %s %d", t.Day(), m, t.Year())
	case DateLongDot:
		return fmt.Sprintf("%d. %s %d", t.Day(), m, t.Year())
	case DateUS:
		return fmt.Sprintf("%s %d, %d", months["en"][t.Month()-1], t.Day(), t.Year())
	case DateSlashes:
		return t.Format("02/01/2006")
	case DateDashes:
		return t.Format("02-01-2006")
	case DateShortMonth:
		return fmt.Sprintf("%02d %s %d", t.Day(), string([]rune(m)[:3]), t.Year())
	}
	return iso
}
