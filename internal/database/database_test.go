package database_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	db := testkit.NewEmptyDB(t)
	ctx := context.Background()
	const processes = 4
	var wg sync.WaitGroup
	errs := make([]error, processes)
	start := make(chan struct{})
	for i := range processes {
		// Each "process" has its own pool, as separate greatbook processes would.
		pool, err := pgxpool.New(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = database.Migrate(ctx, pool, nil)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	var applied, distinct int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).Scan(&applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied != distinct || applied == 0 {
		t.Fatalf("migrations recorded %d times for %d versions", applied, distinct)
	}
}

func TestWithTxRollsBackOnErrorEvenWhenCancelled(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	boom := errors.New("boom")
	err := database.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO orgs (slug, name, base_currency) VALUES ('x', 'X', 'EUR')`); err != nil {
			return err
		}
		cancel()
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM orgs`); n != 0 {
		t.Fatal("the transaction was not rolled back")
	}
	// The pool is healthy afterwards: no connection was left inside a transaction.
	if n := testkit.Count(t, db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`); n != 0 {
		t.Fatalf("%d connections left idle in transaction", n)
	}
}

func TestCheckSessionModeAcceptsADirectConnection(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	if err := database.CheckSessionMode(context.Background(), db.URL); err != nil {
		t.Fatal(err)
	}
}
