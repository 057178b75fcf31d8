package events

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/database"
)

// Reader reads the feed as Read does.
type Reader func(ctx context.Context, q database.Executor, orgID int64, after string, limit int) ([]Event, string, error)

// WithoutHorizon is Read without its horizon: it returns rows of
// transactions still running behind committed ones (the mutation the
// concurrency tests must catch).
func WithoutHorizon(t testing.TB) Reader {
	const horizon = "AND xact < pg_snapshot_xmin(pg_current_snapshot())"
	if !strings.Contains(readSQL, horizon) {
		t.Fatal("events: the feed's query has no horizon to remove")
	}
	query := strings.Replace(readSQL, horizon, "", 1)
	return func(ctx context.Context, q database.Executor, orgID int64, after string, limit int) ([]Event, string, error) {
		return read(ctx, q, query, orgID, after, limit)
	}
}
