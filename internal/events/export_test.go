package events

import (
	"strings"
	"testing"
)

// WithoutHorizon makes Read return rows of transactions still running
// behind committed ones (the mutation the concurrency tests must catch).
func WithoutHorizon(t testing.TB) {
	const horizon = "AND xact < pg_snapshot_xmin(pg_current_snapshot())"
	if !strings.Contains(readSQL, horizon) {
		t.Fatal("events: the feed's query has no horizon to remove")
	}
	readQuery = strings.Replace(readSQL, horizon, "", 1)
	t.Cleanup(func() { readQuery = readSQL })
}
