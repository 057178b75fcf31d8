package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/events"
	"greatbook/internal/testkit"
	"greatbook/internal/webhooks"
)

// received records a document's arrival in the audit trail, which the feed
// shows as document.received, in q (a pool, or a transaction left open).
func (f *fixture) received(t *testing.T, q database.Executor, intakeID int64) {
	t.Helper()
	if err := audit.Record(context.Background(), q, audit.Event{OrgID: f.orgID, Actor: audit.System("test"), Action: "received",
		SubjectType: "intake", SubjectID: intakeID, Detail: map[string]any{"via": "api"}}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) dispatch(t *testing.T) int {
	t.Helper()
	n, err := f.svc.Dispatch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDispatchQueuesEachCommittedEventOnceForEachEndpointThatWantsIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.received(t, f.db.Pool, 1) // before any endpoint: not theirs
	testkit.Eventually(t, 30*time.Second, "the first event in the feed", func() (bool, error) {
		evs, _, err := events.Read(ctx, f.db.Pool, f.orgID, "", 10)
		return len(evs) == 1, err
	})
	all, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/all"}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/posted", EventTypes: []string{"document.posted"}}, admin); err != nil {
		t.Fatal(err)
	}
	if n := f.dispatch(t); n != 0 {
		t.Fatalf("an event from before the endpoints was queued (%d)", n)
	}

	tx, err := f.db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	f.received(t, tx, 2)
	if n := f.dispatch(t); n != 0 {
		t.Fatalf("%d deliveries queued for a change not yet committed", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The feed shows a commit once every transaction older than it has
	// ended (other tests' too): a pass may come before that.
	queued := 0
	testkit.Eventually(t, 30*time.Second, "the committed event queued", func() (bool, error) {
		queued += f.dispatch(t)
		return queued > 0, nil
	})
	if queued != 1 {
		t.Fatalf("%d deliveries queued for one committed event and one endpoint that wants it", queued)
	}
	if n := f.dispatch(t); n != 0 {
		t.Fatalf("the next pass queued %d again", n)
	}
	// A replay from the start (a cursor lost, say) queues nothing twice.
	if _, err := f.db.Pool.Exec(ctx, `UPDATE webhook_endpoints SET feed_cursor = ''`); err != nil {
		t.Fatal(err)
	}
	f.dispatch(t)
	if n := testkit.Count(t, f.db, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'document.received'
		AND body::jsonb->>'intake_id' = '2'`, all.ID); n != 1 {
		t.Fatalf("after a replay the endpoint has %d deliveries of the event", n)
	}
	// A disabled endpoint is queued nothing more.
	if err := f.svc.Disable(ctx, f.orgID, all.ID, admin); err != nil {
		t.Fatal(err)
	}
	f.received(t, f.db.Pool, 3)
	f.received(t, f.db.Pool, 4) // ... to the endpoint of posted documents only
	if n := f.dispatch(t); n != 0 {
		t.Fatalf("%d queued for a disabled endpoint or one that does not want the type", n)
	}
}

func TestAnEventIsDeliveredAsTheFeedShowsItSigned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Poll = 20 * time.Millisecond
	ctx := context.Background()
	srv, got := receiver(t, http.StatusOK)
	ep, secret, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: srv.URL}, admin)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	f.svc.Start(runCtx)
	t.Cleanup(func() { cancel(); f.svc.Wait() })
	f.received(t, f.db.Pool, 42)
	testkit.Eventually(t, 30*time.Second, "the event delivered", func() (bool, error) {
		return testkit.Count(t, f.db, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'delivered'`, ep.ID) == 1, nil
	})
	reqs := got()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var ev struct {
		ID       string         `json:"id"`
		Type     string         `json:"type"`
		IntakeID int64          `json:"intake_id"`
		Data     map[string]any `json:"data"`
	}
	if err := json.Unmarshal(reqs[0].body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "document.received" || ev.IntakeID != 42 || ev.ID == "" || reqs[0].header.Get("GreatBook-Event-Id") != ev.ID {
		t.Fatalf("delivered %s with headers %v", reqs[0].body, reqs[0].header)
	}
	if !verify(secret, reqs[0].header.Get("GreatBook-Signature"), reqs[0].body, time.Now()) {
		t.Fatal("the signature does not verify with the secret shown at registration")
	}
}
