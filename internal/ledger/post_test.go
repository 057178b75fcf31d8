package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ptr(s string) *decimal.Decimal { d := dec(s); return &d }

// bill is a supplier invoice of 100 + 25 VAT: a typical three-line entry.
func bill(o org.Org, sourceID string) ledger.Request {
	return ledger.Request{
		SourceKey:   ledger.SourceKey{OrgID: o.ID, SourceType: "intake", SourceID: sourceID, EntrySet: "bill"},
		Date:        "2026-11-20",
		Currency:    "EUR",
		Description: "Supplier AB invoice INV-1001",
		Lines: []ledger.Line{
			{Account: "6000", Debit: dec("100.00"), Dimensions: map[string]string{"cost_center": "OPS", "project": "P1"}},
			{Account: "1400", Debit: dec("25.00")},
			{Account: "2000", Credit: dec("125.00")},
		},
		Actor: "test",
	}
}

func counts(t *testing.T, db *testkit.DB) [2]int {
	t.Helper()
	return [2]int{testkit.Count(t, db, `SELECT count(*) FROM journal_entries`), testkit.Count(t, db, `SELECT count(*) FROM journal_lines`)}
}

func TestPostThenExactReplayWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)

	first, err := ledger.Post(ctx, db.Pool, bill(o, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || first.Entry.ID == 0 || len(first.Entry.Fingerprint) != 32 || len(first.Entry.Lines) != 3 {
		t.Fatalf("first post: %+v", first)
	}
	before := counts(t, db)

	// The same facts written differently: 100.0 for 100.00, dimensions built in another order.
	again := bill(o, "1")
	again.Lines[0].Debit = dec("100.0")
	again.Lines[0].Dimensions = map[string]string{"project": "P1", "cost_center": "OPS"}
	again.Lines[2].Credit = dec("125")
	again.Actor = "someone else" // who asked is not a fact of the entry
	res, err := ledger.Post(ctx, db.Pool, again)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replayed || res.Entry.ID != first.Entry.ID {
		t.Fatalf("replay: %+v", res)
	}
	if after := counts(t, db); after != before {
		t.Fatalf("a replay wrote rows: %v -> %v", before, after)
	}
}

func TestReplayConflictNamesEachDifferingFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	foreign := bill(o, "fx")
	foreign.Currency = "USD"
	for i, base := range []string{"92.00", "23.00", "115.00"} {
		if i < 2 {
			foreign.Lines[i].BaseDebit = ptr(base)
		} else {
			foreign.Lines[i].BaseCredit = ptr(base)
		}
	}
	other, err := ledger.Post(ctx, db.Pool, bill(o, "other"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []ledger.Request{bill(o, "1"), foreign} {
		if _, err := ledger.Post(ctx, db.Pool, r); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name   string
		base   ledger.Request
		change func(r *ledger.Request)
		fields []string
	}{
		{"date", bill(o, "1"), func(r *ledger.Request) { r.Date = "2026-11-21" }, []string{"date"}},
		// A foreign currency without prepared base amounts: those differ too.
		{"currency", bill(o, "1"), func(r *ledger.Request) { r.Currency = "SEK" }, []string{"currency", "lines[0].base_debit", "lines[1].base_debit", "lines[2].base_credit"}},
		{"description", bill(o, "1"), func(r *ledger.Request) { r.Description = "other text" }, []string{"description"}},
		{"account", bill(o, "1"), func(r *ledger.Request) { r.Lines[0].Account = "6100" }, []string{"lines[0].account"}},
		{"amount", bill(o, "1"), func(r *ledger.Request) {
			r.Lines[0].Debit = dec("120.00")
			r.Lines[2].Credit = dec("145.00")
		}, []string{"lines[0].debit", "lines[2].credit"}},
		{"side", bill(o, "1"), func(r *ledger.Request) {
			r.Lines[1] = ledger.Line{Account: "1400", Credit: dec("25.00")}
			r.Lines[0].Debit = dec("150.00")
		}, []string{"lines[0].debit", "lines[1].debit", "lines[1].credit"}},
		{"dimension value", bill(o, "1"), func(r *ledger.Request) { r.Lines[0].Dimensions["cost_center"] = "SALES" }, []string{"lines[0].dimensions.cost_center"}},
		{"dimension added", bill(o, "1"), func(r *ledger.Request) { r.Lines[1].Dimensions = map[string]string{"project": "P2"} }, []string{"lines[1].dimensions.project"}},
		{"line count", bill(o, "1"), func(r *ledger.Request) {
			r.Lines = append(r.Lines[:2:2], ledger.Line{Account: "2000", Credit: dec("100.00")}, ledger.Line{Account: "2000", Credit: dec("25.00")})
		}, []string{"lines.length", "lines[2].credit"}},
		{"reverses", bill(o, "1"), func(r *ledger.Request) { r.ReversesID = other.Entry.ID }, []string{"reverses_id"}},
		{"prepared base amount", foreign, func(r *ledger.Request) {
			r.Lines[0].BaseDebit = ptr("93.00")
			r.Lines[2].BaseCredit = ptr("116.00")
		}, []string{"lines[0].base_debit", "lines[2].base_credit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := counts(t, db)
			r := tc.base
			r.Lines = append([]ledger.Line(nil), tc.base.Lines...)
			for i := range r.Lines {
				if r.Lines[i].Dimensions != nil {
					m := map[string]string{}
					for k, v := range r.Lines[i].Dimensions {
						m[k] = v
					}
					r.Lines[i].Dimensions = m
				}
			}
			tc.change(&r)
			_, err := ledger.Post(ctx, db.Pool, r)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.SourceReplayConflict {
				t.Fatalf("got %v, want source_replay_conflict", err)
			}
			ds, _ := e.Details["differences"].([]ledger.Difference)
			got := map[string]ledger.Difference{}
			for _, d := range ds {
				got[d.Field] = d
			}
			for _, f := range tc.fields {
				if _, ok := got[f]; !ok {
					t.Errorf("differences %v do not name %s", ds, f)
				}
			}
			if len(ds) != len(tc.fields) {
				t.Errorf("differences %v, want exactly %v", ds, tc.fields)
			}
			if counts(t, db) != before {
				t.Fatal("a conflict wrote rows")
			}
		})
	}
	// The conflict shows stored and requested values as a person reads them.
	r := bill(o, "1")
	r.Lines[0].Debit, r.Lines[2].Credit = dec("120"), dec("145")
	_, err = ledger.Post(ctx, db.Pool, r)
	e, _ := apperr.As(err)
	d := e.Details["differences"].([]ledger.Difference)[0]
	if d != (ledger.Difference{Field: "lines[0].debit", Stored: "100.00", Requested: "120.00"}) {
		t.Fatalf("difference %+v", d)
	}
}

// postConcurrently posts requests from their own goroutines at once.
func postConcurrently(t *testing.T, db *testkit.DB, reqs []ledger.Request, post func(ctx context.Context, tx pgx.Tx, r ledger.Request) (ledger.Result, error)) ([]ledger.Result, []error) {
	t.Helper()
	ctx := context.Background()
	results := make([]ledger.Result, len(reqs))
	errs := make([]error, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errs[i] = database.WithTxV(ctx, db.Pool, func(tx pgx.Tx) (ledger.Result, error) { return post(ctx, tx, r) })
		}()
	}
	close(start)
	wg.Wait()
	return results, errs
}

func TestConcurrentPosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		post func(ctx context.Context, tx pgx.Tx, r ledger.Request) (ledger.Result, error)
	}{
		{"with the advisory lock", ledger.PostTx},
		// A writer that forgot the lock: the unique index still decides.
		{"without the lock the unique index is the backstop", ledger.PostTxWithoutLock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testkit.NewDB(t)
			o := testkit.Org(t, db)
			const n = 32

			same := make([]ledger.Request, n)
			for i := range same {
				same[i] = bill(o, "same")
			}
			results, errs := postConcurrently(t, db, same, tc.post)
			replays, ids := 0, map[int64]bool{}
			for i := range results {
				if errs[i] != nil {
					t.Fatalf("identical post %d: %v", i, errs[i])
				}
				ids[results[i].Entry.ID] = true
				if results[i].Replayed {
					replays++
				}
			}
			if len(ids) != 1 || replays != n-1 {
				t.Fatalf("identical posts: %d entries, %d replays; want 1 and %d", len(ids), replays, n-1)
			}

			different := make([]ledger.Request, n)
			for i := range different {
				different[i] = bill(o, "different")
				different[i].Description = fmt.Sprintf("attempt %d", i)
			}
			results, errs = postConcurrently(t, db, different, tc.post)
			created, conflicts := 0, 0
			for i := range results {
				switch {
				case errs[i] == nil && !results[i].Replayed:
					created++
				case apperr.Is(errs[i], apperr.SourceReplayConflict):
					conflicts++
				default:
					t.Fatalf("different post %d: %v (a raw error reached the caller)", i, errs[i])
				}
			}
			if created != 1 || conflicts != n-1 {
				t.Fatalf("different posts: %d created, %d conflicts; want 1 and %d", created, conflicts, n-1)
			}
			if got := testkit.Count(t, db, `SELECT count(*) FROM journal_entries`); got != 2 {
				t.Fatalf("%d entries, want 2", got)
			}
		})
	}
}

func TestPostTakesTheAdvisoryLockBeforeLookingUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	req := bill(o, "locked")

	// Another session holds the source key's lock and writes the entry.
	holder := db.Conn(t)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, database.LockLedgerSourceKey, req.SourceKey.String()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var res ledger.Result
	go func() {
		var err error
		res, err = ledger.Post(ctx, db.Pool, req)
		done <- err
	}()
	// Post waits for the lock (an advisory lock wait) before it looks up.
	testkit.WaitForLockWaiter(t, db.Conn(t))
	if _, err := ledger.PostTx(ctx, tx, req); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !res.Replayed {
		t.Fatal("the waiting post must see the entry committed under the lock and replay it")
	}
	// It replayed by looking up after the lock, not by an insert that the
	// unique index turned away: such an insert would have drawn an id.
	var drawn int64
	if err := db.Pool.QueryRow(ctx, `SELECT last_value FROM pg_sequences WHERE sequencename = 'journal_entries_id_seq'`).Scan(&drawn); err != nil {
		t.Fatal(err)
	}
	if drawn != 1 {
		t.Fatalf("%d entry ids drawn for one entry: the waiting post looked up before it took the lock", drawn)
	}
}

func TestRawInsertRacingPastTheLock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		description string
		wantReplay  bool
	}{
		{"identical facts resolve to the durable entry", "Supplier AB invoice INV-1001", true},
		{"different facts are a typed conflict", "written by a forgetful writer", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := testkit.NewDB(t)
			o := testkit.Org(t, db)
			req := bill(o, "raced")

			// A writer that knows nothing of the lock inserts the key and
			// has not committed when our post looks it up.
			raw := db.Conn(t)
			tx, err := raw.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rawReq := bill(o, "raced")
			rawReq.Description = tc.description
			if _, err := ledger.PostTxWithoutLock(ctx, tx, rawReq); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			var res ledger.Result
			go func() {
				var err error
				res, err = ledger.Post(ctx, db.Pool, req)
				done <- err
			}()
			// Our post looked up (nothing committed), inserted, and now waits on the unique index.
			testkit.WaitForLockWaiter(t, db.Conn(t))
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			err = <-done
			if tc.wantReplay && (err != nil || !res.Replayed) {
				t.Fatalf("want a replay, got %+v %v", res, err)
			}
			if !tc.wantReplay && !apperr.Is(err, apperr.SourceReplayConflict) {
				t.Fatalf("want a source_replay_conflict, got %v", err)
			}
			if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries`); n != 1 {
				t.Fatalf("%d entries, want 1", n)
			}
		})
	}
}

// insertHistorical writes an entry the way an import before fingerprints
// did: no fingerprint, amounts with four decimals.
func insertHistorical(t *testing.T, db *testkit.DB, o org.Org, sourceID string) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	err := database.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency, description)
			VALUES ($1, 'intake', $2, 'bill', '2026-11-20', 'EUR', 'EUR', 'Supplier AB invoice INV-1001') RETURNING id`, o.ID, sourceID).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit, dimensions)
			SELECT $1, $2, n, (SELECT id FROM accounts WHERE org_id = $2 AND code = c), d, cr, d, cr, dims::jsonb
			FROM (VALUES (0, '6000', 100.0000, 0, '{"project": "P1", "cost_center": "OPS"}'),
			             (1, '1400', 25.0000, 0, '{}'), (2, '2000', 0, 125.0000, '{}')) AS v (n, c, d, cr, dims)`, id, o.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestHistoricalEntriesCompareByReconstruction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	id := insertHistorical(t, db, o, "old")
	before := counts(t, db)

	res, err := ledger.Post(ctx, db.Pool, bill(o, "old"))
	if err != nil || !res.Replayed || res.Entry.ID != id {
		t.Fatalf("replay of a historical entry: %+v %v", res, err)
	}
	changed := bill(o, "old")
	changed.Lines[0].Dimensions["project"] = "P9"
	_, err = ledger.Post(ctx, db.Pool, changed)
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.SourceReplayConflict || e.Details["differences"].([]ledger.Difference)[0].Field != "lines[0].dimensions.project" {
		t.Fatalf("conflict with a historical entry: %v", err)
	}
	if counts(t, db) != before {
		t.Fatal("rows written")
	}
	// Never backfilled with a guessed fingerprint.
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE id = $1 AND fingerprint IS NULL`, id); n != 1 {
		t.Fatal("the historical entry was given a fingerprint")
	}
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func TestEntriesAreImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	res, err := ledger.Post(ctx, db.Pool, bill(o, "1"))
	if err != nil {
		t.Fatal(err)
	}
	id := res.Entry.ID
	for _, sql := range []string{
		`UPDATE journal_entries SET description = 'edited' WHERE id = $1`,
		`DELETE FROM journal_entries WHERE id = $1`,
		`UPDATE journal_lines SET debit = debit + 1 WHERE entry_id = $1`,
		`DELETE FROM journal_lines WHERE entry_id = $1`,
		`INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
		 SELECT $1, org_id, 9, (SELECT id FROM accounts WHERE org_id = e.org_id AND code = '6000'), 1, 0, 1, 0 FROM journal_entries e WHERE id = $1`,
	} {
		if _, err := db.Pool.Exec(ctx, sql, id); pgCode(err) != "23001" {
			t.Errorf("%s: got %v, want restrict_violation", strings.Fields(sql)[0], err)
		}
	}
	for _, table := range []string{"journal_lines", "journal_entries"} {
		if _, err := db.Pool.Exec(ctx, `TRUNCATE `+table+` CASCADE`); pgCode(err) != "23001" {
			t.Errorf("TRUNCATE %s: got %v", table, err)
		}
	}
	if counts(t, db) != [2]int{1, 3} {
		t.Fatal("the entry changed")
	}
}

func TestInvalidRequestsAreRefusedWithReasons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if err := ledger.SetAccountActive(ctx, db.Pool, o.ID, "6500", false); err != nil {
		t.Fatal(err)
	}
	// What a reason says, where its field alone does not tell the checks apart.
	says := map[string]string{
		"negative":                 "negative",
		"negative beside positive": "negative",
		"unknown account":          "no account",
		"inactive account":         "inactive",
	}
	for _, tc := range []struct {
		name   string
		change func(r *ledger.Request)
		field  string
	}{
		{"unbalanced", func(r *ledger.Request) { r.Lines[2].Credit = dec("124.99") }, "lines"},
		{"single line", func(r *ledger.Request) { r.Lines = r.Lines[:1] }, "lines"},
		{"negative", func(r *ledger.Request) {
			r.Lines[0].Debit = dec("-100.00")
			r.Lines[2].Credit = dec("-75.00")
		}, "lines[0]"},
		// One side negative, the other positive: only the sign check refuses it.
		{"negative beside positive", func(r *ledger.Request) {
			r.Lines[0].Debit, r.Lines[0].Credit = dec("-100.00"), dec("100.00")
		}, "lines[0]"},
		{"both sides", func(r *ledger.Request) { r.Lines[1].Credit = dec("25.00"); r.Lines[2].Credit = dec("100.00") }, "lines[1]"},
		{"zero line", func(r *ledger.Request) {
			r.Lines = append(r.Lines, ledger.Line{Account: "6100"})
		}, "lines[3]"},
		{"unknown account", func(r *ledger.Request) { r.Lines[0].Account = "9999" }, "lines[0].account"},
		{"inactive account", func(r *ledger.Request) { r.Lines[0].Account = "6500" }, "lines[0].account"},
		{"too many decimals", func(r *ledger.Request) {
			r.Lines[0].Debit = dec("100.005")
			r.Lines[2].Credit = dec("125.005")
		}, "lines[0].debit"},
		{"bad currency", func(r *ledger.Request) { r.Currency = "EURO" }, "currency"},
		{"bad date", func(r *ledger.Request) { r.Date = "2026-02-30" }, "date"},
		{"foreign currency without base amounts", func(r *ledger.Request) { r.Currency = "USD" }, "lines[0]"},
		{"bad dimension", func(r *ledger.Request) { r.Lines[0].Dimensions = map[string]string{"Cost Center": "x"} }, "lines[0].dimensions"},
		{"bad source type", func(r *ledger.Request) { r.SourceType = "Intake!" }, "source_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bill(o, tc.name)
			tc.change(&r)
			_, err := ledger.Post(ctx, db.Pool, r)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.Invalid {
				t.Fatalf("got %v, want invalid", err)
			}
			reasons, _ := e.Details["reasons"].([]ledger.Reason)
			found := false
			for _, rs := range reasons {
				found = found || rs.Field == tc.field && strings.Contains(rs.Message, says[tc.name])
			}
			if !found {
				t.Fatalf("reasons %v do not name %s (saying %q)", reasons, tc.field, says[tc.name])
			}
		})
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries`); n != 0 {
		t.Fatalf("%d entries written by refused requests", n)
	}
}

func TestTheDatabaseEnforcesBalanceAndLineCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	for name, lines := range map[string]string{
		"unbalanced":  `(0, '6000', 100, 0), (1, '2000', 0, 99)`,
		"single line": `(0, '6000', 0, 0)`,
	} {
		err := database.WithTx(ctx, db.Pool, func(tx pgx.Tx) error {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
				VALUES ($1, 'raw', $2, 'x', '2026-11-01', 'EUR', 'EUR') RETURNING id`, o.ID, name).Scan(&id); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
				SELECT $1, $2, n, (SELECT id FROM accounts WHERE org_id = $2 AND code = c), d, cr, d, cr
				FROM (VALUES `+lines+`) AS v (n, c, d, cr)`, id, o.ID)
			return err
		})
		if c := pgCode(err); c != "23514" {
			t.Errorf("%s: got %v, want check_violation", name, err)
		}
	}
}

func TestReversal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	orig, err := ledger.Post(ctx, db.Pool, bill(o, "1"))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := ledger.Reverse(ctx, db.Pool, o.ID, orig.Entry.ID, ledger.Reversal{Actor: audit.Actor{Label: "tester"}})
	if err != nil {
		t.Fatal(err)
	}
	e := rev.Entry
	if rev.Replayed || e.ReversesID != orig.Entry.ID || e.EntrySet != "bill/reversal" || e.SourceID != "1" || e.Date != orig.Entry.Date {
		t.Fatalf("reversal: %+v", e)
	}
	if !e.Lines[0].Credit.Equal(dec("100")) || !e.Lines[2].Debit.Equal(dec("125")) || e.Lines[0].Dimensions["cost_center"] != "OPS" {
		t.Fatalf("reversal lines: %+v", e.Lines)
	}
	again, err := ledger.Reverse(ctx, db.Pool, o.ID, orig.Entry.ID, ledger.Reversal{Actor: audit.Actor{Label: "someone else"}})
	if err != nil || !again.Replayed || again.Entry.ID != e.ID {
		t.Fatalf("reversing twice: %+v %v", again, err)
	}
	got, err := ledger.Get(ctx, db.Pool, o.ID, orig.Entry.ID)
	if err != nil || got.ReversedByID != e.ID {
		t.Fatalf("the original must link to its reversal: %+v %v", got, err)
	}
	tb, err := ledger.TrialBalance(ctx, db.Pool, o.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range tb {
		if !row.Balance.IsZero() {
			t.Errorf("account %s balance %s after a reversal", row.Code, row.Balance)
		}
	}
	other := testkit.Org(t, db)
	if _, err := ledger.Reverse(ctx, db.Pool, other.ID, orig.Entry.ID, ledger.Reversal{Actor: audit.Actor{Label: "x"}}); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org reversing: %v", err)
	}
}

func TestSourceKeyLookupUsesTheUniqueIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	conn := db.Conn(t)
	if _, err := conn.Exec(ctx, `ANALYZE journal_entries; ANALYZE accounts`); err != nil {
		t.Fatal(err)
	}
	// explain plans a query as a post's transaction would, with a custom
	// and with a generic plan.
	explain := func(stage, sql, args string) {
		t.Helper()
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `SELECT `+database.KeyLookupSettings+`, set_config('plan_cache_mode', $1, true)`, mode); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `PREPARE lookup AS `+sql); err != nil {
				t.Fatal(err)
			}
			rows, err := tx.Query(ctx, `EXPLAIN EXECUTE lookup(`+args+`)`)
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			for rows.Next() {
				var line string
				_ = rows.Scan(&line)
				plan.WriteString(line + "\n")
			}
			rows.Close()
			_ = tx.Rollback(ctx)
			if _, err := conn.Exec(ctx, `DEALLOCATE lookup`); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(plan.String(), "Seq Scan") {
				t.Errorf("%s, %s: a sequential scan in a key lookup:\n%s", stage, mode, plan.String())
			}
			if strings.Contains(sql, "journal_entries e") && !strings.Contains(plan.String(), "journal_entries_source_key") {
				t.Errorf("%s, %s: the source-key lookup does not use its unique index:\n%s", stage, mode, plan.String())
			}
		}
	}
	check := func(stage string) {
		t.Helper()
		explain(stage, ledger.LookupSQL, fmt.Sprintf("%d, 'intake', 'x', 'bill'", o.ID))
		explain(stage, ledger.AccountsSQL, fmt.Sprintf("%d, ARRAY['6000', '2000']", o.ID))
	}
	check("empty table")
	for i := range 300 {
		if _, err := ledger.Post(ctx, db.Pool, bill(o, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	check("filled table, statistics of the empty table")
	if _, err := conn.Exec(ctx, `ANALYZE journal_entries; ANALYZE journal_lines`); err != nil {
		t.Fatal(err)
	}
	check("filled table, fresh statistics")
}
