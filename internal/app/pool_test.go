package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/bench"
	"greatbook/internal/database"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// With a pool of app.PoolSize, requests holding their whole share of the
// pool (four approvers mid-transaction, say) leave the workers the
// connections to post what was approved: the run does not wait for a
// request to finish. With pgx's default size (4 on a 2-core machine) the
// run got no connection until a request let one go.
func TestWorkersPostWhileRequestsHoldTheirShareOfThePool(t *testing.T) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	const workers = 2
	pool, err := database.Open(ctx, db.URL, app.PoolSize(workers))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	a := app.New(pool, app.Config{Logger: testkit.Logger(t), Workers: workers, SweepInterval: -1})
	a.Start(ctx)
	defer a.Close()
	seed, err := bench.SeedEndToEnd(ctx, db.Pool, "pool-share", 1)
	if err != nil {
		t.Fatal(err)
	}

	// The requests' share of the app's pool, taken and held.
	held := make([]*pgxpool.Conn, 0, app.RequestConnections)
	for range app.RequestConnections {
		acquireCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := pool.Acquire(acquireCtx)
		cancel()
		if err != nil {
			t.Fatalf("acquire the requests' connection %d of a pool of %d: %v", len(held)+1, pool.Config().MaxConns, err)
		}
		held = append(held, c)
	}
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()

	// The approval commits on another pool; its launch hands the run to
	// the app's workers, which must find a connection of their own.
	decisions := review.NewDecisions(db.Pool, &jobs.Outbox{Pool: db.Pool, Starter: a.Bookkeeper}, nil)
	approval, err := decisions.Approve(ctx, seed.Org.ID, seed.IDs[0], audit.Actor{UserID: seed.User.ID, Label: seed.User.Email})
	if err != nil {
		t.Fatal(err)
	}
	if approval.Launch.Outcome != "launched" {
		t.Fatalf("launch: %+v", approval.Launch)
	}
	testkit.Eventually(t, 20*time.Second, "the approved document posted while requests hold their share of the pool", func() (bool, error) {
		return testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE id = $1 AND status = 'posted'`, seed.IDs[0]) == 1, nil
	})
}
