package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"greatbook/internal/testkit"
)

// books sets up an org that keeps its books in SEK (the test invoice's
// currency), a user and a token, through the command line.
func books(t *testing.T, db *testkit.DB, defaultAccount bool) string {
	t.Helper()
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme AB", "--currency", "SEK")
	runCLI(t, db.URL, "a long password\n", "user", "add", "--org", "acme", "--email", "ann@acme.test", "--role", "admin", "--password-stdin")
	if defaultAccount {
		if _, err := db.Pool.Exec(context.Background(), `UPDATE orgs SET default_expense_account_id =
			(SELECT a.id FROM accounts a JOIN orgs o ON o.id = a.org_id WHERE o.slug = 'acme' AND a.code = '6000') WHERE slug = 'acme'`); err != nil {
			t.Fatal(err)
		}
	}
	return strings.TrimSpace(runCLI(t, db.URL, "", "token", "add", "--org", "acme", "--email", "ann@acme.test"))
}

type client struct {
	t     *testing.T
	url   string
	token string
}

func (c client) call(method, path string, body []byte) (int, map[string]any, error) {
	status, _, out, err := c.send(method, path, body)
	return status, out, err
}

// send is call with the response's header.
func (c client) send(method, path string, body []byte) (int, http.Header, map[string]any, error) {
	req, _ := http.NewRequest(method, c.url+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/xml")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err // cut off mid-answer: not acknowledged
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out, nil
}

// waitStatus waits until document id is want; generous, for a loaded
// machine.
func (c client) waitStatus(id int64, want string) {
	c.t.Helper()
	if err := testkit.PollEvery(processPoll, 60*time.Second, func() (bool, error) {
		_, doc, err := c.call("GET", "/api/v1/intake/"+strconv.FormatInt(id, 10), nil)
		return err == nil && doc["status"] == want, nil
	}); err != nil {
		c.t.Fatalf("document %d never became %s: %v", id, want, err)
	}
}

func (c client) upload(content []byte) int64 {
	c.t.Helper()
	status, body, err := c.call("POST", "/api/v1/documents", content)
	if err != nil || status != 202 {
		c.t.Fatalf("upload: %d %v %v", status, body, err)
	}
	id := int64(body["intake_id"].(float64))
	c.waitStatus(id, "pending")
	return id
}

func invoice(t *testing.T) []byte {
	b, err := os.ReadFile("../../internal/einvoice/testdata/ubl-invoice-multirate.xml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// distinctInvoice is the test invoice made a document of its own: number
// seq, issued seq days after 1 January 2026, so that neither reference nor
// content dedup relates it to another (the content key holds the date).
func distinctInvoice(t *testing.T, seq int) (number string, content []byte) {
	b := invoice(t)
	number = fmt.Sprintf("GB-%04d", seq)
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, seq%300).Format("2006-01-02")
	for old, repl := range map[string]string{
		"<cbc:ID>NK-2026-0042</cbc:ID>":             "<cbc:ID>" + number + "</cbc:ID>",
		"<cbc:IssueDate>2026-11-20</cbc:IssueDate>": "<cbc:IssueDate>" + issued + "</cbc:IssueDate>",
	} {
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("the test invoice no longer carries %s", old)
		}
		b = bytes.Replace(b, []byte(old), []byte(repl), 1)
	}
	return number, b
}

func entries(t *testing.T, db *testkit.DB) int {
	return testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE source_type = 'intake'`)
}

func TestKilledBetweenApprovalAndLaunchTheSweepLaunches(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	token := books(t, db, true)
	s := startServeWith(t, crashable, []string{"DATABASE_URL=" + db.URL, "GREATBOOK_FAILPOINTS=intake/approve/after-commit=kill"})
	c := client{t: t, url: s.url, token: token}
	id := c.upload(invoice(t))

	if status, body, err := c.call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil); err == nil {
		t.Fatalf("serve survived the failpoint: %d %v", status, body)
	}
	<-s.done
	s.done <- nil
	// The approval committed, its launch never happened: a pending job, no run.
	if n := testkit.Count(t, db, `SELECT count(*) FROM jobs WHERE status = 'pending' AND attempts = 0`); n != 1 {
		t.Fatalf("pending jobs: %d", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE id = $1 AND status = 'active'`, id); n != 1 {
		t.Fatal("the approval did not stand")
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE kind = 'bookkeeper'`); n != 0 {
		t.Fatal("a run exists although the launch never ran")
	}
	out, errOut, err := command(t, "", []string{"DATABASE_URL=" + db.URL}, "sweep")
	if err != nil || !strings.Contains(out, "launched: document "+strconv.FormatInt(id, 10)) {
		t.Fatalf("sweep: %v %q %q", err, out, errOut)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE id = $1 AND status = 'posted'`, id); n != 1 || entries(t, db) != 1 {
		t.Fatalf("after the sweep: posted %d, entries %d", n, entries(t, db))
	}
	if out, _, _ := command(t, "", []string{"DATABASE_URL=" + db.URL}, "sweep"); strings.TrimSpace(out) != "nothing to launch" {
		t.Fatalf("a second sweep: %q", out)
	}
}

func TestKilledAroundThePostItIsPostedOnce(t *testing.T) {
	t.Parallel()
	for _, fp := range []string{"runs/bookkeeper/before/post", "runs/bookkeeper/after/post", "runs/bookkeeper/before/account"} {
		t.Run(fp, func(t *testing.T) {
			t.Parallel()
			db := testkit.NewDB(t)
			token := books(t, db, true)
			s := startServeWith(t, crashable, []string{"DATABASE_URL=" + db.URL, "GREATBOOK_FAILPOINTS=" + fp + "=kill"})
			c := client{t: t, url: s.url, token: token}
			id := c.upload(invoice(t))
			_, _, _ = c.call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil)
			if err := <-s.done; err == nil {
				t.Fatal("serve was not killed")
			}
			s.done <- nil
			again := startServeWith(t, binary, []string{"DATABASE_URL=" + db.URL})
			client{t: t, url: again.url, token: token}.waitStatus(id, "posted")
			if n := entries(t, db); n != 1 {
				t.Fatalf("%d journal entries for one approval", n)
			}
			_ = again.cmd.Process.Signal(syscall.SIGINT)
		})
	}
}

func TestAPausedRunSurvivesARestartAndResumesWhenAnswered(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	token := books(t, db, false) // no default account: the bookkeeper must ask
	s := startServeWith(t, binary, []string{"DATABASE_URL=" + db.URL})
	c := client{t: t, url: s.url, token: token}
	id := c.upload(invoice(t))
	if status, _, err := c.call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil); err != nil || status != 200 {
		t.Fatalf("approve: %d %v", status, err)
	}
	var runID string
	if err := testkit.PollEvery(processPoll, 60*time.Second, func() (bool, error) {
		_, qs, _ := c.call("GET", "/api/v1/questions", nil)
		if list, _ := qs["questions"].([]any); len(list) == 1 {
			runID = list[0].(map[string]any)["run_id"].(string)
		}
		return runID != "", nil
	}); err != nil {
		t.Fatalf("the bookkeeper never asked: %v", err)
	}
	s.kill(t)

	again := startServeWith(t, binary, []string{"DATABASE_URL=" + db.URL})
	c = client{t: t, url: again.url, token: token}
	_, qs, _ := c.call("GET", "/api/v1/questions", nil)
	if list, _ := qs["questions"].([]any); len(list) != 1 || list[0].(map[string]any)["run_id"] != runID {
		t.Fatalf("after the restart the question is gone: %v", qs)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE id = $1::uuid AND state = 'paused'`, runID); n != 1 {
		t.Fatal("the paused run resumed without an answer")
	}
	req, _ := http.NewRequest("POST", again.url+"/api/v1/runs/"+runID+"/answer", strings.NewReader(`{"account": "6200", "remember": true}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("answer: %v %v", resp, err)
	}
	resp.Body.Close()
	c.waitStatus(id, "posted")
	if n := entries(t, db); n != 1 {
		t.Fatalf("%d entries", n)
	}
}
