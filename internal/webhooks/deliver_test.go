package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/retry"
	"greatbook/internal/testkit"
	"greatbook/internal/webhooks"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var admin = audit.Actor{Label: "admin@test"}

// fixture is a test database with an org and a delivery service that
// allows private addresses (httptest listens on 127.0.0.1).
type fixture struct {
	db    *testkit.DB
	orgID int64
	svc   *webhooks.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	svc := &webhooks.Service{Pool: db.Pool, AllowPrivate: true, Timeout: 5 * time.Second, MaxAttempts: 4,
		Backoff: retry.Policy{Base: time.Minute, Max: time.Hour, MaxRetryAfter: time.Hour}}
	return &fixture{db: db, orgID: o.ID, svc: svc}
}

// endpoint registers url directly in the table (as if its name had
// resolved to a public address at registration).
func (f *fixture) endpoint(t *testing.T, url, secret string) int64 {
	t.Helper()
	var id int64
	if err := f.db.Pool.QueryRow(context.Background(), `INSERT INTO webhook_endpoints (org_id, url, secret, created_by)
		VALUES ($1, $2, $3, 'test') RETURNING id`, f.orgID, url, secret).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// delivery queues an event for an endpoint.
func (f *fixture) delivery(t *testing.T, endpointID int64, eventID, body string) int64 {
	t.Helper()
	var id int64
	if err := f.db.Pool.QueryRow(context.Background(), `INSERT INTO webhook_deliveries (org_id, endpoint_id, event_id, event_type, body)
		VALUES ($1, $2, $3, 'document.posted', $4) RETURNING id`, f.orgID, endpointID, eventID, body).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

type deliveryRow struct {
	Status     string
	Attempts   int
	LastStatus *int
	LastError  string
	DueIn      float64 // seconds from its last change to its next attempt
}

func (f *fixture) row(t *testing.T, id int64) deliveryRow {
	t.Helper()
	var r deliveryRow
	if err := f.db.Pool.QueryRow(context.Background(), `SELECT status, attempts, last_status, last_error,
		extract(epoch FROM next_attempt_at - updated_at)::float8 FROM webhook_deliveries WHERE id = $1`, id).
		Scan(&r.Status, &r.Attempts, &r.LastStatus, &r.LastError, &r.DueIn); err != nil {
		t.Fatal(err)
	}
	return r
}

// due makes every waiting delivery due now, and ends every endpoint's rest,
// so a test does not wait out a backoff.
func (f *fixture) due(t *testing.T) {
	t.Helper()
	if _, err := f.db.Pool.Exec(context.Background(), `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending'`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Pool.Exec(context.Background(), `UPDATE webhook_endpoints SET in_flight_until = NULL WHERE in_flight_claim = ''`); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) deliverOne(t *testing.T) bool {
	t.Helper()
	did, err := f.svc.DeliverOne(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return did
}

// verify is the recipe a receiver follows, written from the documentation
// alone: split the header on commas into t= and v1=, recompute
// hex(HMAC-SHA256(secret, t + "." + raw body)), compare in constant time,
// and refuse a t more than five minutes from the receiver's clock.
func verify(secret, header string, body []byte, now time.Time) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	io.WriteString(mac, ts+"."+string(body))
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(sig))
}

// verifyV2 is the recipe for the GreatBook-Signature-V2 header, written
// from the documentation alone: split it on commas into t= and v2=,
// recompute hex(HMAC-SHA256(secret, t + "." + event id + "." + raw body))
// with the GreatBook-Event-Id header's value, compare in constant time, and
// refuse a t more than five minutes from the receiver's clock.
func verifyV2(secret, header, eventID string, body []byte, now time.Time) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v2":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	io.WriteString(mac, ts+"."+eventID+"."+string(body))
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(sig))
}

type received struct {
	header http.Header
	body   []byte
}

// receiver answers each request with the next of statuses (the last one
// repeats), recording what it received.
func receiver(t *testing.T, statuses ...int) (*httptest.Server, func() []received) {
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Clone(), b})
		st := statuses[min(len(got), len(statuses))-1]
		mu.Unlock()
		if st == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "120")
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received { mu.Lock(); defer mu.Unlock(); return append([]received(nil), got...) }
}

func TestADeliveryIsSignedSoTheDocumentedRecipeVerifiesIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, got := receiver(t, http.StatusOK)
	const secret = "whsec_0123456789abcdef"
	ep := f.endpoint(t, srv.URL+"/hook", secret)
	body := `{"id":"ev-1","type":"document.posted"}`
	id := f.delivery(t, ep, "ev-1", body)
	if !f.deliverOne(t) {
		t.Fatal("nothing was delivered")
	}
	reqs := got()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	h := reqs[0].header
	if string(reqs[0].body) != body {
		t.Fatalf("body %q", reqs[0].body)
	}
	if !verify(secret, h.Get("GreatBook-Signature"), reqs[0].body, time.Now()) {
		t.Fatalf("the signature %q does not verify", h.Get("GreatBook-Signature"))
	}
	if verify("whsec_another-secret!", h.Get("GreatBook-Signature"), reqs[0].body, time.Now()) {
		t.Fatal("the signature verifies with another secret")
	}
	if verify(secret, h.Get("GreatBook-Signature"), append(reqs[0].body, ' '), time.Now()) {
		t.Fatal("the signature verifies a changed body")
	}
	if verify(secret, h.Get("GreatBook-Signature"), reqs[0].body, time.Now().Add(time.Hour)) {
		t.Fatal("an hour-old signature verifies: replays would pass")
	}
	// The second signature covers the event id too, so that a receiver may
	// trust the id it de-duplicates on.
	v2 := h.Get("GreatBook-Signature-V2")
	if !verifyV2(secret, v2, h.Get("GreatBook-Event-Id"), reqs[0].body, time.Now()) {
		t.Fatalf("the v2 signature %q does not verify", v2)
	}
	if verifyV2(secret, v2, "ev-2", reqs[0].body, time.Now()) {
		t.Fatal("the v2 signature verifies another event id")
	}
	if verifyV2(secret, v2, h.Get("GreatBook-Event-Id"), append(reqs[0].body, ' '), time.Now()) {
		t.Fatal("the v2 signature verifies a changed body")
	}
	if verifyV2(secret, v2, h.Get("GreatBook-Event-Id"), reqs[0].body, time.Now().Add(time.Hour)) {
		t.Fatal("an hour-old v2 signature verifies: replays would pass")
	}
	if t1, t2 := strings.Split(h.Get("GreatBook-Signature"), ",")[0], strings.Split(v2, ",")[0]; t1 != t2 {
		t.Errorf("the two signatures were made at %s and %s", t1, t2)
	}
	if h.Get("GreatBook-Event-Id") != "ev-1" || h.Get("GreatBook-Event-Type") != "document.posted" || h.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", h)
	}
	if r := f.row(t, id); r.Status != "delivered" || r.Attempts != 1 {
		t.Fatalf("after a 200: %+v", r)
	}
	if f.deliverOne(t) {
		t.Fatal("a delivered event was sent again")
	}
}

func TestSignatureIsStripeShaped(t *testing.T) {
	t.Parallel()
	got := webhooks.Signature("secret", time.Unix(1700000000, 0), []byte("{}"))
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte("1700000000.{}"))
	if want := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestSignatureV2CoversTheEventID(t *testing.T) {
	t.Parallel()
	got := webhooks.SignatureV2("secret", time.Unix(1700000000, 0), "00000000000004d20000000000000007", []byte("{}"))
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte("1700000000.00000000000004d20000000000000007.{}"))
	if want := "t=1700000000,v2=" + hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestFailuresAreRetriedWithBackoffAndRetryAfterUntilA2xx(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, got := receiver(t, 503, 429, 200)
	id := f.delivery(t, f.endpoint(t, srv.URL, "whsec_0123456789abcdef"), "ev-1", `{}`)

	f.deliverOne(t)
	r := f.row(t, id)
	if r.Status != "pending" || r.Attempts != 1 || r.LastStatus == nil || *r.LastStatus != 503 {
		t.Fatalf("after a 503: %+v", r)
	}
	if f.deliverOne(t) {
		t.Fatal("sent again before its backoff passed")
	}
	f.due(t)
	f.deliverOne(t)
	// A 429's Retry-After (120 s) is honoured, not the test's millisecond backoff.
	if r := f.row(t, id); r.Status != "pending" || r.Attempts != 2 || r.DueIn < 119 || r.DueIn > 121 {
		t.Fatalf("after a 429 with Retry-After: 120: %+v", r)
	}
	f.due(t)
	f.deliverOne(t)
	if r := f.row(t, id); r.Status != "delivered" || r.Attempts != 3 {
		t.Fatalf("after the 200: %+v", r)
	}
	reqs := got()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, q := range reqs {
		if q.header.Get("GreatBook-Event-Id") != "ev-1" {
			t.Fatal("a retry changed the idempotency key")
		}
	}
}

func TestANetworkErrorIsRetriedAndTheLastAttemptLeavesADeadLetter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens: connection refused
	id := f.delivery(t, f.endpoint(t, url, "whsec_0123456789abcdef"), "ev-1", `{}`)
	for attempt := 1; attempt <= 4; attempt++ {
		f.due(t)
		if !f.deliverOne(t) {
			t.Fatalf("attempt %d was not made", attempt)
		}
		r := f.row(t, id)
		want := "pending"
		if attempt == 4 {
			want = "dead"
		}
		if r.Status != want || r.Attempts != attempt || r.LastError == "" {
			t.Fatalf("after attempt %d: %+v", attempt, r)
		}
	}
	f.due(t)
	if f.deliverOne(t) {
		t.Fatal("a dead letter was sent again")
	}
}

func TestA4xxIsADeadLetterAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, _ := receiver(t, http.StatusBadRequest)
	id := f.delivery(t, f.endpoint(t, srv.URL, "whsec_0123456789abcdef"), "ev-1", `{}`)
	f.deliverOne(t)
	if r := f.row(t, id); r.Status != "dead" || r.Attempts != 1 || *r.LastStatus != 400 {
		t.Fatalf("after a 400: %+v", r)
	}
}

func TestATimeoutIsRetried(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Timeout = 200 * time.Millisecond
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	id := f.delivery(t, f.endpoint(t, srv.URL, "whsec_0123456789abcdef"), "ev-1", `{}`)
	f.deliverOne(t)
	if r := f.row(t, id); r.Status != "pending" || r.Attempts != 1 || r.LastError == "" {
		t.Fatalf("after a timeout: %+v", r)
	}
}

func TestAHangingEndpointNeverBlocksTheOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Workers, f.svc.Timeout, f.svc.Poll = 2, time.Minute, 20*time.Millisecond
	f.svc.Logger = testkit.Logger(t)
	var hanging atomic.Int32
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hanging.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	fast, got := receiver(t, http.StatusOK)
	slowID := f.endpoint(t, slow.URL, "whsec_0123456789abcdef")
	for i := range 5 { // older than the fast one's, so claimed first
		f.delivery(t, slowID, "slow-"+strconv.Itoa(i), `{}`)
	}
	fastID := f.endpoint(t, fast.URL, "whsec_0123456789abcdef")
	f.delivery(t, fastID, "fast-0", `{}`)
	// The second is due once the first is sent: by then the hanging
	// endpoint was claimed less recently and would come first, were it not
	// in flight.
	fastDelivery := f.delivery(t, fastID, "fast-1", `{}`)

	ctx, cancel := context.WithCancel(context.Background())
	f.svc.Start(ctx)
	t.Cleanup(func() { close(release); cancel(); f.svc.Wait(); slow.Close() })
	testkit.Eventually(t, 30*time.Second, "the other endpoint's event delivered while one hangs", func() (bool, error) {
		return hanging.Load() > 0 && f.row(t, fastDelivery).Status == "delivered", nil
	})
	if n := hanging.Load(); n != 1 {
		t.Fatalf("the hanging endpoint holds %d requests, want 1 (one worker, the others free)", n)
	}
	if n := len(got()); n != 2 {
		t.Fatalf("the other endpoint received %d requests", n)
	}
}

func TestDeadLettersAreRetriedInBulkOnlyAsCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	srv, _ := receiver(t, http.StatusGone)
	ep := f.endpoint(t, srv.URL, "whsec_0123456789abcdef")
	var ids []int64
	for i := range 3 {
		ids = append(ids, f.delivery(t, ep, "ev-"+strconv.Itoa(i), `{}`))
		f.deliverOne(t)
	}
	filter := webhooks.DeadLetterFilter{EventType: "document.posted"}
	list, err := webhooks.DeadLetters(ctx, f.db.Pool, f.orgID, filter)
	if err != nil || len(list) != 3 {
		t.Fatalf("dead letters: %v, %v", list, err)
	}
	dry, err := webhooks.DryRunRetry(ctx, f.db.Pool, f.orgID, filter)
	if err != nil || dry.Count != 3 {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if _, err := f.svc.RetryMatching(ctx, f.orgID, filter, "", dry, admin); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("without a reason: %v", err)
	}
	if _, err := f.svc.RetryMatching(ctx, f.orgID, filter, "fixed", webhooks.DryRun{Count: 2, Set: dry.Set}, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("with a stale count: %v", err)
	}
	// Another org's filter matches none of them.
	other := testkit.Org(t, f.db)
	if n, _ := webhooks.CountDeadLetters(ctx, f.db.Pool, other.ID, filter); n != 0 {
		t.Fatalf("another org counts %d", n)
	}
	res, err := f.svc.RetryMatching(ctx, f.orgID, filter, "the receiver is fixed", dry, admin)
	if err != nil || res.Revived != 3 {
		t.Fatalf("bulk retry: %+v, %v", res, err)
	}
	for _, id := range ids {
		if r := f.row(t, id); r.Status != "pending" || r.Attempts != 0 {
			t.Fatalf("revived: %+v", r)
		}
	}
	if n := testkit.Count(t, f.db, `SELECT count(*) FROM audit_events WHERE action = 'webhook_bulk_retry'`); n != 1 {
		t.Fatalf("%d audit events", n)
	}
	// The same confirmation cannot revive them twice.
	if _, err := f.svc.RetryMatching(ctx, f.orgID, filter, "again", dry, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("the second bulk retry: %v", err)
	}
	// They die again: a fresh dry run is needed, the old one's digest no longer matches.
	for range 3 {
		f.deliverOne(t)
	}
	if _, err := f.svc.RetryMatching(ctx, f.orgID, filter, "again", dry, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("a stale set retried: %v", err)
	}
	if err := f.svc.Retry(ctx, f.orgID, ids[0], "one", admin); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Retry(ctx, other.ID, ids[1], "one", admin); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org's retry: %v", err)
	}
}

// An endpoint that failed transiently rests for the backoff: its other due
// deliveries wait too, so a hanging or failing endpoint costs a worker one
// timeout per backoff, not one per event of its backlog.
func TestAFailingEndpointRestsForItsBackoffWithAllItsDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, got := receiver(t, http.StatusServiceUnavailable)
	ep := f.endpoint(t, srv.URL, "whsec_0123456789abcdef")
	for i := range 3 {
		f.delivery(t, ep, "ev-"+strconv.Itoa(i), `{}`)
	}
	if !f.deliverOne(t) {
		t.Fatal("nothing was due")
	}
	if f.deliverOne(t) {
		t.Fatalf("a second delivery to an endpoint that just failed was sent at once (%d requests)", len(got()))
	}
	if n := len(got()); n != 1 {
		t.Fatalf("the endpoint received %d requests, want 1", n)
	}
	f.due(t)
	if !f.deliverOne(t) {
		t.Fatal("after its rest the endpoint was not tried again")
	}
}

// A failed delivery's error names the endpoint without its query: a
// receiver's URL may carry a token there, and the error reaches the page
// and the log.
func TestAFailedDeliveryNamesTheURLWithoutItsQuery(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL + "/hook?token=s3cret"
	srv.Close() // refused: the client's error quotes the URL
	ep := f.endpoint(t, url, "whsec_0123456789abcdef")
	id := f.delivery(t, ep, "ev-0", `{}`)
	f.deliverOne(t)
	if r := f.row(t, id); strings.Contains(r.LastError, "s3cret") || r.LastError == "" {
		t.Fatalf("last error %q", r.LastError)
	}
}

// A delivery whose worker died during its last attempt is out of attempts:
// no worker sends it again, and the sweep makes it a dead letter the admin
// sees and may retry, once its endpoint's lease is over.
func TestADeliveryWhoseLastAttemptNeverReportedBackIsADeadLetter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Poll = 20 * time.Millisecond
	srv, got := receiver(t, http.StatusOK)
	ep := f.endpoint(t, srv.URL, "whsec_0123456789abcdef")
	id := f.delivery(t, ep, "ev-1", `{}`)
	// The state a worker killed during the fourth and last request leaves,
	// its endpoint's lease over.
	if _, err := f.db.Pool.Exec(context.Background(), `UPDATE webhook_deliveries SET attempts = 4 WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if f.deliverOne(t) {
		t.Fatal("a delivery out of attempts was sent again")
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.svc.Start(ctx)
	t.Cleanup(func() { cancel(); f.svc.Wait() })
	testkit.Eventually(t, 30*time.Second, "the spent delivery a dead letter", func() (bool, error) {
		return f.row(t, id).Status == "dead", nil
	})
	if r := f.row(t, id); r.Attempts != 4 || !strings.Contains(r.LastError, "never reported back") {
		t.Fatalf("the dead letter: %+v", r)
	}
	if n := len(got()); n != 0 {
		t.Fatalf("the endpoint received %d requests", n)
	}
	if err := f.svc.Retry(context.Background(), f.orgID, id, "the receiver is fixed", admin); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the revived delivery delivered", func() (bool, error) {
		return f.row(t, id).Status == "delivered", nil
	})
}
