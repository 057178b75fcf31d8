package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	if f.Order == (QueueOrder{}) {
		f.Order = DefaultOrder
	}
	s, err := findSupplierNames(ctx, q, orgID, f.Query)
	if err != nil {
		return QueuePosition{}, err
	}
	if !f.Order.keyset() {
		return sortedPosition(ctx, q, orgID, f, s, id)
	}
	neighbour := func(before, after int64) (int64, error) {
		g := f
		g.Before, g.After, g.PageSize = before, after, 1
		sql, args, _ := queueQuery(orgID, g, s)
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return 0, fmt.Errorf("desk: queue position: %w", err)
		}
		list, err := pgx.CollectRows(rows, scanQueueRow)
		if err != nil || len(list) == 0 {
			return 0, err
		}
		// The query reads one row more than the page, nearest first.
		return list[0].ID, nil
	}
	var p QueuePosition
	if p.Next, err = neighbour(id, 0); err != nil {
		return p, err
	}
	p.Previous, err = neighbour(0, id)
	return p, err
}

// sortedPosition is Position in an order other than the default (a column,
// then the id): the rows just before and after the document in that order,
// among the tab's rows and the document itself (which may have left the
// tab: its place is where its column puts it). It reads the tab's matching
// rows once, as the desk's sorted pages do (linear in the tab).
func sortedPosition(ctx context.Context, q database.Executor, orgID int64, f QueueFilter, s supplierSearch, id int64) (QueuePosition, error) {
	where, arg, argsOf := queueWhere(orgID, f, s)
	self := arg(id)
	if f.Tab != TabAll {
		where = append(where, "((d.status = ANY("+arg(f.Tab.statuses())+"::text[])"+f.condition(arg)+") OR d.id = "+self+")")
	}
	sql := fmt.Sprintf(sortedPositionSQL, strings.Join(where, " AND "), sortedOrderBy(f.Order), self)
	var p QueuePosition
	err := q.QueryRow(ctx, sql, argsOf()...).Scan(&p.Previous, &p.Next)
	if errors.Is(err, pgx.ErrNoRows) {
		return QueuePosition{}, nil
	}
	if err != nil {
		return p, fmt.Errorf("desk: queue position: %w", err)
	}
	return p, nil
}
