package textfields

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// months maps month names and their usual abbreviations in English,
// German, French and Dutch (lower case, without dots) to their number.
var months = func() map[string]int {
	names := [][]string{
		{"january", "jan", "januar", "jänner", "janvier", "janv", "januari"},
		{"february", "feb", "februar", "feber", "février", "fevrier", "févr", "fevr", "fév", "februari"},
		{"march", "mar", "märz", "maerz", "mär", "mrz", "mars", "maart", "mrt"},
		{"april", "apr", "avril", "avr"},
		{"may", "mai", "mei"},
		{"june", "jun", "juni", "juin"},
		{"july", "jul", "juli", "juillet", "juil"},
		{"august", "aug", "août", "aout", "augustus"},
		{"september", "sep", "sept", "septembre"},
		{"october", "oct", "oktober", "okt", "octobre"},
		{"november", "nov", "novembre"},
		{"december", "dec", "dezember", "dez", "décembre", "decembre", "déc"},
	}
	m := map[string]int{}
	for i, ns := range names {
		for _, n := range ns {
			m[foldAccents(n)] = i + 1
		}
	}
	return m
}()

// parseDate reads a date as invoices print it and returns it as
// YYYY-MM-DD: 02.01.2026, 2.1.26, 2026-01-02, 02/01/2026 (day first
// unless dayFirst is false, and either way when only one order is a real
// date), 2. Januar 2026, 2 janvier 2026, 1er janvier 2026, 2 January 2026,
// January 2, 2026, 02-Jan-2026.
func parseDate(s string, dayFirst bool) (string, bool) {
	s = strings.TrimSpace(strings.TrimRight(s, ",;"))
	if s == "" || len(s) > 40 {
		return "", false
	}
	if iso, ok := numericDate(s, dayFirst); ok {
		return iso, true
	}
	return textDate(s)
}

func numericDate(s string, dayFirst bool) (string, bool) {
	var sep byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigitByte(c) {
			continue
		}
		if (c == '.' || c == '/' || c == '-') && (sep == 0 || sep == c) {
			sep = c
			continue
		}
		return "", false
	}
	if sep == 0 {
		return "", false
	}
	parts := strings.Split(strings.TrimSuffix(s, "."), string(sep))
	if len(parts) != 3 {
		return "", false
	}
	n := make([]int, 3)
	for i, p := range parts {
		if p == "" || len(p) > 4 {
			return "", false
		}
		n[i], _ = strconv.Atoi(p)
	}
	if len(parts[0]) == 4 {
		return isoDate(n[0], n[1], n[2])
	}
	if len(parts[2]) != 4 && len(parts[2]) != 2 || len(parts[0]) > 2 || len(parts[1]) > 2 {
		return "", false
	}
	year := n[2]
	if len(parts[2]) == 2 {
		year += 2000
	}
	first, second := n[0], n[1]
	if sep == '.' || dayFirst {
		if iso, ok := isoDate(year, second, first); ok {
			return iso, true
		}
		return isoDate(year, first, second)
	}
	if iso, ok := isoDate(year, first, second); ok {
		return iso, true
	}
	return isoDate(year, second, first)
}

// textDate reads a date with its month written as a word, day first or
// month first.
func textDate(s string) (string, bool) {
	var fields []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == ',' || r == '/' || r == '\u00a0' }) {
		if strings.Trim(f, ".") != "" { // a stray dot an OCR read between the parts
			fields = append(fields, f)
		}
	}
	if len(fields) != 3 {
		return "", false
	}
	month, day, year := 0, 0, 0
	if m, ok := monthOf(fields[1]); ok {
		month, day = m, dayOf(fields[0])
	} else if m, ok := monthOf(fields[0]); ok {
		month, day = m, dayOf(fields[1])
	} else {
		return "", false
	}
	y := strings.TrimSuffix(fields[2], ".")
	if !allDigits(y) || (len(y) != 4 && len(y) != 2) {
		return "", false
	}
	year, _ = strconv.Atoi(y)
	if len(y) == 2 {
		year += 2000
	}
	if day == 0 {
		return "", false
	}
	return isoDate(year, month, day)
}

func monthOf(s string) (int, bool) {
	m, ok := months[foldAccents(strings.ToLower(strings.TrimSuffix(s, ".")))]
	return m, ok
}

// dayOf reads a day of the month as "2", "2.", "02", "1er", "2nd".
func dayOf(s string) int {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	for _, suffix := range []string{"er", "st", "nd", "rd", "th", "e"} {
		s = strings.TrimSuffix(s, suffix)
	}
	if !allDigits(s) || len(s) > 2 {
		return 0
	}
	d, _ := strconv.Atoi(s)
	return d
}

// isoDate is the date as YYYY-MM-DD when it is a real calendar date.
func isoDate(year, month, day int) (string, bool) {
	if year < 1000 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 {
		return "", false
	}
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if t.Day() != day || int(t.Month()) != month {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", year, month, day), true
}

// plausibleDate says whether an ISO date is one an invoice of today can
// carry: from 2000 to two years after now.
func plausibleDate(iso string, now time.Time) bool {
	t, err := time.Parse(time.DateOnly, iso)
	return err == nil && t.Year() >= 2000 && t.Before(now.AddDate(2, 0, 0))
}
