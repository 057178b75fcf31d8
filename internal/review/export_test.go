package review

import (
	"context"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
)

// TestOptions configure Decisions for tests that prove what each part of
// the guarded transaction is for.
type TestOptions struct {
	LockRowFirst bool
	LockEdgeOnly bool
	SkipRecheck  bool
	// NoGroupLock reads the group without locking it.
	NoGroupLock bool
	AfterLock   func(ctx context.Context, tx pgx.Tx)
}

// lockFunc is a group lock built by a test.
type lockFunc func(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error)

func (f lockFunc) lockGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	return f(ctx, tx, orgID, id)
}

// WithTestOptions returns a copy of d with test options: a wrong lock
// order (LockRowFirst, LockEdgeOnly, SkipRecheck) replaces the product's
// wholeGroupLock, built here so that the product holds only the right one.
func WithTestOptions(d *Decisions, o TestOptions) *Decisions {
	c := NewDecisions(d.pool, d.outbox, d.failpoints)
	afterLock := func(ctx context.Context, tx pgx.Tx) {
		if o.AfterLock != nil {
			o.AfterLock(ctx, tx)
		}
	}
	switch {
	case o.NoGroupLock: // no lock at all: the group as the statement's snapshot has it
		c.lock = lockFunc(func(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
			return Group(ctx, tx, orgID, id)
		})
	case o.LockRowFirst: // wrong order: the row, then the group
		c.lock = lockFunc(func(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID); err != nil {
				return nil, err
			}
			afterLock(ctx, tx)
			locked, err := lockGroupMembers(ctx, tx, orgID, id)
			if err != nil || o.SkipRecheck {
				return locked, err
			}
			return locked, recheckGroup(ctx, tx, id, locked)
		})
	case o.LockEdgeOnly: // wrong scope: the row and the row it duplicates, no re-check
		c.lock = lockFunc(func(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
			rows, err := tx.Query(ctx, `SELECT `+memberColumns+` FROM intake_documents d
				WHERE (d.id = $1 OR d.id = (SELECT duplicate_of FROM intake_documents WHERE id = $1)) AND d.org_id = $2
				ORDER BY d.id FOR UPDATE`, id, orgID)
			if err != nil {
				return nil, err
			}
			locked, err := pgx.CollectRows(rows, scanMember)
			if err != nil {
				return nil, err
			}
			afterLock(ctx, tx)
			if len(locked) == 0 {
				return nil, apperr.New(apperr.NotFound, "no document %d", id)
			}
			return locked, nil
		})
	case o.SkipRecheck || o.AfterLock != nil: // the right lock, with a pause after it, or without its re-check
		c.lock = lockFunc(func(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
			locked, err := lockGroupMembers(ctx, tx, orgID, id)
			if err != nil {
				return nil, err
			}
			afterLock(ctx, tx)
			if o.SkipRecheck {
				return locked, nil
			}
			return locked, recheckGroup(ctx, tx, id, locked)
		})
	}
	return c
}

// Conflicts returns how many conflicts d met and retried.
func (d *Decisions) Conflicts() int64 { return d.conflicts.Load() }
