package queue

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/org"
)

// Revive makes a dead letter of the scope ready again, due now, for a
// fresh round of attempts, and counts the revival: an operator's word, in
// the caller's transaction (which audits it). An item outside the scope is
// not found; one that is not a dead letter is left alone (invalid state).
func (q *Queue) Revive(ctx context.Context, tx pgx.Tx, scope org.Scope, key int64) error {
	args := []any{key}
	lock := fmt.Sprintf(q.statement("revive_lock"), scope.Where(q.t.Alias+"."+q.t.Org, &args))
	var status string
	err := tx.QueryRow(ctx, lock, args...).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.New(apperr.NotFound, "no %s %d", q.noun(), key)
	}
	if err != nil {
		return fmt.Errorf("queue: revive %s %d: %w", q.noun(), key, err)
	}
	if status != q.t.Dead {
		return apperr.New(apperr.InvalidState, "%s %d is %s, not a dead letter", q.noun(), key, status)
	}
	if _, err := tx.Exec(ctx, q.statement("revive"), key); err != nil {
		return fmt.Errorf("queue: revive %s %d: %w", q.noun(), key, err)
	}
	return nil
}

// DryRun is what an operator's bulk retry would revive: how many dead
// letters a filter matches and a digest of which (Set). The confirmation
// brings both back, and the retry goes ahead only if the filter still
// matches that very set: not only as many (someone else's retry and a new
// dead letter would leave the count alone).
type DryRun struct {
	Count int
	Set   string
}

// Entry is one dead letter of a dry run: its key, and its round (its
// revivals, or its attempts), so that a letter revived meanwhile that died
// again is not the letter counted.
type Entry struct {
	Key   int64
	Round int
}

// DryRunOf counts and digests entries, in any order.
func DryRunOf(entries []Entry) DryRun {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b Entry) int { return cmp.Compare(a.Key, b.Key) })
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%d:%d,", e.Key, e.Round)
	}
	return DryRun{Count: len(entries), Set: hex.EncodeToString(h.Sum(nil)[:12])}
}

// Confirm checks that now, the dry run of the moment, is the set the
// operator confirmed; if not, the error says to count again.
func (q *Queue) Confirm(confirmed, now DryRun) error {
	switch {
	case now.Count != confirmed.Count:
		return apperr.New(apperr.InvalidState, "the filter now matches %d %s, not the %d you confirmed; count again", now.Count, q.t.DeadLetters, confirmed.Count)
	case now.Set != confirmed.Set:
		return apperr.New(apperr.InvalidState, "the filter still matches %d %s, but not the ones you counted; count again", now.Count, q.t.DeadLetters)
	}
	return nil
}

// Matching is the dry run of ReviveMatching: the dead letters that where
// (a condition on the table's Alias, with args) matches.
func (q *Queue) Matching(ctx context.Context, db database.Executor, where string, args []any) (DryRun, error) {
	return q.matching(ctx, db, "matching", where, args)
}

// ReviveMatching revives every dead letter where matches, as Revive does,
// provided they are still the set confirmed: in the caller's transaction,
// which it locks them in. It returns how many matched and were revived.
func (q *Queue) ReviveMatching(ctx context.Context, tx pgx.Tx, where string, args []any, confirmed DryRun) (matched, revived int, err error) {
	now, err := q.matching(ctx, tx, "matching_locked", where, args)
	if err != nil {
		return 0, 0, err
	}
	if err := q.Confirm(confirmed, now); err != nil {
		return now.Count, 0, err
	}
	tag, err := tx.Exec(ctx, fmt.Sprintf(q.statement("revive_matching"), where), args...)
	if err != nil {
		return now.Count, 0, fmt.Errorf("queue: revive %s: %w", q.t.DeadLetters, err)
	}
	return now.Count, int(tag.RowsAffected()), nil
}

func (q *Queue) matching(ctx context.Context, db database.Executor, statement, where string, args []any) (DryRun, error) {
	rows, err := db.Query(ctx, fmt.Sprintf(q.statement(statement), where), args...)
	if err != nil {
		return DryRun{}, fmt.Errorf("queue: dry run: %w", err)
	}
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Entry, error) {
		var e Entry
		err := r.Scan(&e.Key, &e.Round)
		return e, err
	})
	if err != nil {
		return DryRun{}, fmt.Errorf("queue: dry run: %w", err)
	}
	return DryRunOf(entries), nil
}
