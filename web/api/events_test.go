package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/retry"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// feed follows GET /api/v1/events from the beginning, a page of limit at a
// time, and remembers every event and the cursor.
type feed struct {
	c      *webtest.APIClient
	limit  int
	cursor string
	seen   []map[string]any
}

// page reads one page after the cursor.
func (f *feed) page() []any {
	f.c.T.Helper()
	q := url.Values{"limit": {fmt.Sprint(f.limit)}}
	if f.cursor != "" {
		q.Set("after", f.cursor)
	}
	status, body := f.c.Get("/api/v1/events?" + q.Encode())
	if status != 200 {
		f.c.T.Fatalf("events after %q: %d %v", f.cursor, status, body)
	}
	list, ok := body["events"].([]any)
	next, _ := body["next_cursor"].(string)
	if !ok || len(list) > f.limit {
		f.c.T.Fatalf("events page: %v", body)
	}
	for _, e := range list {
		ev := e.(map[string]any)
		for _, k := range []string{"id", "type", "occurred_at", "intake_id", "job_id", "entry_id", "actor", "data"} {
			if _, ok := ev[k]; !ok {
				f.c.T.Fatalf("event without %q: %v", k, ev)
			}
		}
		if id := ev["id"].(string); id <= f.cursor {
			f.c.T.Fatalf("event %s at or before the cursor %s", id, f.cursor)
		}
		f.cursor = ev["id"].(string)
		f.seen = append(f.seen, ev)
	}
	if next != f.cursor {
		f.c.T.Fatalf("next_cursor %q, want the last event's id %q", next, f.cursor)
	}
	return list
}

// until reads pages until an event of typ about intake id is in.
func (f *feed) until(typ string, id int64) map[string]any {
	f.c.T.Helper()
	var found map[string]any
	testkit.Eventually(f.c.T, 30*time.Second, "event "+typ+" of document "+fmt.Sprint(id), func() (bool, error) {
		for {
			if len(f.page()) == 0 {
				break
			}
		}
		for _, e := range f.seen {
			if e["type"] == typ && e["intake_id"] == float64(id) {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// of returns the types of the events seen about intake id, in feed order.
func (f *feed) of(id int64) string {
	var types []string
	for _, e := range f.seen {
		if e["intake_id"] == float64(id) {
			types = append(types, e["type"].(string))
		}
	}
	return strings.Join(types, " ")
}

// TestEventFeedFollowsADocumentsLife: upload, filing, approval, launch and
// posting; a duplicate marked distinct and rejected; a job whose launch
// fails, is abandoned, and is retried — each change once, in order, with
// the fields docs/api.md promises, and only to its own org.
func TestEventFeedFollowsADocumentsLife(t *testing.T) {
	t.Parallel()
	a := webtest.NewSiteWith(t, app.Config{SweepInterval: -1})
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	r := a.APIFor(t, reviewer)
	ad := a.APIFor(t, admin)
	f := &feed{c: r, limit: 2}

	// A document's whole life.
	first, second := webtest.TwoCopies(t, r)
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(first)+"/approve", ""); status != 200 {
		t.Fatalf("approve: %d %v", status, resp)
	}
	doc := r.WaitStatus(float64(first), "posted")
	posted := f.until("document.posted", first)
	if got, want := f.of(first), "document.received document.filed document.approved job.launched document.posted"; got != want {
		t.Fatalf("the first document's events: %s, want %s", got, want)
	}
	job := doc["job"].(map[string]any)
	if posted["entry_id"] != doc["result_entry_id"] || posted["job_id"] != job["id"] ||
		posted["actor"] != "system:bookkeeper" {
		t.Fatalf("posted event: %v (document %v)", posted, doc)
	}
	for _, e := range f.seen {
		if e["intake_id"] != float64(first) {
			continue
		}
		data := e["data"].(map[string]any)
		switch e["type"] {
		case "document.received":
			if e["actor"] != reviewer.Email || data["via"] != "api" || data["size_bytes"] == nil || e["job_id"] != nil || e["entry_id"] != nil {
				t.Errorf("received: %v", e)
			}
		case "document.filed":
			if data["status"] != "pending" || data["flag_reason"] != nil {
				t.Errorf("filed: %v", e)
			}
			if _, ok := data["flag_reason"]; !ok {
				t.Errorf("filed without flag_reason: %v", e)
			}
		case "document.approved":
			if e["actor"] != reviewer.Email || data["status"] != "active" || data["from_status"] != "pending" {
				t.Errorf("approved: %v", e)
			}
		case "job.launched":
			if e["job_id"] != job["id"] || data["attempt"] != float64(1) || data["run_id"] == nil {
				t.Errorf("launched: %v", e)
			}
		}
		if ts, _ := e["occurred_at"].(string); ts == "" {
			t.Errorf("event without a time: %v", e)
		} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("occurred_at %q: %v", ts, err)
		}
	}

	// The copy: filed flagged as a duplicate, marked distinct, rejected.
	filedCopy := f.until("document.filed", second)
	if d := filedCopy["data"].(map[string]any); d["status"] != "flagged" || d["flag_reason"] != "duplicate" || d["duplicate_of"] != float64(first) {
		t.Fatalf("the copy's filing: %v", filedCopy)
	}
	if status, resp := ad.PostJSON("/api/v1/intake/"+webtest.Itoa(second)+"/not-a-duplicate", `{"reason": "a different year"}`); status != 200 {
		t.Fatalf("not a duplicate: %d %v", status, resp)
	}
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(second)+"/reject", `{"reason": "not ours after all"}`); status != 200 {
		t.Fatalf("reject: %d %v", status, resp)
	}
	rejected := f.until("document.rejected", second)
	if got, want := f.of(second), "document.received document.filed document.marked_distinct document.rejected"; got != want {
		t.Fatalf("the copy's events: %s, want %s", got, want)
	}
	if d := rejected["data"].(map[string]any); d["reason"] != "not ours after all" || d["status"] != "rejected" || rejected["actor"] != reviewer.Email {
		t.Fatalf("rejected: %v", rejected)
	}
	for _, e := range f.seen {
		if e["type"] == "document.marked_distinct" {
			if d := e["data"].(map[string]any); d["was_duplicate_of"] != float64(first) || d["reason"] != "a different year" || e["actor"] != admin.Email {
				t.Fatalf("marked distinct: %v", e)
			}
		}
	}

	// A job: its launch fails (transient), an operator's retry fails for
	// good (abandoned), the next retry launches and posts.
	var mode atomic.Int32 // 0 launches, 1 fails transiently, 2 fails for good
	a.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
		switch mode.Load() {
		case 1:
			return retry.MarkTransient(errors.New("the pool is busy (injected)"), 0)
		case 2:
			return retry.MarkPermanent(errors.New("the pool refused the run (injected)"))
		}
		return nil
	})
	third := webtest.Filed(t, r, webtest.Numbered(t, 3), "pending")
	mode.Store(1)
	status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(third)+"/approve", "")
	launch, _ := resp["launch"].(map[string]any)
	if status != 200 || launch["outcome"] != "failed" {
		t.Fatalf("approve with a failing launch: %d %v", status, resp)
	}
	jobID := launch["job_id"]
	failed := f.until("job.failed", third)
	if d := failed["data"].(map[string]any); failed["job_id"] != jobID || d["stage"] != "launch" || d["error_class"] != "transient" ||
		!strings.Contains(fmt.Sprint(d["error"]), "injected") || d["status"] != "failed" {
		t.Fatalf("failed: %v", failed)
	}
	mode.Store(2)
	retryPath := fmt.Sprintf("/api/v1/jobs/%v/retry", jobID)
	if status, resp := ad.PostJSON(retryPath, `{"reason": "try once more"}`); status != 200 {
		t.Fatalf("retry: %d %v", status, resp)
	}
	abandoned := f.until("job.abandoned", third)
	if d := abandoned["data"].(map[string]any); abandoned["job_id"] != jobID || d["error_class"] != "permanent" || abandoned["actor"] != admin.Email {
		t.Fatalf("abandoned: %v", abandoned)
	}
	mode.Store(0)
	if status, resp := ad.PostJSON(retryPath, `{"reason": "the pool is back"}`); status != 200 {
		t.Fatalf("retry: %d %v", status, resp)
	}
	f.until("document.posted", third)
	if got, want := f.of(third), "document.received document.filed document.approved job.failed job.abandoned job.retried document.posted"; got != want {
		t.Fatalf("the third document's events: %s, want %s", got, want)
	}
	for _, e := range f.seen {
		if e["type"] == "job.retried" {
			if d := e["data"].(map[string]any); e["job_id"] != jobID || d["reason"] != "the pool is back" || e["actor"] != admin.Email || d["attempt"] == nil {
				t.Fatalf("retried: %v", e)
			}
		}
	}

	// Replayable: from the beginning again, and from any event's id, the
	// same events in the same order.
	again := &feed{c: r, limit: 500}
	again.page()
	if len(again.seen) != len(f.seen) {
		t.Fatalf("a replay from the beginning saw %d events, the follower %d", len(again.seen), len(f.seen))
	}
	for i := range f.seen {
		if again.seen[i]["id"] != f.seen[i]["id"] || again.seen[i]["type"] != f.seen[i]["type"] {
			t.Fatalf("replay differs at %d: %v vs %v", i, again.seen[i], f.seen[i])
		}
	}
	mid := &feed{c: r, limit: 500, cursor: f.seen[4]["id"].(string)}
	mid.page()
	if len(mid.seen) != len(f.seen)-5 || mid.seen[0]["id"] != f.seen[5]["id"] {
		t.Fatalf("a replay from the fifth event saw %d events, want %d", len(mid.seen), len(f.seen)-5)
	}
	if f.seen[0]["type"] != "document.received" {
		t.Fatalf("the feed starts with %v", f.seen[0])
	}

	// Org scoping: another org's token sees none of it, and its own only.
	other, _ := a.API(t, auth.RoleReviewer)
	theirs := &feed{c: other, limit: 100}
	theirs.page()
	if len(theirs.seen) != 0 {
		t.Fatalf("another org sees %d events: %v", len(theirs.seen), theirs.seen)
	}
	own := webtest.Filed(t, other, webtest.Numbered(t, 4), "pending")
	theirs.until("document.filed", own)
	for _, e := range theirs.seen {
		if e["intake_id"] != float64(own) {
			t.Fatalf("another org sees %v", e)
		}
	}
	before := len(f.seen)
	f.page()
	if len(f.seen) != before {
		t.Fatalf("our feed shows another org's events: %v", f.seen[before:])
	}
}

// Bad parameters are a 422 invalid naming the parameter; no token is a 401.
func TestEventFeedRefusesBadParameters(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	for _, tc := range []struct{ query, field string }{
		{"after=nonsense", "after"},
		{"after=" + strings.Repeat("0", 31) + "G", "after"},
		{"after=" + strings.Repeat("F", 32), "after"},
		{"limit=abc", "limit"},
		{"limit=0", "limit"},
		{"limit=-3", "limit"},
		{"limit=1001", "limit"},
		{"limit=2.5", "limit"},
		// A listing's parameter is not the feed's: refused, never a feed
		// quietly restarted from the beginning.
		{"cursor=" + strings.Repeat("0", 32), "cursor"},
		{"limit=1&limit=2", "limit"},
	} {
		status, resp := c.Get("/api/v1/events?" + tc.query)
		e := webtest.ErrorOf(resp)
		if status != 422 || e["code"] != "invalid" || e["parameter"] != tc.field ||
			!strings.Contains(fmt.Sprint(e["message"]), tc.field) {
			t.Errorf("%s: %d %v", tc.query, status, resp)
		}
	}
	if status, resp := c.Get("/api/v1/events?limit=1000"); status != 200 || resp["next_cursor"] != "" {
		t.Errorf("an empty feed: %d %v", status, resp)
	}
	anonymous := a.Anonymous(t)
	if status, _ := anonymous.Get("/api/v1/events"); status != 401 {
		t.Errorf("no token: %d", status)
	}
}
