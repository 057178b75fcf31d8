package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/bench"
	"greatbook/internal/database"
	"greatbook/internal/desk"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/web"
)

// groupSize is the members of each duplicate group of the pages' load: a
// root holding the key and three flagged duplicates. A load of n documents
// has n/groupsPer of them, so every size has the same share in groups.
const (
	groupSize = 4
	groupsPer = 10
)

// minPageDocuments is the smallest load the pages are measured at.
const minPageDocuments = 2000

// pageDocuments is what -pages-documents sets: the sizes the pages are
// measured at, in order; the growth is the last one's p95 over the first's.
var pageDocuments []int

// sqlClock adds up the time a request spends in its own SQL: from sending
// a statement until its last row is read (pgx's query tracer).
type sqlClock struct {
	total   atomic.Int64
	queries atomic.Int64
	mu      sync.Mutex
	slow    []slowStatement
}

type slowStatement struct {
	sql  string
	args []any
	d    time.Duration
}

type clockKey struct{}
type startKey struct{}

// sqlTracer times every statement of a request whose context carries a clock.
type sqlTracer struct{}

func (sqlTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if ctx.Value(clockKey{}) == nil {
		return ctx
	}
	return context.WithValue(context.WithValue(ctx, startKey{}, time.Now()), stmtKey{}, slowStatement{sql: data.SQL, args: data.Args})
}

type stmtKey struct{}

// explainOver is how long a statement takes before its plan is printed
// (GREATBOOK_BENCH_EXPLAIN): GREATBOOK_BENCH_EXPLAIN_MS, by default 5.
var explainOver = func() time.Duration {
	ms, err := strconv.ParseFloat(os.Getenv("GREATBOOK_BENCH_EXPLAIN_MS"), 64)
	if err != nil || !(ms >= 0 && ms < 1e6) {
		return 5 * time.Millisecond
	}
	return time.Duration(ms * float64(time.Millisecond))
}()

func (sqlTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	c, ok := ctx.Value(clockKey{}).(*sqlClock)
	start, ok2 := ctx.Value(startKey{}).(time.Time)
	if ok && ok2 {
		d := time.Since(start)
		c.total.Add(int64(d))
		c.queries.Add(1)
		if st, ok := ctx.Value(stmtKey{}).(slowStatement); ok && d > explainOver {
			st.d = d
			c.mu.Lock()
			c.slow = append(c.slow, st)
			c.mu.Unlock()
		}
	}
}

// pagesWorld is the loaded org and what the pages are opened with.
type pagesWorld struct {
	org                                   org.Org
	documents                             int
	lastID                                int64 // the org's highest document id, where the desk's pages start
	grouped, singles, deadJobs, entries   []int64
	runIDs                                []string
	supplierQuery, numberQuery, amountQry string
}

// seedPages loads an org of its own with documents intake rows:
// documents/10 groups of four (a root holding the natural key and three
// flagged duplicates) and the rest documents of their own, every one with
// its pipeline run and four checkpoints; the approved ones with their audit
// events, bookkeeping jobs (1.2% of the documents abandoned, with three
// failed attempts each) and, once posted, their journal entries. Each step
// is one statement, timed.
func seedPages(ctx context.Context, e *bench.Env, documents int) (*pagesWorld, error) {
	o, _, err := org.Create(ctx, e.Pool, fmt.Sprintf("bench-pages-%d", documents), fmt.Sprintf("Bench Pages %d", documents), "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return nil, err
	}
	doc, err := read.Parse(bench.UBLInvoice(1))
	if err != nil {
		return nil, err
	}
	fields, _ := json.Marshal(doc)
	groups := documents / groupsPer
	roots := documents - groups*(groupSize-1) // every row that is not a duplicate
	steps := []struct {
		what string
		sql  string
		args []any
	}{
		// The documents of their own, and the journal entries of the posted
		// ones with their lines: the entries' ids are drawn first, so that
		// each document is written with its entry's id once and never
		// updated (the foreign keys are checked at the statement's end).
		{"documents, journal entries and lines", `WITH src AS MATERIALIZED (
			SELECT i, tm.t, s.status, CASE s.status WHEN 'posted' THEN nextval(pg_get_serial_sequence('journal_entries', 'id')) END AS entry_id
			FROM generate_series(1, $3::int) i
			CROSS JOIN LATERAL (SELECT now() - (($3::int - i) * interval '5 minutes') AS t) tm
			CROSS JOIN LATERAL (SELECT CASE
			    WHEN i <= $4::int THEN CASE WHEN i % 4 = 0 THEN 'posted' ELSE 'pending' END
			    WHEN i % 50 = 4 THEN 'active'
			    WHEN i % 10 IN (0, 1) THEN 'pending'
			    WHEN i % 10 = 2 THEN 'flagged'
			    WHEN i % 10 = 3 THEN 'rejected'
			    ELSE 'posted' END AS status) s
		), d AS (
			INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by,
				pipeline_run_id, status, doc_type, source_ref, format, fields, flag_reason, queued_at, received_at, decided_by, decided_at,
				result_entry_id)
			SELECT $1, encode(sha256(('p' || i)::bytea), 'hex'), 'application/xml', 'invoice-' || i || '.xml', 6000, 'api', 'bench',
			       gen_random_uuid(), status, 'invoice', 'vat:SE' || (i % 3000) || '/INV-' || i, 'ubl',
			       jsonb_set(jsonb_set(jsonb_set($2::jsonb, '{seller,name}', to_jsonb('Supplier ' || (i % 3000) || ' AB')),
			           '{number}', to_jsonb('INV-' || i)), '{totals,payable}', to_jsonb((1 + i % 99999) || '.' || lpad((i % 100)::text, 2, '0'))),
			       CASE status WHEN 'flagged' THEN 'needs_manual_extraction' END,
			       t, t, CASE WHEN status IN ('active', 'posted', 'rejected') THEN 'reviewer@bench.test' END,
			       CASE WHEN status IN ('active', 'posted', 'rejected') THEN t + interval '1 hour' END, entry_id
			FROM src ORDER BY i
			RETURNING id, org_id, result_entry_id, decided_at, supplier_name, doc_number, payable
		), e AS (
			INSERT INTO journal_entries (id, org_id, source_type, source_id, entry_set, entry_date, currency, base_currency,
				description, created_by, created_at) OVERRIDING SYSTEM VALUE
			SELECT result_entry_id, org_id, '` + ledger.SourceTypeIntake + `', id::text, 'bill', decided_at::date, 'EUR', 'EUR',
			       supplier_name || ' ' || doc_number, 'system:bookkeeper', decided_at
			FROM d WHERE result_entry_id IS NOT NULL
		)
		INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
		SELECT d.result_entry_id, d.org_id, l.no, a.id, CASE l.no WHEN 0 THEN d.payable ELSE 0 END, CASE l.no WHEN 1 THEN d.payable ELSE 0 END,
		       CASE l.no WHEN 0 THEN d.payable ELSE 0 END, CASE l.no WHEN 1 THEN d.payable ELSE 0 END
		FROM d CROSS JOIN (VALUES (0, '6000'), (1, '2000')) AS l (no, code)
		JOIN accounts a ON a.org_id = d.org_id AND a.code = l.code
		WHERE d.result_entry_id IS NOT NULL`,
			[]any{o.ID, fields, roots, groups}},
		{"duplicates", `INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by,
			pipeline_run_id, status, doc_type, source_ref, format, fields, flag_reason, duplicate_of, duplicate_reason, queued_at, received_at)
			SELECT r.org_id, encode(sha256(('d' || r.id || '/' || k)::bytea), 'hex'), r.media_type, r.filename, r.size_bytes, 'api', 'bench',
			       gen_random_uuid(), 'flagged', r.doc_type, r.source_ref, r.format, r.fields, 'duplicate', r.id, 'same_reference',
			       r.received_at + k * interval '1 day', r.received_at + k * interval '1 day'
			FROM (SELECT * FROM intake_documents WHERE org_id = $1 ORDER BY id LIMIT $2) r CROSS JOIN generate_series(1, $3::int) k
			ORDER BY r.received_at + k * interval '1 day', r.id`,
			[]any{o.ID, groups, groupSize - 1}},
		{"pipeline runs", `INSERT INTO runs (id, org_id, kind, subject_id, state, data, created_at, updated_at, finished_at)
			SELECT pipeline_run_id, org_id, 'pipeline', id, 'done', '{}', received_at, received_at, received_at FROM intake_documents WHERE org_id = $1`,
			[]any{o.ID}},
		{"checkpoints", `INSERT INTO run_checkpoints (run_id, seq, node, outcome, next_node, data, worker, duration_ms, created_at)
			SELECT r.id, n.seq, n.node, 'ok', n.next, '{}', 'bench', 2, r.created_at
			FROM runs r CROSS JOIN (VALUES (1, 'classify', 'extract'), (2, 'extract', 'validate'), (3, 'validate', 'queue'), (4, 'queue', NULL))
			     AS n (seq, node, next) WHERE r.org_id = $1`, []any{o.ID}},
		{"audit events", `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id, from_status, to_status, detail, created_at)
			SELECT org_id, decided_by, CASE status WHEN 'rejected' THEN 'reject' ELSE 'approve' END, 'intake', id, 'pending',
			       CASE status WHEN 'rejected' THEN 'rejected' ELSE 'active' END, '{}', decided_at
			FROM intake_documents WHERE org_id = $1 AND status IN ('active', 'posted', 'rejected')`, []any{o.ID}},
		{"jobs", `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error, error_class, created_by, created_at, updated_at)
			SELECT org_id, id, CASE status WHEN 'posted' THEN 'done' ELSE 'abandoned' END,
			       CASE status WHEN 'posted' THEN 1 ELSE 3 END, 3,
			       CASE WHEN status = 'active' THEN CASE WHEN id % 2 = 0 THEN 'posting service unavailable' ELSE 'account 1400 is inactive' END END,
			       CASE WHEN status = 'active' THEN CASE WHEN id % 2 = 0 THEN 'transient' ELSE 'permanent' END END,
			       decided_by, decided_at, decided_at + interval '10 minutes'
			FROM intake_documents WHERE org_id = $1 AND status IN ('active', 'posted')`, []any{o.ID}},
		{"job attempts", `INSERT INTO job_attempts (job_id, attempt, trigger, actor, outcome, error, error_class, created_at)
			SELECT j.id, a, CASE a WHEN 1 THEN 'approve' ELSE 'sweep' END, 'system:sweep', 'failed', j.last_error, j.error_class,
			       j.created_at + a * interval '1 minute'
			FROM jobs j CROSS JOIN generate_series(1, 3) a WHERE j.org_id = $1 AND j.status = 'abandoned'`, []any{o.ID}},
	}
	fmt.Fprintf(e.Out, "\npages: loading %d intake rows in %d groups of %d...\n", documents, groups, groupSize)
	start := time.Now()
	timed := func(what string, f func() error) error {
		t0 := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("seed %s: %w", what, err)
		}
		fmt.Fprintf(e.Out, "pages: %s in %.1f s\n", what, time.Since(t0).Seconds())
		return nil
	}
	for _, s := range steps {
		if err := timed(s.what, func() error {
			if _, err := e.Pool.Exec(ctx, s.sql, s.args...); err != nil {
				return err
			}
			// The next step's plan needs to know how many rows this one
			// wrote (other orgs' and benchmarks' rows fill the same tables).
			_, err := e.Pool.Exec(ctx, "ANALYZE intake_documents, runs, jobs, journal_entries")
			return err
		}); err != nil {
			return nil, err
		}
	}
	// A cluster in service is vacuumed: the visibility map and the
	// statistics are what autovacuum leaves.
	if err := timed("vacuum and analyze", func() error {
		if err := e.Analyze(ctx); err != nil {
			return err
		}
		_, err := e.Pool.Exec(ctx, "VACUUM (ANALYZE) intake_documents, runs, run_checkpoints, jobs, job_attempts, audit_events, journal_entries, journal_lines")
		return err
	}); err != nil {
		return nil, err
	}
	// The load and the vacuum leave gigabytes of dirty pages at a million
	// documents, which the checkpointer would write out during the
	// measurement (spread over minutes): the pages would be measured
	// sharing the disk with the load's write-back. A cluster in service
	// has long written what it was loaded with.
	if err := timed("checkpoint", func() error {
		_, err := e.Pool.Exec(ctx, "CHECKPOINT")
		return err
	}); err != nil {
		return nil, err
	}
	w := &pagesWorld{org: o, documents: documents}
	var n int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*), max(id) FROM intake_documents WHERE org_id = $1`, o.ID).Scan(&n, &w.lastID); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.Out, "pages: loaded %d intake rows in %.1f s\n", n, time.Since(start).Seconds())
	var entries, lines, jobs, runs int
	_ = e.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM journal_entries WHERE org_id = $1), (SELECT count(*) FROM journal_lines WHERE org_id = $1),
		(SELECT count(*) FROM jobs), (SELECT count(*) FROM runs)`, o.ID).Scan(&entries, &lines, &jobs, &runs)
	fmt.Fprintf(e.Out, "pages: the org has %d journal entries (%d lines); the cluster has %d jobs and %d runs (other orgs' and benchmarks' too)\n",
		entries, lines, jobs, runs)

	sample := func(sql string, dst any) error {
		rows, err := e.Pool.Query(ctx, sql+` ORDER BY random() LIMIT 200`, o.ID)
		if err != nil {
			return err
		}
		switch d := dst.(type) {
		case *[]int64:
			*d, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		case *[]string:
			*d, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		return err
	}
	for _, s := range []struct {
		sql string
		dst any
	}{
		{`SELECT id FROM intake_documents d WHERE org_id = $1 AND (duplicate_of IS NOT NULL OR EXISTS
			(SELECT 1 FROM intake_documents x WHERE x.duplicate_of = d.id))`, &w.grouped},
		{`SELECT id FROM intake_documents d WHERE org_id = $1 AND duplicate_of IS NULL AND NOT EXISTS
			(SELECT 1 FROM intake_documents x WHERE x.duplicate_of = d.id)`, &w.singles},
		{`SELECT id FROM jobs WHERE org_id = $1 AND status = 'abandoned'`, &w.deadJobs},
		{`SELECT id FROM journal_entries WHERE org_id = $1`, &w.entries},
		{`SELECT id::text FROM runs WHERE org_id = $1`, &w.runIDs},
	} {
		if err := sample(s.sql, s.dst); err != nil {
			return nil, err
		}
	}
	// The measured documents get their originals (the page pretty-prints them).
	originals := &pgx.Batch{}
	for _, id := range append(slices.Clone(w.grouped), w.singles...) {
		originals.Queue(`INSERT INTO intake_originals (document_id, content) VALUES ($1, $2) ON CONFLICT DO NOTHING`, id, bench.UBLInvoice(id))
	}
	if err := e.Pool.SendBatch(ctx, originals).Close(); err != nil {
		return nil, err
	}
	w.supplierQuery, w.numberQuery, w.amountQry = "supplier 1234 ab", "INV-4321", "12322.21"
	return w, nil
}

// pageFigure is one page's figures at one size.
type pageFigure struct {
	p50, p95, sql95 time.Duration
	statements      float64
	// hit and read are the shared buffers a request's statements found in
	// PostgreSQL's cache and read from the kernel or the disk (only with
	// bench.StatementsEnv set).
	hit, read float64
}

// pages measures the server time of every page at the 95th percentile at
// each size of -pages-documents, beside the time the same requests spent in
// their own SQL (pgx's tracer: from sending each statement to reading its
// last row). Each size is an org of its own, loaded after the smaller ones
// were measured, so the largest is measured among every row the run wrote,
// as an org is among its neighbours' rows in a shared cluster. The goal is
// a p95 under 100 ms at the largest size that grew at most 1.5 times from
// the smallest.
func pages(ctx context.Context, e *bench.Env) error {
	if len(pageDocuments) == 0 {
		return fmt.Errorf("no sizes: -pages-documents is empty")
	}
	for _, n := range pageDocuments {
		// Fewer would leave a page without its sample (a dead letter, a
		// group), or the desk without a page 20.
		if n < minPageDocuments {
			return fmt.Errorf("-pages-documents: %d is fewer than %d documents", n, minPageDocuments)
		}
	}
	pool, err := e.NewTracedPool(ctx, 8, sqlTracer{})
	if err != nil {
		return err
	}
	defer pool.Close()
	quiet := slog.New(slog.DiscardHandler)
	services := app.New(pool, app.Config{Logger: quiet, SweepInterval: -1})
	srv := web.New(services, web.Options{Logger: quiet})
	h := srv.Handler()
	var names []string
	figures := map[string][]pageFigure{}
	for _, documents := range pageDocuments {
		w, err := seedPages(ctx, e, documents)
		if err != nil {
			return err
		}
		measured, err := measurePages(ctx, e, srv, h, w)
		if err != nil {
			return err
		}
		names = names[:0]
		for _, m := range measured {
			names = append(names, m.name)
			figures[m.name] = append(figures[m.name], m.figure)
		}
	}
	first, last := pageDocuments[0], pageDocuments[len(pageDocuments)-1]
	columns := []string{"page"}
	for _, n := range pageDocuments {
		columns = append(columns, fmt.Sprintf("p95 ms %s", countLabel(n)), fmt.Sprintf("SQL p95 %s", countLabel(n)))
	}
	columns = append(columns, "growth", "SQL growth", "goal")
	t := &bench.Table{Title: fmt.Sprintf("pages: p95 server time per request by documents loaded (an org of each size, groups of %d holding a tenth of them); growth: %s over %s",
		groupSize, countLabel(last), countLabel(first)), Columns: columns}
	over := 0
	for _, name := range names {
		f := figures[name]
		row := []string{name}
		for _, x := range f {
			row = append(row, fmtMS(x.p95), fmtMS(x.sql95))
		}
		a, z := f[0], f[len(f)-1]
		growth, sqlGrowth := "-", "-"
		goal := z.p95 < 100*time.Millisecond
		if len(f) > 1 {
			growth, sqlGrowth = bench.Ratio(millis(z.p95), millis(a.p95)), bench.Ratio(millis(z.sql95), millis(a.sql95))
			goal = goal && millis(z.p95) <= 1.5*millis(a.p95)
		}
		if goal {
			row = append(row, growth, sqlGrowth, "ok")
		} else {
			over++
			row = append(row, growth, sqlGrowth, "OVER")
		}
		t.Add(row...)
	}
	t.Print(e.Out)
	fmt.Fprintf(e.Out, "(goal: p95 under 100 ms at %s documents and at most 1.5x its p95 at %s; %d of %d pages miss it)\n",
		countLabel(last), countLabel(first), over, len(names))
	return nil
}

// countLabel writes a count as the tables' headers do: 100k, 1M.
func countLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// measuredPage is a page's name and its figures at one size.
type measuredPage struct {
	name   string
	figure pageFigure
}

// measurePages signs in a reviewer of w's org and measures every page with
// w's samples, printing the size's table.
func measurePages(ctx context.Context, e *bench.Env, srv *web.Server, h http.Handler, w *pagesWorld) ([]measuredPage, error) {
	u, err := srv.Auth().CreateUser(ctx, w.org.ID, w.org.Slug+"-admin@bench.test", auth.RoleAdmin, "bench password")
	if err != nil {
		return nil, err
	}
	cookies, err := signIn(h, u.Email, "bench password")
	if err != nil {
		return nil, err
	}

	pick := func(ids []int64, i int) int64 { return ids[i%len(ids)] }
	sigs, other := map[int64]string{}, map[int64]int64{}
	for _, id := range w.grouped {
		g, err := review.Group(ctx, e.Pool, w.org.ID, id)
		if err != nil {
			return nil, err
		}
		sigs[id] = desk.GroupSignature(g, id, u.Email)
		for _, m := range g {
			if m.ID != id {
				other[id] = m.ID
				break
			}
		}
	}
	type pageSpec struct {
		name string
		path func(i int) string
	}
	pages := []pageSpec{
		{"desk: needs review", func(int) string { return "/desk" }},
		{"desk: all, page 20", func(int) string { return fmt.Sprintf("/desk?tab=all&before=%d", w.lastID-20*50) }},
		{"desk: posted", func(int) string { return "/desk?tab=posted" }},
		{"desk: search supplier", func(int) string { return "/desk?tab=all&q=" + url.QueryEscape(w.supplierQuery) }},
		{"desk: search number", func(int) string { return "/desk?tab=all&q=" + url.QueryEscape(w.numberQuery) }},
		{"desk: search amount", func(int) string { return "/desk?tab=all&q=" + url.QueryEscape(w.amountQry) }},
		{"document in a group", func(i int) string { return fmt.Sprintf("/intake/%d", pick(w.grouped, i)) }},
		{"document alone", func(i int) string { return fmt.Sprintf("/intake/%d", pick(w.singles, i)) }},
		{"compare two members", func(i int) string {
			id := pick(w.grouped, i)
			return fmt.Sprintf("/intake/%d/compare?with=%d", id, other[id])
		}},
		{"decision panel", func(i int) string { return fmt.Sprintf("/intake/%d/decision", pick(w.grouped, i)) }},
		{"watch (unchanged)", func(i int) string {
			id := pick(w.grouped, i)
			return fmt.Sprintf("/intake/%d/watch?sig=%s", id, url.QueryEscape(sigs[id]))
		}},
		{"dead letters", func(int) string { return "/admin/dead-letters" }},
		{"dead letters: supplier", func(int) string { return "/admin/dead-letters?supplier=supplier+12&class=transient" }},
		{"job history", func(i int) string { return fmt.Sprintf("/admin/jobs/%d", pick(w.deadJobs, i)) }},
		{"runs", func(int) string { return "/admin/runs" }},
		{"run", func(i int) string { return "/admin/runs/" + w.runIDs[i%len(w.runIDs)] }},
		{"ledger", func(int) string { return "/ledger" }},
		{"journal entry", func(i int) string { return fmt.Sprintf("/ledger/entries/%d", pick(w.entries, i)) }},
		{"trial balance", func(int) string { return "/ledger/trial-balance" }},
		{"source key", func(i int) string {
			return fmt.Sprintf("/ledger/source-keys?source_type=intake&source_id=%d&entry_set=bill", pick(w.grouped, i))
		}},
		{"upload", func(int) string { return "/upload" }},
		{"typewriter", func(int) string { return "/typewriter" }},
	}
	// Each page is measured in rounds, every page once a round, and its
	// figures are the median round's: a few seconds of the shared
	// machine's stalls spoil one round of the pages they fall on, not every
	// request of one page.
	const warmup, requests, rounds = 20, 300, 5
	t := &bench.Table{Title: fmt.Sprintf("pages: server time per request with %d intake rows and %d groups, %d rounds of %d requests each (the median round's), one reviewer",
		w.documents, w.documents/groupsPer, rounds, requests),
		Columns: []string{"page", "p50 ms", "p95 ms", "its SQL p95 ms", "statements", "ratio (p95)", "rounds' p95 ms"}}
	buffered := os.Getenv(bench.StatementsEnv) != ""
	if buffered {
		t.Columns = append(t.Columns, "buffers hit", "buffers read")
	}
	figures := make([][]pageFigure, len(pages))
	for round := range rounds {
		for k, p := range pages {
			var server, sql []time.Duration
			var statements int64
			for i := range warmup + requests {
				if i == warmup {
					if err := e.ResetStatements(ctx); err != nil {
						return nil, err
					}
				}
				clock := &sqlClock{}
				path := p.path(round*(warmup+requests) + i)
				req := httptest.NewRequestWithContext(context.WithValue(ctx, clockKey{}, clock), "GET", path, nil)
				for _, c := range cookies {
					req.AddCookie(c)
				}
				rec := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(rec, req)
				d := time.Since(start)
				if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
					return nil, fmt.Errorf("GET %s: %d %s", path, rec.Code, firstLine(rec.Body.String()))
				}
				if round == 0 && i == warmup && os.Getenv("GREATBOOK_BENCH_EXPLAIN") != "" {
					for _, st := range clock.slow {
						explain(ctx, e, p.name, st)
					}
				}
				if i >= warmup {
					server = append(server, d)
					sql = append(sql, time.Duration(clock.total.Load()))
					statements += clock.queries.Load()
				}
			}
			f := pageFigure{p50: percentile(server, 50), p95: percentile(server, 95), sql95: percentile(sql, 95),
				statements: float64(statements) / requests}
			hit, read, err := e.Buffers(ctx)
			if err != nil {
				return nil, err
			}
			f.hit, f.read = float64(hit)/requests, float64(read)/requests
			figures[k] = append(figures[k], f)
		}
	}
	var measured []measuredPage
	for k, p := range pages {
		f := medianRound(figures[k])
		measured = append(measured, measuredPage{p.name, f})
		each := make([]string, len(figures[k]))
		for r, rf := range figures[k] {
			each[r] = fmtMS(rf.p95)
		}
		row := []string{p.name, fmtMS(f.p50), fmtMS(f.p95), fmtMS(f.sql95), fmt.Sprintf("%.1f", f.statements), bench.Ratio(millis(f.p95), millis(f.sql95)),
			strings.Join(each, " ")}
		if buffered {
			row = append(row, fmt.Sprintf("%.1f", f.hit), fmt.Sprintf("%.1f", f.read))
		}
		t.Add(row...)
	}
	t.Print(e.Out)
	return measured, nil
}

// explain prints the generic plan of a slow statement (GREATBOOK_BENCH_EXPLAIN=1).
func explain(ctx context.Context, e *bench.Env, page string, st slowStatement) {
	fmt.Fprintf(e.Out, "\n-- %s: %.1f ms\n%s\n", page, millis(st.d), st.sql)
	_ = database.WithTx(ctx, e.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+st.sql, st.args...)
		if err != nil {
			fmt.Fprintln(e.Out, err)
			return err
		}
		lines, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		fmt.Fprintln(e.Out, strings.Join(lines, "\n"))
		return nil
	})
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signIn signs in through the sign-in form and returns the session cookies.
func signIn(h http.Handler, email, password string) ([]*http.Cookie, error) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/signin", nil))
	m := csrfPattern.FindStringSubmatch(rec.Body.String())
	if m == nil {
		return nil, fmt.Errorf("bench: no CSRF token on the sign-in page")
	}
	cookies := rec.Result().Cookies()
	form := url.Values{"_csrf": {m[1]}, "email": {email}, "password": {password}}
	req := httptest.NewRequest("POST", "/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		body, _ := io.ReadAll(rec.Body)
		return nil, fmt.Errorf("bench: sign-in: %d %s", rec.Code, firstLine(string(body)))
	}
	return rec.Result().Cookies(), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// medianRound is the round whose p95 is the median of the rounds' (an odd
// number of them), with its own p50 and SQL p95.
func medianRound(rounds []pageFigure) pageFigure {
	s := slices.Clone(rounds)
	slices.SortFunc(s, func(a, b pageFigure) int { return cmp.Compare(a.p95, b.p95) })
	return s[len(s)/2]
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fmtMS(d time.Duration) string { return fmt.Sprintf("%.1f", millis(d)) }
