package testkit

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// RoundTrips is a pgx tracer that records the network exchanges a pool's
// connections make with the server: each statement sent alone (BEGIN and
// COMMIT included), each prepare, and each batch once however many
// statements it carries (named with the start of each). Set it as
// ConnConfig.Tracer of a pool of one connection, so its statement cache is
// warm after the first run, and count what Take returns.
type RoundTrips struct {
	mu   sync.Mutex
	sent []string
}

func (r *RoundTrips) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, s)
}

func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }

// TraceQueryStart implements pgx.QueryTracer.
func (r *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(oneLine(d.SQL))
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (r *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer.
func (r *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var starts []string
	for _, q := range d.Batch.QueuedQueries {
		s := oneLine(q.SQL)
		starts = append(starts, s[:min(40, len(s))])
	}
	r.add(fmt.Sprintf("batch of %d: %s", d.Batch.Len(), strings.Join(starts, " | ")))
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (r *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (r *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TracePrepareStart implements pgx.PrepareTracer.
func (r *RoundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	r.add("prepare " + oneLine(d.SQL))
	return ctx
}

// TracePrepareEnd implements pgx.PrepareTracer.
func (r *RoundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// Take returns what was recorded since the last Take, and forgets it.
func (r *RoundTrips) Take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sent
	r.sent = nil
	return s
}
