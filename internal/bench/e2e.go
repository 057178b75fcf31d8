package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/database"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
)

// EndToEndSupplier is the supplier of every seeded document; its expense
// account is remembered, so the bookkeeper never asks a question.
const EndToEndSupplier = "e2e-supplier"

// EndToEndSeed is an org with documents waiting for approval.
type EndToEndSeed struct {
	Org  org.Org
	User auth.User
	IDs  []int64
}

// SeedEndToEnd creates an org in its base currency (EUR), a reviewer, a
// remembered expense account for EndToEndSupplier, and n pending EUR
// invoices of that supplier (each alone in its group), inserted directly.
func SeedEndToEnd(ctx context.Context, db *pgxpool.Pool, slug string, n int) (EndToEndSeed, error) {
	o, _, err := org.Create(ctx, db, slug, "Bench "+slug, "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return EndToEndSeed{}, err
	}
	u, err := auth.NewService(db).CreateUser(ctx, o.ID, "approver@"+slug+".test", auth.RoleReviewer, "bench password")
	if err != nil {
		return EndToEndSeed{}, err
	}
	doc, err := read.Parse(UBLInvoice(1))
	if err != nil {
		return EndToEndSeed{}, err
	}
	fields, _ := json.Marshal(doc)
	ids, err := database.WithTxV(ctx, db, func(tx pgx.Tx) ([]int64, error) {
		if _, err := tx.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
			SELECT $1, $2, id, 'bench' FROM accounts WHERE org_id = $1 AND code = '6000'`, o.ID, EndToEndSupplier); err != nil {
			return nil, err
		}
		rows, err := tx.Query(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
			status, doc_type, source_ref, format, fields, queued_at)
			SELECT $1, encode(sha256(('e2e/' || $1::bigint::text || '/' || i)::bytea), 'hex'), 'application/xml', 1, 'api', 'bench',
			       'pending', 'invoice', $2 || '/' || i, 'ubl', $3, now()
			FROM generate_series(1, $4::int) i ORDER BY i RETURNING id`, o.ID, EndToEndSupplier, fields, n)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[int64])
	})
	if err != nil {
		return EndToEndSeed{}, fmt.Errorf("bench: seed end to end: %w", err)
	}
	slices.Sort(ids)
	return EndToEndSeed{Org: o, User: u, IDs: ids}, nil
}

// EndToEndResult is one end-to-end measurement.
type EndToEndResult struct {
	Name      string `json:"name"`
	Approvers int    `json:"approvers"`
	Documents int    `json:"documents"`
	// Approving is from the first approval's start to the last one's return;
	// Posting from the first approval's start to the last entry's commit.
	Approving time.Duration `json:"approving"`
	Posting   time.Duration `json:"posting"`
	// P50 and P99 of approve→posted: from an approval's return to its
	// journal entry's created_at (the posting transaction's start, now()).
	P50 time.Duration `json:"p50"`
	P99 time.Duration `json:"p99"`
	// Backlog is how many approved documents were not posted yet when the
	// last approval returned.
	Backlog int `json:"backlog"`
	// Entries is the count of bill entries of the org's documents, and
	// DuplicateKeys how many source keys have more than one entry (never).
	Entries       int `json:"entries"`
	DuplicateKeys int `json:"duplicate_keys"`
}

// ApprovalsPerSecond is the approvers' rate.
func (r EndToEndResult) ApprovalsPerSecond() float64 {
	return float64(r.Documents) / r.Approving.Seconds()
}

// PostingsPerSecond is the documents posted per second until the last was posted.
func (r EndToEndResult) PostingsPerSecond() float64 {
	return float64(r.Documents) / r.Posting.Seconds()
}

// DriveEndToEnd approves seed's documents from approvers goroutines
// through approve, waits until every one is posted (giving up after
// stall without progress) and measures.
func DriveEndToEnd(ctx context.Context, db *pgxpool.Pool, seed EndToEndSeed, approvers int, stall time.Duration,
	approve func(ctx context.Context, id int64) error) (EndToEndResult, error) {
	return driveEndToEnd(ctx, db, seed, approvers, stall, func(ctx context.Context, _ int, id int64) error { return approve(ctx, id) })
}

// driveEndToEnd is DriveEndToEnd with the approver's number (0 to
// approvers-1) passed to approve, for rows that split the approvers
// between several apps.
func driveEndToEnd(ctx context.Context, db *pgxpool.Pool, seed EndToEndSeed, approvers int, stall time.Duration,
	approve func(ctx context.Context, approver int, id int64) error) (EndToEndResult, error) {
	res := EndToEndResult{Approvers: approvers, Documents: len(seed.IDs)}
	returned := make([]time.Time, len(seed.IDs))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for approver := range approvers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(seed.IDs)) {
					return
				}
				if err := approve(ctx, approver, seed.IDs[i]); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("bench: approve %d: %w", seed.IDs[i], err) })
					return
				}
				returned[i] = time.Now()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	res.Approving = time.Since(start)
	count := func() (posted, active int, err error) {
		err = db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'posted'), count(*) FILTER (WHERE status = 'active')
			FROM intake_documents WHERE org_id = $1`, seed.Org.ID).Scan(&posted, &active)
		return posted, active, err
	}
	posted, active, err := count()
	if err != nil {
		return res, err
	}
	res.Backlog = active
	// Bounded polling: the bookkeeper posts in the background.
	lastProgress, lastPosted := time.Now(), posted
	for posted < len(seed.IDs) {
		if time.Since(lastProgress) > stall {
			return res, fmt.Errorf("bench: %d of %d documents posted, none for %s (%d approved, not posted)", posted, len(seed.IDs), stall, active)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if posted, active, err = count(); err != nil {
			return res, err
		}
		if posted > lastPosted {
			lastProgress, lastPosted = time.Now(), posted
		}
	}
	rows, err := db.Query(ctx, `SELECT d.id, e.created_at FROM intake_documents d JOIN journal_entries e ON e.id = d.result_entry_id
		WHERE d.org_id = $1`, seed.Org.ID)
	if err != nil {
		return res, err
	}
	committed := map[int64]time.Time{}
	var id int64
	var at time.Time
	if _, err := pgx.ForEachRow(rows, []any{&id, &at}, func() error { committed[id] = at; return nil }); err != nil {
		return res, err
	}
	latencies := make([]time.Duration, 0, len(seed.IDs))
	var last time.Time
	for i, id := range seed.IDs {
		at, ok := committed[id]
		if !ok {
			return res, fmt.Errorf("bench: document %d is posted without an entry", id)
		}
		last = maxTime(last, at)
		// An entry begun before its approval returned (the worker was
		// faster than the approver's return) counts as no wait.
		latencies = append(latencies, max(0, at.Sub(returned[i])))
	}
	slices.Sort(latencies)
	res.P50, res.P99 = latencies[len(latencies)/2], latencies[len(latencies)*99/100]
	res.Posting = max(last.Sub(start), res.Approving)
	if err := db.QueryRow(ctx, `SELECT count(*), count(*) - count(DISTINCT source_id) FROM journal_entries
		WHERE org_id = $1 AND source_type = $2 AND entry_set = 'bill'`, seed.Org.ID, ledger.SourceTypeIntake).Scan(&res.Entries, &res.DuplicateKeys); err != nil {
		return res, err
	}
	return res, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// ServeWorkers is the number of run workers `greatbook serve` starts.
const ServeWorkers = 4

// GreatbookEndToEnd seeds n documents in a new org and approves them with
// approvers concurrent approvers through the app's approve (the API's
// path: the guarded transaction, then the outbox launch), with the app's
// workers, resume and sweep running as `serve` runs them on db.
func GreatbookEndToEnd(ctx context.Context, db *pgxpool.Pool, slug string, n, approvers int) (EndToEndResult, error) {
	return GreatbookEndToEndServes(ctx, []*pgxpool.Pool{db}, slug, n, approvers)
}

// GreatbookEndToEndServes is GreatbookEndToEnd with one app per pool, as
// several `serve` processes on one database run: each app has its own
// pool, workers, resume and sweep; approver i approves through app i mod
// len(pools), so the approvers are split between them. Every pool must
// reach the same database.
func GreatbookEndToEndServes(ctx context.Context, pools []*pgxpool.Pool, slug string, n, approvers int) (EndToEndResult, error) {
	db := pools[0]
	seed, err := SeedEndToEnd(ctx, db, slug, n)
	if err != nil {
		return EndToEndResult{}, err
	}
	if _, err := db.Exec(ctx, "ANALYZE"); err != nil {
		return EndToEndResult{}, err
	}
	serves := make([]*app.App, len(pools))
	for i, pool := range pools {
		serves[i] = app.New(pool, app.Config{Workers: ServeWorkers})
		serves[i].Start(ctx)
		defer serves[i].Close()
	}
	actor := audit.Actor{UserID: seed.User.ID, Label: seed.User.Email}
	var notLaunched atomic.Int64
	r, err := driveEndToEnd(ctx, db, seed, approvers, time.Minute, func(ctx context.Context, approver int, id int64) error {
		a, err := serves[approver%len(serves)].Decisions.Approve(ctx, seed.Org.ID, id, actor)
		if err == nil && a.Launch.Outcome != "launched" {
			notLaunched.Add(1)
		}
		return err
	})
	r.Name = "greatbook"
	if len(serves) > 1 {
		r.Name = fmt.Sprintf("greatbook, %d serves", len(serves))
	}
	if err == nil && notLaunched.Load() > 0 {
		r.Name += fmt.Sprintf(" (%d launches failed: the sweep launched them)", notLaunched.Load())
	}
	return r, err
}

// EndToEndOptions configure the end-to-end benchmark.
type EndToEndOptions struct {
	Documents int
	Approvers []int
	// RiverPeer is the folder of the River peer module; empty: no River rows.
	RiverPeer string
	// RiverApprovers are the approver counts River's rows are measured at,
	// with the same documents (default 4, the count the end-to-end goals
	// are stated at: River at its defaults posts about 40 documents/s at any
	// count, so each of its rows takes two minutes at 5,000 documents).
	RiverApprovers []int
	// TwoServes are the approver counts of the rows with two apps on one
	// database (default 4), each as serve runs it.
	TwoServes []int
}

// EndToEnd measures approve → posted at each approver count: greatbook as
// `serve` runs it, the combined pgbench limit of approve and post,
// pgbench's limit of a document's whole statement sequence, and the River
// peer doing the same work at its defaults and with a 10 ms fetch
// cooldown. Each side works in its own database of the same cluster, so
// that no engine picks up another side's runs.
func EndToEnd(ctx context.Context, e *Env, opt EndToEndOptions) error {
	if opt.Documents <= 0 {
		opt.Documents = 5000
	}
	if len(opt.Approvers) == 0 {
		opt.Approvers = []int{1, 4, 16}
	}
	if opt.RiverApprovers == nil {
		opt.RiverApprovers = []int{4}
	}
	if opt.TwoServes == nil {
		opt.TwoServes = []int{4}
	}
	// Rows are measured only at the approver counts whose pgbench limit is.
	notMeasured := func(c int) bool { return !slices.Contains(opt.Approvers, c) }
	opt.RiverApprovers = slices.DeleteFunc(slices.Clone(opt.RiverApprovers), notMeasured)
	opt.TwoServes = slices.DeleteFunc(slices.Clone(opt.TwoServes), notMeasured)
	gb, err := e.database(ctx, "e2e_greatbook")
	if err != nil {
		return err
	}
	defer gb.Pool.Close()
	// The app's pool is opened as serve opens it.
	pool, err := database.Open(ctx, e.cluster.ConnString(gb.db), app.PoolSize(ServeWorkers))
	if err != nil {
		return err
	}
	defer pool.Close()
	// The limit at each approver count is measured just before and just
	// after greatbook's rows at that count, and their mean is the figure:
	// on this shared machine pgbench measured minutes away from the rows it
	// is compared with drifted by more than the ratio's margin (an approve
	// limit of 711/s one day, 233 to 423/s the next).
	limits, err := e.newEndToEndLimits(ctx)
	if err != nil {
		return err
	}
	defer limits.close()
	var rows []EndToEndResult
	limit, whole := make([]float64, len(opt.Approvers)), make([]float64, len(opt.Approvers))
	for i, c := range opt.Approvers {
		before, wholeBefore, err := limits.at(ctx, c, opt.Documents, "before")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Out, "\ne2e: greatbook, %d documents, %d approvers...\n", opt.Documents, c)
		if err := gb.ResetStatements(ctx); err != nil {
			return err
		}
		r, err := GreatbookEndToEnd(ctx, pool, fmt.Sprintf("e2e-%d", c), opt.Documents, c)
		if err != nil {
			return err
		}
		if err := gb.PrintStatements(ctx, fmt.Sprintf("e2e, greatbook, %d approvers", c), "document", opt.Documents); err != nil {
			return err
		}
		rows = append(rows, r)
		if slices.Contains(opt.TwoServes, c) {
			// A second pool to the same database, opened as a second serve
			// process opens its own.
			second, err := database.Open(ctx, e.cluster.ConnString(gb.db), app.PoolSize(ServeWorkers))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Out, "e2e: greatbook, two serves on one database, %d documents, %d approvers...\n", opt.Documents, c)
			r, err = GreatbookEndToEndServes(ctx, []*pgxpool.Pool{pool, second}, fmt.Sprintf("e2e-two-serves-%d", c), opt.Documents, c)
			second.Close()
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
		after, wholeAfter, err := limits.at(ctx, c, opt.Documents, "after")
		if err != nil {
			return err
		}
		limit[i], whole[i] = (before+after)/2, (wholeBefore+wholeAfter)/2
	}
	for _, r := range rows {
		if r.Entries != r.Documents || r.DuplicateKeys != 0 {
			return fmt.Errorf("bench: %s: %d documents became %d entries (%d duplicate keys)", r.Name, r.Documents, r.Entries, r.DuplicateKeys)
		}
	}
	var river []EndToEndResult
	if opt.RiverPeer != "" && len(opt.RiverApprovers) > 0 {
		if river, err = e.riverPeer(ctx, opt); err != nil {
			return err
		}
	}
	t := &Table{Title: fmt.Sprintf("end to end: %d documents approved -> posted, bookkeeper as in serve (%d workers, pool of %d)",
		opt.Documents, ServeWorkers, pool.Config().MaxConns),
		Columns: []string{"approvers", "who", "approvals/s", "postings/s", "p50", "p99", "backlog", "pgbench limit", "ratio",
			"whole sequence limit", "ratio"}}
	for i, c := range opt.Approvers {
		add := func(r EndToEndResult) {
			t.Add(strconv.Itoa(c), r.Name, Rate(r.ApprovalsPerSecond()), Rate(r.PostingsPerSecond()), ms(r.P50), ms(r.P99),
				strconv.Itoa(r.Backlog), Rate(limit[i]), Ratio(r.PostingsPerSecond(), limit[i]), Rate(whole[i]), Ratio(r.PostingsPerSecond(), whole[i]))
		}
		for _, r := range slices.Concat(rows, river) {
			if r.Approvers == c {
				add(r)
			}
		}
	}
	t.Print(e.Out)
	fmt.Fprintln(e.Out, "(p50/p99: approve's return -> the entry's created_at, the posting transaction's start; backlog: approved, not posted when the last approval returned;")
	fmt.Fprintln(e.Out, " two serves: two apps on one database, each with serve's pool, workers and sweep, the approvers split between them;")
	fmt.Fprintln(e.Out, " pgbench limit: 1 / (1/approve + 1/new post), each pgbench at that client count, the mean of its measures just before and just after greatbook's rows; goal at 4: >= 0.75 of it, >= 3x River's defaults, p50 < 50 ms;")
	fmt.Fprintln(e.Out, " whole sequence limit: documents/s of one pgbench script sending, per document, every statement greatbook sends from approval to posted (approve, launch, the run's claim,")
	fmt.Fprintln(e.Out, " load's read, the posting with the result filed, the job's and the run's end) in its transactions and batches, at that client count, measured as the pgbench limit is)")
	return nil
}

// database returns an environment on another database of the cluster,
// created and migrated.
func (e *Env) database(ctx context.Context, name string) (*Env, error) {
	if err := e.cluster.EnsureDatabase(ctx, name); err != nil {
		return nil, err
	}
	pool, err := database.Open(ctx, e.cluster.ConnString(name), 8)
	if err != nil {
		return nil, err
	}
	if err := database.Migrate(ctx, pool, nil); err != nil {
		pool.Close()
		return nil, err
	}
	d := *e
	d.db, d.Pool = name, pool
	return &d, nil
}

// endToEndLimits measures pgbench's approve (approve.go's script) and new
// post (the ledger figure's script) in a database of their own.
type endToEndLimits struct {
	e    *Env
	pg   *Env
	w    *approveWorld
	post Script
}

func (e *Env) newEndToEndLimits(ctx context.Context) (*endToEndLimits, error) {
	pg, err := e.database(ctx, "e2e_pgbench")
	if err != nil {
		return nil, err
	}
	l := &endToEndLimits{e: e, pg: pg}
	if err := l.setup(ctx); err != nil {
		pg.Pool.Close()
		return nil, err
	}
	return l, nil
}

func (l *endToEndLimits) setup(ctx context.Context) error {
	o, _, err := org.Create(ctx, l.pg.Pool, "e2e-pgbench", "Bench e2e pgbench", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	u, err := auth.NewService(l.pg.Pool).CreateUser(ctx, o.ID, "approver@e2e-pgbench.test", auth.RoleReviewer, "bench password")
	if err != nil {
		return err
	}
	doc, err := read.Parse(UBLInvoice(1))
	if err != nil {
		return err
	}
	fields, _ := json.Marshal(doc)
	l.w = &approveWorld{e: l.pg, org: o, user: u, fields: fields}
	l.post, err = newPostScript(ctx, l.pg, o.ID)
	return err
}

func (l *endToEndLimits) close() { l.pg.Pool.Close() }

// at measures, at c clients, the combined limit 1 / (1/approve + 1/post),
// approve over as many fresh documents as greatbook's rows approve, and
// the whole sequence's limit: sequenceScript over as many documents of a
// new org seeded as greatbook's rows are.
func (l *endToEndLimits) at(ctx context.Context, c, documents int, when string) (limit, whole float64, err error) {
	fmt.Fprintf(l.e.Out, "\ne2e: pgbench approve and new post, %d clients (%s greatbook's rows)...\n", c, when)
	targets, err := l.w.makeGroups(ctx, documents, func() int { return 1 })
	if err != nil {
		return 0, 0, err
	}
	name := fmt.Sprintf("e2e_targets_%d_%s", c, when)
	if err := l.w.pgbenchTargets(ctx, name, targets); err != nil {
		return 0, 0, err
	}
	if err := l.pg.Analyze(ctx); err != nil {
		return 0, 0, err
	}
	s := l.w.approveScript(name)
	s.Transactions = max(1, documents/c)
	if err := l.pg.ResetStatements(ctx); err != nil {
		return 0, 0, err
	}
	approve, err := l.pg.PGBenchRun(ctx, s, c)
	if err != nil {
		return 0, 0, err
	}
	if err := l.pg.PrintStatements(ctx, fmt.Sprintf("e2e, pgbench's approve and launch, %d clients", c), "approval", s.Transactions*c); err != nil {
		return 0, 0, err
	}
	p, err := l.pg.PGBench(ctx, l.post, c)
	if err != nil {
		return 0, 0, err
	}
	limit = 1 / (1/approve.TPS + 1/p)
	fmt.Fprintf(l.e.Out, "e2e: pgbench at %d clients, %s: approve %s/s, new post %s/s, limit %s/s\n", c, when, Rate(approve.TPS), Rate(p), Rate(limit))

	fmt.Fprintf(l.e.Out, "e2e: pgbench whole sequence, %d clients (%s greatbook's rows)...\n", c, when)
	seed, err := SeedEndToEnd(ctx, l.pg.Pool, fmt.Sprintf("e2e-sequence-%d-%s", c, when), documents)
	if err != nil {
		return 0, 0, err
	}
	name = fmt.Sprintf("e2e_sequence_%d_%s", c, when)
	if err := l.w.pgbenchTargets(ctx, name, seed.IDs); err != nil {
		return 0, 0, err
	}
	if err := l.pg.Analyze(ctx); err != nil {
		return 0, 0, err
	}
	seq, err := sequenceScript(ctx, l.pg, seed, name)
	if err != nil {
		return 0, 0, err
	}
	seq.Transactions = max(1, documents/c)
	if err := l.pg.ResetStatements(ctx); err != nil {
		return 0, 0, err
	}
	r, err := l.pg.PGBenchRun(ctx, seq, c)
	if err != nil {
		return 0, 0, err
	}
	if err := l.pg.PrintStatements(ctx, fmt.Sprintf("e2e, pgbench's whole sequence, %d clients", c), "document", seq.Transactions*c); err != nil {
		return 0, 0, err
	}
	fmt.Fprintf(l.e.Out, "e2e: pgbench at %d clients, %s: whole sequence %s documents/s\n", c, when, Rate(r.TPS))
	return limit, r.TPS, nil
}

// newPostScript is the ledger figure's new post of a three-line entry as
// pgbench sends it (the statements ledger.Post sends, in order).
func newPostScript(ctx context.Context, e *Env, orgID int64) (Script, error) {
	accounts := map[string]int64{}
	all, err := ledger.Accounts(ctx, e.Pool, orgID)
	if err != nil {
		return Script{}, err
	}
	for _, a := range all {
		accounts[a.Code] = a.ID
	}
	newPost, _ := postScripts(orgID, accounts, 1)
	return newPost, nil
}

// riverPeer builds the River peer module and runs it on a database of its
// own, at River's defaults and with a 10 ms fetch cooldown; it returns the
// rows the peer printed (one JSON object a line).
func (e *Env) riverPeer(ctx context.Context, opt EndToEndOptions) ([]EndToEndResult, error) {
	bin := filepath.Join(e.dir, "riverpeer")
	abs, err := filepath.Abs(opt.RiverPeer)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.Out, "\ne2e: building the River peer (%s)...\n", opt.RiverPeer)
	if out, err := exec.CommandContext(ctx, "go", "-C", abs, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench: build the River peer: %v: %s", err, out)
	}
	var all []EndToEndResult
	for _, cooldown := range []string{"", "10ms"} {
		name := "e2e_river_default"
		if cooldown != "" {
			name = "e2e_river_" + cooldown
		}
		rv, err := e.database(ctx, name)
		if err != nil {
			return nil, err
		}
		rv.Pool.Close()
		args := []string{"-url", e.cluster.ConnString(name), "-documents", strconv.Itoa(opt.Documents),
			"-approvers", joinInts(opt.RiverApprovers), "-workers", strconv.Itoa(ServeWorkers)}
		if cooldown != "" {
			args = append(args, "-fetch-cooldown", cooldown)
		}
		fmt.Fprintf(e.Out, "e2e: River peer %s...\n", strings.Join(args[2:], " "))
		cmd := exec.CommandContext(ctx, bin, args...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("bench: River peer: %w", err)
		}
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var r EndToEndResult
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("bench: River peer printed %q: %w", sc.Text(), err)
			}
			if r.Entries != r.Documents || r.DuplicateKeys != 0 {
				return nil, fmt.Errorf("bench: River: %d documents became %d entries (%d duplicate keys)", r.Documents, r.Entries, r.DuplicateKeys)
			}
			all = append(all, r)
		}
	}
	if len(all) == 0 {
		return nil, errors.New("bench: the River peer printed no rows")
	}
	return all, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
