package payments

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// State is where a document stands in paying: in a run, sent, paid (by a
// journal entry) or returned. A document in no run has none.
type State struct {
	Status string `json:"status"`
	RunID  int64  `json:"run_id"`
	ItemID int64  `json:"item_id"`
	// EntryID is the payment's journal entry, once a statement showed it
	// booked.
	EntryID *int64 `json:"entry_id"`
}

// stateSQL reads a document's latest item that is or was a payment (not
// removed from its run, nor cancelled with it): the invoice's own, or the
// one a credit note was netted in.
const stateSQL = `
	SELECT status, run_id, id, entry_id FROM payment_items
	WHERE org_id = $1 AND (intake_id = $2 OR credit_note_id = $2) AND status IN ('in_run', 'sent', 'paid', 'returned')
	ORDER BY id DESC LIMIT 1`

// StateOf returns document intakeID's payment state, or nil when it is in
// no run.
func StateOf(ctx context.Context, q database.Executor, orgID, intakeID int64) (*State, error) {
	var s State
	err := q.QueryRow(ctx, stateSQL, orgID, intakeID).Scan(&s.Status, &s.RunID, &s.ItemID, &s.EntryID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("payments: the payment of document %d: %w", intakeID, err)
	}
	return &s, nil
}

// statesSQL is stateSQL for a page of documents: each one's latest item.
const statesSQL = `
	SELECT DISTINCT ON (d.id) d.id, i.status, i.run_id, i.id, i.entry_id
	FROM unnest($2::bigint[]) AS d (id)
	JOIN payment_items i ON i.org_id = $1 AND (i.intake_id = d.id OR i.credit_note_id = d.id)
	WHERE i.status IN ('in_run', 'sent', 'paid', 'returned')
	ORDER BY d.id, i.id DESC`

// StatesOf is StateOf for several documents in one query: a document in no
// run is not in the map.
func StatesOf(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64]*State, error) {
	out := map[int64]*State{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, statesSQL, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("payments: the payments of %d documents: %w", len(ids), err)
	}
	var id int64
	var s State
	_, err = pgx.ForEachRow(rows, []any{&id, &s.Status, &s.RunID, &s.ItemID, &s.EntryID}, func() error {
		st := s
		out[id] = &st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("payments: the payments of %d documents: %w", len(ids), err)
	}
	return out, nil
}
