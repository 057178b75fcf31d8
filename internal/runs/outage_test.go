package runs_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

func TestARunCaughtByADatabaseOutageCarriesOnWhenTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	var restore func()
	var calls atomic.Int32
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if calls.Add(1) == 1 {
				// The database goes away under the node: its own query
				// fails, and so does every write the engine tries after.
				restore = testkit.RefuseConnections(t, db)
				_, err := db.Pool.Exec(ctx, `SELECT 1`)
				if err == nil {
					return runs.Step{}, errors.New("the database still answers")
				}
				return runs.Step{}, err
			}
			r.State.Visited = append(r.State.Visited, "a")
			return runs.Step{}, nil
		},
	}}
	var logs testkit.LogBuffer
	// The lease outlives the test: only the worker itself can carry on.
	e := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	runs.Register(e, g)
	id := create(t, db, g)
	org := orgOf(t, db, id)
	ctx, stop := context.WithCancel(context.Background())
	e.Start(ctx, 1)
	t.Cleanup(func() { stop(); e.Wait() })
	if err := e.Launch(id); err != nil {
		t.Fatal(err)
	}
	// The worker gives up on this attempt once its writes fail too.
	if err := testkit.Poll(30*time.Second, func() (bool, error) { return strings.Contains(logs.String(), "run stopped"), nil }); err != nil {
		t.Fatalf("the outage never stopped the run (%v):\n%s", err, logs.String())
	}
	restore()
	// Generous, for a loaded machine: the worker retries on its own backoff.
	if err := testkit.Poll(60*time.Second, func() (bool, error) {
		info, err := runs.Get(context.Background(), db.Pool, org, id)
		return err == nil && info.Status == runs.Done, nil
	}); err != nil {
		t.Fatalf("the run did not carry on after the outage (%v):\n%s", err, logs.String())
	}
	if _, s := finalState(t, db, id); len(s.Visited) != 1 || calls.Load() != 2 {
		t.Fatalf("visited %v in %d calls", s.Visited, calls.Load())
	}
}
