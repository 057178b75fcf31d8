package database

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err says the database cannot be reached or
// is not accepting work right now (stopped, crashed, restarting, recovering,
// or too slow to hand out a connection), as opposed to refusing a statement.
// It is the one classification of connection failures: the web layer answers
// such errors 503 with a Retry-After, and the retry policy treats them as
// transient. A cancelled context is not one: whoever cancelled meant it.
func IsUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			pgErr.Code == "57P01", // admin shutdown
			pgErr.Code == "57P02", // crash shutdown
			pgErr.Code == "57P03", // cannot connect now: starting up, in recovery, shutting down
			strings.Contains(pgErr.Message, "the database system is starting up"),
			strings.Contains(pgErr.Message, "the database system is in recovery mode"):
			return true
		}
		// Any other server error came from a server that answered, unless
		// it was the answer to a connection attempt.
		var connectErr *pgconn.ConnectError
		return errors.As(err, &connectErr)
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	// Waiting for a connection (or for a statement on one) until the
	// deadline: the pool is starved because the server does not answer.
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

// SessionLost reports whether err says an established session died: the
// server ended it (terminated, shut down, crashed) or the socket broke
// under it. After that every idle connection of the pool is likely dead as
// well (a restarted server ended them all) while the pool still hands them
// out; a caller resets the pool. A refused connection attempt or a wait for
// a connection is not a lost session: resetting then would only add churn.
func SessionLost(err error) bool {
	if err == nil || !IsUnavailable(err) {
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return false
	}
	return true
}
