package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/database"
	"greatbook/internal/retry"
)

// Defaults of a Service.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxAttempts = 8
	DefaultWorkers     = 4
	DefaultPoll        = time.Second
	// MaxResponseBytes of a receiver's answer are read (and kept, shortened, as the last error).
	MaxResponseBytes = 4 << 10
)

// DefaultBackoff is the wait between attempts: from 30 s, doubling, capped
// at an hour, jittered in its upper half; a Retry-After is honoured up to
// the hour. Eight attempts span about an hour and a half.
var DefaultBackoff = retry.Policy{Base: 30 * time.Second, Max: time.Hour, MaxRetryAfter: time.Hour}

// Service registers endpoints and delivers events to them.
type Service struct {
	// Pool is concrete: the workers and the dispatcher use it from
	// goroutines they start.
	Pool *pgxpool.Pool
	// AllowPrivate lets endpoints point at loopback, link-local and private
	// addresses (the operator's choice; off by default against SSRF).
	AllowPrivate bool
	// Timeout bounds one delivery's request, connection to last byte.
	Timeout time.Duration
	// MaxAttempts is how often a delivery is sent before it is a dead letter.
	MaxAttempts int
	// Backoff spaces the attempts.
	Backoff retry.Policy
	// Workers send deliveries concurrently, so a hanging endpoint holds one
	// of them, for at most Timeout, and never the others.
	Workers int
	// Poll is how often the dispatcher reads the feed and idle workers look
	// for due deliveries.
	Poll     time.Duration
	Logger   *slog.Logger
	Resolver Resolver

	once   sync.Once
	client *http.Client
	wake   chan struct{}
	wg     sync.WaitGroup
}

func (s *Service) init() {
	s.once.Do(func() {
		if s.Timeout <= 0 {
			s.Timeout = DefaultTimeout
		}
		if s.MaxAttempts <= 0 {
			s.MaxAttempts = DefaultMaxAttempts
		}
		if s.Backoff.Base <= 0 {
			s.Backoff = DefaultBackoff
		}
		if s.Workers <= 0 {
			s.Workers = DefaultWorkers
		}
		if s.Poll <= 0 {
			s.Poll = DefaultPoll
		}
		if s.Logger == nil {
			s.Logger = slog.New(slog.DiscardHandler)
		}
		s.wake = make(chan struct{}, 1)
		dialer := &net.Dialer{Timeout: s.Timeout, Control: dialControl(s.AllowPrivate)}
		s.client = &http.Client{
			Timeout: s.Timeout,
			Transport: &http.Transport{
				// No proxy: a proxy would dial for us, past the address check.
				Proxy:                 nil,
				DialContext:           dialer.DialContext,
				TLSHandshakeTimeout:   s.Timeout,
				ResponseHeaderTimeout: s.Timeout,
				MaxIdleConnsPerHost:   2,
				IdleConnTimeout:       90 * time.Second,
			},
			// A redirect is an answer, not a 2xx: following it could lead past
			// the address check's intent to another host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
}

func (s *Service) resolver() Resolver {
	if s.Resolver != nil {
		return s.Resolver
	}
	return net.DefaultResolver
}

// lease is how long a claimed delivery is held: past it, a worker that
// died (a SIGKILL mid-request) no longer holds it and another sends it.
func (s *Service) lease() time.Duration { return s.Timeout + 5*time.Second }

// Start runs the dispatcher and the workers until ctx is done; Wait waits
// for them.
func (s *Service) Start(ctx context.Context) {
	s.init()
	s.wg.Go(func() { s.dispatchLoop(ctx) })
	for range s.Workers {
		s.wg.Go(func() { s.workLoop(ctx) })
	}
}

// Wait blocks until every goroutine Start started has stopped.
func (s *Service) Wait() { s.wg.Wait() }

func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) workLoop(ctx context.Context) {
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	for ctx.Err() == nil {
		did, err := s.DeliverOne(ctx)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("webhook delivery pass failed", "error", err)
		}
		if did {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

// claimed is a delivery a worker holds.
type claimed struct {
	ID, OrgID, EndpointID int64
	EventID, EventType    string
	Body                  string
	Attempt               int
	URL, Secret           string
}

// claimEndpointSQL takes the enabled endpoint with a due delivery that was
// claimed least recently and is not in flight, and holds it for a lease: one
// delivery at a time per endpoint, across processes (a second claimer skips
// the locked row, and after the commit sees it in flight).
const claimEndpointSQL = `UPDATE webhook_endpoints SET in_flight_until = now() + $1 * interval '1 second', last_claimed_at = now()
WHERE id = (
	SELECT e.id FROM webhook_endpoints e
	WHERE e.enabled AND (e.in_flight_until IS NULL OR e.in_flight_until < now())
	  AND EXISTS (SELECT 1 FROM webhook_deliveries c WHERE c.endpoint_id = e.id AND c.status = 'pending' AND c.next_attempt_at <= now())
	ORDER BY e.last_claimed_at NULLS FIRST, e.id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, url, secret`

// claimDeliverySQL counts an attempt of the endpoint's oldest due delivery.
// The attempt is counted before the request: a worker killed in the middle
// spends it, so a receiver that kills its sender is not retried forever.
const claimDeliverySQL = `UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = now()
WHERE id = (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= now()
	ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE)
RETURNING id, org_id, event_id, event_type, body, attempts`

// DeliverOne sends one due delivery, if there is one, and records what
// came of it; it reports whether there was one.
func (s *Service) DeliverOne(ctx context.Context) (bool, error) {
	s.init()
	c, err := database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (claimed, error) {
		var c claimed
		err := tx.QueryRow(ctx, claimEndpointSQL, s.lease().Seconds()).Scan(&c.EndpointID, &c.URL, &c.Secret)
		if err != nil {
			return c, err
		}
		err = tx.QueryRow(ctx, claimDeliverySQL, c.EndpointID).Scan(&c.ID, &c.OrgID, &c.EventID, &c.EventType, &c.Body, &c.Attempt)
		if err != nil {
			return c, err
		}
		_, err = tx.Exec(ctx, `UPDATE webhook_endpoints SET in_flight_claim = $2 WHERE id = $1`, c.EndpointID, c.claim())
		return c, err
	})
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("webhooks: claim: %w", err)
	}
	status, sendErr := s.send(ctx, c)
	// The outcome is recorded even if the process is stopping: the request
	// was made.
	return true, s.record(context.WithoutCancel(ctx), c, status, sendErr)
}

// claim names one attempt of one delivery.
func (c claimed) claim() string { return fmt.Sprintf("%d:%d", c.ID, c.Attempt) }

// statusError is a receiver's non-2xx answer.
type statusError struct {
	status     int
	body       string
	retryAfter time.Duration
}

func (e *statusError) Error() string {
	if e.body == "" {
		return fmt.Sprintf("the endpoint answered %d", e.status)
	}
	return fmt.Sprintf("the endpoint answered %d: %s", e.status, e.body)
}

// RetryClass: 5xx, 408 and 429 may pass; any other answer (a 3xx, a 4xx)
// is the receiver refusing these very bytes, which will not change by
// sending them again: a dead letter at once, for the admin to retry once
// the receiver is fixed.
func (e *statusError) RetryClass() retry.Class {
	if e.status >= 500 || e.status == http.StatusTooManyRequests || e.status == http.StatusRequestTimeout {
		return retry.Transient
	}
	return retry.Permanent
}

func (e *statusError) RetryAfter() time.Duration { return e.retryAfter }

func (s *Service) send(ctx context.Context, c claimed) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	body := []byte(c.Body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, retry.MarkPermanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GreatBook-Webhooks/1")
	sentAt := time.Now()
	req.Header.Set(SignatureHeader, Signature(c.Secret, sentAt, body))
	req.Header.Set(SignatureV2Header, SignatureV2(c.Secret, sentAt, c.EventID, body))
	req.Header.Set(EventIDHeader, c.EventID)
	req.Header.Set(EventTypeHeader, c.EventType)
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, errBlocked) {
			return 0, retry.MarkPermanent(err)
		}
		// Any failure to get an answer (refused, reset, timed out, a TLS
		// fault) may pass: the network's faults are worth another try.
		return 0, retry.MarkTransient(err, 0)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	short := string(snippet)
	if len(short) > 200 {
		short = short[:200]
	}
	return resp.StatusCode, &statusError{status: resp.StatusCode, body: short, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
}

func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// record writes what came of an attempt: delivered on a 2xx; otherwise
// due again after the backoff, or a dead letter when the error is
// permanent or the attempts are spent. Only the claim that made the
// attempt may record a failure (a worker whose lease ran out and was
// overtaken does not push the delivery back); a 2xx is recorded whoever
// made it.
//
// An endpoint that failed transiently rests for the delivery's backoff
// before any of its deliveries is tried again: its other events would meet
// the same outage, and an endpoint that hangs would otherwise take a
// worker for a whole timeout per event of its backlog, starving the other
// endpoints once a few such hang at once.
func (s *Service) record(ctx context.Context, c claimed, status int, sendErr error) error {
	return database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		rest, err := s.recordTx(ctx, tx, c, status, sendErr)
		if err != nil {
			return err
		}
		// Release the endpoint, if this attempt still holds it: at once, or
		// after its rest.
		_, err = tx.Exec(ctx, `UPDATE webhook_endpoints
			SET in_flight_until = CASE WHEN $3::float8 > 0 THEN now() + $3 * interval '1 second' END, in_flight_claim = ''
			WHERE id = $1 AND in_flight_claim = $2`, c.EndpointID, c.claim(), rest.Seconds())
		if err != nil {
			return fmt.Errorf("webhooks: release endpoint %d: %w", c.EndpointID, err)
		}
		return nil
	})
}

// recordTx records the attempt and returns how long the endpoint rests
// (the backoff after a transient failure; 0 otherwise).
func (s *Service) recordTx(ctx context.Context, tx pgx.Tx, c claimed, status int, sendErr error) (time.Duration, error) {
	var last any
	if status != 0 {
		last = status
	}
	if sendErr == nil {
		_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), updated_at = now(),
			last_status = $2, last_error = '' WHERE id = $1 AND status = 'pending'`, c.ID, last)
		if err != nil {
			return 0, fmt.Errorf("webhooks: record delivery %d: %w", c.ID, err)
		}
		return 0, nil
	}
	// The error names the request's URL: keep its query (a receiver may
	// carry a token there) out of the page and the log.
	msg := strings.ReplaceAll(sendErr.Error(), c.URL, withoutQuery(c.URL))
	if len(msg) > 500 {
		msg = msg[:500]
	}
	if !retry.IsTransient(sendErr) || c.Attempt >= s.MaxAttempts {
		s.Logger.Warn("webhook delivery is a dead letter", "delivery", c.ID, "endpoint", c.EndpointID, "attempts", c.Attempt, "error", msg)
		_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'dead', updated_at = now(),
			last_status = $3, last_error = $4 WHERE id = $1 AND attempts = $2 AND status = 'pending'`, c.ID, c.Attempt, last, msg)
		if err != nil {
			return 0, fmt.Errorf("webhooks: record dead letter %d: %w", c.ID, err)
		}
		return 0, nil
	}
	wait := s.Backoff.Backoff(c.Attempt, sendErr)
	_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = now() + $3 * interval '1 second', updated_at = now(),
		last_status = $4, last_error = $5 WHERE id = $1 AND attempts = $2 AND status = 'pending'`, c.ID, c.Attempt, wait.Seconds(), last, msg)
	if err != nil {
		return 0, fmt.Errorf("webhooks: record attempt %d: %w", c.ID, err)
	}
	return wait, nil
}

// withoutQuery is raw without its query and fragment, for messages.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the endpoint's URL"
	}
	if u.RawQuery != "" || u.Fragment != "" {
		u.RawQuery, u.Fragment = "", ""
		return u.String() + "?…"
	}
	return u.String()
}
