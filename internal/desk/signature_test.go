package desk_test

import (
	"testing"
	"time"

	"greatbook/internal/desk"
	"greatbook/internal/intake"
	"greatbook/internal/review"
)

// The group watch's signature ignores the reader's own decision on the
// document and the posting after it, and sees everyone else's.
func TestGroupSignatureIgnoresOnlyTheReadersOwnDecision(t *testing.T) {
	t.Parallel()
	now := time.Now()
	before := []review.Member{{ID: 1, Status: intake.Pending}, {ID: 2, Status: intake.Flagged, DuplicateOf: 1}}
	sig := desk.GroupSignature(before, 1, "ann@example.test")
	with := func(f func(ms []review.Member)) []review.Member {
		ms := append([]review.Member(nil), before...)
		f(ms)
		return ms
	}
	cases := []struct {
		name    string
		members []review.Member
		same    bool
	}{
		{"nothing happened", before, true},
		{"the reader approved it", with(func(ms []review.Member) {
			ms[0].Status, ms[0].DecidedBy, ms[0].DecidedAt = intake.Active, "ann@example.test", &now
		}), true},
		{"the reader's approval was posted", with(func(ms []review.Member) {
			ms[0].Status, ms[0].DecidedBy, ms[0].DecidedAt, ms[0].ResultEntryID = intake.Posted, "ann@example.test", &now, 7
		}), true},
		{"someone else approved it", with(func(ms []review.Member) {
			ms[0].Status, ms[0].DecidedBy, ms[0].DecidedAt = intake.Active, "bob@example.test", &now
		}), false},
		{"someone decided another member", with(func(ms []review.Member) {
			ms[1].Status, ms[1].DecidedBy = intake.Rejected, "ann@example.test"
		}), false},
		{"a member joined", append(append([]review.Member(nil), before...), review.Member{ID: 3, Status: intake.Flagged, DuplicateOf: 1}), false},
	}
	for _, c := range cases {
		if got := desk.GroupSignature(c.members, 1, "ann@example.test") == sig; got != c.same {
			t.Errorf("%s: signature unchanged = %v, want %v", c.name, got, c.same)
		}
	}
}
