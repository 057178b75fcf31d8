package testkit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PollInterval is how long Poll waits between two looks.
const PollInterval = 5 * time.Millisecond

// Poll asks cond every PollInterval until it reports true. It returns cond's
// first error, or an error once within has passed: a poll never spins
// forever and never hides a failing query. It is safe in any goroutine;
// a test goroutine uses Eventually.
func Poll(within time.Duration, cond func() (bool, error)) error {
	return PollEvery(PollInterval, within, cond)
}

// PollEvery is Poll at another pace, for a cond that asks a server or a
// process no more often than every (a client that honours Retry-After).
func PollEvery(every, within time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(within)
	for {
		done, err := cond()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", within)
		}
		time.Sleep(every)
	}
}

// Eventually polls cond (see Poll) and fails the test, saying what never
// happened, when cond fails or within passes first. Call it from the test's
// goroutine only (it stops the test).
func Eventually(t testing.TB, within time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	if err := Poll(within, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// RowQuerier runs a one-row query: a pool, a connection and a transaction
// all do.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// LockWaiters counts the sessions of q's database that wait for a lock
// (a row, a table or an advisory lock) another session holds.
func LockWaiters(ctx context.Context, q RowQuerier) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND wait_event_type = 'Lock' AND cardinality(pg_blocking_pids(pid)) > 0`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("testkit: count lock waiters: %w", err)
	}
	return n, nil
}

// lockWaitTimeout bounds every wait for a lock waiter; generous, since the
// tests run under -race on a loaded machine.
const lockWaitTimeout = 30 * time.Second

// PollForLockWaiter waits until a session of q's database waits for a lock
// another holds, or until also reports true (the other party arrived without
// having to wait). Safe in any goroutine, such as a hook inside a
// transaction; it returns an error on a failed query or after 30 s.
func PollForLockWaiter(ctx context.Context, q RowQuerier, also func() bool) error {
	err := Poll(lockWaitTimeout, func() (bool, error) {
		if also != nil && also() {
			return true, nil
		}
		n, err := LockWaiters(ctx, q)
		return n > 0, err
	})
	if err != nil {
		return fmt.Errorf("testkit: no session waited for a lock: %w", err)
	}
	return nil
}

// WaitForLockWaiter waits until a session of q's database waits for a lock
// another holds, failing the test when none does within 30 s or the query
// fails. Give it a connection of its own (DB.Conn) when the pool may be
// exhausted by the sessions under test.
func WaitForLockWaiter(t testing.TB, q RowQuerier) {
	t.Helper()
	if err := PollForLockWaiter(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
}
