package intake

import (
	"context"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/testkit"
)

// GuardLockMode is how a test store takes the version-group and
// content-key locks.
type GuardLockMode int

// GuardLock modes for NewPGStoreForTest.
const (
	GuardLockHeld          GuardLockMode = iota // held across the insert (the product)
	GuardLockNone                               // no lock (tests show what breaks)
	GuardLockReleasedEarly                      // released before the insert (likewise)
)

// NewPGStoreForTest returns a store whose guard locks work as mode says,
// calling hook once the guards have read their incumbents.
func NewPGStoreForTest(tx pgx.Tx, mode GuardLockMode, hook func(ctx context.Context)) *PGStore {
	s := NewPGStoreTx(tx)
	fp := &testkit.Failpoints{}
	fp.Set(failpointAfterIncumbentRead, func(ctx context.Context) error { hook(ctx); return nil })
	s.failpoints = fp
	switch mode {
	case GuardLockNone:
		s.guardLock = guardLock{}
	case GuardLockReleasedEarly:
		s.guardLock = guardLock{take: "pg_advisory_lock", release: "pg_advisory_unlock"}
	}
	return s
}
