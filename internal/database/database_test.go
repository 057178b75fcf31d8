package database_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3/lock"

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

// Another process migrating holds goose's session lock: Migrate tries it,
// waits without touching the schema, and migrates once it is free.
func TestMigrateWaitsForTheMigrationLock(t *testing.T) {
	t.Parallel()
	db := testkit.NewEmptyDB(t)
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	var holderPID int
	if err := holder.QueryRow(ctx, `SELECT pg_backend_pid() FROM pg_advisory_lock($1)`, lock.DefaultLockID).Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- database.Migrate(ctx, db.Pool, nil) }()
	// Until Migrate has tried the lock (and been refused), or has returned.
	testkit.Eventually(t, 30*time.Second, "Migrate never tried the migration lock", func() (bool, error) {
		select {
		case err := <-done:
			t.Fatalf("Migrate returned while another process held the migration lock: %v", err)
		default:
		}
		var tried bool
		err := holder.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> $1 AND query LIKE '%pg_try_advisory_lock%'`, holderPID).Scan(&tried)
		return tried, err
	})
	var orgs *string
	if err := holder.QueryRow(ctx, `SELECT to_regclass('orgs')::text`).Scan(&orgs); err != nil || orgs != nil {
		t.Fatalf("the schema changed while another process held the lock: %v %v", orgs, err)
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, lock.DefaultLockID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := holder.QueryRow(ctx, `SELECT to_regclass('orgs')::text`).Scan(&orgs); err != nil || orgs == nil {
		t.Fatalf("not migrated once the lock was free: %v", err)
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
