package webhooks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"greatbook/internal/events"
	"greatbook/internal/testkit"
	"greatbook/internal/webhooks"
)

// TestEndpointsFollowTheFeedAcrossATransactionIDDigitBoundary: events of
// transactions on both sides of 10,000 are queued once each for an endpoint
// that was there before them, its cursor ends after the last, and an
// endpoint registered after them starts after the last (it is queued none).
func TestEndpointsFollowTheFeedAcrossATransactionIDDigitBoundary(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	before := f.endpoint(t, "http://127.0.0.1:9/before", "s")
	testkit.AdvanceTransactionIDs(t, f.db, 10_100)
	xacts := []uint64{9997, 9998, 9999, 10000, 10001, 10002}
	for i, x := range xacts {
		if _, err := f.db.Pool.Exec(ctx, `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id, detail, xact)
			VALUES ($1, 'system:test', 'received', 'intake', $2, '{"via": "api"}', $3::text::xid8)`, f.orgID, i+1, fmt.Sprint(x)); err != nil {
			t.Fatal(err)
		}
	}
	// A transaction of another test that began before these ids holds the
	// feed's horizon below them until it ends.
	testkit.Eventually(t, 30*time.Second, "the 6 events in the feed", func() (bool, error) {
		evs, _, err := events.Read(ctx, f.db.Pool, f.orgID, "", 100)
		return len(evs) == 6, err
	})
	after, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/after"}, admin)
	if err != nil {
		t.Fatal(err)
	}
	f.dispatch(t)
	f.dispatch(t)
	rows, err := f.db.Pool.Query(ctx, `SELECT body::jsonb->>'intake_id' FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_id`, before)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != "[1 2 3 4 5 6]" {
		t.Fatalf("the endpoint from before was queued %v, want each of the 6 events once, in feed order", got)
	}
	head, err := events.Head(ctx, f.db.Pool, f.orgID)
	if err != nil {
		t.Fatal(err)
	}
	var cursor string
	if err := f.db.Pool.QueryRow(ctx, `SELECT feed_cursor FROM webhook_endpoints WHERE id = $1`, before).Scan(&cursor); err != nil {
		t.Fatal(err)
	}
	if cursor != head {
		t.Fatalf("the endpoint's cursor %q is not the feed's head %q", cursor, head)
	}
	if n := testkit.Count(t, f.db, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, after.ID); n != 0 {
		t.Fatalf("an endpoint registered after the events was queued %d of them", n)
	}
}
