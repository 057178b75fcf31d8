package ledger_test

import (
	"context"
	"testing"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// TestExecutorFunctionsJoinTheCallersTransaction proves the
// database.Executor rule: functions given the caller's transaction work in
// it, so the caller sees their
// writes before committing, nobody else does, and rolling back leaves no
// entry, no line and no observation behind.
func TestExecutorFunctionsJoinTheCallersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	req := bill(o, "in-a-tx")

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := ledger.PostTx(ctx, tx, req); err != nil {
		t.Fatal(err)
	}
	// A second post of the same facts in tx is a replay, and Observe
	// records the replay there too.
	res, err := ledger.PostTx(ctx, tx, req)
	if err != nil || !res.Replayed {
		t.Fatalf("replay inside the transaction: %+v, %v", res, err)
	}
	ledger.Observe(ctx, tx, req, res, nil)
	if _, found, err := ledger.ByKey(ctx, tx, req.SourceKey); err != nil || !found {
		t.Fatalf("inside the transaction: found %v, %v; want the entry", found, err)
	}
	if obs, err := ledger.Observations(ctx, tx, req.SourceKey); err != nil || len(obs) != 1 {
		t.Fatalf("inside the transaction: observations %+v, %v; want the replay", obs, err)
	}
	if _, found, err := ledger.ByKey(ctx, db.Pool, req.SourceKey); err != nil || found {
		t.Fatalf("outside the uncommitted transaction: found %v, %v; want nothing", found, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	for _, table := range []string{"journal_entries", "journal_lines", "ledger_observations"} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM `+table+` WHERE org_id = $1`, o.ID); n != 0 {
			t.Errorf("%s: %d rows after the caller rolled back, want 0", table, n)
		}
	}
}
