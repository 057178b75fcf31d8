package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// A graph's History shortens what the checkpoint rows and a finished run
// keep, never what a run resumes from: a run paused across a restart
// resumes with its whole state.
func TestHistoryRecordsLessButARunResumesFromItsWholeState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": visit("ask"),
		"ask": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if r.Answer == nil {
				return runs.Step{Pause: &runs.Question{Kind: "account", Prompt: "Which account?"}}, nil
			}
			var answer string
			if err := json.Unmarshal(r.Answer, &answer); err != nil {
				return runs.Step{}, err
			}
			r.State.Answer = fmt.Sprintf("%s after %v", answer, r.State.Visited)
			return runs.Step{Next: "end"}, nil
		},
		"end": visit(""),
	}, History: func(s state) state { s.Visited = nil; return s }}
	first := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(first, g)
	id := create(t, db, g)
	if err := first.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	recorded := func(data []byte) state {
		t.Helper()
		var s state
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if info, s := finalState(t, db, id); info.Status != runs.Paused || len(s.Visited) != 1 {
		t.Fatalf("a paused run keeps its whole state: %+v %+v", info, s)
	}

	wctx, stop := context.WithCancel(ctx)
	defer stop()
	second := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(second, g)
	second.Start(wctx, 1)
	if err := second.Answer(ctx, id, "6200", "ann@example.test"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, id, runs.Done)
	if _, s := finalState(t, db, id); s.Answer != "6200 after [a]" || len(s.Visited) != 0 {
		t.Fatalf("finished run's state: %+v; want the answer given after [a], and no visits kept", s)
	}
	cps, err := runs.Checkpoints(ctx, db.Pool, id)
	if err != nil {
		t.Fatal(err)
	}
	oks := 0
	for _, c := range cps {
		if c.Outcome != "ok" {
			continue
		}
		oks++
		if s := recorded(c.Data); len(s.Visited) != 0 {
			t.Errorf("checkpoint %d (%s) records the visits: %+v", c.Seq, c.Node, s)
		}
	}
	if oks != 3 {
		t.Fatalf("%d ok checkpoints, want a, ask and end: %+v", oks, cps)
	}
}
