package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/internal/runs"
)

// approveWorld holds what the approve benchmarks share.
type approveWorld struct {
	e      *Env
	org    org.Org
	user   auth.User
	fields []byte
	groups atomic.Int64
}

// makeGroups files count duplicate groups of sizes drawn by size, and
// returns one member of each (the one approvers approve).
func (w *approveWorld) makeGroups(ctx context.Context, count int, size func() int) ([]int64, error) {
	var targets []int64
	tx, err := w.e.Pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	for range count {
		g := w.groups.Add(1)
		n := size()
		var root int64
		if err := tx.QueryRow(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
			status, doc_type, source_ref, format, fields, queued_at)
			VALUES ($1, encode(sha256(('g' || $2::bigint::text)::bytea), 'hex'), 'application/xml', 1, 'api', 'bench', 'pending', 'invoice',
			'bench:' || $2::bigint::text, 'ubl', $3, now()) RETURNING id`, w.org.ID, g, w.fields).Scan(&root); err != nil {
			return nil, err
		}
		ids := []int64{root}
		if n > 1 {
			rows, err := tx.Query(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
				status, doc_type, source_ref, format, fields, flag_reason, duplicate_of, duplicate_reason, queued_at)
				SELECT $1, encode(sha256(('g' || $2::bigint::text || '/' || i)::bytea), 'hex'), 'application/xml', 1, 'api', 'bench', 'flagged',
				       'invoice', 'bench:' || $2::bigint::text, 'ubl', $3, 'duplicate', $4, 'same_reference', now()
				FROM generate_series(2, $5::int) i RETURNING id`, w.org.ID, g, w.fields, root, n)
			if err != nil {
				return nil, err
			}
			more, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return nil, err
			}
			ids = append(ids, more...)
		}
		targets = append(targets, ids[rand.IntN(len(ids))])
	}
	return targets, tx.Commit(ctx)
}

// pgbenchTargets stores targets for pgbench to take in turn.
func (w *approveWorld) pgbenchTargets(ctx context.Context, name string, ids []int64) error {
	_, err := w.e.Pool.Exec(ctx, fmt.Sprintf(`DROP TABLE IF EXISTS %[1]s; DROP SEQUENCE IF EXISTS %[1]s_seq;
		CREATE TABLE %[1]s (n bigint PRIMARY KEY, id bigint NOT NULL); CREATE SEQUENCE %[1]s_seq`, name))
	if err != nil {
		return err
	}
	_, err = w.e.Pool.Exec(ctx, fmt.Sprintf(`INSERT INTO %s (n, id) SELECT i, t FROM unnest($1::bigint[]) WITH ORDINALITY AS u (t, i)`, name), ids)
	return err
}

// approveScript is approve's transaction and its launch's, statement by
// statement as greatbook sends them, taking its target from a table.
// Differences: pgbench takes its target and a run id with one statement
// each (greatbook has them in memory).
func (w *approveWorld) approveScript(targets string) Script {
	s := w.scriptVars()
	s.Text = targetText(targets) + completingText("actor", "uid", "detail") + launchText("actor", "uid")
	return s
}

// twoStepScript is a document's two approvals under a policy of two, as
// greatbook sends them: the first approver's transaction, which records the
// approval and audits it (approval_recorded), then the second's, which
// records it, activates the document and writes its job, and the launch.
func (w *approveWorld) twoStepScript(targets string, second auth.User) Script {
	s := w.scriptVars()
	s.Vars["actor2"], s.Vars["uid2"] = second.Email, strconv.FormatInt(second.ID, 10)
	s.Vars["recorded"], s.Vars["detail1"] = review.ActionApprovalRecorded, `{"approvals":1,"approvals_required":2}`
	s.Vars["detail2"] = `{"approvals":2,"approvals_required":2}`
	st := review.Statements
	s.Text = targetText(targets) +
		"BEGIN;\n" +
		Statement(st.LockGroup, "id", "org") +
		Statement(st.Recheck, "id") +
		Statement(st.RecordApproval, "id", "org", "actor", "uid") +
		Statement(audit.InsertSQL, "org", "uid", "actor", "recorded", "intake", "id", "from", "from", "detail1") +
		"COMMIT;\n" +
		completingText("actor2", "uid2", "detail2") + launchText("actor2", "uid2")
	return s
}

// scriptVars are the -D variables of the approve scripts.
func (w *approveWorld) scriptVars() Script {
	data, _ := json.Marshal(map[string]any{"intake_id": 0, "job_id": 0})
	return Script{Vars: map[string]string{"org": strconv.FormatInt(w.org.ID, 10), "uid": strconv.FormatInt(w.user.ID, 10), "actor": w.user.Email,
		"approve": "approve", "intake": "intake", "from": "pending", "to": "active", "detail": "{}", "maxatt": "5",
		"launched": "job_launched", "tolaunched": "launched", "kind": "bookkeeper", "node": "load", "rundata": string(data),
		"trigger": "approve", "ldetail": `{"trigger":"approve"}`}}
}

// targetText takes the script's next target from the table targets.
func targetText(targets string) string {
	return fmt.Sprintf("SELECT id FROM %[1]s WHERE n = (SELECT nextval('%[1]s_seq')) \\gset\n", targets)
}

// completingText is the transaction of the approval that completes the
// count, by the approver in the variables actor and uid, audited with
// detail: it activates the document and writes its job.
func completingText(actor, uid, detail string) string {
	s, j := review.Statements, jobs.Statements
	return "BEGIN;\n" +
		Statement(s.LockGroup, "id", "org") +
		Statement(s.Recheck, "id") +
		Statement(s.RecordApproval, "id", "org", actor, uid) +
		Statement(s.Activate, "id", actor) +
		Statement(audit.InsertSQL, "org", uid, actor, "approve", "intake", "id", "from", "to", detail) +
		strings.TrimSuffix(Statement(j.InsertJob, "org", "id", actor, "maxatt"), ";\n") + " \\gset job_\n" +
		"COMMIT;\n"
}

// launchText is the launch of the job completingText wrote, by the
// approver in the variables actor and uid.
func launchText(actor, uid string) string {
	return "SELECT gen_random_uuid() AS run_id \\gset\n" +
		"BEGIN;\n" +
		Statement(jobs.Statements.LockJob, "job_id") +
		Statement(runs.InsertSQL, "run_id", "org", "kind", "id", "node", "rundata") +
		strings.TrimSuffix(Statement(jobs.Statements.MarkLaunched, "job_id", "run_id"), ";\n") + " \\gset att_\n" +
		Statement(jobs.Statements.InsertAttempt, "job_id", "att_attempts", "trigger", actor, "run_id") +
		Statement(audit.InsertSQL, "org", uid, actor, "launched", "intake", "id", "from", "tolaunched", "ldetail") +
		"COMMIT;\n"
}

// Approve measures approvals (the guarded transaction and the launch after
// it) with 16 concurrent approvers over 1,000 groups of 1 to 5 members,
// approve latency for groups of 2 and of 200 members, and the time the
// sweep takes to drain 10,000 pending jobs, each beside pgbench sending the
// same statements.
func Approve(ctx context.Context, e *Env) error {
	o, _, err := org.Create(ctx, e.Pool, "bench-approve", "Bench Approve", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	svc := auth.NewService(e.Pool)
	u, err := svc.CreateUser(ctx, o.ID, "approver@bench.test", auth.RoleReviewer, "bench password")
	if err != nil {
		return err
	}
	doc, err := read.Parse(UBLInvoice(1))
	if err != nil {
		return err
	}
	fields, _ := json.Marshal(doc)
	w := &approveWorld{e: e, org: o, user: u, fields: fields}
	// One connection per approver, as pgbench has one per client; no
	// workers: runs are created, not executed.
	pool, err := e.NewPool(ctx, 16)
	if err != nil {
		return err
	}
	defer pool.Close()
	services := app.New(pool, app.Config{})
	actor := audit.Actor{UserID: u.ID, Label: u.Email}
	approve := func(ctx context.Context, id int64) error {
		a, err := services.Decisions.Approve(ctx, o.ID, id, actor)
		if err == nil && a.Launch.Outcome != "launched" {
			err = fmt.Errorf("bench: launch %+v", a.Launch)
		}
		return err
	}
	fmt.Fprintln(e.Out, "\napprove: filing groups...")
	goTargets, err := w.targets(ctx, "bench_targets")
	if err != nil {
		return err
	}

	// Throughput: 16 approvers, each approval a distinct group.
	var next atomic.Int64
	start := time.Now()
	if _, err := Measure(ctx, 16, time.Hour, func(ctx context.Context, _, _ int) error {
		i := next.Add(1) - 1
		if i >= int64(len(goTargets)) {
			return errDone
		}
		return approve(ctx, goTargets[i])
	}); err != nil && err != errDone {
		return err
	}
	goRate := float64(len(goTargets)) / time.Since(start).Seconds()
	script := w.approveScript("bench_targets")
	script.Transactions = len(goTargets) / 16 // pgbench has as many groups
	pg, err := e.PGBenchRun(ctx, script, 16)
	if err != nil {
		return err
	}
	t1 := &Table{Title: "approve: approvals per second, 16 concurrent approvers, 1,000 groups of 1-5 members (approve + launch)",
		Columns: []string{"approvers", "greatbook", "pgbench", "ratio"}}
	t1.Add("16", Rate(goRate), Rate(pg.TPS), Ratio(goRate, pg.TPS))
	t1.Print(e.Out)
	if err := approveTwoSteps(ctx, e, fields); err != nil {
		return err
	}

	// Latency by group size, one approver.
	t2 := &Table{Title: "approve: latency of one approval (approve + launch), one approver, 50 groups each",
		Columns: []string{"group size", "greatbook p50", "p95", "mean", "pgbench mean", "ratio"}}
	for _, size := range []int{2, 200} {
		goT, err := w.makeGroups(ctx, 50, func() int { return size })
		if err != nil {
			return err
		}
		pgT, err := w.makeGroups(ctx, 50, func() int { return size })
		if err != nil {
			return err
		}
		name := fmt.Sprintf("bench_targets_%d", size)
		if err := w.pgbenchTargets(ctx, name, pgT); err != nil {
			return err
		}
		if err := e.Analyze(ctx); err != nil {
			return err
		}
		var lat []time.Duration
		for _, id := range goT {
			t0 := time.Now()
			if err := approve(ctx, id); err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		mean := sum / time.Duration(len(lat))
		s := w.approveScript(name)
		s.Transactions = len(pgT)
		pgr, err := e.PGBenchRun(ctx, s, 1)
		if err != nil {
			return err
		}
		t2.Add(strconv.Itoa(size), ms(lat[len(lat)/2]), ms(lat[len(lat)*95/100]), ms(mean), fmt.Sprintf("%.2fms", pgr.LatencyMS),
			Ratio(pgr.LatencyMS, float64(mean.Microseconds())/1000))
	}
	t2.Print(e.Out)
	fmt.Fprintln(e.Out, "(latency ratio: pgbench's mean over greatbook's, so 1.00 means no overhead)")

	// The sweep draining 10,000 pending jobs.
	const pending = 10_000
	fmt.Fprintf(e.Out, "\napprove: filing %d approved documents with pending jobs...\n", pending)
	if err := w.pendingJobs(ctx, pending); err != nil {
		return err
	}
	if err := e.Analyze(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	res, err := services.Outbox.Sweep(ctx, pending)
	if err != nil {
		return err
	}
	sweepTime := time.Since(t0)
	if len(res.Launched) != pending {
		return fmt.Errorf("bench: the sweep launched %d of %d jobs", len(res.Launched), pending)
	}
	pgJobs, err := w.pendingJobIDs(ctx, pending)
	if err != nil {
		return err
	}
	if err := w.pgbenchTargets(ctx, "bench_jobs", pgJobs); err != nil {
		return err
	}
	launch := Script{Vars: map[string]string{"org": strconv.FormatInt(o.ID, 10), "uid": "0", "actor": "system:sweep",
		"kind": "bookkeeper", "node": "load", "rundata": `{"intake_id":0,"job_id":0}`, "trigger": "sweep",
		"launched": "job_launched", "intake": "intake", "from": "pending", "tolaunched": "launched", "ldetail": `{"trigger":"sweep"}`},
		Transactions: pending}
	j := jobs.Statements
	launch.Text = "SELECT j.id AS job_id, j.intake_id AS id FROM bench_jobs b JOIN jobs j ON j.id = b.id WHERE b.n = (SELECT nextval('bench_jobs_seq')) \\gset\n" +
		"SELECT gen_random_uuid() AS run_id \\gset\n" +
		"BEGIN;\n" +
		Statement(j.LockJobSkipLocked, "job_id") +
		Statement(runs.InsertSQL, "run_id", "org", "kind", "id", "node", "rundata") +
		strings.TrimSuffix(Statement(j.MarkLaunched, "job_id", "run_id"), ";\n") + " \\gset att_\n" +
		Statement(j.InsertAttempt, "job_id", "att_attempts", "trigger", "actor", "run_id") +
		Statement(audit.InsertSQL, "org", "uid", "actor", "launched", "intake", "id", "from", "tolaunched", "ldetail") +
		"COMMIT;\n"
	pgr, err := e.PGBenchRun(ctx, launch, 1)
	if err != nil {
		return err
	}
	pgTime := time.Duration(float64(pending) / pgr.TPS * float64(time.Second))
	t3 := &Table{Title: fmt.Sprintf("sweep: draining %d pending jobs (one sweeper)", pending),
		Columns: []string{"greatbook", "jobs/s", "pgbench", "jobs/s", "ratio"}}
	t3.Add(sweepTime.Round(time.Millisecond).String(), Rate(float64(pending)/sweepTime.Seconds()),
		pgTime.Round(time.Millisecond).String(), Rate(pgr.TPS), Ratio(pgTime.Seconds(), sweepTime.Seconds()))
	t3.Print(e.Out)
	fmt.Fprintln(e.Out, "(pgbench sends each launch's statements; greatbook's sweep also finds due jobs in batches of 100)")
	return nil
}

// approveTwoSteps measures approvals under a policy of two approvals a
// document: 16 approvers, each taking a document of 1,000 groups of 1 to 5
// members and approving it as two people in turn, the first approval
// recorded, the second completing the count and launching; beside pgbench
// sending the same statements (twoStepScript). Approvals per second count
// both steps.
func approveTwoSteps(ctx context.Context, e *Env, fields []byte) error {
	o, _, err := org.Create(ctx, e.Pool, "bench-approve-two", "Bench Approve Two Steps", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	if _, err := org.SetApprovalPolicy(ctx, e.Pool, o.ID, org.ApprovalPolicy{Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}},
		audit.System("bench")); err != nil {
		return err
	}
	svc := auth.NewService(e.Pool)
	var approvers [2]auth.User
	for i := range approvers {
		if approvers[i], err = svc.CreateUser(ctx, o.ID, fmt.Sprintf("approver-%d@bench.test", i+1), auth.RoleReviewer, "bench password"); err != nil {
			return err
		}
	}
	w := &approveWorld{e: e, org: o, user: approvers[0], fields: fields}
	pool, err := e.NewPool(ctx, 16)
	if err != nil {
		return err
	}
	defer pool.Close()
	services := app.New(pool, app.Config{})
	fmt.Fprintln(e.Out, "\napprove, two steps: filing groups...")
	goTargets, err := w.targets(ctx, "bench_targets_two")
	if err != nil {
		return err
	}
	var next atomic.Int64
	start := time.Now()
	if _, err := Measure(ctx, 16, time.Hour, func(ctx context.Context, _, _ int) error {
		i := next.Add(1) - 1
		if i >= int64(len(goTargets)) {
			return errDone
		}
		for step, u := range approvers {
			a, err := services.Decisions.Approve(ctx, o.ID, goTargets[i], audit.Actor{UserID: u.ID, Label: u.Email})
			if err != nil {
				return err
			}
			if last := step == len(approvers)-1; a.Complete != last || (last && a.Launch.Outcome != "launched") {
				return fmt.Errorf("bench: approval %d of document %d: %+v", step+1, goTargets[i], a)
			}
		}
		return nil
	}); err != nil && err != errDone {
		return err
	}
	goRate := float64(len(approvers)*len(goTargets)) / time.Since(start).Seconds()
	script := w.twoStepScript("bench_targets_two", approvers[1])
	script.Transactions = len(goTargets) / 16 // pgbench has as many groups
	pg, err := e.PGBenchRun(ctx, script, 16)
	if err != nil {
		return err
	}
	pgRate := float64(len(approvers)) * pg.TPS // a pgbench transaction is a document's two approvals
	t := &Table{Title: "approve, two-step policy: approvals per second, 16 concurrent approvers, 1,000 groups of 1-5 members, two approvers a document (the first recorded, the second completing and launching)",
		Columns: []string{"approvers", "greatbook", "pgbench", "ratio"}}
	t.Add("16", Rate(goRate), Rate(pgRate), Ratio(goRate, pgRate))
	t.Print(e.Out)
	return nil
}

var errDone = fmt.Errorf("bench: done")

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// pendingJobs files n approved documents whose jobs were never launched.
func (w *approveWorld) pendingJobs(ctx context.Context, n int) error {
	tx, err := w.e.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `
		WITH d AS (
			INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
				source_ref, format, fields, queued_at, decided_by, decided_at)
			SELECT $1, encode(sha256(('p' || i || '/' || $3::bigint::text)::bytea), 'hex'), 'application/xml', 1, 'api', 'bench', 'active',
				'invoice', 'pending:' || i || '/' || $3::bigint::text, 'ubl', $2, now(), 'bench', now()
			FROM generate_series(1, $4::int) i RETURNING id)
		INSERT INTO jobs (org_id, intake_id, created_by, next_attempt_at) SELECT $1, id, 'bench', now() - interval '1 minute' FROM d`,
		w.org.ID, w.fields, time.Now().UnixNano(), n); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (w *approveWorld) pendingJobIDs(ctx context.Context, n int) ([]int64, error) {
	if err := w.pendingJobs(ctx, n); err != nil {
		return nil, err
	}
	rows, err := w.e.Pool.Query(ctx, `SELECT id FROM jobs WHERE status = 'pending' AND org_id = $1 ORDER BY id`, w.org.ID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// targets files 1,000 groups of 1-5 members for greatbook's approvers and
// as many for pgbench's, whose first members go into the table named
// table, and analyzes them: greatbook's groups' first members are returned.
func (w *approveWorld) targets(ctx context.Context, table string) ([]int64, error) {
	oneToFive := func() int { return 1 + rand.IntN(5) }
	goTargets, err := w.makeGroups(ctx, 1000, oneToFive)
	if err != nil {
		return nil, err
	}
	pgTargets, err := w.makeGroups(ctx, 1000, oneToFive)
	if err != nil {
		return nil, err
	}
	if err := w.pgbenchTargets(ctx, table, pgTargets); err != nil {
		return nil, err
	}
	return goTargets, w.e.Analyze(ctx)
}
