package runs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// blockingGraph's runs each wait in their node until release is closed,
// saying on entered when they start.
func blockingGraph(entered chan<- string, release <-chan struct{}) runs.Graph[state] {
	return runs.Graph[state]{Kind: "test", Start: "wait", Nodes: map[string]runs.NodeFunc[state]{
		"wait": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			entered <- r.ID
			select {
			case <-release:
			case <-ctx.Done():
				return runs.Step{}, ctx.Err()
			}
			r.State.Visited = append(r.State.Visited, "wait")
			return runs.Step{}, nil
		},
	}}
}

func TestALaunchIntoAFullQueueWaitsForAWorker(t *testing.T) {
	t.Parallel()
	ctx, stop := context.WithCancel(context.Background())
	db := testkit.NewDB(t)
	entered := make(chan string, 8)
	release := make(chan struct{})
	g := blockingGraph(entered, release)
	// One worker and a queue of two: the fourth launch finds no slot. A
	// long LaunchWait: it must be the worker that lets it through.
	e := runs.NewEngine(db.Pool, runs.Options{QueueSize: 2, LaunchWait: time.Hour})
	runs.Register(e, g)
	e.Start(ctx, 1)
	t.Cleanup(func() { stop(); e.Wait() })
	var ids []string
	for range 4 {
		ids = append(ids, create(t, db, g))
	}
	if err := e.Launch(ids[0]); err != nil {
		t.Fatal(err)
	}
	<-entered // the worker is busy with the first run
	for _, id := range ids[1:3] {
		if err := e.Launch(id); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.Stats().LaunchesWaited; n != 0 {
		t.Fatalf("%d launches waited with a free slot", n)
	}
	fourth := make(chan error, 1)
	go func() { fourth <- e.LaunchContext(ctx, ids[3]) }()
	testkit.Eventually(t, 30*time.Second, "the fourth launch never waited", func() (bool, error) {
		return e.Stats().LaunchesWaited == 1, nil
	})
	select {
	case err := <-fourth:
		t.Fatalf("the fourth launch returned (%v) while the queue was full", err)
	default:
	}
	close(release) // the worker finishes the first run and takes the second: a slot frees
	if err := <-fourth; err != nil {
		t.Fatalf("the waiting launch: %v, want it handed over", err)
	}
	testkit.Eventually(t, 30*time.Second, "not every run finished", func() (bool, error) {
		return testkit.Count(t, db, `SELECT count(*) FROM runs WHERE state = 'done'`) == 4, nil
	})
}

func TestALaunchThatWaitsTooLongIsRefusedAsQueueFull(t *testing.T) {
	t.Parallel()
	ctx, stop := context.WithCancel(context.Background())
	db := testkit.NewDB(t)
	entered := make(chan string, 8)
	release := make(chan struct{})
	g := blockingGraph(entered, release)
	e := runs.NewEngine(db.Pool, runs.Options{QueueSize: 1, LaunchWait: 10 * time.Millisecond})
	runs.Register(e, g)
	e.Start(ctx, 1)
	t.Cleanup(func() { close(release); stop(); e.Wait() })
	a, b, c := create(t, db, g), create(t, db, g), create(t, db, g)
	if err := e.Launch(a); err != nil {
		t.Fatal(err)
	}
	<-entered
	if err := e.Launch(b); err != nil {
		t.Fatal(err)
	}
	if err := e.Launch(c); !errors.Is(err, runs.ErrLaunchQueueFull) {
		t.Fatalf("a launch past LaunchWait: %v, want ErrLaunchQueueFull", err)
	}
	// The request's context bounds the wait too.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	e.LaunchWait = time.Hour
	if err := e.LaunchContext(cancelled, c); !errors.Is(err, runs.ErrLaunchQueueFull) {
		t.Fatalf("a launch whose caller gave up: %v, want ErrLaunchQueueFull", err)
	}
	if n := e.Stats().LaunchesWaited; n != 2 {
		t.Fatalf("%d launches waited, want 2", n)
	}
}
