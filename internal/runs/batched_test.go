package runs_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/retry"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// chain is a node that visits and chains to next without a checkpoint of
// its own.
func chain(next string) runs.NodeFunc[state] {
	return func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
		r.State.Visited = append(r.State.Visited, r.Node)
		return runs.Step{Next: next, Chain: true}, nil
	}
}

func history(t *testing.T, db *testkit.DB, id string) string {
	t.Helper()
	cps, err := runs.Checkpoints(context.Background(), db.Pool, id)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range cps {
		s = append(s, c.Node+" "+c.Outcome+" "+string(c.Data))
	}
	return strings.Join(s, "; ")
}

func TestChainedNodesAreRecordedWithTheNextCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": chain("b"), "b": chain("c"),
		"c": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			r.State.Visited = append(r.State.Visited, "c")
			return runs.Step{CommitBatched: func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error) {
				b := &pgx.Batch{}
				b.Queue(`INSERT INTO audit_events (actor, action) VALUES ('test', 'c committed')`)
				return b, nil
			}}, nil
		},
	}}
	e := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	want := `a ok {"visited": ["a"]}; b ok {"visited": ["a", "b"]}; c ok {"visited": ["a", "b", "c"]}`
	if got := history(t, db, id); got != want {
		t.Fatalf("history:\n%s\nwant\n%s", got, want)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'c committed'`); n != 1 {
		t.Fatalf("the batched effect committed %d times", n)
	}
}

func TestAFailureAfterChainedNodesRecordsThemFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	var tries atomic.Int32
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": chain("b"),
		"b": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if tries.Add(1) == 1 {
				return runs.Step{}, retry.MarkTransient(errors.New("blip"), 0)
			}
			return runs.Step{}, retry.MarkPermanent(errors.New("no"))
		},
	}}
	e := runs.NewEngine(db.Pool, runs.Options{})
	e.Retry.Attempts = 2
	e.Retry.Waiter = retry.WaitFunc(func(context.Context, time.Duration) error { return nil })
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	want := `a ok {"visited": ["a"]}; b retry {"visited": ["a"]}; b failed {"visited": ["a"]}`
	if got := history(t, db, id); got != want {
		t.Fatalf("history:\n%s\nwant\n%s", got, want)
	}
}

func TestABatchedCommitOfAWorkerThatLostItsLeaseWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	inNode := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": chain("slow"),
		"slow": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			stall := calls.Add(1) == 1
			return runs.Step{CommitBatched: func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error) {
				first := &pgx.Batch{}
				first.Queue(`INSERT INTO audit_events (actor, action) VALUES ('test', 'slow began')`)
				if err := tx.SendBatch(ctx, first).Close(); err != nil {
					return nil, err
				}
				if stall {
					close(inNode)
					<-release // the first worker stalls inside its transaction
				}
				b := &pgx.Batch{}
				b.Queue(`INSERT INTO audit_events (actor, action) VALUES ('test', 'slow committed')`)
				return b, nil
			}}, nil
		},
	}}
	a := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	b := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	runs.Register(a, g)
	runs.Register(b, g)
	id := create(t, db, g)
	aDone := make(chan error, 1)
	go func() { aDone <- a.Execute(ctx, id) }()
	<-inNode
	// a's lease expires; b takes over and finishes.
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, id); err != nil {
		t.Fatal(err)
	}
	if err := b.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-aDone; !errors.Is(err, runs.ErrLeaseLost) {
		t.Fatalf("the stalled worker: %v, want ErrLeaseLost", err)
	}
	for _, action := range []string{"slow began", "slow committed"} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1`, action); n != 1 {
			t.Fatalf("%q written %d times; the fenced worker must write nothing", action, n)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`); n != 0 {
		t.Fatalf("%d connections left in a transaction", n)
	}
}

// TestABatchedCommitTakesTwoRoundTrips counts the round trips of a
// CommitBatched step's transaction: it begins with the first batch the
// effects send, and the batch they return travels with the checkpoint and
// the commit. Two round trips, where Commit takes four.
func TestABatchedCommitTakesTwoRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	rt := &testkit.RoundTrips{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = rt
	cfg.MaxConns = 1 // one connection: its statement cache is warm after the first run
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			return runs.Step{CommitBatched: func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error) {
				first := &pgx.Batch{}
				first.Queue(`INSERT INTO audit_events (actor, action) VALUES ('test', 'first')`)
				if err := tx.SendBatch(ctx, first).Close(); err != nil {
					return nil, err
				}
				last := &pgx.Batch{}
				last.Queue(`INSERT INTO audit_events (actor, action) VALUES ('test', 'last')`)
				return last, nil
			}}, nil
		},
	}}
	// A long lease: no heartbeat falls inside the measured run.
	e := runs.NewEngine(pool, runs.Options{LeaseTTL: time.Hour})
	runs.Register(e, g)
	var sent []string
	for range 2 { // the first run warms the connection's statement cache
		id := create(t, db, g)
		rt.Take()
		if err := e.Execute(ctx, id); err != nil {
			t.Fatal(err)
		}
		sent = rt.Take()
	}
	// The step's transaction: from the batch that begins it to the end.
	begins := slices.IndexFunc(sent, func(s string) bool { return strings.Contains(strings.ToLower(s), ": begin") })
	if begins < 0 || len(sent)-begins != 2 {
		t.Errorf("the batched commit took %d round trips, want 2; the run sent:\n%s", len(sent)-begins, strings.Join(sent, "\n"))
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action IN ('first', 'last')`); n != 4 {
		t.Fatalf("%d effects committed by two runs, want 4", n)
	}
}
