package intake

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/storable"
)

// QueuePosition is where a document stands in a queue the desk showed:
// the documents just before and just after it in the desk's order, 0 where
// there is none. The document itself need not be in the queue any more
// (approving it takes it out of "Needs review"): its neighbours are found
// from where it was.
type QueuePosition struct {
	Previous, Next int64
}

// Position finds document id's neighbours in the queue filter f selects,
// with the desk's own query (Queue), so that "next" is the row below it on
// the desk and "previous" the row above, whatever tab and search it shows.
func Position(ctx context.Context, q database.Executor, orgID int64, f QueueFilter, id int64) (QueuePosition, error) {
	if err := storable.CheckParameters(storable.Param{Name: "q", Value: f.Query, Max: 1000},
		storable.Param{Name: "type", Value: f.DocType, Max: 1000}, storable.Param{Name: "flag", Value: f.FlagReason, Max: 1000}); err != nil {
		return QueuePosition{}, err
	}
	if f.Tab == "" {
		f.Tab = TabNeedsReview
	}
	neighbour := func(before, after int64) (int64, error) {
		g := f
		g.Before, g.After, g.PageSize = before, after, 1
		sql, args, _ := queueQuery(orgID, g)
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return 0, fmt.Errorf("intake: queue position: %w", err)
		}
		list, err := pgx.CollectRows(rows, scanQueueRow)
		if err != nil || len(list) == 0 {
			return 0, err
		}
		// The query reads one row more than the page, nearest first.
		return list[0].ID, nil
	}
	var p QueuePosition
	var err error
	if p.Next, err = neighbour(id, 0); err != nil {
		return p, err
	}
	p.Previous, err = neighbour(0, id)
	return p, err
}
