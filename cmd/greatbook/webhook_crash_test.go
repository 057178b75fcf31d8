package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"greatbook/internal/events"
	"greatbook/internal/testkit"
)

// A serve SIGKILLed while it waits on a receiver loses no delivery: the next
// serve sends the event again (the same event id, the receiver's
// idempotency key) once the dead worker's lease on the endpoint runs out,
// and every event of the feed reaches the receiver.
func TestWebhookKilledMidDeliveryIsDeliveredAfterARestart(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd")

	var mu sync.Mutex
	var got []string // event ids answered 200
	first := make(chan struct{})
	var firstOnce sync.Once
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hung := false
		firstOnce.Do(func() { hung = true; close(first) })
		if hung { // the first request never gets an answer from this receiver
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		mu.Lock()
		got = append(got, r.Header.Get("GreatBook-Event-Id"))
		mu.Unlock()
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	if _, err := db.Pool.Exec(ctx, `INSERT INTO webhook_endpoints (org_id, url, secret, created_by)
		SELECT id, $1, 'whsec_0123456789abcdef', 'test' FROM orgs WHERE slug = 'acme'`, srv.URL); err != nil {
		t.Fatal(err)
	}
	runCLI(t, db.URL, "", "ingest", "--org", "acme", "../../internal/einvoice/testdata/ubl-invoice-multirate.xml")

	env := []string{"DATABASE_URL=" + db.URL, "GREATBOOK_WEBHOOK_ALLOW_PRIVATE=1", "GREATBOOK_WEBHOOK_TIMEOUT=2s"}
	s := startServeWith(t, binary, env)
	select {
	case <-first:
	case <-time.After(60 * time.Second):
		t.Fatalf("no delivery was attempted; %d queued", testkit.Count(t, db, `SELECT count(*) FROM webhook_deliveries`))
	}
	s.kill(t)
	if n := testkit.Count(t, db, `SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`); n != 0 {
		t.Fatalf("%d deliveries marked delivered although no receiver answered", n)
	}

	startServeWith(t, binary, env)
	var orgID int64
	if err := db.Pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&orgID); err != nil {
		t.Fatal(err)
	}
	// The CLI's ingest filed the document before any serve started, but the
	// feed shows a transaction's events only once every transaction of the
	// cluster that started before it has ended (the test cluster's other
	// databases included), so the test waits for the feed itself to hold
	// document.filed, the document's last event.
	var feed []events.Event
	testkit.Eventually(t, 60*time.Second, "the feed holding document.filed", func() (bool, error) {
		var err error
		feed, _, err = events.Read(ctx, db.Pool, orgID, "", 100)
		return slices.ContainsFunc(feed, func(e events.Event) bool { return e.Type == events.DocumentFiled }), err
	})
	var want []string
	for _, e := range feed {
		want = append(want, e.ID)
	}
	testkit.Eventually(t, 90*time.Second, "every event delivered after the restart", func() (bool, error) {
		return testkit.Count(t, db, `SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`) == len(want), nil
	})
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if !slices.Equal(slices.Compact(got), want) {
		t.Fatalf("the receiver got %v, the feed holds %v", got, want)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM webhook_deliveries`); n != len(want) {
		t.Fatalf("%d deliveries for %d events", n, len(want))
	}
}
