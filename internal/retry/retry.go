// Package retry retries transient faults, and only those: bounded attempts,
// capped exponential backoff with jitter, and a server's Retry-After when it
// gives one. Everything not known to be transient is permanent, so that a
// bad request or a malformed document is never tried again and again.
package retry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"greatbook/internal/database"
)

// Class says whether trying again may help.
type Class int

// The classes.
const (
	Permanent Class = iota
	Transient
)

func (c Class) String() string {
	if c == Transient {
		return "transient"
	}
	return "permanent"
}

// marked is an error with an explicit class.
type marked struct {
	err        error
	class      Class
	retryAfter time.Duration
}

func (m *marked) Error() string { return m.err.Error() }
func (m *marked) Unwrap() error { return m.err }

// MarkTransient marks err as transient; after, when positive, is the
// earliest moment worth trying again (a server's Retry-After).
func MarkTransient(err error, after time.Duration) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, class: Transient, retryAfter: after}
}

// MarkPermanent marks err as permanent whatever it wraps.
func MarkPermanent(err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, class: Permanent}
}

// Classifier is implemented by errors that know their own class (an HTTP
// status error, for one).
type Classifier interface {
	RetryClass() Class
}

// RetryAfterer is implemented by errors that carry a Retry-After.
type RetryAfterer interface {
	RetryAfter() time.Duration
}

// ClassOf classifies err. Explicit marks win; then errors that classify
// themselves; then the faults of networks and databases that pass: timeouts,
// refused and reset connections, an unexpected EOF, PostgreSQL connection
// failures (database.IsUnavailable), deadlocks and serialization failures. Everything else is
// permanent. A cancelled context is permanent: whoever cancelled meant it.
func ClassOf(err error) Class {
	if err == nil {
		return Permanent
	}
	var m *marked
	if errors.As(err, &m) {
		return m.class
	}
	var c Classifier
	if errors.As(err, &c) {
		return c.RetryClass()
	}
	if errors.Is(err, context.Canceled) {
		return Permanent
	}
	// A database that is down, restarting or recovering comes back: the
	// one classification of connection failures decides. A bare io.EOF is
	// left out: a reader of a truncated document returns it too.
	if database.IsUnavailable(err) && !errors.Is(err, io.EOF) {
		return Transient
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return Transient
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Transient
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "40001", pgErr.Code == "40P01", // serialization failure, deadlock
			pgErr.Code == "53300", pgErr.Code == "57P01", pgErr.Code == "57P03", // too many connections, shutdown, starting up
			len(pgErr.Code) == 5 && pgErr.Code[:2] == "08": // connection exceptions
			return Transient
		}
		return Permanent
	}
	if pgconn.Timeout(err) || pgconn.SafeToRetry(err) {
		return Transient
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return Transient
	}
	return Permanent
}

// IsTransient reports whether err is worth retrying.
func IsTransient(err error) bool { return ClassOf(err) == Transient }

// RetryAfterOf returns the earliest retry moment an error carries, or 0.
func RetryAfterOf(err error) time.Duration {
	var m *marked
	if errors.As(err, &m) && m.retryAfter > 0 {
		return m.retryAfter
	}
	var ra RetryAfterer
	if errors.As(err, &ra) {
		return ra.RetryAfter()
	}
	return 0
}

// Policy bounds retries.
type Policy struct {
	// Attempts is the total number of tries, the first included.
	Attempts int
	// Base is the first backoff; each further one doubles, up to Max.
	Base, Max time.Duration
	// MaxRetryAfter caps how long a server's Retry-After is honoured.
	MaxRetryAfter time.Duration
	// Waiter waits out each backoff (Wait): Sleep in Default, and in a
	// policy that names none.
	Waiter Waiter
}

// Default is 5 attempts, backoff from 200 ms doubling up to 10 s.
var Default = Policy{Attempts: 5, Base: 200 * time.Millisecond, Max: 10 * time.Second, MaxRetryAfter: 2 * time.Minute,
	Waiter: Sleep{}}

// Waiter waits out the backoff between two attempts. Sleep is the
// product's; a test's records the waits instead of waiting them.
type Waiter interface {
	Wait(ctx context.Context, d time.Duration) error
}

// Sleep is the product's Waiter: it sleeps (SleepContext).
type Sleep struct{}

// Wait sleeps for d or until ctx is done.
func (Sleep) Wait(ctx context.Context, d time.Duration) error { return SleepContext(ctx, d) }

// WaitFunc is a function as a Waiter.
type WaitFunc func(ctx context.Context, d time.Duration) error

// Wait calls f.
func (f WaitFunc) Wait(ctx context.Context, d time.Duration) error { return f(ctx, d) }

// Wait waits out a backoff of d with the policy's Waiter.
func (p Policy) Wait(ctx context.Context, d time.Duration) error {
	if p.Waiter == nil {
		return SleepContext(ctx, d)
	}
	return p.Waiter.Wait(ctx, d)
}

// Backoff returns the wait before attempt n+1 after n failed attempts:
// exponential from Base, capped at Max, with jitter in its upper half.
func (p Policy) Backoff(n int, err error) time.Duration {
	if ra := RetryAfterOf(err); ra > 0 {
		if p.MaxRetryAfter > 0 && ra > p.MaxRetryAfter {
			return p.MaxRetryAfter
		}
		return ra
	}
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	if d > p.Max {
		d = p.Max
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// Do calls fn until it succeeds, returns a permanent error, or the attempts
// are spent; it returns fn's last error. attempt counts from 1.
func Do(ctx context.Context, p Policy, fn func(attempt int) error) error {
	if p.Attempts < 1 {
		p.Attempts = 1
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = fn(attempt)
		if err == nil || !IsTransient(err) || attempt >= p.Attempts {
			return err
		}
		if serr := p.Wait(ctx, p.Backoff(attempt, err)); serr != nil {
			return err
		}
	}
}

// SleepContext waits for d or until ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
