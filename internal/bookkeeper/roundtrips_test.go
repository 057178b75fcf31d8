package bookkeeper_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/coding"
	"greatbook/internal/intake"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// maxRoundTripsPerRun bounds the exchanges with the database of one
// bookkeeper run of a base-currency document whose account comes from a
// supplier rule or the org's default, or from each row of its coding
// (read in load's statement): about 20 before the run kept its first
// read for its later steps and sent its last writes in one batch.
const maxRoundTripsPerRun = 5

func TestABookkeeperRunsRoundTripsStayBounded(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"supplier rule", "default account", "coding"} {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := testkit.NewDB(t)
			o := testkit.OrgWith(t, db, "rt", "SEK") // the invoice's own currency
			f := &fixture{db: db, org: o, actor: audit.Actor{Label: "ann@example.test"}}
			f.doc = sampleInvoice(t)
			switch from {
			case "coding":
				addCostCentres(t, db, o.ID)
			case "default account":
				if _, err := db.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id = (SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
					t.Fatal(err)
				}
			default:
				if _, err := db.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
					SELECT $1, $2, id, 't' FROM accounts WHERE org_id = $1 AND code = '6200'`, o.ID, strings.SplitN(f.doc.SourceRef(), "/", 2)[0]); err != nil {
					t.Fatal(err)
				}
			}
			rt := &testkit.RoundTrips{}
			cfg := db.Pool.Config().Copy()
			cfg.ConnConfig.Tracer = rt
			cfg.MaxConns = 1 // one connection: its statement cache is warm after the first run
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			// No workers: the test executes each run itself. A long lease: no
			// heartbeat falls inside the measured run.
			f.app = app.New(pool, app.Config{Logger: testkit.Logger(t), LeaseTTL: time.Hour, SweepInterval: -1})
			post := func(measured bool) {
				t.Helper()
				id := f.insertPending(t)
				if from == "coding" {
					if _, err := coding.Replace(ctx, db.Pool, o.ID, id, codingOf(f.doc, "6100"), f.actor); err != nil {
						t.Fatal(err)
					}
				}
				a, err := f.app.Decisions.Approve(ctx, o.ID, id, f.actor)
				if err != nil || a.Launch.RunID == "" {
					t.Fatalf("approve: %+v %v", a, err)
				}
				rt.Take()
				if err := f.app.Engine.Execute(ctx, a.Launch.RunID); err != nil {
					t.Fatal(err)
				}
				sent := rt.Take()
				d, err := intake.NewPGStore(db.Pool).Get(ctx, o.ID, id)
				if err != nil || d.Status != intake.Posted {
					t.Fatalf("document %d is %s (%v), want posted", id, d.Status, err)
				}
				// The runs history still shows every node, in order.
				if got := history(t, db, a.Launch.RunID); got != "load ok, account ok, rate ok, post ok" {
					t.Errorf("history: %s", got)
				}
				if !measured {
					return
				}
				if len(sent) > maxRoundTripsPerRun {
					t.Errorf("one run took %d round trips, want at most %d:\n%s", len(sent), maxRoundTripsPerRun, strings.Join(sent, "\n"))
				}
				t.Logf("%d round trips per run", len(sent))
			}
			post(false) // warms the connection's statement cache
			post(true)
		})
	}
}

// A run resumed after load by another execution (after a crash, or
// checkpointed by an older version) has nothing in its Scratch: account
// and post read what they need again.
func TestARunResumedAfterLoadReadsWhatItNeedsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.OrgWith(t, db, "resumed", "SEK")
	f := &fixture{db: db, org: o, doc: sampleInvoice(t), actor: audit.Actor{Label: "ann@example.test"}}
	supplier, _, _ := strings.Cut(f.doc.SourceRef(), "/")
	if _, err := db.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
		SELECT $1, $2, id, 't' FROM accounts WHERE org_id = $1 AND code = '6200'`, o.ID, supplier); err != nil {
		t.Fatal(err)
	}
	f.app = app.New(db.Pool, app.Config{Logger: testkit.Logger(t), SweepInterval: -1})
	id := f.insertPending(t)
	a, err := f.app.Decisions.Approve(ctx, o.ID, id, f.actor)
	if err != nil || a.Launch.RunID == "" {
		t.Fatalf("approve: %+v %v", a, err)
	}
	// The run as load's checkpoint left it.
	state := bookkeeper.State{IntakeID: id, JobID: a.Launch.JobID, Supplier: supplier, SupplierName: f.doc.Seller.Name,
		Currency: f.doc.Currency, BaseCurrency: "SEK", IssueDate: f.doc.IssueDate}
	data, _ := json.Marshal(state)
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET next_node = 'account', data = $2 WHERE id = $1::uuid`, a.Launch.RunID, data); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Engine.Execute(ctx, a.Launch.RunID); err != nil {
		t.Fatal(err)
	}
	e := f.waitPosted(t, id)
	if e.Lines[0].Account != "6200" {
		t.Fatalf("entry: %+v", e)
	}
	if got := history(t, db, a.Launch.RunID); got != "account ok, rate ok, post ok" {
		t.Errorf("history: %s", got)
	}
}

// history is a run's checkpoints as "node outcome" in order, joined by ", ".
func history(t *testing.T, db *testkit.DB, runID string) string {
	t.Helper()
	cps, err := runs.Checkpoints(context.Background(), db.Pool, runID)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, c := range cps {
		nodes = append(nodes, c.Node+" "+c.Outcome)
	}
	return strings.Join(nodes, ", ")
}
