package main

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"greatbook/internal/testkit"
)

// reviewer adds a reviewer of the org acme and returns a token of theirs.
func reviewer(t *testing.T, db *testkit.DB, email string) string {
	t.Helper()
	runCLI(t, db.URL, "a long password\n", "user", "add", "--org", "acme", "--email", email, "--role", "reviewer", "--password-stdin")
	return strings.TrimSpace(runCLI(t, db.URL, "", "token", "add", "--org", "acme", "--email", email))
}

// setPolicy sets the org's approval policy through the API: every document
// needs approvals.
func (c client) setPolicy(approvals int) {
	c.t.Helper()
	req, _ := http.NewRequest("PUT", c.url+"/api/v1/approval-policy", bytes.NewReader([]byte(
		`{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": `+strconv.Itoa(approvals)+`}]}`)))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		c.t.Fatalf("set the approval policy: %d", resp.StatusCode)
	}
}

func (c client) approve(id int64) (int, map[string]any) {
	c.t.Helper()
	status, body, err := c.call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil)
	if err != nil {
		c.t.Fatalf("approve %d: %v", id, err)
	}
	return status, body
}

// TestTheLastTwoApprovalsThroughTwoServesActivateOnce: two `greatbook serve`
// on one database, a policy of three approvals, and a document with the
// first. Two reviewers give the last two at the same moment, one through
// each serve: both wait behind a lock the test holds on the document, so
// both are in flight when it is released. The group lock serializes them:
// one is recorded (the second of three), the other sees it and completes
// the count. One activation, one job, one journal entry.
func TestTheLastTwoApprovalsThroughTwoServesActivateOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	ann := books(t, db, true)
	bob, carol := reviewer(t, db, "bob@acme.test"), reviewer(t, db, "carol@acme.test")
	serves := startServes(t, 2, db.URL)
	admin := client{t: t, url: serves[0].url, token: ann}
	admin.setPolicy(3)
	_, content := distinctInvoice(t, 1)
	id := admin.upload(content)
	if status, body := admin.approve(id); status != 200 || body["status"] != "pending" {
		t.Fatalf("the first approval: %d %v", status, body)
	}

	tx, err := db.Conn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status int
		body   map[string]any
	}
	answers := make([]answer, 2)
	var wg sync.WaitGroup
	for i, c := range []client{{t: t, url: serves[0].url, token: bob}, {t: t, url: serves[1].url, token: carol}} {
		wg.Go(func() {
			status, body, err := c.call("POST", "/api/v1/intake/"+strconv.FormatInt(id, 10)+"/approve", nil)
			if err != nil {
				t.Errorf("approve through serve %d: %v", i, err)
			}
			answers[i] = answer{status, body}
		})
	}
	watcher := db.Conn(t)
	testkit.Eventually(t, 30*time.Second, "both approvals waiting for the document's lock", func() (bool, error) {
		n, err := testkit.LockWaiters(ctx, watcher)
		return n >= 2, err
	})
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	completed := 0
	for i, a := range answers {
		approvals, _ := a.body["approvals"].([]any)
		switch {
		case a.status == 200 && a.body["status"] == "active":
			// Answered as approve always answers: status and launch.
			completed++
			if launch, _ := a.body["launch"].(map[string]any); launch["outcome"] != "launched" {
				t.Errorf("the completing approval through serve %d: launch %v", i, launch)
			}
		case a.status == 200 && a.body["status"] == "pending" && len(approvals) == 2 && a.body["approvals_required"] == float64(3) &&
			a.body["launch"] == nil:
		default:
			t.Errorf("approval through serve %d: %d %v", i, a.status, a.body)
		}
	}
	if completed != 1 {
		t.Fatalf("%d approvals completed the count, want 1", completed)
	}
	admin.waitStatus(id, "posted")
	for _, c := range []struct {
		what string
		sql  string
		want int
	}{
		{"activations", `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'approve'`, 1},
		{"approvals recorded short of the count", `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'approval_recorded'`, 2},
		{"approvals", `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, 3},
		{"jobs", `SELECT count(*) FROM jobs WHERE intake_id = $1`, 1},
		{"bookkeeper runs", `SELECT count(*) FROM runs WHERE kind = 'bookkeeper' AND subject_id = $1`, 1},
		{"journal entries", `SELECT count(*) FROM journal_entries WHERE source_type = 'intake' AND source_id = $1::bigint::text`, 1},
	} {
		if n := testkit.Count(t, db, c.sql, id); n != c.want {
			t.Errorf("%s: %d, want %d", c.what, n, c.want)
		}
	}
}

// TestEveryStepThroughTwoServesRefusesAnAcceptedGroup: with two serves on
// one database and a policy of two approvals, once a member of a duplicate
// group is accepted, both the last step on a member that had its first and
// the first step on another member are 409 duplicate_group_conflict, through
// either serve, and record nothing.
func TestEveryStepThroughTwoServesRefusesAnAcceptedGroup(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ann := books(t, db, true)
	bob := reviewer(t, db, "bob@acme.test")
	serves := startServes(t, 2, db.URL)
	annAt := func(i int) client { return client{t: t, url: serves[i].url, token: ann} }
	bobAt := func(i int) client { return client{t: t, url: serves[i].url, token: bob} }
	annAt(0).setPolicy(2)

	// The same invoice three times, as bytes that differ: the second and
	// third are flagged duplicates of the first.
	_, content := distinctInvoice(t, 2)
	first := annAt(0).upload(content)
	copies := make([]int64, 2)
	for i := range copies {
		status, body, err := annAt(i).call("POST", "/api/v1/documents", append(bytes.Clone(content), []byte("\n<!-- copy "+strconv.Itoa(i)+" -->\n")...))
		if err != nil || status != 202 {
			t.Fatalf("upload copy %d: %d %v %v", i, status, body, err)
		}
		copies[i] = int64(body["intake_id"].(float64))
		annAt(i).waitStatus(copies[i], "flagged")
	}
	if status, body := annAt(1).approve(copies[0]); status != 200 || body["status"] != "flagged" {
		t.Fatalf("the first step on a copy, no member accepted: %d %v", status, body)
	}
	if status, body := annAt(0).approve(first); status != 200 || body["status"] != "pending" {
		t.Fatalf("the first step on the original: %d %v", status, body)
	}
	if status, body := bobAt(1).approve(first); status != 200 || body["status"] != "active" {
		t.Fatalf("the last step on the original: %d %v", status, body)
	}
	for _, tc := range []struct {
		name string
		c    client
		id   int64
		had  int
	}{
		{"the last step on the first copy, through serve 0", bobAt(0), copies[0], 1},
		{"the last step on the first copy, through serve 1", bobAt(1), copies[0], 1},
		{"the first step on the second copy, through serve 0", annAt(0), copies[1], 0},
		{"the first step on the second copy, through serve 1", bobAt(1), copies[1], 0},
	} {
		if status, body := tc.c.approve(tc.id); status != 409 || errorCode(body) != "duplicate_group_conflict" {
			t.Errorf("%s: %d %v", tc.name, status, body)
		}
		if n := testkit.Count(t, db, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, tc.id); n != tc.had {
			t.Errorf("%s: %d approvals recorded, want %d", tc.name, n, tc.had)
		}
	}
	annAt(0).waitStatus(first, "posted")
	if n := entries(t, db); n != 1 {
		t.Errorf("%d journal entries for the group, want 1", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM jobs`); n != 1 {
		t.Errorf("%d jobs for the group, want 1", n)
	}
}
