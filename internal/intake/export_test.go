package intake

import (
	"context"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// TestOptions configure Decisions for tests that prove what each part of
// the guarded transaction is for.
type TestOptions struct {
	LockRowFirst bool
	LockEdgeOnly bool
	SkipRecheck  bool
	AfterLock    func(ctx context.Context, tx pgx.Tx)
	BeforeCommit func() error
}

// WithTestOptions returns a copy of d with test options.
func WithTestOptions(d *Decisions, o TestOptions) *Decisions {
	c := &Decisions{Pool: d.Pool, Outbox: d.Outbox}
	c.options = approveOptions{lockRowFirst: o.LockRowFirst, lockEdgeOnly: o.LockEdgeOnly, skipRecheck: o.SkipRecheck,
		afterLock: o.AfterLock, beforeCommit: o.BeforeCommit}
	return c
}

// Conflicts returns how many conflicts d met and retried.
func (d *Decisions) Conflicts() int64 { return d.conflicts.Load() }

// GuardLockMode is how a test store takes the version-group and
// content-key locks.
type GuardLockMode = guardLockMode

// GuardLock modes for NewPGStoreForTest.
const (
	GuardLockHeld          = guardLockHeld
	GuardLockNone          = guardLockNone
	GuardLockReleasedEarly = guardLockReleasedEarly
)

// NewPGStoreForTest returns a store whose guard locks work as mode says,
// calling hook after each guard reads its incumbent.
func NewPGStoreForTest(db database.Executor, mode guardLockMode, hook func(ctx context.Context)) *PGStore {
	return &PGStore{db: db, guardLock: mode, afterIncumbentRead: hook}
}
