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

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/queue"
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

// policy is the queue's policy of a delivery's attempts: MaxAttempts of
// them, spaced by Backoff.
func (s *Service) policy() retry.Policy {
	p := s.Backoff
	p.Attempts = s.MaxAttempts
	return p
}

// spentError is the error of a delivery whose last attempt never reported
// back.
const spentError = "its last attempt never reported back (the worker making it stopped)"

// sweep makes a dead letter, which an admin sees and may retry, of every
// delivery out of attempts that no attempt is making any more: its last
// attempt's worker died during the request. No claim takes it again.
func (s *Service) sweep(ctx context.Context) {
	n, err := deliveries.BurySpent(ctx, s.Pool, s.policy(), spentError)
	if err != nil && ctx.Err() == nil {
		s.Logger.Warn("webhook sweep failed", "error", err)
	}
	if n > 0 {
		s.Logger.Warn("webhook deliveries whose last attempt never reported back are dead letters", "count", n)
	}
}

// claimed is a delivery a worker holds.
type claimed struct {
	queue.Claimed
	OrgID              int64
	EventID, EventType string
	Body               string
	URL, Secret        string
}

// DeliverOne sends one due delivery, if there is one, and records what
// came of it; it reports whether there was one. The attempt is counted
// when the delivery is claimed, before the request: a worker killed in the
// middle spends it, so a receiver that kills its sender is not retried
// for ever.
func (s *Service) DeliverOne(ctx context.Context) (bool, error) {
	s.init()
	var c claimed
	got, ok, err := deliveries.Claim(ctx, s.Pool, s.policy(), s.lease(),
		queue.Into{Lane: []any{&c.URL, &c.Secret}, Item: []any{&c.OrgID, &c.EventID, &c.EventType, &c.Body}})
	if err != nil {
		return false, fmt.Errorf("webhooks: %w", err)
	}
	if !ok {
		return false, nil
	}
	c.Claimed = got
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

// record writes what came of an attempt: delivered on a 2xx, whoever made
// it; otherwise, if this attempt was not overtaken, due again after the
// backoff, or a dead letter when the error is permanent or the attempts
// are spent (the queue's Record).
func (s *Service) record(ctx context.Context, c claimed, status int, sendErr error) error {
	var last any
	if status != 0 {
		last = status
	}
	msg := ""
	if sendErr != nil {
		// The error names the request's URL: keep its query (a receiver may
		// carry a token there) out of the page and the log.
		msg = strings.ReplaceAll(sendErr.Error(), c.URL, withoutQuery(c.URL))
		if len(msg) > 500 {
			msg = msg[:500]
		}
	}
	v, err := deliveries.Record(ctx, s.Pool, s.policy(), c.Claimed, sendErr, msg, last)
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	if sendErr != nil && v.Dead {
		s.Logger.Warn("webhook delivery is a dead letter", "delivery", c.Key, "endpoint", c.Lane, "attempts", c.Attempt, "error", msg)
	}
	return nil
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
