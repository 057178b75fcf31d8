package intake_test

import (
	"context"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/intake"
)

// The next and previous documents are the rows below and above on the
// desk, for the tab and the search the desk showed, and still so when the
// document has left the queue (approved, rejected) in between.
func TestPositionFollowsTheDesksQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	a := w.doc(t, 0)
	b := w.doc(t, a) // flagged
	c := w.doc(t, 0)
	d := w.doc(t, 0)
	e := w.doc(t, a) // flagged
	w.named(t, a, "Acme AB", "A-1", "")
	w.named(t, b, "Other AB", "B-1", "")
	w.named(t, c, "Acme AB", "C-1", "")
	w.named(t, d, "Other AB", "D-1", "")
	w.named(t, e, "Acme AB", "E-1", "")
	cases := []struct {
		name string
		f    intake.QueueFilter
		at   int64
		want intake.QueuePosition
	}{
		{"needs review, in the middle", intake.QueueFilter{Tab: intake.TabNeedsReview}, c, intake.QueuePosition{Previous: d, Next: b}},
		{"needs review, the newest", intake.QueueFilter{}, e, intake.QueuePosition{Previous: 0, Next: d}},
		{"needs review, the oldest", intake.QueueFilter{Tab: intake.TabNeedsReview}, a, intake.QueuePosition{Previous: b, Next: 0}},
		{"flagged tab skips the pending", intake.QueueFilter{Tab: intake.TabFlagged}, e, intake.QueuePosition{Next: b}},
		{"a search skips the others", intake.QueueFilter{Tab: intake.TabNeedsReview, Query: "acme"}, c, intake.QueuePosition{Previous: e, Next: a}},
		{"a document outside the tab", intake.QueueFilter{Tab: intake.TabFlagged}, c, intake.QueuePosition{Previous: e, Next: b}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := intake.Position(ctx, w.db.Pool, w.org.ID, tc.f, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("position of %d: %+v, want %+v", tc.at, got, tc.want)
			}
		})
	}

	// Rejecting c takes it out of "Needs review": its neighbours stay.
	if _, err := w.app.Decisions.Reject(ctx, w.org.ID, c, "not ours", w.actor); err != nil {
		t.Fatal(err)
	}
	got, err := intake.Position(ctx, w.db.Pool, w.org.ID, intake.QueueFilter{Tab: intake.TabNeedsReview}, c)
	if err != nil {
		t.Fatal(err)
	}
	if got != (intake.QueuePosition{Previous: d, Next: b}) {
		t.Fatalf("after rejecting %d: %+v, want previous %d, next %d", c, got, d, b)
	}

	// Another org's documents are never neighbours.
	if got, err := intake.Position(ctx, w.db.Pool, w.org.ID+1000, intake.QueueFilter{}, c); err != nil || got != (intake.QueuePosition{}) {
		t.Fatalf("another org: %+v, %v", got, err)
	}
}
