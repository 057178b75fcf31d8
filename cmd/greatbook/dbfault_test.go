package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/embeddedpg"
	"greatbook/internal/testkit"
)

// clusterDB opens a pool on the greatbook database of the embedded cluster
// in dir (running, and owned by a serve), for setting up and checking.
func clusterDB(t *testing.T, dir string) *testkit.DB {
	t.Helper()
	url := fmt.Sprintf("host=%s port=%d user=postgres dbname=greatbook sslmode=disable", filepath.Join(dir, "run"), embeddedpg.Port)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &testkit.DB{Pool: pool, URL: url}
}

// killPostmaster SIGKILLs the cluster's postmaster, as the OOM killer or an
// operator's kill -9 would, and waits until its owner has reaped it.
func killPostmaster(t *testing.T, dir string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(postmasterPID(t, dir)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed postmaster to be reaped", 30*time.Second, func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
}

// freeAddr returns a loopback address nothing listens on, so that a serve
// restarted after a SIGKILL answers where its clients look for it.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestServeRestartsItsKilledDatabaseAndAnswers503Meanwhile(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	// The owner waits this long before it restarts the postmaster, so that
	// the outage lasts long enough to be seen by the requests below.
	s := startServeWith(t, binary, []string{"GREATBOOK_TEST_RESTART_DELAY=3s"}, "--data-dir", dir)
	token := books(t, clusterDB(t, dir), true)
	c := client{t: t, url: s.url, token: token}
	_, content := distinctInvoice(t, 0)
	id := c.upload(content)
	doc := "/api/v1/intake/" + strconv.FormatInt(id, 10)
	before := postmasterPID(t, dir)

	killPostmaster(t, dir)
	unavailable, healthChecked := 0, false
	err := testkit.PollEvery(processPoll, 60*time.Second, func() (bool, error) {
		status, header, body, err := c.send("GET", doc, nil)
		if err != nil {
			return false, fmt.Errorf("serve stopped answering during the outage: %w", err)
		}
		if status == 200 {
			// Back, unless no answer was 503 yet: a backend that has not
			// yet noticed its postmaster died.
			return unavailable > 0, nil
		}
		e, _ := body["error"].(map[string]any)
		if status != 503 || e["code"] != "unavailable" || header.Get("Retry-After") == "" {
			return false, fmt.Errorf("during the outage: %d %v (Retry-After %q), want 503 unavailable with Retry-After", status, body, header.Get("Retry-After"))
		}
		unavailable++
		if !healthChecked {
			status, header, _, err := c.send("GET", "/healthz", nil)
			if err != nil || status != 503 || header.Get("Retry-After") == "" {
				return false, fmt.Errorf("healthz during the outage: %d %v", status, err)
			}
			healthChecked = true
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the database coming back (%d answers 503): %v", unavailable, err)
	}
	select {
	case err := <-s.done:
		t.Fatalf("serve exited: %v", err)
	default:
	}
	if postmasterPID(t, dir) == before {
		t.Fatal("the postmaster was not restarted")
	}
	// serve logs the restart just after the server accepts connections.
	waitFor(t, "serve to log the restart", 60*time.Second, func() bool {
		return strings.Contains(s.log.String(), "database cluster restarted")
	})
	// The same serve writes again: the approval posts, once.
	if status, body, err := c.call("POST", doc+"/approve", nil); err != nil || status != 200 {
		t.Fatalf("approve after the restart: %d %v %v", status, body, err)
	}
	c.waitStatus(id, "posted")
	if n := entries(t, clusterDB(t, dir)); n != 1 {
		t.Fatalf("%d journal entries", n)
	}
}

// faultClient is one of the acceptance test's clients: it uploads its own
// invoices and approves each, retrying what was not acknowledged, and
// records what the server acknowledged.
type faultClient struct {
	client
	index    int
	deadline time.Time
	quit     <-chan struct{} // closed when the test ends
	// uploaded maps an invoice number to the intake id of its 2xx answer.
	uploaded map[string]int64
	// approved holds the ids whose approval was answered 200.
	approved map[int64]bool
	// unexpected lists answers the contract does not allow under faults.
	unexpected []string
}

// live says whether the client should go on trying.
func (f *faultClient) live() bool {
	select {
	case <-f.quit:
		return false
	default:
		return time.Now().Before(f.deadline)
	}
}

// until calls try, paced by every, until it reports done or the client is
// no longer live.
func (f *faultClient) until(every time.Duration, try func() (done bool)) {
	_ = testkit.PollEvery(every, time.Until(f.deadline), func() (bool, error) {
		return !f.live() || try(), nil
	})
}

// retryable says whether an answer may be retried: a request that never got
// an answer (refused while serve restarts, reset by a kill) or a 503.
func (f *faultClient) retryable(what string, status int, body map[string]any, err error) bool {
	if err != nil {
		return true
	}
	if status == 503 {
		return true
	}
	if status >= 500 {
		f.unexpected = append(f.unexpected, fmt.Sprintf("%s: %d %v", what, status, body))
	}
	return false
}

func (f *faultClient) run(numbers []string, invoices map[string][]byte, progress func()) {
	for _, number := range numbers {
		content := invoices[number]
		var id int64
		// Serve restarting: come back shortly, as Retry-After asks.
		f.until(50*time.Millisecond, func() bool {
			status, body, err := f.call("POST", "/api/v1/documents", content)
			if err == nil && (status == 200 || status == 202) {
				id = int64(body["intake_id"].(float64))
				f.uploaded[number] = id
				return true
			}
			if !f.retryable("upload "+number, status, body, err) {
				f.unexpected = append(f.unexpected, fmt.Sprintf("upload %s: %d %v", number, status, body))
				return true
			}
			return false
		})
		if id == 0 {
			continue
		}
		path := "/api/v1/intake/" + strconv.FormatInt(id, 10)
		f.until(processPoll, func() bool {
			status, doc, err := f.call("GET", path, nil)
			if err == nil && status == 200 && doc["status"] != "received" {
				if doc["status"] != "pending" {
					f.unexpected = append(f.unexpected, fmt.Sprintf("%s filed %v, want pending", number, doc["status"]))
				}
				return true
			}
			f.retryable("get "+number, status, doc, err)
			return false
		})
		f.until(50*time.Millisecond, func() bool {
			status, body, err := f.call("POST", path+"/approve", nil)
			if err == nil && status == 200 {
				f.approved[id] = true
				progress()
				return true
			}
			if err == nil && status == 409 {
				// An earlier attempt went through without its answer
				// reaching us: unacknowledged, so not counted.
				return true
			}
			if !f.retryable("approve "+number, status, body, err) {
				if status != 503 {
					f.unexpected = append(f.unexpected, fmt.Sprintf("approve %s: %d %v", number, status, body))
				}
				return true
			}
			return false
		})
	}
}

// The faults a black-box attack on the running product used, kept as a test: eight
// clients upload and approve through the API while serve is SIGKILLed twice
// (and started again) and its database's postmaster is killed once (and
// restarted by serve). Every acknowledged upload and approval must have
// happened exactly once; what was not acknowledged may or may not have
// happened, but never twice.
func TestAcceptanceEveryAcknowledgedRequestEndsExactlyOnceThroughKills(t *testing.T) {
	const clients, perClient = 8, 15
	dir := dataDir(t)
	addr := freeAddr(t)
	start := func() *serveProcess { return startServeWith(t, binary, nil, "--data-dir", dir, "--addr", addr) }
	s := start()
	db := clusterDB(t, dir)
	token := books(t, db, true)

	// The clients give up at the deadline, a bound for a broken server: on a
	// healthy one they finish long before (5 s alone under -race here), and the three
	// faults need them to get that far through two restarts under -race.
	deadline := time.Now().Add(3 * time.Minute)
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit) })
	fcs := make([]*faultClient, clients)
	acked := make(chan struct{}, clients*perClient)
	finished := make(chan struct{})
	remaining := clients
	done := make(chan struct{}, clients)
	for i := range fcs {
		fcs[i] = &faultClient{client: client{t: t, url: "http://" + addr, token: token}, index: i, deadline: deadline, quit: quit,
			uploaded: map[string]int64{}, approved: map[int64]bool{}}
		var numbers []string
		invoices := map[string][]byte{}
		for j := range perClient {
			number, content := distinctInvoice(t, i*perClient+j)
			numbers = append(numbers, number)
			invoices[number] = content
		}
		go func() {
			fcs[i].run(numbers, invoices, func() { acked <- struct{}{} })
			done <- struct{}{}
		}()
	}
	go func() {
		for ; remaining > 0; remaining-- {
			<-done
		}
		close(finished)
	}()

	// The faults, each once the clients have had that many approvals
	// acknowledged, so that every fault strikes under load.
	killServe := func() {
		s.kill(t)
		// At once, as systemd's Restart= would: the new serve waits for the
		// old cluster's processes itself.
		s = start()
	}
	faults := []struct {
		after int
		name  string
		do    func()
	}{
		{clients * perClient / 5, "SIGKILL serve", killServe},
		{clients * perClient * 2 / 5, "kill the postmaster", func() {
			killPostmaster(t, dir)
			waitFor(t, "serve to restart its database", 30*time.Second, func() bool {
				return strings.Contains(s.log.String(), "database cluster restarted")
			})
		}},
		{clients * perClient * 3 / 5, "SIGKILL serve again", killServe},
	}
	approvals := 0
	for _, f := range faults {
		for approvals < f.after {
			select {
			case <-acked:
				approvals++
			case <-finished:
				for _, fc := range fcs {
					t.Errorf("client %d: %v", fc.index, fc.unexpected)
				}
				t.Fatalf("the clients finished after %d approvals, before %q", approvals, f.name)
			}
		}
		t.Logf("%s after %d acknowledged approvals", f.name, approvals)
		f.do()
	}
	<-finished

	// Settle: the sweep and the resume pass finish what the faults left.
	waitFor(t, "every approved document to be posted and no job or run left", 45*time.Second, func() bool {
		var open int
		err := db.Pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM intake_documents WHERE status IN ('received', 'active')) +
			(SELECT count(*) FROM jobs WHERE status <> 'done') +
			(SELECT count(*) FROM runs WHERE state IN ('running', 'paused'))`).Scan(&open)
		return err == nil && open == 0
	})

	var upload, approve int
	for _, f := range fcs {
		for _, u := range f.unexpected {
			t.Errorf("client %d: %s", f.index, u)
		}
		for number, id := range f.uploaded {
			upload++
			var rows, sameContent int
			if err := db.Pool.QueryRow(context.Background(), `SELECT
				(SELECT count(*) FROM intake_documents WHERE id = $1),
				(SELECT count(*) FROM intake_documents d WHERE d.content_hash = (SELECT content_hash FROM intake_documents WHERE id = $1))`,
				id).Scan(&rows, &sameContent); err != nil {
				t.Fatal(err)
			}
			if rows != 1 || sameContent != 1 {
				t.Errorf("acknowledged upload %s (id %d): %d rows, %d with its content", number, id, rows, sameContent)
			}
		}
		for id := range f.approved {
			approve++
			var entries int
			var status string
			if err := db.Pool.QueryRow(context.Background(), `SELECT status,
				(SELECT count(*) FROM journal_entries WHERE source_type = 'intake' AND source_id = $2)
				FROM intake_documents WHERE id = $1`, id, strconv.FormatInt(id, 10)).Scan(&status, &entries); err != nil {
				t.Fatal(err)
			}
			if entries != 1 || status != "posted" {
				t.Errorf("acknowledged approval of %d: %d journal entries, status %s", id, entries, status)
			}
		}
	}
	// Nothing happened twice, acknowledged or not.
	if n := testkit.Count(t, db, `SELECT count(*) FROM (SELECT source_id FROM journal_entries
		WHERE source_type = 'intake' GROUP BY source_id HAVING count(*) > 1) twice`); n != 0 {
		t.Errorf("%d documents have two journal entries", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM (SELECT fields->>'number' FROM intake_documents
		WHERE fields->>'number' IS NOT NULL GROUP BY 1 HAVING count(*) > 1) twice`); n != 0 {
		t.Errorf("%d invoices were filed twice", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE status = 'posted' AND result_entry_id IS NULL`); n != 0 {
		t.Errorf("%d posted documents without their entry", n)
	}
	if upload < clients*perClient/2 || approve < clients*perClient/2 {
		t.Errorf("only %d uploads and %d approvals were acknowledged of %d", upload, approve, clients*perClient)
	}
	t.Logf("%d uploads and %d approvals acknowledged of %d documents; %d documents, %d entries in the end", upload, approve,
		clients*perClient, testkit.Count(t, db, `SELECT count(*) FROM intake_documents`), entries(t, db))
}
