package ledger_test

import (
	"context"
	"testing"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

func TestTheTrialBalanceByDimensionBalancesAndOneValueKeepsItsLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	for _, id := range []string{"1", "2"} {
		if _, err := ledger.Post(ctx, db.Pool, bill(o, id)); err != nil {
			t.Fatal(err)
		}
	}
	byCentre, err := ledger.TrialBalanceBy(ctx, db.Pool, o.ID, "", "cost_center", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range byCentre {
		got[r.Code+"/"+r.Value] = r.Balance.String()
	}
	if len(got) != 3 || got["6000/OPS"] != "200" || got["1400/"] != "50" || got["2000/"] != "-250" || !ledger.Totals(byCentre).Balanced() {
		t.Fatalf("by cost centre: %v", got)
	}
	ops, err := ledger.TrialBalanceBy(ctx, db.Pool, o.ID, "2026-11-20", "cost_center", "OPS")
	if err != nil || len(ops) != 1 || ops[0].Code != "6000" || !ops[0].Balance.Equal(dec("200")) {
		t.Fatalf("OPS only: %+v %v", ops, err)
	}
	if none, err := ledger.TrialBalanceBy(ctx, db.Pool, o.ID, "2026-11-19", "cost_center", ""); err != nil || len(none) != 0 {
		t.Fatalf("before the entries: %+v %v", none, err)
	}
	for _, f := range []ledger.Filter{{Dimension: "project"}, {Dimension: "project", Value: "P1"}} {
		if es, err := ledger.List(ctx, db.Pool, o.ID, f); err != nil || len(es) != 2 {
			t.Fatalf("entries of %+v: %d %v", f, len(es), err)
		}
	}
	if es, err := ledger.List(ctx, db.Pool, o.ID, ledger.Filter{Dimension: "project", Value: "P2"}); err != nil || len(es) != 0 {
		t.Fatalf("entries of project P2: %d %v", len(es), err)
	}
}
