package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/retry"
)

// Verdict is what becomes of an item after a failed attempt.
type Verdict struct {
	// Dead: a dead letter, because the failure is permanent or that was
	// the last attempt.
	Dead bool
	// Wait is the backoff before the next attempt, when not Dead.
	Wait time.Duration
}

// Decide judges a failed attempt (counting from 1) by a policy: p.Attempts
// bounds the attempts (one at least), and p's backoff spaces them. Every
// kind of background work decides through it.
func Decide(p retry.Policy, attempt int, err error) Verdict {
	if !retry.IsTransient(err) || attempt >= max(p.Attempts, 1) {
		return Verdict{Dead: true}
	}
	return Verdict{Wait: p.Backoff(attempt, err)}
}

// Claimed is an attempt a worker holds: of which item, which attempt it
// is, and in which lane (0: the table has none).
type Claimed struct {
	Key     int64
	Attempt int
	Lane    int64
}

// Token names the attempt; it holds the lane while the attempt is made.
func (c Claimed) Token() string { return fmt.Sprintf("%d:%d", c.Key, c.Attempt) }

// Into is where a claim puts the Payload columns of the lane and of the
// item.
type Into struct {
	Lane, Item []any
}

// Claim takes the next due item, counts its attempt and holds it for lease
// (see the package doc); ok is false when nothing is due. p.Attempts bounds
// the attempts of a table without its own bound. The claim commits before
// Claim returns: do the work after, outside any transaction, and Record
// what came of it.
func (q *Queue) Claim(ctx context.Context, db database.Executor, p retry.Policy, lease time.Duration, into Into) (c Claimed, ok bool, err error) {
	c, err = database.WithTxV(ctx, db, func(tx pgx.Tx) (Claimed, error) {
		var c Claimed
		if q.t.Lane == nil {
			err := tx.QueryRow(ctx, q.statement("claim"), q.bounded(p, lease.Seconds())...).
				Scan(append([]any{&c.Key, &c.Attempt}, into.Item...)...)
			return c, err
		}
		if err := tx.QueryRow(ctx, q.statement("claim_lane"), q.bounded(p, lease.Seconds())...).
			Scan(append([]any{&c.Lane}, into.Lane...)...); err != nil {
			return c, err
		}
		if err := tx.QueryRow(ctx, q.statement("claim_in_lane"), q.bounded(p, c.Lane)...).
			Scan(append([]any{&c.Key, &c.Attempt}, into.Item...)...); err != nil {
			return c, err
		}
		_, err := tx.Exec(ctx, q.statement("hold_lane"), c.Lane, c.Token())
		return c, err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Claimed{}, false, nil
	}
	if err != nil {
		return Claimed{}, false, fmt.Errorf("queue: claim %s: %w", q.noun(), err)
	}
	return c, true, nil
}

// Record writes what came of a claimed attempt, in one transaction: the
// item is done when work is nil; else Decide says whether it is due again
// after a backoff or a dead letter. The attempt's lane is freed, at once,
// or after the backoff of a transient failure. message is the failure as
// it may be shown (the caller keeps secrets out of it); outcome are the
// values of the table's Outcome columns.
func (q *Queue) Record(ctx context.Context, db database.Executor, p retry.Policy, c Claimed, work error, message string, outcome ...any) (Verdict, error) {
	var v Verdict
	if work != nil {
		v = Decide(p, c.Attempt, work)
	}
	err := database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var err error
		switch {
		case work == nil:
			_, err = tx.Exec(ctx, q.statement("succeed"), append([]any{c.Key}, outcome...)...)
		case v.Dead:
			_, err = tx.Exec(ctx, q.statement("bury_attempt"), append([]any{c.Key, c.Attempt, message}, outcome...)...)
		default:
			_, err = tx.Exec(ctx, q.statement("backoff"), append([]any{c.Key, c.Attempt, v.Wait.Seconds(), message}, outcome...)...)
		}
		if err != nil {
			return fmt.Errorf("queue: record attempt %d of %s %d: %w", c.Attempt, q.noun(), c.Key, err)
		}
		if q.t.Lane == nil {
			return nil
		}
		rest := v.Wait // 0 after a success or a dead letter
		if _, err := tx.Exec(ctx, q.statement("release_lane"), c.Lane, c.Token(), rest.Seconds()); err != nil {
			return fmt.Errorf("queue: release lane %d: %w", c.Lane, err)
		}
		return nil
	})
	return v, err
}

// Due lists up to limit items due now, the longest due first: a sweep's
// candidates. It locks nothing; a sweep takes each with LockSQL's SKIP
// LOCKED in the transaction that does the item's work.
func (q *Queue) Due(ctx context.Context, db database.Executor, p retry.Policy, limit int) ([]int64, error) {
	rows, err := db.Query(ctx, q.statement("due"), q.bounded(p, limit)...)
	if err != nil {
		return nil, fmt.Errorf("queue: due %s: %w", q.noun(), err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("queue: due %s: %w", q.noun(), err)
	}
	return keys, nil
}

// LockSQL locks item $1 in the caller's transaction and selects columns of
// it; with skip, an item another transaction holds is skipped (no row)
// instead of waited for. It is the claim of work done in one transaction
// with its lock, such as a launch.
func (q *Queue) LockSQL(columns string, skip bool) string {
	if skip {
		return fmt.Sprintf(q.statement("lock_skip"), columns)
	}
	return fmt.Sprintf(q.statement("lock"), columns)
}

// BurySpent is the sweep of spent items: it makes every ready item out of
// attempts that no attempt is still making (its lease over, its lane free)
// a dead letter, with message as its error, and returns how many. Left
// ready, nothing would ever claim it or tell anyone.
func (q *Queue) BurySpent(ctx context.Context, db database.Executor, p retry.Policy, message string) (int64, error) {
	tag, err := db.Exec(ctx, q.statement("bury_spent"), q.bounded(p, message)...)
	if err != nil {
		return 0, fmt.Errorf("queue: bury spent %s: %w", q.noun(), err)
	}
	return tag.RowsAffected(), nil
}

// Spent is the condition (on the table's Alias) of a spent item: ready,
// but out of attempts, so that no claim takes it. bound is the SQL of the
// bound of attempts (a parameter, such as "$2") of a table without a
// MaxAttempts column; a table with one bounds each item by it.
func (q *Queue) Spent(bound string) string {
	if q.t.MaxAttempts != "" {
		return q.statement("spent")
	}
	return fmt.Sprintf(q.statement("spent"), bound)
}

// Lapsed is the condition (on the table's Alias) of a ready item whose
// lease lapsed, or that no lease ever held, more than grace seconds ago
// (grace: the SQL of a parameter, such as "$2"): no worker runs it.
func (q *Queue) Lapsed(grace string) string { return fmt.Sprintf(q.statement("lapsed"), grace) }

// bounded is a statement's arguments: first, then the policy's bound of
// attempts ($2) when the table has no bound of its own.
func (q *Queue) bounded(p retry.Policy, first any) []any {
	if q.t.MaxAttempts != "" {
		return []any{first}
	}
	return []any{first, max(p.Attempts, 1)}
}

// noun is what errors call an item.
func (q *Queue) noun() string {
	if q.t.Item != "" {
		return q.t.Item
	}
	return q.t.Name
}
