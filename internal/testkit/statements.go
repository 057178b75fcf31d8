package testkit

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Statements records the SQL a pool's connections send, in order; BEGIN
// and COMMIT are written in capitals whatever options they carry. Tests
// prove with it that the benchmark runs what the product sends.
type Statements struct {
	mu  sync.Mutex
	sql []string
}

// TracedPool opens a second pool on the test database whose statements
// go to a new Statements, closed after the test.
func (d *DB) TracedPool(t testing.TB) (*pgxpool.Pool, *Statements) {
	t.Helper()
	log := &Statements{}
	cfg := d.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("testkit: traced pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, log
}

// TraceQueryStart implements pgx.QueryTracer.
func (l *Statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := data.SQL
	if word := strings.ToUpper(strings.Fields(s + " x")[0]); word == "BEGIN" || word == "COMMIT" {
		s = word
	}
	l.sql = append(l.sql, s)
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (l *Statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Take returns the statements sent since the last Take and forgets them.
func (l *Statements) Take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sql
	l.sql = nil
	return s
}
