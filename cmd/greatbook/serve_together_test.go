package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/database"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// startServes starts n `greatbook serve` processes of the real binary on one
// database (DATABASE_URL) at the same moment, each with the extra
// environment, as a deployment of several machines behind a load balancer
// runs them. Their start-up passes (migrations, resume, sweep) overlap.
func startServes(t *testing.T, n int, databaseURL string, env ...string) []*serveProcess {
	t.Helper()
	serves := make([]*serveProcess, n)
	outs := make([]io.ReadCloser, n)
	for i := range serves {
		serves[i], outs[i] = launchServe(t, binary, append([]string{"DATABASE_URL=" + databaseURL}, env...))
	}
	for i, s := range serves {
		s.awaitURL(t, outs[i])
	}
	return serves
}

// ingestedBeforeACrash ingests documents the way a serve that crashed
// between the ingest's commit and the launch of its run leaves them: each
// row received with its pipeline run, running, held by no worker. Only a
// resume pass starts such a run. It returns the documents' ids.
func ingestedBeforeACrash(t *testing.T, db *testkit.DB, seqs []int) []int64 {
	t.Helper()
	var orgID int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&orgID); err != nil {
		t.Fatal(err)
	}
	a := app.New(db.Pool, app.Config{}) // no workers: its launches fail, the runs stay
	defer a.Close()
	ids := make([]int64, len(seqs))
	for i, seq := range seqs {
		_, content := distinctInvoice(t, seq)
		res, err := a.Pipeline.Ingest(context.Background(), intake.Arrival{OrgID: orgID, Content: content, Via: "api", Actor: "user:crashed-uploader"})
		if err != nil || !res.Created {
			t.Fatalf("ingest %d: %v %+v", seq, err, res)
		}
		ids[i] = res.Document.ID
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE kind = 'pipeline' AND state = 'running' AND lease_owner IS NULL`); n != len(seqs) {
		t.Fatalf("%d runs left for the resume pass, want %d", n, len(seqs))
	}
	return ids
}

// leftByACrash writes what a crash between approve's commit and its launch
// leaves: the document active and its job pending, never launched (approve's
// own statements, in one transaction). Only a sweep launches such a job.
func leftByACrash(t *testing.T, db *testkit.DB, ids []int64) {
	t.Helper()
	err := database.WithTx(context.Background(), db.Pool, func(tx pgx.Tx) error {
		for _, id := range ids {
			var orgID int64
			if err := tx.QueryRow(context.Background(), `SELECT org_id FROM intake_documents WHERE id = $1`, id).Scan(&orgID); err != nil {
				return err
			}
			if _, err := tx.Exec(context.Background(), review.Statements.Activate, id, "user:crashed-approver"); err != nil {
				return err
			}
			if _, err := tx.Exec(context.Background(), jobs.Statements.InsertJob, orgID, id, "user:crashed-approver", 5); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTwoServesOnOneDatabaseShareTheWorkAndDoNothingTwice starts two serve
// processes on one PostgreSQL at the same moment, with pipeline runs a crash
// left for their resume passes, uploads and approves through both at once (a
// set of documents through both at the same moment, and approvals a crash
// left to the sweeps), with both sweeps running every 20 ms, and proves from the tables that the pipeline, the resume
// pass, the sweep and the bookkeeper of the two processes shared the work
// and did none of it twice.
func TestTwoServesOnOneDatabaseShareTheWorkAndDoNothingTwice(t *testing.T) {
	t.Parallel()
	const (
		documents = 40
		resumed   = 12 // ingested before the serves start, filed by a resume pass
		crashed   = 6  // approved before the sweeps run, launched by a sweep
		both      = 10 // uploaded and approved through both serves at the same moment
	)
	db := testkit.NewDB(t)
	token := books(t, db, true)
	seqs := make([]int, resumed)
	for i := range seqs {
		seqs[i] = i + 1
	}
	ids := make([]int64, documents)
	copy(ids, ingestedBeforeACrash(t, db, seqs))

	// A sweep every 20 ms races every approval's own launch.
	serves := startServes(t, 2, db.URL, "GREATBOOK_SWEEP_INTERVAL=20ms")
	clients := make([]client, len(serves))
	pids := make([]string, len(serves))
	for i, s := range serves {
		clients[i] = client{t: t, url: s.url, token: token}
		pids[i] = strconv.Itoa(s.cmd.Process.Pid)
	}

	// Upload the others concurrently: document i through serve i%2, and the
	// last `both` through both serves at the same moment (the same bytes:
	// one row, one run; the later arrival is told of the first).
	type arrival struct {
		i, serve int
		status   int
		body     map[string]any
		err      error
	}
	arrivals := make(chan arrival, 2*documents)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	arrive := make(chan struct{})
	upload := func(i, serve int, content []byte) {
		wg.Go(func() {
			<-arrive
			sem <- struct{}{}
			defer func() { <-sem }()
			status, body, err := clients[serve].call("POST", "/api/v1/documents", content)
			arrivals <- arrival{i, serve, status, body, err}
		})
	}
	for i := resumed; i < documents; i++ {
		_, content := distinctInvoice(t, i+1)
		upload(i, i%2, content)
		if i >= documents-both {
			upload(i, 1-i%2, content)
		}
	}
	close(arrive)
	wg.Wait()
	close(arrivals)
	created := map[int]int{}
	for a := range arrivals {
		if a.err != nil || (a.status != 202 && a.status != 200) {
			t.Fatalf("upload %d through serve %d: %d %v %v", a.i, a.serve, a.status, a.body, a.err)
		}
		id := int64(a.body["intake_id"].(float64))
		if ids[a.i] != 0 && ids[a.i] != id {
			t.Fatalf("document %d: rows %d and %d for the same bytes", a.i, ids[a.i], id)
		}
		ids[a.i] = id
		if a.status == 202 {
			created[a.i]++
		}
	}
	for i := resumed; i < documents; i++ {
		if created[i] != 1 {
			t.Errorf("document %d: %d uploads answered 202 (new), want 1", i, created[i])
		}
	}
	testkit.Eventually(t, 60*time.Second, "every document filed pending", func() (bool, error) {
		var n int
		err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM intake_documents WHERE status = 'pending'`).Scan(&n)
		return n == documents, err
	})

	// A crash left some approvals unlaunched: only the sweeps launch them.
	leftByACrash(t, db, ids[:crashed])

	// Approve the rest concurrently: document i through serve i%2, and the
	// last `both` through both serves at the same moment.
	type answer struct {
		id     int64
		serve  int
		status int
		body   map[string]any
		err    error
	}
	answers := make(chan answer, 2*documents)
	start := make(chan struct{})
	var approvals sync.WaitGroup
	approve := func(id int64, serve int) {
		approvals.Go(func() {
			<-start
			sem <- struct{}{}
			defer func() { <-sem }()
			status, body, err := clients[serve].call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil)
			answers <- answer{id, serve, status, body, err}
		})
	}
	for i := crashed; i < documents; i++ {
		if i >= documents-both {
			approve(ids[i], 0)
			approve(ids[i], 1)
		} else {
			approve(ids[i], i%2)
		}
	}
	close(start)
	approvals.Wait()
	close(answers)
	approved := map[int64]int{}
	for a := range answers {
		switch {
		case a.err != nil:
			t.Fatalf("approve %d through serve %d: %v", a.id, a.serve, a.err)
		case a.status == 200:
			approved[a.id]++
			if launch, _ := a.body["launch"].(map[string]any); launch["outcome"] != "launched" {
				t.Errorf("approve %d through serve %d: launch %v", a.id, a.serve, launch)
			}
		case a.status == 409 && errorCode(a.body) == "invalid_state":
			// the other serve approved it first
		default:
			t.Fatalf("approve %d through serve %d: %d %v", a.id, a.serve, a.status, a.body)
		}
	}
	for _, id := range ids[crashed:] {
		if approved[id] != 1 {
			t.Errorf("document %d approved %d times", id, approved[id])
		}
	}

	testkit.Eventually(t, 60*time.Second, "every approved document posted", func() (bool, error) {
		var n int
		err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM intake_documents WHERE status = 'posted'`).Scan(&n)
		return n == documents, err
	})

	// Nothing done twice. Every check counts rows that should not exist.
	for _, c := range []struct{ what, sql string }{
		{"documents not posted", `SELECT count(*) FROM intake_documents WHERE status <> 'posted'`},
		{"documents without exactly one pipeline run", `SELECT count(*) FROM intake_documents d
			WHERE (SELECT count(*) FROM runs r WHERE r.kind = 'pipeline' AND r.subject_id = d.id) <> 1`},
		{"documents without exactly one bookkeeper run", `SELECT count(*) FROM intake_documents d
			WHERE (SELECT count(*) FROM runs r WHERE r.kind = 'bookkeeper' AND r.subject_id = d.id) <> 1`},
		{"runs not done", `SELECT count(*) FROM runs WHERE state <> 'done'`},
		{"nodes that finished twice in one run", `SELECT count(*) FROM (SELECT 1 FROM run_checkpoints
			WHERE outcome = 'ok' GROUP BY run_id, node HAVING count(*) > 1) twice`},
		// A retry (a node's transient error) re-runs a node that wrote
		// nothing; a takeover would mean a live worker lost its run.
		{"checkpoints of a takeover, a pause or a failure", `SELECT count(*) FROM run_checkpoints WHERE outcome NOT IN ('ok', 'retry')`},
		{"runs finished by more than one worker", `SELECT count(*) FROM (SELECT 1 FROM run_checkpoints
			GROUP BY run_id HAVING count(DISTINCT worker) > 1) shared`},
		{"documents without exactly one journal entry", `SELECT count(*) FROM intake_documents d
			WHERE (SELECT count(*) FROM journal_entries e WHERE e.source_type = 'intake' AND e.source_id = d.id::text) <> 1`},
		{"journal entries beyond one per document", fmt.Sprintf(`SELECT count(*) - %d FROM journal_entries`, documents)},
		{"replays or conflicts observed by the ledger", `SELECT count(*) FROM ledger_observations`},
		{"jobs not done after exactly one launch", `SELECT count(*) FROM jobs WHERE status <> 'done' OR attempts <> 1`},
		{"launch attempts beyond one per job", `SELECT count(*) - (SELECT count(*) FROM jobs) FROM job_attempts`},
		{"launch attempts that were not launches", `SELECT count(*) FROM job_attempts WHERE outcome <> 'launched'`},
		{"jobs whose run is not their document's bookkeeper run", `SELECT count(*) FROM jobs j
			WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = j.run_id AND r.kind = 'bookkeeper' AND r.subject_id = j.intake_id)`},
	} {
		if n := testkit.Count(t, db, c.sql); n != 0 {
			t.Errorf("%s: %d", c.what, n)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM run_checkpoints WHERE outcome = 'retry'`); n > 0 {
		t.Logf("%d nodes retried after a transient error", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents`); n != documents {
		t.Errorf("%d documents for %d uploads", n, documents)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM job_attempts WHERE trigger = 'sweep'`); n < crashed {
		t.Errorf("the sweeps launched %d jobs; %d were left for them", n, crashed)
	} else {
		t.Logf("the sweeps launched %d jobs (%d left by the crash, the rest won from an approval's own launch)", n, crashed)
	}

	// Shared: both processes' workers executed pipeline and bookkeeper
	// nodes. A worker is "host|pid|start|random|scope": the pid names the serve.
	for _, kind := range []string{"pipeline", "bookkeeper"} {
		for i, pid := range pids {
			n := testkit.Count(t, db, `SELECT count(*) FROM run_checkpoints c JOIN runs r ON r.id = c.run_id
				WHERE r.kind = $1 AND split_part(c.worker, '|', 2) = $2`, kind, pid)
			if n == 0 {
				t.Errorf("serve %d (pid %s) executed no %s node", i, pid, kind)
			}
			t.Logf("serve %d (pid %s): %d %s checkpoints", i, pid, n, kind)
		}
	}
	for i, pid := range pids {
		n := testkit.Count(t, db, `SELECT count(DISTINCT r.id) FROM runs r JOIN run_checkpoints c ON c.run_id = r.id
			WHERE r.kind = 'pipeline' AND r.subject_id = ANY($1) AND split_part(c.worker, '|', 2) = $2`, ids[:resumed], pid)
		t.Logf("serve %d (pid %s) resumed %d of the %d runs a crash left", i, pid, n, resumed)
	}
	if n := testkit.Count(t, db, `SELECT count(DISTINCT split_part(worker, '|', 2)) FROM run_checkpoints`); n != len(serves) {
		t.Errorf("checkpoints written by %d processes, want %d", n, len(serves))
	}
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestServeRefusesABadSweepInterval: a sweep interval that is not a positive
// duration is refused with one line naming the flag.
func TestServeRefusesABadSweepInterval(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"soon", "0s", "-1s"} {
		_, errOut, err := command(t, "", []string{"GREATBOOK_SWEEP_INTERVAL=" + v, "DATABASE_URL=postgres://nobody@127.0.0.1:1/x?connect_timeout=1"}, "serve")
		if err == nil || !strings.Contains(errOut, "--sweep-interval") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("GREATBOOK_SWEEP_INTERVAL=%s: %v, stderr %q", v, err, errOut)
		}
	}
}

// TestABrowserSessionWorksThroughEveryServe: a load balancer may send a
// browser's requests to any serve, so nothing of a session is held in a
// process. Signed in through one serve, the browser reads the desk and
// signs out (a CSRF-checked form) through the other, and the sign-out ends
// the session on both.
func TestABrowserSessionWorksThroughEveryServe(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	books(t, db, false)
	serves := startServes(t, 2, db.URL)
	jar, err := cookiejar.New(nil) // cookies ignore ports: both serves see them
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(url string) (int, *goquery.Document) {
		t.Helper()
		resp, err := browser.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		d, err := goquery.NewDocumentFromReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, d
	}

	_, signin := page(serves[0].url + "/signin")
	token, _ := signin.Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
	resp, err := browser.PostForm(serves[0].url+"/signin", url.Values{"_csrf": {token}, "email": {"ann@acme.test"}, "password": {"a long password"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in through serve 0: %d", resp.StatusCode)
	}

	status, desk := page(serves[1].url + "/desk")
	csrf, _ := desk.Find(`form.signout input[name=_csrf]`).Attr("value")
	if status != 200 || csrf == "" {
		t.Fatalf("the desk through serve 1: %d, CSRF token %q", status, csrf)
	}
	resp, err = browser.PostForm(serves[1].url+"/signout", url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out through serve 1: %d", resp.StatusCode)
	}
	for i, s := range serves {
		if status, _ := page(s.url + "/desk"); status != http.StatusSeeOther {
			t.Errorf("the desk through serve %d after signing out: %d, want a redirect to sign in", i, status)
		}
	}
}

// TestTwoServesStartTogetherOnAnEmptyDatabase: the check that refuses a
// second serve is for the embedded data directory only; with DATABASE_URL
// two serves started at the same moment on a database without schema both
// come up (one migrates, the other waits for goose's lock) and both answer.
func TestTwoServesStartTogetherOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	db := testkit.NewEmptyDB(t)
	for i, s := range startServes(t, 2, db.URL) {
		resp, err := http.Get(s.url + "/healthz")
		if err != nil {
			t.Fatalf("serve %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("serve %d: healthz %d", i, resp.StatusCode)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) - count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`); n != 0 {
		t.Errorf("%d migrations applied twice", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM goose_db_version WHERE version_id > 0`); n == 0 {
		t.Error("no migration applied")
	}
}
