package ledger_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// statementLog records the SQL every connection of a pool sends, in order.
type statementLog struct {
	mu  sync.Mutex
	sql []string
}

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := data.SQL
	if t := strings.ToUpper(strings.TrimSpace(s)); t == "BEGIN" || t == "COMMIT" || strings.HasPrefix(t, "BEGIN ") {
		s = strings.Fields(t)[0]
	}
	l.sql = append(l.sql, s)
	return ctx
}

func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sql
	l.sql = nil
	return s
}

// TestStatementsAreWhatAPostSends proves that the benchmark measures the
// product: ledger.Statements (which make bench runs through pgbench) are,
// statement for statement, what a new post and an exact replay send.
func TestStatementsAreWhatAPostSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	log := &statementLog{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := ledger.Statements

	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want := []string{"BEGIN", s.Lock, s.Lookup, s.Accounts, s.Insert, "COMMIT"}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("a new post sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want = []string{"BEGIN", s.Lock, s.Lookup, "COMMIT"}
	if got := log.take(); !slices.Equal(got, want) {
		t.Errorf("a replay sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
}
