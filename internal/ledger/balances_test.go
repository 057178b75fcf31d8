package ledger_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/audit"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// The trial balance as it was computed before the balances were kept, by
// summing every line: the reference the balances must agree with.
const (
	linesTrialBalanceSQL = `SELECT a.code, '', coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	WHERE a.org_id = $1
	GROUP BY a.id ORDER BY a.code`

	linesTrialBalanceAsOfSQL = `SELECT a.code, '', coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	JOIN journal_entries e ON e.id = l.entry_id
	WHERE a.org_id = $1 AND e.entry_date <= $2::date
	GROUP BY a.id ORDER BY a.code`

	linesTrialBalanceByDimensionSQL = `SELECT a.code, coalesce(l.dimensions ->> $2::text, ''),
		coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	JOIN journal_entries e ON e.id = l.entry_id
	WHERE a.org_id = $1 AND ($3::date IS NULL OR e.entry_date <= $3::date)
		AND ($4::text = '' OR l.dimensions @> jsonb_build_object($2::text, $4::text))
	GROUP BY a.id, 2 ORDER BY a.code, 2`
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// linesTrialBalance is the trial balance by the reference SQL, a row
// "code/value debit credit" each.
func linesTrialBalance(t tb, db *testkit.DB, orgID int64, asOf, dimension, value string) []string {
	t.Helper()
	var rows pgx.Rows
	var err error
	var date *string
	if asOf != "" {
		date = &asOf
	}
	switch {
	case dimension != "":
		rows, err = db.Pool.Query(context.Background(), linesTrialBalanceByDimensionSQL, orgID, dimension, date, value)
	case asOf != "":
		rows, err = db.Pool.Query(context.Background(), linesTrialBalanceAsOfSQL, orgID, asOf)
	default:
		rows, err = db.Pool.Query(context.Background(), linesTrialBalanceSQL, orgID)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var code, value, d, c string
		err := r.Scan(&code, &value, &d, &c)
		return fmt.Sprintf("%s/%s %s %s", code, value, dec(d), dec(c)), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// keptTrialBalance is ledger.TrialBalanceBy in linesTrialBalance's form.
func keptTrialBalance(t tb, db *testkit.DB, orgID int64, asOf, dimension, value string) []string {
	t.Helper()
	rows, err := ledger.TrialBalanceBy(context.Background(), db.Pool, orgID, asOf, dimension, value)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		if !r.Balance.Equal(r.Debit.Sub(r.Credit)) {
			t.Fatalf("%s/%s: balance %s is not debit %s − credit %s", r.Code, r.Value, r.Balance, r.Debit, r.Credit)
		}
		out = append(out, fmt.Sprintf("%s/%s %s %s", r.Code, r.Value, r.Debit, r.Credit))
	}
	return out
}

// noDifferences fails the test if the org's balances differ from its lines.
func noDifferences(t tb, db *testkit.DB, orgID int64) {
	t.Helper()
	diffs, err := ledger.CheckBalances(context.Background(), db.Pool, orgID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("balance differs: %s", d)
	}
}

// accountTotal is an account's kept balance (debit − credit), every slot
// and month, read from the table itself.
func accountTotal(t testing.TB, db *testkit.DB, o org.Org, code string) decimal.Decimal {
	t.Helper()
	var s string
	err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(b.debit - b.credit), 0)::text FROM ledger_balances b
		JOIN accounts a ON a.id = b.account_id WHERE b.org_id = $1 AND a.code = $2 AND b.dimension = ''`, o.ID, code).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return dec(s)
}

func TestBalancesFollowPostsAndReversals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	posted, err := ledger.Post(ctx, db.Pool, bill(o, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := accountTotal(t, db, o, "2000"); !got.Equal(dec("-125")) {
		t.Fatalf("payable after the bill: %s", got)
	}
	// Reversed a month later: the bill's month keeps its balance, the
	// reversal's month takes it back, and the account nets to zero.
	_, err = ledger.Reverse(ctx, db.Pool, o.ID, posted.Entry.ID, ledger.Reversal{Date: "2026-12-03", Reason: "sent twice", Actor: audit.System("test")})
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"6000", "1400", "2000"} {
		if got := accountTotal(t, db, o, code); !got.IsZero() {
			t.Errorf("account %s after the reversal: %s", code, got)
		}
	}
	november := keptTrialBalance(t, db, o.ID, "2026-11-30", "", "")
	if want := []string{"1400/ 25 0", "2000/ 0 125", "6000/ 100 0"}; !slices.Equal(november, want) {
		t.Errorf("as of November's end: %v, want %v", november, want)
	}
	byCentre := keptTrialBalance(t, db, o.ID, "", "cost_center", "")
	if want := []string{"1400/ 25 25", "2000/ 125 125", "6000/OPS 100 100"}; !slices.Equal(byCentre, want) {
		t.Errorf("by cost centre: %v, want %v", byCentre, want)
	}
	noDifferences(t, db, o.ID)
}

// TestBalancesAreTheSumsOfTheLines posts random entries from four
// connections at once, then reverses some of them at once
// (dates over a few months, dimensions, foreign currency) and checks that
// the kept balances are the sums of the lines, and that the trial balance,
// as of any date and by any dimension and value, is what summing the
// lines gives.
func TestBalancesAreTheSumsOfTheLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	first := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	date := func(t *rapid.T, label string, days int) string {
		return first.AddDate(0, 0, rapid.IntRange(0, days).Draw(t, label)).Format(time.DateOnly)
	}
	dimensions := rapid.Custom(func(t *rapid.T) map[string]string {
		d := map[string]string{}
		for _, dim := range []string{"cost_center", "project"} {
			if v := rapid.SampledFrom([]string{"", "OPS", "ADM", "P1"}).Draw(t, dim); v != "" {
				d[dim] = v
			}
		}
		return d
	})
	var n int
	rapid.Check(t, func(rt *rapid.T) {
		n++
		o := testkit.OrgWith(t, db, "balances-"+strconv.Itoa(n), "EUR")
		// Drawn first, then sent at once: the posts from four connections
		// together, then the reversals of some of them together.
		var posts []ledger.Request
		type reversal struct {
			of int
			r  ledger.Reversal
		}
		var reversals []reversal
		reversed := map[int]bool{}
		for i, ops := 0, rapid.IntRange(1, 8).Draw(rt, "ops"); i < ops; i++ {
			if len(posts) > 0 && rapid.IntRange(0, 3).Draw(rt, "reverse") == 0 {
				of := rapid.IntRange(0, len(posts)-1).Draw(rt, "entry")
				if reversed[of] {
					continue
				}
				reversed[of] = true
				r := ledger.Reversal{Reason: "test", Actor: audit.System("test")}
				if rapid.Bool().Draw(rt, "on another day") {
					r.Date = date(rt, "reversal date", 150)
				}
				reversals = append(reversals, reversal{of, r})
				continue
			}
			cents := rapid.Int64Range(1, 1_000_000).Draw(rt, "cents")
			amount := decimal.New(cents, -2)
			expense := rapid.SampledFrom([]string{"6000", "6100", "1400"}).Draw(rt, "expense")
			req := ledger.Request{
				SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "test", SourceID: strconv.Itoa(i), EntrySet: "bill"},
				Date:      date(rt, "date", 120), Currency: "EUR", Actor: "test",
				Lines: []ledger.Line{
					{Account: expense, Debit: amount, Dimensions: dimensions.Draw(rt, "expense dimensions")},
					{Account: "2000", Credit: amount, Dimensions: dimensions.Draw(rt, "payable dimensions")},
				},
			}
			if rapid.Bool().Draw(rt, "foreign") {
				base := decimal.New(rapid.Int64Range(1, 1_000_000).Draw(rt, "base cents"), -2)
				req.Currency = "USD"
				req.Lines[0].BaseDebit, req.Lines[1].BaseCredit = &base, &base
			}
			posts = append(posts, req)
		}
		entries := make([]int64, len(posts))
		together(rt, len(posts), func(i int) error {
			res, err := ledger.Post(ctx, db.Pool, posts[i])
			entries[i] = res.Entry.ID
			return err
		})
		together(rt, len(reversals), func(i int) error {
			_, err := ledger.Reverse(ctx, db.Pool, o.ID, entries[reversals[i].of], reversals[i].r)
			return err
		})
		noDifferences(rt, db, o.ID)
		asOfs := []string{"", date(rt, "as of", 160), date(rt, "as of", 160)}
		for _, asOf := range asOfs {
			for _, by := range [][2]string{{"", ""}, {"cost_center", ""}, {"project", ""}, {"cost_center", "OPS"}, {"project", "P1"}, {"project", "none"}} {
				want := linesTrialBalance(rt, db, o.ID, asOf, by[0], by[1])
				if got := keptTrialBalance(rt, db, o.ID, asOf, by[0], by[1]); !slices.Equal(got, want) {
					rt.Fatalf("trial balance as of %q by %q %q:\n kept  %v\n lines %v", asOf, by[0], by[1], got, want)
				}
			}
		}
	})
}

// together runs f(0) … f(n-1) on four goroutines at once and fails t on
// the first error.
func together(t tb, n int, f func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestConcurrentPostsToOneAccountKeepItsBalanceExact posts from more real
// connections at once than there are slots to one org's payable account,
// in one month and the next, two entries a transaction: the balances must
// count every line once, and no posting may deadlock.
func TestConcurrentPostsToOneAccountKeepItsBalanceExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	const writers, posts = 16, 15
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		conn := db.Conn(t)
		// Each writer's rows exist before the race, so that the writers
		// only ever update them.
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := ledger.PostTx(ctx, tx, bill(o, fmt.Sprintf("%d-first", w)))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range posts {
				// Two entries a transaction, November's and December's,
				// in the opposite order in every other writer.
				months := []string{"11", "12"}
				if w%2 == 1 {
					months = []string{"12", "11"}
				}
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					for _, m := range months {
						req := bill(o, fmt.Sprintf("%d-%d-%s", w, i, m))
						req.Date = fmt.Sprintf("2026-%s-%02d", m, 1+i)
						if _, err := ledger.PostTx(ctx, tx, req); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got, want := accountTotal(t, db, o, "2000"), dec("-125").Mul(decimal.NewFromInt(writers*(2*posts+1))); !got.Equal(want) {
		t.Errorf("payable: %s, want %s", got, want)
	}
	noDifferences(t, db, o.ID)
}

// TestAPostingNeverWaitsForAnotherOpenPosting holds a posting to the
// payable account open on one connection and posts to the same account and
// month from a connection whose pid falls on the same slot: it takes
// another slot and must not wait for the first's commit.
func TestAPostingNeverWaitsForAnotherOpenPosting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	pidSlot := func(conn *pgx.Conn) int {
		var s int
		if err := conn.QueryRow(ctx, `SELECT pg_backend_pid() % 8`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	holder := db.Conn(t)
	var other *pgx.Conn
	for range 100 {
		conn, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		if pidSlot(conn) == pidSlot(holder) {
			other = conn
			break
		}
		conn.Close(ctx)
	}
	if other == nil {
		t.Fatal("no connection's pid fell on the holder's slot")
	}
	defer other.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := ledger.PostTx(ctx, tx, bill(o, "held")); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pgx.BeginFunc(wait, other, func(tx pgx.Tx) error {
		_, err := ledger.PostTx(wait, tx, bill(o, "other"))
		return err
	}); err != nil {
		t.Fatalf("a post waited for the open one: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := accountTotal(t, db, o, "2000"); !got.Equal(dec("-250")) {
		t.Errorf("payable: %s", got)
	}
	noDifferences(t, db, o.ID)
}

func TestCheckBalancesFindsATamperedBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := ledger.Post(ctx, db.Pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE ledger_balances SET debit = debit + 1 WHERE org_id = $1 AND dimension = 'project'`, o.ID); err != nil {
		t.Fatal(err)
	}
	diffs, err := ledger.CheckBalances(ctx, db.Pool, 0)
	if err != nil || len(diffs) != 1 || diffs[0].Dimension != "project" || diffs[0].Value != "P1" || diffs[0].Period != "2026-11-01" ||
		!diffs[0].KeptDebit.Equal(dec("101")) || !diffs[0].LinesDebit.Equal(dec("100")) {
		t.Fatalf("differences: %v %v", diffs, err)
	}
	var corrected []ledger.BalanceDifference
	if err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) (err error) {
		corrected, err = ledger.RebuildBalancesTx(ctx, tx, o.ID)
		return err
	}); err != nil || len(corrected) != 1 {
		t.Fatalf("rebuild: %v %v", corrected, err)
	}
	noDifferences(t, db, 0)
}

// rowsRead sums, over a plan's nodes that scan relation, the rows they
// returned (times their loops).
func rowsRead(node map[string]any, relation string) float64 {
	var n float64
	if node["Relation Name"] == relation {
		n += node["Actual Rows"].(float64) * node["Actual Loops"].(float64)
	}
	if children, ok := node["Plans"].([]any); ok {
		for _, c := range children {
			n += rowsRead(c.(map[string]any), relation)
		}
	}
	return n
}

// TestTheTrialBalanceReadsBalancesAndOneMonthOfLines loads a year of
// entries and proves, on the plans as run, that the trial balance reads
// the balances and at most the lines of the as-of date's month, whatever
// the history.
func TestTheTrialBalanceReadsBalancesAndOneMonthOfLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	const entries = 12_000 // 1,000 a month, 2,000 lines
	err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
			SELECT $1, 'test', g::text, 'bill', date '2025-01-01' + (g % 365), 'EUR', 'EUR' FROM generate_series(1, $2::int) g`, o.ID, entries)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit, dimensions)
			SELECT e.id, $1, l.n, a.id, l.d, l.c, l.d, l.c,
			       CASE l.n WHEN 0 THEN jsonb_build_object('cost_center', 'C' || e.id % 20) ELSE '{}' END
			FROM journal_entries e
			CROSS JOIN (VALUES (0, '6000', 10, 0), (1, '2000', 0, 10)) AS l (n, code, d, c)
			JOIN accounts a ON a.org_id = $1 AND a.code = l.code
			WHERE e.org_id = $1`, o.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE journal_entries, journal_lines, ledger_balances`); err != nil {
		t.Fatal(err)
	}
	// At this size reading every line is cheaper than a thousand index
	// probes, and the planner rightly does; with sequential scans off, the
	// plans show that the statements can read one month of lines, as they
	// do once the ledger is large.
	conn := db.Conn(t)
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	asOf := "2025-06-15"
	for _, c := range []struct {
		name  string
		sql   string
		args  []any
		lines float64 // the most journal lines it may read
	}{
		{"every date", ledger.TrialBalanceSQL, []any{o.ID}, 0},
		{"as of", ledger.TrialBalanceAsOfSQL, []any{o.ID, asOf}, 2 * 15 * entries / 365},
		{"by dimension", ledger.TrialBalanceByDimensionSQL, []any{o.ID, "cost_center", nil, ""}, 0},
		{"by dimension as of", ledger.TrialBalanceByDimensionSQL, []any{o.ID, "cost_center", asOf, ""}, 2 * 15 * entries / 365},
	} {
		var plan []map[string]any
		if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+c.sql, c.args...).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		root := plan[0]["Plan"].(map[string]any)
		// 2 accounts × 12 months, and 20 cost centres of one.
		lines, balances, entries := rowsRead(root, "journal_lines"), rowsRead(root, "ledger_balances"), rowsRead(root, "journal_entries")
		if lines > c.lines*1.1 || entries > c.lines/2*1.1 || balances > 2*12+20*12 {
			t.Errorf("%s: read %.0f lines and %.0f entries (at most %.0f lines) and %.0f balances", c.name, lines, entries, c.lines*1.1, balances)
		}
	}
	for _, by := range [][3]string{{"", "", ""}, {asOf, "", ""}, {"", "cost_center", ""}, {asOf, "cost_center", ""}, {asOf, "cost_center", "C3"}} {
		if got, want := keptTrialBalance(t, db, o.ID, by[0], by[1], by[2]), linesTrialBalance(t, db, o.ID, by[0], by[1], by[2]); !slices.Equal(got, want) {
			t.Errorf("trial balance %v:\n kept  %v\n lines %v", by, got, want)
		}
	}
}
