package testkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestPollStopsAtTheFirstErrorAndAtTheDeadline(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	calls := 0
	start := time.Now()
	if err := testkit.Poll(time.Minute, func() (bool, error) { calls++; return false, boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("a failing condition: %v after %d calls, want boom after 1", err, calls)
	}
	if err := testkit.Poll(20*time.Millisecond, func() (bool, error) { return false, nil }); err == nil {
		t.Fatal("a condition never met must time out")
	}
	calls = 0
	if err := testkit.Poll(time.Minute, func() (bool, error) { calls++; return calls == 3, nil }); err != nil || calls != 3 {
		t.Fatalf("a condition met on the third look: %v after %d calls", err, calls)
	}
	if d := time.Since(start); d > 20*time.Second { // loose backstop: the counts above are the assertion
		t.Fatalf("took %s", d)
	}
}

// A session waiting for a row another holds is seen; before it waits, none is.
func TestWaitForLockWaiterSeesASessionWaitingForARow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if n, err := testkit.LockWaiters(ctx, db.Pool); err != nil || n != 0 {
		t.Fatalf("lock waiters before anyone waits: %d %v", n, err)
	}
	holder, err := db.Conn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT FROM t WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	waiter := db.Conn(t)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, `UPDATE t SET id = 1 WHERE id = 1`)
		done <- err
	}()
	testkit.WaitForLockWaiter(t, db.Conn(t))
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A lock-waiter poll whose query fails says so at once instead of spinning
// until its deadline (the copies it replaced discarded the error).
func TestAFailingLockWaiterQueryIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	conn := db.Conn(t)
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := testkit.PollForLockWaiter(ctx, conn, nil)
	if err == nil {
		t.Fatal("a closed connection's poll succeeded")
	}
	if d := time.Since(start); d > 20*time.Second { // the deadline is 30 s: it returned on the error
		t.Fatalf("returned after %s: %v", d, err)
	}
}
