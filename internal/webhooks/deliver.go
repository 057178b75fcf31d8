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
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
	// now is the clock of signatures (tests replace it in export_test.go).
	now func() time.Time
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
		if s.now == nil {
			s.now = time.Now
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

// claimSQL takes the oldest due delivery whose endpoint is enabled and has
// no other delivery in flight (so one endpoint that hangs holds one worker
// of a process, not all of them), counts the attempt and holds it for a
// lease. The attempt is counted before the request: a worker killed in the
// middle spends it, so a receiver that kills its sender cannot be retried
// forever.
const claimSQL = `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = now() + $1 * interval '1 second', updated_at = now()
FROM webhook_endpoints e
WHERE e.id = d.endpoint_id AND d.id = (
	SELECT c.id FROM webhook_deliveries c JOIN webhook_endpoints ce ON ce.id = c.endpoint_id
	WHERE c.status = 'pending' AND c.next_attempt_at <= now() AND (c.locked_until IS NULL OR c.locked_until < now()) AND ce.enabled
	  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.endpoint_id = c.endpoint_id AND x.status = 'pending' AND x.locked_until >= now())
	ORDER BY c.next_attempt_at, c.id LIMIT 1 FOR UPDATE OF c SKIP LOCKED)
RETURNING d.id, d.org_id, d.endpoint_id, d.event_id, d.event_type, d.body, d.attempts, e.url, e.secret`

// DeliverOne sends one due delivery, if there is one, and records what
// came of it; it reports whether there was one.
func (s *Service) DeliverOne(ctx context.Context) (bool, error) {
	s.init()
	var c claimed
	err := s.Pool.QueryRow(ctx, claimSQL, s.lease().Seconds()).
		Scan(&c.ID, &c.OrgID, &c.EndpointID, &c.EventID, &c.EventType, &c.Body, &c.Attempt, &c.URL, &c.Secret)
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
	req.Header.Set(SignatureHeader, Signature(c.Secret, s.now(), body))
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
	return resp.StatusCode, &statusError{status: resp.StatusCode, body: short, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), s.now())}
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
func (s *Service) record(ctx context.Context, c claimed, status int, sendErr error) error {
	var last any
	if status != 0 {
		last = status
	}
	if sendErr == nil {
		_, err := s.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), updated_at = now(),
			locked_until = NULL, last_status = $2, last_error = '' WHERE id = $1 AND status = 'pending'`, c.ID, last)
		if err != nil {
			return fmt.Errorf("webhooks: record delivery %d: %w", c.ID, err)
		}
		return nil
	}
	msg := sendErr.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	if !retry.IsTransient(sendErr) || c.Attempt >= s.MaxAttempts {
		s.Logger.Warn("webhook delivery is a dead letter", "delivery", c.ID, "endpoint", c.EndpointID, "attempts", c.Attempt, "error", msg)
		_, err := s.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'dead', updated_at = now(), locked_until = NULL,
			last_status = $3, last_error = $4 WHERE id = $1 AND attempts = $2 AND status = 'pending'`, c.ID, c.Attempt, last, msg)
		if err != nil {
			return fmt.Errorf("webhooks: record dead letter %d: %w", c.ID, err)
		}
		return nil
	}
	wait := s.Backoff.Backoff(c.Attempt, sendErr)
	_, err := s.Pool.Exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = now() + $3 * interval '1 second', updated_at = now(), locked_until = NULL,
		last_status = $4, last_error = $5 WHERE id = $1 AND attempts = $2 AND status = 'pending'`, c.ID, c.Attempt, wait.Seconds(), last, msg)
	if err != nil {
		return fmt.Errorf("webhooks: record attempt %d: %w", c.ID, err)
	}
	return nil
}
