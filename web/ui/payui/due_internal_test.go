package payui

import (
	"testing"
	"time"
)

// The week ends on Sunday: a Sunday is its own week's end.
func TestEndOfWeek(t *testing.T) {
	t.Parallel()
	for day, want := range map[string]string{
		"2026-11-30": "2026-12-06", // Monday
		"2026-12-04": "2026-12-06", // Friday
		"2026-12-06": "2026-12-06", // Sunday
		"2026-12-28": "2027-01-03", // across the year
	} {
		d, _ := time.Parse(time.DateOnly, day)
		if got := endOfWeek(d.Add(23 * time.Hour)).Format(time.DateOnly); got != want {
			t.Errorf("endOfWeek(%s) = %s, want %s", day, got, want)
		}
	}
}
