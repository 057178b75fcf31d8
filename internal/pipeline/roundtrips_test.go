package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/bench"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// maxRoundTripsPerDocument bounds the exchanges with the database that one
// valid e-invoice costs from ingest to filed: 41 at first, against a goal
// of 12; 18 before the ingest and the filing were pipelined (ingest 4 → 1,
// the filing's savepoint, guards and update 6 → 2); 11 before the pure
// stages chained (their three checkpoints travel with the filing's); 8
// before the filing's transaction was pipelined (its BEGIN with the
// guards, the suggested coding with the checkpoint and the COMMIT).
const maxRoundTripsPerDocument = 6

func TestAPipelineRunsRoundTripsStayBounded(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	rt := &testkit.RoundTrips{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = rt
	cfg.MaxConns = 1 // one connection: its statement cache is warm after the first document
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	// A long lease: no heartbeat falls inside the measured document.
	e := runs.NewEngine(pool, runs.Options{Logger: testkit.Logger(t), LeaseTTL: time.Hour})
	p := pipeline.New(pool, e, pipeline.Options{Logger: testkit.Logger(t)})
	file := func(n int64) {
		t.Helper()
		ctx := context.Background()
		res, err := p.Ingest(ctx, intake.Arrival{OrgID: o.ID, Content: bench.UBLInvoice(n), MediaType: "application/xml", Via: "api", Actor: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Process(ctx, res.RunID); err != nil {
			t.Fatal(err)
		}
		doc, err := intake.NewPGStore(db.Pool).Get(ctx, o.ID, res.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Status != intake.Pending {
			t.Fatalf("document %d filed %s (%s), want pending", n, doc.Status, doc.FlagReason)
		}
	}
	file(1) // warms the connection's statement cache
	rt.Take()
	file(2)
	sent := rt.Take()
	if len(sent) > maxRoundTripsPerDocument {
		t.Errorf("one document took %d round trips, want at most %d:\n%s", len(sent), maxRoundTripsPerDocument, strings.Join(sent, "\n"))
	}
	t.Logf("%d round trips per document", len(sent))
}

// An ingest the database refuses (here: an org that does not exist) returns
// the database's error, rolls its pipelined transaction back and leaves the
// pool's one connection usable for the next arrival.
func TestAnIngestTheDatabaseRefusesReturnsItsError(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	cfg := db.Pool.Config().Copy()
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := runs.NewEngine(pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(pool, e, pipeline.Options{Logger: testkit.Logger(t)})
	ctx := context.Background()
	_, err = p.Ingest(ctx, intake.Arrival{OrgID: o.ID + 1000, Content: bench.UBLInvoice(1), MediaType: "application/xml", Via: "api", Actor: "t"})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23503" {
		t.Fatalf("ingest into no org: %v, want the foreign key's refusal", err)
	}
	res, err := p.Ingest(ctx, intake.Arrival{OrgID: o.ID, Content: bench.UBLInvoice(1), MediaType: "application/xml", Via: "api", Actor: "t"})
	if err != nil || !res.Created || res.Document.Status != intake.Received {
		t.Fatalf("the next ingest: %+v, %v", res, err)
	}
	var rows int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM intake_documents) + (SELECT count(*) FROM runs)`).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("rows and runs: %d, %v; want the one arrival's row and run", rows, err)
	}
}

// TestAnIngestTakesOneRoundTrip counts an ingest's exchanges with the
// database: the begin, the row with its bytes, the run and the commit
// travel in one batch. The same bytes again add the read of the row that
// holds them.
func TestAnIngestTakesOneRoundTrip(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	rt := &testkit.RoundTrips{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = rt
	cfg.MaxConns = 1 // one connection: its statement cache is warm after the first arrival
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := runs.NewEngine(pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(pool, e, pipeline.Options{Logger: testkit.Logger(t)})
	ingest := func(n int64) []string {
		t.Helper()
		rt.Take()
		if _, err := p.Ingest(context.Background(), intake.Arrival{OrgID: o.ID, Content: bench.UBLInvoice(n), MediaType: "application/xml", Via: "api", Actor: "t"}); err != nil {
			t.Fatal(err)
		}
		return rt.Take()
	}
	ingest(1) // warms the connection's statement cache
	ingest(1)
	for _, tc := range []struct {
		name string
		n    int64
		want int
	}{{"new bytes", 2, 1}, {"the same bytes again", 2, 2}} {
		sent := ingest(tc.n)
		if len(sent) != tc.want || !strings.Contains(strings.ToLower(sent[0]), ": begin |") || !strings.HasSuffix(sent[0], "| COMMIT") {
			t.Errorf("%s: %d round trips, want %d, the first one batch from begin to commit:\n%s", tc.name, len(sent), tc.want, strings.Join(sent, "\n"))
		}
	}
}
