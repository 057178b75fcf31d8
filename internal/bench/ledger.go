package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/database"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
)

// Ledger measures new posts and exact replays of a three-line entry at
// each client count (default 1, 4 and 16), beside pgbench sending the same
// statements.
func Ledger(ctx context.Context, e *Env, clientCounts []int) error {
	if len(clientCounts) == 0 {
		clientCounts = []int{1, 4, 16}
	}
	o, _, err := org.Create(ctx, e.Pool, "bench-ledger", "Bench Ledger", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	accounts := map[string]int64{}
	all, err := ledger.Accounts(ctx, e.Pool, o.ID)
	if err != nil {
		return err
	}
	for _, a := range all {
		accounts[a.Code] = a.ID
	}
	const history, replayKeys = 20_000, 2_000
	fmt.Fprintf(e.Out, "\nledger: seeding %d entries of history and %d replay targets...\n", history, replayKeys)
	tx, err := e.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `
		INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency, description, fingerprint, created_by)
		SELECT $1::bigint, $3::text, g::text, 'main', date '2026-01-01' + (g % 300), 'EUR', 'EUR', 'history', sha256(g::text::bytea), 'seed'
		FROM generate_series(1, $2::int) g`, o.ID, history, ledger.SourceTypeBenchHistory); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
		SELECT e.id, e.org_id, l.n, CASE l.n WHEN 0 THEN $1::bigint ELSE $2::bigint END,
		       CASE l.n WHEN 0 THEN 100 ELSE 0 END, CASE l.n WHEN 0 THEN 0 ELSE 100 END,
		       CASE l.n WHEN 0 THEN 100 ELSE 0 END, CASE l.n WHEN 0 THEN 0 ELSE 100 END
		FROM journal_entries e CROSS JOIN (VALUES (0), (1)) AS l (n) WHERE e.source_type = $3`,
		accounts["6000"], accounts["2000"], ledger.SourceTypeBenchHistory); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	// The lines are parsed once, as pgbench's are: a post only reads them.
	lines := []ledger.Line{
		{Account: "6000", Debit: decimal.RequireFromString("100.00")},
		{Account: "1400", Debit: decimal.RequireFromString("25.00")},
		{Account: "2000", Credit: decimal.RequireFromString("125.00")},
	}
	request := func(sourceID string) ledger.Request {
		return ledger.Request{
			SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: ledger.SourceTypeBench, SourceID: sourceID, EntrySet: "bill"},
			Date:      "2026-11-20", Currency: "EUR", Description: "bench", Actor: "bench", Lines: lines,
		}
	}
	for i := 1; i <= replayKeys; i++ {
		if _, err := ledger.Post(ctx, e.Pool, request(strconv.Itoa(i))); err != nil {
			return err
		}
	}
	if err := e.Analyze(ctx); err != nil {
		return err
	}
	// Vacuum the bulk load and flush it now, so that neither autovacuum nor
	// the checkpoint after it lands in the first measurement (Go's, at one
	// client) and not in pgbench's.
	for _, sql := range []string{`VACUUM journal_entries, journal_lines`, `CHECKPOINT`} {
		if _, err := e.Pool.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
			return err
		}
	}

	newPost, replay := postScripts(o.ID, accounts, replayKeys)

	var next atomic.Int64
	next.Store(1_000_000_000_000)
	rounds, window := Windows(e.Duration, 3) // greatbook, pgx alone, pgbench
	table := &Table{
		Title: fmt.Sprintf("ledger: posts per second, three-line entry, %d entries of history (greatbook, pgx alone and pgbench alternating, %d rounds of %s each)",
			history, rounds, window),
		Columns: []string{"clients", "new posts", "pgx alone", "pgbench", "ratio", "pgx/pgbench", "replays", "pgbench", "ratio", "replay/new"},
	}
	var roundsAtFour Interleaved
	for _, clients := range clientCounts {
		pool, err := e.NewPool(ctx, clients)
		if err != nil {
			return err
		}
		newPosts, err := e.MeasureInterleaved(ctx, clients, newPost, func(ctx context.Context, _, _ int) error {
			_, err := ledger.Post(ctx, pool, request(strconv.FormatInt(next.Add(1), 10)))
			return err
		}, pgxAlone(pool, o.ID, accounts, &next))
		if err != nil {
			pool.Close()
			return err
		}
		replays, err := e.MeasureInterleaved(ctx, clients, replay, func(ctx context.Context, w, seq int) error {
			res, err := ledger.Post(ctx, pool, request(strconv.Itoa(1+(w*7919+seq*104729)%replayKeys)))
			if err == nil && !res.Replayed {
				err = fmt.Errorf("bench: expected a replay")
			}
			return err
		})
		pool.Close()
		if err != nil {
			return err
		}
		if clients == 4 {
			roundsAtFour = newPosts
		}
		table.Add(strconv.Itoa(clients), Rate(newPosts.Go[0]), Rate(newPosts.Go[1]), Rate(newPosts.PGBench), Ratio(newPosts.Go[0], newPosts.PGBench),
			Ratio(newPosts.Go[1], newPosts.PGBench), Rate(replays.Go[0]), Rate(replays.PGBench), Ratio(replays.Go[0], replays.PGBench),
			Ratio(replays.Go[0], newPosts.Go[0]))
	}
	table.Print(e.Out)
	newTrips, replayTrips, err := ledgerRoundTripsPerPost(ctx, e, request)
	if err != nil {
		return err
	}
	if len(roundsAtFour.Rounds) > 0 {
		fmt.Fprint(e.Out, "new posts at 4 clients, each round (greatbook, pgx alone / pgbench = ratios):")
		for _, r := range roundsAtFour.Rounds {
			fmt.Fprintf(e.Out, " %s, %s / %s = %s, %s;", Rate(r[0]), Rate(r[1]), Rate(r[2]), Ratio(r[0], r[2]), Ratio(r[1], r[2]))
		}
		fmt.Fprintln(e.Out)
	}
	fmt.Fprintf(e.Out, "round trips per post (pgbench sends the same pipelines): new %d, replay %d\n", newTrips, replayTrips)
	fmt.Fprintln(e.Out, "pgx alone: the same statements and arguments in the same two pipelined batches through the transaction helper and pgx, without the ledger's code (the Go driver's floor)")
	fmt.Fprintln(e.Out, "goal: new posts at 4 clients >= 0.85 of pgbench; replays >= 3x the new-post rate")
	return nil
}

// pgxAlone is a new post's two pipelined batches sent as the ledger sends
// them (through database.WithPipelinedTx), statement for statement and
// argument for argument (a fixed fingerprint), with none of the ledger's
// own work: the floor the Go driver sets under the ledger's figure.
func pgxAlone(pool *pgxpool.Pool, orgID int64, accounts map[string]int64, next *atomic.Int64) func(ctx context.Context, _, _ int) error {
	s := ledger.Statements
	codes := []string{"6000", "1400", "2000"}
	lineNo, accountIDs := []int32{0, 1, 2}, []int64{accounts["6000"], accounts["1400"], accounts["2000"]}
	debit, credit, dims := []string{"100", "25", "0"}, []string{"0", "0", "125"}, []string{"{}", "{}", "{}"}
	fingerprint := make([]byte, 32)
	return func(ctx context.Context, _, _ int) error {
		sid := strconv.FormatInt(next.Add(1), 10)
		return database.WithPipelinedTx(ctx, pool, func(tx pgx.Tx) (*pgx.Batch, error) {
			b := &pgx.Batch{}
			b.Queue(s.Lock, orgID, database.LockLedgerSourceKey, ledger.SourceTypeBench, sid, "bill")
			b.Queue(s.Lookup, orgID, ledger.SourceTypeBench, sid, "bill")
			b.Queue(s.Accounts, orgID, codes)
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return nil, err
			}
			b = &pgx.Batch{}
			b.Queue(s.Insert, orgID, ledger.SourceTypeBench, sid, "bill", "2026-11-20", "EUR", "EUR", "bench", fingerprint, int64(0), "bench",
				lineNo, accountIDs, debit, credit, debit, credit, dims)
			return b, nil
		})
	}
}

// ledgerRoundTripsPerPost counts the round trips of one new post and one
// exact replay, on one traced connection already warmed up (its
// statements prepared).
func ledgerRoundTripsPerPost(ctx context.Context, e *Env, request func(string) ledger.Request) (newPost, replay int, err error) {
	trips := &roundTrips{}
	pool, err := e.NewTracedPool(ctx, 1, trips)
	if err != nil {
		return 0, 0, err
	}
	defer pool.Close()
	count := func(sourceID string) (int, error) {
		before := trips.n.Load()
		_, err := ledger.Post(ctx, pool, request(sourceID))
		return int(trips.n.Load() - before), err
	}
	if _, err := count("round-trips-warm-up"); err != nil {
		return 0, 0, err
	}
	if newPost, err = count("round-trips"); err != nil {
		return 0, 0, err
	}
	replay, err = count("round-trips")
	return newPost, replay, err
}

// postScripts are pgbench's new post and exact replay of a three-line
// entry in org orgID (accounts by code): the same statements in the same
// round trips as a post sends them (ledger's TestStatementsAreWhatAPostSends):
// BEGIN pipelined with the lock, the lookup and the accounts; the insert
// with COMMIT. A replay reads one of the source ids 1..replayKeys.
func postScripts(orgID int64, accounts map[string]int64, replayKeys int) (newPost, replay Script) {
	vars := map[string]string{
		"org": strconv.FormatInt(orgID, 10), "ns": strconv.Itoa(int(database.LockLedgerSourceKey)),
		"stype": "bench", "eset": "bill", "edate": "2026-11-20", "cur": "EUR", "base": "EUR", "descr": "bench",
		"fp": `\x` + strings.Repeat("ab", 32), "rev": "0", "actor": "bench",
		"lineno": "{0,1,2}", "accts": fmt.Sprintf("{%d,%d,%d}", accounts["6000"], accounts["1400"], accounts["2000"]),
		"debit": "{100,25,0}", "credit": "{0,0,125}", "bdebit": "{100,25,0}", "bcredit": "{0,0,125}", "dims": `{"{}","{}","{}"}`,
		"codes": "{6000,1400,2000}",
	}
	// The same statements in the same round trips as a post sends them
	// (ledger's TestStatementsAreWhatAPostSends): BEGIN pipelined with the
	// lock, the lookup and the accounts; the insert with COMMIT.
	s := ledger.Statements
	first := "\\startpipeline\nBEGIN;\n" + Statement(s.Lock, "org", "ns", "stype", "sid", "eset") +
		Statement(s.Lookup, "org", "stype", "sid", "eset") + Statement(s.Accounts, "org", "codes") + "\\endpipeline\n"
	newPost = Script{Vars: vars, Text: "\\set sid random(2000000000000, 9000000000000000)\n" + first +
		"\\startpipeline\n" + Statement(s.Insert, "org", "stype", "sid", "eset", "edate", "cur", "base", "descr", "fp", "rev", "actor",
		"lineno", "accts", "debit", "credit", "bdebit", "bcredit", "dims") + "COMMIT;\n\\endpipeline\n"}
	replay = Script{Vars: vars, Text: fmt.Sprintf("\\set sid random(1, %d)\n", replayKeys) + first + "COMMIT;\n"}
	return newPost, replay
}
