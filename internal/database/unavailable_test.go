package database_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

func TestIsUnavailableClassifiesConnectionFailures(t *testing.T) {
	t.Parallel()
	pg := func(code, msg string) error { return &pgconn.PgError{Severity: "FATAL", Code: code, Message: msg} }
	wrap := func(err error) error { return fmt.Errorf("intake: load document 7: %w", err) }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection exception 08006", wrap(pg("08006", "connection failure")), true},
		{"connection does not exist 08003", pg("08003", "connection does not exist"), true},
		{"admin shutdown 57P01", wrap(pg("57P01", "terminating connection due to administrator command")), true},
		{"crash shutdown 57P02", pg("57P02", "terminating connection because of crash of another server process"), true},
		{"starting up 57P03", pg("57P03", "the database system is starting up"), true},
		{"recovery mode without a code", pg("", "the database system is in recovery mode"), true},
		{"broken pipe on a write", wrap(&net.OpError{Op: "write", Net: "unix", Err: syscall.EPIPE}), true},
		{"reset on a read", &net.OpError{Op: "read", Net: "unix", Err: syscall.ECONNRESET}, true},
		{"EOF on a broken conn", wrap(io.EOF), true},
		{"unexpected EOF", wrap(io.ErrUnexpectedEOF), true},
		{"closed conn", wrap(pgconn.ErrConnClosed), true},
		{"acquire timeout", wrap(context.DeadlineExceeded), true},
		{"inside a domain error", apperr.Wrap(wrap(io.EOF), apperr.Internal, "internal error"), true},

		{"cancelled by the client", wrap(context.Canceled), false},
		{"unique violation", wrap(pg("23505", "duplicate key value violates unique constraint")), false},
		{"numeric overflow", pg("22003", "numeric field overflow"), false},
		{"serialization failure", pg("40001", "could not serialize access"), false},
		{"no rows", wrap(pgx.ErrNoRows), false},
		{"a domain error", apperr.New(apperr.NotFound, "no such document"), false},
		{"a plain error", errors.New("intake: the file is empty"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := database.IsUnavailable(tc.err); got != tc.want {
				t.Fatalf("IsUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// A lost session (the pool's idle ones are likely dead too) is told from a
// refused connection attempt or a wait for a connection, which resetting
// the pool would not help.
func TestSessionLostIsADeadSessionNotARefusedDial(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return &pgconn.PgError{Severity: "FATAL", Code: code} }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"terminated 57P01", fmt.Errorf("auth: check token: %w", pg("57P01")), true},
		{"broken pipe on a write", &net.OpError{Op: "write", Net: "unix", Err: syscall.EPIPE}, true},
		{"EOF", io.EOF, true},
		{"a refused dial", &pgconn.ConnectError{}, false},
		{"acquire timeout", context.DeadlineExceeded, false},
		{"a server that answered", pg("23505"), false},
		{"nil", nil, false},
	} {
		if got := database.SessionLost(tc.err); got != tc.want {
			t.Errorf("%s: SessionLost = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The errors pgx really returns when the server is gone or throws us out.
func TestIsUnavailableOnRealDriverErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("no server at the socket", func(t *testing.T) {
		_, err := pgx.Connect(ctx, "host="+t.TempDir()+" port=5432 user=postgres dbname=x sslmode=disable connect_timeout=2")
		if err == nil || !database.IsUnavailable(err) {
			t.Fatalf("connect to nothing: %v", err)
		}
	})

	t.Run("backend terminated", func(t *testing.T) {
		db := testkit.NewDB(t)
		victim := db.Conn(t)
		var pid int
		if err := victim.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Pool.Exec(ctx, `SELECT pg_terminate_backend($1, 5000)`, pid); err != nil {
			t.Fatal(err)
		}
		_, err := victim.Exec(ctx, `SELECT 1`)
		if err == nil || !database.IsUnavailable(err) {
			t.Fatalf("a query on a terminated backend: %v", err)
		}
		// The connection is now closed on our side too.
		_, err = victim.Exec(ctx, `SELECT 1`)
		if err == nil || !database.IsUnavailable(err) {
			t.Fatalf("a query on a closed connection: %v", err)
		}
	})

	t.Run("pool starved until the deadline", func(t *testing.T) {
		db := testkit.NewDB(t)
		cfg, err := pgxpool.ParseConfig(db.URL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = 1
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		held, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Release()
		waitCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err = pool.Exec(waitCtx, `SELECT 1`)
		if err == nil || !database.IsUnavailable(err) {
			t.Fatalf("acquire on a starved pool: %v", err)
		}
	})

	t.Run("a statement the server refuses", func(t *testing.T) {
		db := testkit.NewDB(t)
		_, err := db.Pool.Exec(ctx, `SELECT 1/0`)
		if err == nil || database.IsUnavailable(err) {
			t.Fatalf("division by zero classified as unavailable: %v", err)
		}
	})
}
