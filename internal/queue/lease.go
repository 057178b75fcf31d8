package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// A lease kept on the item itself (Table.Lease), for work that runs long
// and renews it as it goes: one holder at a time, whatever the number of
// processes, and a holder writes only while it still holds the lease.

// TakeSQL takes the lease of ready item $1 for holder $2, for $3 seconds,
// when no one holds it (or $2 does already), and returns what returning
// says (" RETURNING ..."; may be empty). One statement: the common claim,
// of an item no one holds, is one round trip.
func (q *Queue) TakeSQL(returning string) string {
	return fmt.Sprintf(q.statement("take"), returning)
}

// TakeOverSQL is TakeSQL that also takes a lease that lapsed, or whose
// holder is $4 (one known dead, whose lease has not lapsed yet).
func (q *Queue) TakeOverSQL(returning string) string {
	return fmt.Sprintf(q.statement("take_over"), returning)
}

// Renew lengthens holder's lease of item key to ttl from now; held is false
// when holder no longer holds it (another took it over).
func (q *Queue) Renew(ctx context.Context, db database.Executor, key any, holder string, ttl time.Duration) (held bool, err error) {
	tag, err := db.Exec(ctx, q.statement("renew"), key, holder, ttl.Seconds())
	if err != nil {
		return false, fmt.Errorf("queue: renew the lease of %s %v: %w", q.noun(), key, err)
	}
	return tag.RowsAffected() > 0, nil
}

// Release gives holder's lease of item key up, so that another need not
// wait for it to lapse.
func (q *Queue) Release(ctx context.Context, db database.Executor, key any, holder string) error {
	if _, err := db.Exec(ctx, q.statement("release"), key, holder); err != nil {
		return fmt.Errorf("queue: release the lease of %s %v: %w", q.noun(), key, err)
	}
	return nil
}

// Holding is a ready item and its lease as the resume pass sees it.
type Holding struct {
	Key    string
	Holder string // "": no one
	// Lapsed is whether the lease lapsed; nil when no one ever held it.
	Lapsed *bool
}

// Live says whether a live holder holds the item: a holder whose lease has
// not lapsed and that dead (which tells a holder known dead) does not name.
func (h Holding) Live(dead func(holder string) bool) bool {
	return h.Holder != "" && (h.Lapsed == nil || !*h.Lapsed) && !dead(h.Holder)
}

// Unheld lists the ready items that holder does not hold under a live
// lease, in the table's Order: what a resume pass relaunches, once it has
// left out those a live other holder holds (Holding.Live).
func (q *Queue) Unheld(ctx context.Context, db database.Executor, holder string) ([]Holding, error) {
	rows, err := db.Query(ctx, q.statement("unheld"), holder)
	if err != nil {
		return nil, fmt.Errorf("queue: find %s to resume: %w", q.noun(), err)
	}
	held, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Holding, error) {
		var h Holding
		err := r.Scan(&h.Key, &h.Holder, &h.Lapsed)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("queue: find %s to resume: %w", q.noun(), err)
	}
	return held, nil
}

// Free is the condition (on the table's Alias) of an item no live lease
// holds: never taken, released, or lapsed. An operator may act on such an
// item; one a live holder holds is that holder's.
func (q *Queue) Free() string { return q.statement("free") }

// Held is the opposite of Free: a live lease holds the item.
func (q *Queue) Held() string { return q.statement("held") }
