// Package storable says what PostgreSQL can hold, so that text is checked at
// the door rather than refused by a write deep inside a run: a text or jsonb
// value must be valid UTF-8 without NUL characters (SQLSTATE 22021 and
// 22P05), and the product bounds every text it stores.
package storable

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"greatbook/internal/apperr"
)

// MaxText bounds any single text extracted from a document (a name, a
// number, a line's description): far above what an invoice needs, far below
// what would make a page or a row absurd.
const MaxText = 4096

// MaxKey bounds the texts that identify things in the ledger: a source id,
// an entry set, a dimension value (00002_ledger.sql checks 200 for the
// first two); the bookkeeper puts the seller's identity in a dimension.
const MaxKey = 200

// MaxMessage bounds an error message stored for operators (a run's
// last_error, a finding's message).
const MaxMessage = 2000

// The years a date the product keeps may fall in. PostgreSQL's date goes
// back to 4713 BC but has no year 0, which Go parses; a booking dated
// before 1900 or after 9999 is a typo, not a booking, and the ledger
// refuses it, so intake and settings refuse it at the door too.
const (
	EarliestYear = 1900
	LatestYear   = 9999
)

// DateProblem says why s is not a date the product keeps (YYYY-MM-DD in
// the years EarliestYear to LatestYear), or "" when it is.
func DateProblem(s string) string {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "must be a date YYYY-MM-DD"
	}
	if d.Year() < EarliestYear || d.Year() > LatestYear {
		return fmt.Sprintf("%s is outside the years %d to %d", s, EarliestYear, LatestYear)
	}
	return ""
}

// Problem says why s cannot be stored as it is, or "" when it can.
func Problem(s string, max int) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL character, which the database cannot store"
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case max > 0 && len(s) > max:
		return fmt.Sprintf("is %d bytes long, more than the %d allowed", len(s), max)
	}
	return ""
}

// OK reports whether s can be stored as it is.
func OK(s string, max int) bool { return Problem(s, max) == "" }

// Clean returns s made storable: every NUL character and every invalid UTF-8
// sequence becomes U+FFFD (so a reader still sees where something was), and
// the result is cut, at a character boundary, to at most max bytes (max <= 0:
// no bound).
func Clean(s string, max int) string {
	if OK(s, max) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	if max > 0 && len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// Message returns an error's text as it may be stored for operators.
func Message(err error) string {
	if err == nil {
		return ""
	}
	return Clean(err.Error(), MaxMessage)
}

// Param is a request parameter to check before it reaches a query: its name
// as the request gives it, its value, and the most bytes a value may have
// (max <= 0: no bound).
type Param struct {
	Name  string
	Value string
	Max   int
}

// Reason is one refused parameter, in the shape of the API's reasons.
type Reason struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// CheckParameters refuses parameters the database cannot compare (a NUL,
// invalid UTF-8) or that no stored value could equal (too long), rather than
// letting the query fail with a 500: an apperr.Invalid whose message names
// the first such parameter and whose "reasons" name every one, in the order
// given, so the answer is the same every time.
func CheckParameters(params ...Param) error {
	var reasons []Reason
	for _, p := range params {
		if problem := Problem(p.Value, p.Max); problem != "" {
			reasons = append(reasons, Reason{Field: p.Name, Message: problem})
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	return apperr.New(apperr.Invalid, "the parameter %s %s", reasons[0].Field, reasons[0].Message).
		With("reasons", reasons)
}

// JSONProblem says why b cannot be stored in a jsonb column, or "" when it
// can: it must be valid JSON in valid UTF-8, and no string in it may hold
// the escape \u0000 (jsonb refuses it, SQLSTATE 22P05).
func JSONProblem(b []byte) string {
	if !utf8.Valid(b) {
		return "is not valid UTF-8"
	}
	if !json.Valid(b) {
		return "is not valid JSON"
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) && string(b[i+2:i+6]) == "0000" {
			return "contains a NUL character (\\u0000), which the database cannot store"
		}
		i++ // skip the escaped character, so "\\u0000" (an escaped backslash) is not taken for one
	}
	return ""
}
