package database

import (
	"time"

	"greatbook/internal/apperr"
)

// DayRange returns the conditions that keep column within the days from
// and to (YYYY-MM-DD, both included; either may be empty), their values
// bound through arg, which appends a value and returns its placeholder. A
// date that is not YYYY-MM-DD is invalid.
func DayRange(column, from, to string, arg func(any) string) ([]string, error) {
	var where []string
	for _, d := range []struct{ v, op string }{{from, ">="}, {to, "<"}} {
		if d.v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, d.v)
		if err != nil {
			return nil, apperr.New(apperr.Invalid, "dates must be YYYY-MM-DD, not %q", d.v)
		}
		if d.op == "<" {
			t = t.AddDate(0, 0, 1) // the whole of the last day
		}
		where = append(where, column+" "+d.op+" "+arg(t))
	}
	return where, nil
}
