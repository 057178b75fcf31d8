package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"greatbook/internal/retry"
)

type statusErr struct {
	status int
	after  time.Duration
}

func (e statusErr) Error() string { return fmt.Sprintf("status %d", e.status) }
func (e statusErr) RetryClass() retry.Class {
	if e.status == 429 || e.status >= 500 {
		return retry.Transient
	}
	return retry.Permanent
}
func (e statusErr) RetryAfter() time.Duration { return e.after }

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want retry.Class
	}{
		{"nil", nil, retry.Permanent},
		{"unknown error", errors.New("bad invoice"), retry.Permanent},
		{"marked transient", retry.MarkTransient(errors.New("x"), 0), retry.Transient},
		{"marked permanent wins over a timeout", retry.MarkPermanent(context.DeadlineExceeded), retry.Permanent},
		{"HTTP 503", fmt.Errorf("model: %w", statusErr{status: 503}), retry.Transient},
		{"HTTP 429", statusErr{status: 429}, retry.Transient},
		{"HTTP 400", statusErr{status: 400}, retry.Permanent},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), retry.Transient},
		{"cancelled", context.Canceled, retry.Permanent},
		{"network timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, retry.Transient},
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, retry.Transient},
		{"unexpected EOF", io.ErrUnexpectedEOF, retry.Transient},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, retry.Transient},
		{"serialization", &pgconn.PgError{Code: "40001"}, retry.Transient},
		{"connection failure", &pgconn.PgError{Code: "08006"}, retry.Transient},
		{"unique violation", &pgconn.PgError{Code: "23505"}, retry.Permanent},
		{"crash of another server process", fmt.Errorf("runs: %w", &pgconn.PgError{Code: "57P02"}), retry.Transient},
		{"closed connection", fmt.Errorf("runs: %w", pgconn.ErrConnClosed), retry.Transient},
		{"reset connection", &net.OpError{Op: "read", Net: "unix", Err: syscall.ECONNRESET}, retry.Transient},
		{"a reader's EOF", fmt.Errorf("pdf: %w", io.EOF), retry.Permanent},
		// What the database cannot store never will be: retried, it fails the same way.
		{"NUL in jsonb", &pgconn.PgError{Code: "22P05"}, retry.Permanent},
		{"NUL or invalid UTF-8 in text", &pgconn.PgError{Code: "22021"}, retry.Permanent},
		{"numeric field overflow", &pgconn.PgError{Code: "22003"}, retry.Permanent},
		{"date out of range", &pgconn.PgError{Code: "22008"}, retry.Permanent},
	} {
		if got := retry.ClassOf(tc.err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestDoRetriesTransientErrorsWithBoundedBackoff(t *testing.T) {
	t.Parallel()
	var waits []time.Duration
	p := retry.Policy{Attempts: 6, Base: 100 * time.Millisecond, Max: 400 * time.Millisecond, MaxRetryAfter: time.Minute,
		Waiter: retry.WaitFunc(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil })}
	calls := 0
	err := retry.Do(context.Background(), p, func(int) error { calls++; return statusErr{status: 503} })
	if calls != 6 || err == nil {
		t.Fatalf("calls %d, err %v", calls, err)
	}
	for i, w := range waits {
		ceiling := min(100*time.Millisecond<<i, 400*time.Millisecond)
		if w < ceiling/2 || w > ceiling {
			t.Errorf("wait %d: %s not in [%s, %s]", i, w, ceiling/2, ceiling)
		}
	}
	// Retry-After is honoured (and capped).
	waits = nil
	calls = 0
	_ = retry.Do(context.Background(), p, func(int) error {
		calls++
		if calls == 1 {
			return statusErr{status: 429, after: 7 * time.Second}
		}
		if calls == 2 {
			return statusErr{status: 429, after: time.Hour}
		}
		return nil
	})
	if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != time.Minute {
		t.Fatalf("Retry-After waits: %v", waits)
	}
	// Permanent errors stop at once.
	calls = 0
	_ = retry.Do(context.Background(), p, func(int) error { calls++; return statusErr{status: 400} })
	if calls != 1 {
		t.Fatalf("a permanent error was tried %d times", calls)
	}
}
