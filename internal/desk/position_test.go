package desk_test

import (
	"context"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/desk"
)

// The next and previous documents are the rows below and above on the
// desk, for the tab and the search the desk showed, and still so when the
// document has left the queue (approved, rejected) in between.
func TestPositionFollowsTheDesksQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	a := w.Doc(t, 0)
	b := w.Doc(t, a) // flagged
	c := w.Doc(t, 0)
	d := w.Doc(t, 0)
	e := w.Doc(t, a) // flagged
	w.Named(t, a, "Acme AB", "A-1", "")
	w.Named(t, b, "Other AB", "B-1", "")
	w.Named(t, c, "Acme AB", "C-1", "")
	w.Named(t, d, "Other AB", "D-1", "")
	w.Named(t, e, "Acme AB", "E-1", "")
	cases := []struct {
		name string
		f    desk.QueueFilter
		at   int64
		want desk.QueuePosition
	}{
		{"needs review, in the middle", desk.QueueFilter{Tab: desk.TabNeedsReview}, c, desk.QueuePosition{Previous: d, Next: b}},
		{"needs review, the newest", desk.QueueFilter{}, e, desk.QueuePosition{Previous: 0, Next: d}},
		{"needs review, the oldest", desk.QueueFilter{Tab: desk.TabNeedsReview}, a, desk.QueuePosition{Previous: b, Next: 0}},
		{"flagged tab skips the pending", desk.QueueFilter{Tab: desk.TabFlagged}, e, desk.QueuePosition{Next: b}},
		{"a search skips the others", desk.QueueFilter{Tab: desk.TabNeedsReview, Query: "acme"}, c, desk.QueuePosition{Previous: e, Next: a}},
		{"a document outside the tab", desk.QueueFilter{Tab: desk.TabFlagged}, c, desk.QueuePosition{Previous: e, Next: b}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := desk.Position(ctx, w.DB.Pool, w.Org.ID, tc.f, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("position of %d: %+v, want %+v", tc.at, got, tc.want)
			}
		})
	}

	// Rejecting c takes it out of "Needs review": its neighbours stay.
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, c, "not ours", w.Actor); err != nil {
		t.Fatal(err)
	}
	got, err := desk.Position(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabNeedsReview}, c)
	if err != nil {
		t.Fatal(err)
	}
	if got != (desk.QueuePosition{Previous: d, Next: b}) {
		t.Fatalf("after rejecting %d: %+v, want previous %d, next %d", c, got, d, b)
	}

	// Another org's documents are never neighbours.
	if got, err := desk.Position(ctx, w.DB.Pool, w.Org.ID+1000, desk.QueueFilter{}, c); err != nil || got != (desk.QueuePosition{}) {
		t.Fatalf("another org: %+v, %v", got, err)
	}
}

// In every order the desk can sort by, a document's neighbours are the rows
// above and below it on the desk's page in that order (ties and missing
// values included), and a document that left the tab keeps its place.
func TestPositionFollowsEverySortedOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	first := w.Doc(t, 0)
	for range 5 {
		w.Doc(t, 0)
	}
	w.Doc(t, first) // flagged
	w.Doc(t, first) // flagged
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET fields = jsonb_set(jsonb_set(coalesce(fields, '{}'), '{due_date}',
			to_jsonb('2026-12-0' || (id % 3 + 1)::text)), '{totals}', CASE WHEN id % 3 = 0 THEN '{}'::jsonb
			ELSE jsonb_build_object('payable', ((id % 4) * 10)::text) END)
		WHERE org_id = $1`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	for _, key := range desk.SortKeys {
		for _, desc := range []bool{false, true} {
			f := desk.QueueFilter{Tab: desk.TabNeedsReview, Order: desk.QueueOrder{Key: key, Desc: desc}, PageSize: 50}
			page, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range page.Rows {
				want := desk.QueuePosition{}
				if i > 0 {
					want.Previous = page.Rows[i-1].ID
				}
				if i+1 < len(page.Rows) {
					want.Next = page.Rows[i+1].ID
				}
				got, err := desk.Position(ctx, w.DB.Pool, w.Org.ID, f, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("order %s: position of %d: %+v, want %+v (desk: %v)", f.Order, r.ID, got, want, ids(page.Rows))
				}
			}
		}
	}
}
