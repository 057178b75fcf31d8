package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/events"
)

// DispatchBatch is how many events one dispatch transaction reads.
const DispatchBatch = 200

// feedHead is the feed position after the org's last event: where a new
// endpoint starts, so it receives what happens after it is registered.
func feedHead(ctx context.Context, q database.Executor, orgID int64) (string, error) {
	head, err := events.Head(ctx, q, orgID)
	if err != nil {
		return "", fmt.Errorf("webhooks: find the feed's end: %w", err)
	}
	return head, nil
}

// dispatchLoop turns the feed into deliveries every Poll, and wakes the
// workers when it queued any; and sweeps the deliveries whose last attempt
// never reported back.
func (s *Service) dispatchLoop(ctx context.Context) {
	t := time.NewTicker(s.Poll)
	defer t.Stop()
	for {
		n, err := s.Dispatch(ctx)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("webhook dispatch failed", "error", err)
		}
		if n > 0 {
			s.nudge()
		}
		s.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Dispatch queues the deliveries of every enabled endpoint's new events
// and returns how many it queued.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	s.init()
	rows, err := s.Pool.Query(ctx, enabledEndpointsSQL)
	if err != nil {
		return 0, fmt.Errorf("webhooks: dispatch: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("webhooks: dispatch: %w", err)
	}
	total := 0
	for _, id := range ids {
		for {
			n, more, err := s.dispatchEndpoint(ctx, id)
			total += n
			if err != nil {
				return total, err
			}
			if !more {
				break
			}
		}
	}
	return total, nil
}

// dispatchEndpoint reads the events after an endpoint's cursor, queues a
// delivery for each it wants, and advances the cursor past them: all in one
// transaction, so a crash either queued and advanced, or did neither.
// The feed holds only committed changes, so nothing is queued before its
// change commits; a delivery is unique per (endpoint, event), so a replay
// queues nothing twice. more says a full batch was read.
func (s *Service) dispatchEndpoint(ctx context.Context, endpointID int64) (queued int, more bool, err error) {
	err = database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		var ep Endpoint
		var cursor string
		// Waits for another process dispatching this endpoint (or a worker
		// claiming it, briefly), then reads the cursor it left.
		err := tx.QueryRow(ctx, lockEndpointFeedSQL, endpointID).Scan(&ep.OrgID, &ep.EventTypes, &cursor)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("webhooks: dispatch endpoint %d: %w", endpointID, err)
		}
		evs, next, err := events.Read(ctx, tx, ep.OrgID, cursor, DispatchBatch)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		more = len(evs) == DispatchBatch
		var ids, types, bodies []string
		for _, e := range evs {
			if !ep.Wants(e.Type) {
				continue
			}
			body, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("webhooks: encode event %s: %w", e.ID, err)
			}
			ids, types, bodies = append(ids, e.ID), append(types, e.Type), append(bodies, string(body))
		}
		if len(ids) > 0 {
			tag, err := tx.Exec(ctx, queueDeliveriesSQL, ep.OrgID, endpointID, ids, types, bodies)
			if err != nil {
				return fmt.Errorf("webhooks: queue deliveries of endpoint %d: %w", endpointID, err)
			}
			queued = int(tag.RowsAffected())
		}
		_, err = tx.Exec(ctx, advanceFeedCursorSQL, endpointID, next)
		if err != nil {
			return fmt.Errorf("webhooks: advance endpoint %d: %w", endpointID, err)
		}
		return nil
	})
	return queued, more, err
}
