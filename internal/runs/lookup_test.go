package runs_test

import (
	"context"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

func TestGetTellsAnOutageFromAMissingRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": func(context.Context, *runs.Run[state]) (runs.Step, error) { return runs.Step{}, nil },
	}}
	id := create(t, db, g)
	org := orgOf(t, db, id)
	other := testkit.Org(t, db)

	if info, err := runs.Get(ctx, db.Pool, org, id); err != nil || info.ID != id {
		t.Fatalf("own org's run: %+v, %v", info, err)
	}
	for name, tc := range map[string]struct {
		org int64
		id  string
	}{
		"another org's run": {other.ID, id},
		"no run id":         {org, "not-a-uuid"},
		"no such run":       {org, "00000000-0000-0000-0000-000000000000"},
	} {
		if _, err := runs.Get(ctx, db.Pool, tc.org, tc.id); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("%s: got %v, want not found", name, err)
		}
	}

	testkit.RefuseConnections(t, db)
	_, err := runs.Get(ctx, db.Pool, org, id)
	if err == nil || apperr.Is(err, apperr.NotFound) || !database.IsUnavailable(err) {
		t.Fatalf("with the database gone: got %v, want an unavailable error that is not not-found", err)
	}
}
