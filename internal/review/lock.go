package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
)

// groupLock takes the group lock of document id inside tx and returns the
// members it locked.
type groupLock interface {
	lockGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error)
}

// maxConflictRetries bounds the retries of a decision that met a deadlock,
// a serialization failure, or a group that grew while it was locked.
const maxConflictRetries = 20

// errGroupGrew makes a decision start over: its group gained a member
// between finding and locking it.
var errGroupGrew = errors.New("review: the duplicate group grew while it was being locked")

// wholeGroupLock is the product's group lock: lockWholeGroup.
type wholeGroupLock struct{}

func (wholeGroupLock) lockGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	return lockWholeGroup(ctx, tx, orgID, id)
}

// lockWholeGroup takes the group lock and proves that the group did not
// grow between the statement's snapshot and the lock (a new member filed,
// or an edge added, by a transaction that committed meanwhile).
func lockWholeGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	locked, err := lockGroupMembers(ctx, tx, orgID, id)
	if err != nil {
		return nil, err
	}
	return locked, recheckGroup(ctx, tx, id, locked)
}

// lockGroupMembers sends lockGroupSQL: every member of the group, locked in
// id order; not_found when there is no such document in the org.
func lockGroupMembers(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	rows, err := tx.Query(ctx, lockGroupSQL, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("review: lock group of document %d: %w", id, err)
	}
	locked, err := pgx.CollectRows(rows, scanMember)
	if err != nil {
		return nil, fmt.Errorf("review: lock group of document %d: %w", id, err)
	}
	if len(locked) == 0 {
		return nil, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return locked, nil
}

// recheckGroup returns errGroupGrew when the group now has a member that
// the lock did not take.
func recheckGroup(ctx context.Context, tx pgx.Tx, id int64, locked []Member) error {
	// A new statement sees what committed while we waited for the lock.
	var now []int64
	if err := tx.QueryRow(ctx, recheckSQL, id).Scan(&now); err != nil {
		return fmt.Errorf("review: recheck group of document %d: %w", id, err)
	}
	ids := make([]int64, 0, len(locked))
	for _, m := range locked {
		ids = append(ids, m.ID)
	}
	for _, m := range now {
		if !slices.Contains(ids, m) {
			return errGroupGrew
		}
	}
	return nil
}

// retryConflicts runs a decision again after a deadlock, a serialization
// failure or a grown group, so that none reaches a caller.
func retryConflicts[T any](ctx context.Context, d *Decisions, fn func() (T, error)) (T, error) {
	var zero T
	for attempt := 1; ; attempt++ {
		v, err := fn()
		if errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err) {
			d.conflicts.Add(1)
		}
		if err == nil || !(errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err)) || attempt >= maxConflictRetries {
			if errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err) {
				return zero, apperr.Wrap(err, apperr.Unavailable, "the document's group kept changing; try again")
			}
			return v, err
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
}
