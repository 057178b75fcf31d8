package events_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"greatbook/internal/events"
	"greatbook/internal/testkit"
)

// readAll follows an org's feed from the beginning in pages of limit until a
// page comes back short, checking that ids only grow and that the next
// cursor is the last event's id, and returns the reasons seen.
func readAll(t *testing.T, db *testkit.DB, org int64, limit int) []string {
	t.Helper()
	f := &follower{db: db, org: org}
	for {
		got, next, err := events.Read(context.Background(), db.Pool, org, f.cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if e.ID <= f.cursor {
				t.Fatalf("limit %d: event %s came at or before the cursor %s", limit, e.ID, f.cursor)
			}
			f.cursor = e.ID
		}
		if next != f.cursor {
			t.Fatalf("limit %d: next cursor %q is not the last event's id %q", limit, next, f.cursor)
		}
		f.seen = append(f.seen, got...)
		if len(got) < limit {
			return f.reasons()
		}
	}
}

// assertHeadIsLast checks that the feed's head is its last event, and that
// nothing follows it.
func assertHeadIsLast(t *testing.T, db *testkit.DB, org int64, want []string) {
	t.Helper()
	ctx := context.Background()
	head, err := events.Head(ctx, db.Pool, org)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := events.Read(ctx, db.Pool, org, "", events.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) || head != all[len(all)-1].ID {
		t.Fatalf("the head %q is not the last of the %d events", head, len(want))
	}
	if rest, _, err := events.Read(ctx, db.Pool, org, head, events.MaxLimit); err != nil || len(rest) != 0 {
		t.Fatalf("after the head the feed returned %d events (%v), want none", len(rest), err)
	}
}

var pageSizes = []int{1, 2, 3, 5, 7, 100, 1000}

// TestTheFeedKeepsCommitOrderAcrossTransactionIDDigitBoundaries reads a
// feed whose events carry transaction ids on both sides of each power of
// ten up to 10,000 (several events in some transactions), with several page
// sizes: every event exactly once, in commit order; the head is the last.
func TestTheFeedKeepsCommitOrderAcrossTransactionIDDigitBoundaries(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	// The feed shows transactions older than every one still running: the
	// ids written below must be in the server's past.
	testkit.AdvanceTransactionIDs(t, db, 10_100)
	var want []string
	for i, x := range []uint64{7, 8, 9, 9, 10, 11, 98, 99, 100, 101, 999, 999, 1000, 1001, 9996, 9997, 9998, 9999,
		10000, 10000, 10001, 10002} {
		reason := fmt.Sprintf("e%02d@%d", i, x)
		if _, err := db.Pool.Exec(context.Background(), `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id,
			from_status, to_status, detail, xact) VALUES ($1, 'system:test', $2, 'intake', $3, 'pending', 'rejected',
			jsonb_build_object('reason', $4::text), $5::text::xid8)`, org.ID, events.ActionReject, i+1, reason, fmt.Sprint(x)); err != nil {
			t.Fatal(err)
		}
		want = append(want, reason)
	}
	// A transaction of another test that began before these ids holds
	// the horizon below them until it ends.
	testkit.Eventually(t, 30*time.Second, "every event in the feed", func() (bool, error) {
		got, _, err := events.Read(context.Background(), db.Pool, org.ID, "", events.MaxLimit)
		return len(got) == len(want), err
	})
	for _, limit := range pageSizes {
		if got := readAll(t, db, org.ID, limit); !slices.Equal(got, want) {
			t.Errorf("read with limit %d, the follower saw\n%v\nwant every event once, in commit order:\n%v", limit, got, want)
		}
	}
	assertHeadIsLast(t, db, org.ID, want)
}

// TestEventsOfRealTransactionsAcrossAPowerOfTen writes events in committed
// transactions whose ids cross the next power of ten of the server, and
// reads them with several page sizes: every event once, in commit order.
func TestEventsOfRealTransactionsAcrossAPowerOfTen(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	ctx := context.Background()
	var want []string
	var xacts []uint64
	write := func() uint64 {
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reason := fmt.Sprintf("e%02d", len(want))
		record(t, tx, org.ID, int64(len(want)+1), reason)
		var x uint64
		if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text::numeric`).Scan(&x); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		want, xacts = append(want, reason), append(xacts, x)
		return x
	}
	// Other tests of the binary use ids too: aim a few ids below the next
	// power of ten and write until the events stand on both sides of it.
	var boundary uint64
	for attempt := 0; len(xacts) == 0 || xacts[0] >= boundary; attempt++ {
		if attempt == 5 {
			t.Fatalf("the events' transactions %v never crossed a power of ten", xacts)
		}
		boundary = 10
		for boundary < testkit.CurrentTransactionID(t, db)+10 {
			boundary *= 10
		}
		testkit.AdvanceTransactionIDs(t, db, boundary-4)
		write()
	}
	for len(xacts) < 3 || xacts[len(xacts)-1] < boundary+3 {
		write()
	}
	t.Logf("events written by transactions %v", xacts)
	testkit.Eventually(t, 30*time.Second, "every committed event in the feed", func() (bool, error) {
		got, _, err := events.Read(ctx, db.Pool, org.ID, "", events.MaxLimit)
		return len(got) == len(want), err
	})
	for _, limit := range pageSizes {
		if got := readAll(t, db, org.ID, limit); !slices.Equal(got, want) {
			t.Errorf("read with limit %d, the follower saw\n%v\nwant every event once, in commit order:\n%v", limit, got, want)
		}
	}
	assertHeadIsLast(t, db, org.ID, want)
}
