package intake_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/intake"
	"greatbook/internal/runs"
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

// tracedPool is a second pool on the world's database whose statements go to log.
func tracedPool(t *testing.T, w *world, log *statementLog) *pgxpool.Pool {
	t.Helper()
	cfg := w.db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestStatementsAreWhatApproveSends proves that the benchmark measures the
// product: intake.Statements (which make bench runs through pgbench) are,
// statement for statement, what an approve and its launch, and a sweep's
// launch, send to the server.
func TestStatementsAreWhatApproveSends(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	log := &statementLog{}
	pool := tracedPool(t, w, log)
	outbox := &intake.Outbox{Pool: pool, Starter: w.app.Outbox.Starter, Logger: w.app.Outbox.Logger}
	s := intake.Statements
	ctx := context.Background()

	t.Run("approve and launch", func(t *testing.T) {
		id := w.doc(t, 0)
		d := &intake.Decisions{Pool: pool, Outbox: outbox}
		log.take()
		a, err := d.Approve(ctx, w.org.ID, id, w.actor)
		if err != nil {
			t.Fatal(err)
		}
		if a.Launch.Outcome != "launched" {
			t.Fatalf("launch: %+v", a.Launch)
		}
		want := []string{"BEGIN", s.LockGroup, s.Recheck, s.Activate, audit.InsertSQL, s.InsertJob, "COMMIT",
			"BEGIN", s.LockJob, runs.InsertSQL, s.MarkLaunched, s.InsertAttempt, audit.InsertSQL, "COMMIT"}
		if got := log.take(); !slices.Equal(got, want) {
			t.Errorf("approve sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
		}
	})

	t.Run("sweep launch", func(t *testing.T) {
		id := w.doc(t, 0)
		if _, err := w.db.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := w.db.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, created_by, max_attempts) VALUES ($1, $2, 'test', 5)`,
			w.org.ID, id); err != nil {
			t.Fatal(err)
		}
		log.take()
		res, err := outbox.Sweep(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Launched) != 1 {
			t.Fatalf("sweep: %+v", res)
		}
		got := log.take()
		// The sweep's pass around the launch (its search for due jobs, which
		// pgbench replaces by its target table, and its record of the pass)
		// is not the launch.
		if len(got) >= 2 {
			got = got[1 : len(got)-1]
		}
		want := []string{"BEGIN", s.LockJobSkipLocked, runs.InsertSQL, s.MarkLaunched, s.InsertAttempt, audit.InsertSQL, "COMMIT"}
		if !slices.Equal(got, want) {
			t.Errorf("the sweep's launch sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
		}
	})
}
