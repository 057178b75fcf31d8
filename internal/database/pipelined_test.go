package database_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

// onePool is a pool of one connection on db, traced by rt when given: a
// connection handed back inside a transaction would be closed by the pool,
// so the same backend serving the next statement proves it came back idle.
func onePool(t *testing.T, db *testkit.DB, rt *testkit.RoundTrips) *pgxpool.Pool {
	t.Helper()
	cfg := db.Pool.Config().Copy()
	cfg.MaxConns = 1
	if rt != nil {
		cfg.ConnConfig.Tracer = rt
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func backend(t *testing.T, pool *pgxpool.Pool) int32 {
	t.Helper()
	var pid int32
	if err := pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func orgInsert(slug string) (string, []any) {
	return `INSERT INTO orgs (slug, name, base_currency) VALUES ($1, $1, 'EUR')`, []any{slug}
}

func batchOf(slugs ...string) *pgx.Batch {
	b := &pgx.Batch{}
	for _, s := range slugs {
		sql, args := orgInsert(s)
		b.Queue(sql, args...)
	}
	return b
}

// TestAPipelinedTransactionKeepsItsRoundTrips counts the round trips of
// pipelined transactions: BEGIN travels with the first batch and COMMIT
// with the last, so one batch of work costs one round trip, a read then a
// write two, and a read alone two (COMMIT alone); nothing sent costs none.
func TestAPipelinedTransactionKeepsItsRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	rt := &testkit.RoundTrips{}
	pool := onePool(t, db, rt)
	for _, tc := range []struct {
		name  string
		fn    func(slug string) func(tx pgx.Tx) (*pgx.Batch, error)
		trips []string // the start of each round trip
		orgs  int      // rows written
	}{
		{"one batch", func(slug string) func(pgx.Tx) (*pgx.Batch, error) {
			return func(pgx.Tx) (*pgx.Batch, error) { return batchOf(slug, slug+"-2"), nil }
		}, []string{"batch of 4: begin | INSERT INTO orgs"}, 2},
		{"a batch sent, then the last", func(slug string) func(pgx.Tx) (*pgx.Batch, error) {
			return func(tx pgx.Tx) (*pgx.Batch, error) {
				if err := tx.SendBatch(ctx, batchOf(slug)).Close(); err != nil {
					return nil, err
				}
				return batchOf(slug + "-2"), nil
			}
		}, []string{"batch of 2: begin | INSERT INTO orgs", "batch of 2: INSERT INTO orgs"}, 2},
		{"a batch sent, nothing last", func(slug string) func(pgx.Tx) (*pgx.Batch, error) {
			return func(tx pgx.Tx) (*pgx.Batch, error) { return nil, tx.SendBatch(ctx, batchOf(slug)).Close() }
		}, []string{"batch of 2: begin | INSERT INTO orgs", "commit"}, 1},
		{"nothing at all", func(string) func(pgx.Tx) (*pgx.Batch, error) {
			return func(pgx.Tx) (*pgx.Batch, error) { return nil, nil }
		}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slug := strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)
			// The first run prepares the statements on the connection; the
			// second is counted.
			for _, run := range []string{"warm-", ""} {
				rt.Take()
				if err := database.WithPipelinedTx(ctx, pool, tc.fn(run+slug)); err != nil {
					t.Fatal(err)
				}
			}
			sent := rt.Take()
			ok := len(sent) == len(tc.trips)
			for i := 0; ok && i < len(sent); i++ {
				ok = strings.HasPrefix(sent[i], tc.trips[i])
			}
			if !ok {
				t.Errorf("%d round trips:\n%s\nwant %d:\n%s", len(sent), strings.Join(sent, "\n"), len(tc.trips), strings.Join(tc.trips, "\n"))
			}
			if n := testkit.Count(t, db, `SELECT count(*) FROM orgs WHERE slug LIKE $1 || '%'`, slug); n != tc.orgs {
				t.Errorf("%d rows committed, want %d", n, tc.orgs)
			}
		})
	}
}

// TestAPipelinedTransactionRollsBackOnError proves the helper's promise
// whatever fails: fn, a statement of the last batch (which stops the batch
// before its COMMIT), or the commit itself because ctx was cancelled
// mid-way. Nothing is written, and the pool's one connection comes back
// idle, not in a transaction.
func TestAPipelinedTransactionRollsBackOnError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		fn    func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error)
		check func(err error) bool
	}{
		{"the function fails after the context was cancelled", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
				return nil, err
			}
			cancel()
			return nil, boom
		}, func(err error) bool { return errors.Is(err, boom) }},
		{"the context is cancelled before the last batch", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
				return nil, err
			}
			cancel()
			return batchOf("last"), nil
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"a statement of the last batch fails", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
				return nil, err
			}
			return batchOf("last", "first"), nil // the slug is unique
		}, func(err error) bool { return database.IsUniqueViolation(err, "") }},
		{"the one batch fails", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			return batchOf("first", "first"), nil
		}, func(err error) bool { return database.IsUniqueViolation(err, "") }},
		{"a statement sent alone fails", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
				return nil, err
			}
			sql, args := orgInsert("first")
			_, err := tx.Exec(ctx, sql, args...)
			return batchOf("last"), err
		}, func(err error) bool { return database.IsUniqueViolation(err, "") }},
		{"the function commits itself", func(ctx context.Context, cancel func(), tx pgx.Tx) (*pgx.Batch, error) {
			if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
				return nil, err
			}
			return nil, tx.Commit(ctx)
		}, func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.NewDB(t)
			pool := onePool(t, db, nil)
			pid := backend(t, pool)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := database.WithPipelinedTx(ctx, pool, func(tx pgx.Tx) (*pgx.Batch, error) { return tc.fn(ctx, cancel, tx) })
			if !tc.check(err) {
				t.Fatalf("got %v", err)
			}
			if n := testkit.Count(t, db, `SELECT count(*) FROM orgs WHERE slug IN ('first', 'last')`); n != 0 {
				t.Fatalf("%d rows written; the transaction was not rolled back", n)
			}
			if got := backend(t, pool); got != pid {
				t.Fatalf("the connection was not handed back idle (backend %d, then %d)", pid, got)
			}
		})
	}
}

// TestAPipelinedTransactionIsAFullTransaction proves that tx serves what
// a pgx.Tx does: statements sent alone see the batches' writes, and a
// savepoint rolls back on its own.
func TestAPipelinedTransactionIsAFullTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	err := database.WithPipelinedTx(ctx, db.Pool, func(tx pgx.Tx) (*pgx.Batch, error) {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM orgs WHERE slug = 'first'`).Scan(&n); err != nil || n != 0 {
			return nil, errors.Join(err, errors.New("a row before any was written"))
		}
		if err := tx.SendBatch(ctx, batchOf("first")).Close(); err != nil {
			return nil, err
		}
		err := database.WithTx(ctx, tx, func(sp pgx.Tx) error {
			sql, args := orgInsert("in-savepoint")
			if _, err := sp.Exec(ctx, sql, args...); err != nil {
				return err
			}
			return errors.New("undo the savepoint")
		})
		if err == nil {
			return nil, errors.New("the savepoint's error was lost")
		}
		var tag pgconn.CommandTag
		sql, args := orgInsert("alone")
		if tag, err = tx.Exec(ctx, sql, args...); err != nil || tag.RowsAffected() != 1 {
			return nil, errors.Join(err, errors.New("the statement sent alone wrote nothing"))
		}
		return batchOf("last"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	rows, _ := db.Pool.Query(ctx, `SELECT slug FROM orgs WHERE slug IN ('first', 'in-savepoint', 'alone', 'last') ORDER BY id`)
	got, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(got, " ") != "first alone last" {
		t.Fatalf("committed %v, %v; want first, alone and last, without the savepoint's row", got, err)
	}
}
