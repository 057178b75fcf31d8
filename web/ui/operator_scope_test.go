package ui_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An org's admin reads only their org's jobs and runs, on the pages and on
// /metrics (even from this machine); an instance operator reads every
// org's, with an org column and an org filter, and decides no document.
func TestOperatorSeesEveryOrgAdminOnlyTheirs(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	acme, _, admin, _ := a.SignedInClient(t, auth.RoleAdmin)
	globex := testkit.Org(t, a.DB)
	webtest.SeedDeadLetter(t, a, acme, "A-1")
	webtest.SeedDeadLetter(t, a, globex, "G-1")
	webtest.SeedDeadLetter(t, a, globex, "G-2")
	op := a.Operator(t)

	letters := func(c *http.Client, path string) (int, []string) {
		t.Helper()
		resp := webtest.Get(t, c, a.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		d := webtest.Doc(t, resp)
		var orgs []string
		d.Find("[data-testid=dead-letter-org]").Each(func(_ int, s *goquery.Selection) { orgs = append(orgs, s.Text()) })
		return d.Find("[data-testid=dead-letter]").Length(), orgs
	}
	if n, orgs := letters(admin, "/admin/dead-letters"); n != 1 || len(orgs) != 0 {
		t.Errorf("admin of acme sees %d dead letters (org column %v), want 1 and no org column", n, orgs)
	}
	if n, orgs := letters(op, "/admin/dead-letters"); n != 3 || strings.Join(orgs, ",") == "" {
		t.Errorf("operator sees %d dead letters (orgs %v), want 3 with their orgs", n, orgs)
	}
	// Webhook deliveries are an org's: the operator's page says so rather
	// than showing an empty list that reads as "none".
	if d := webtest.Doc(t, webtest.Get(t, op, a.URL+"/admin/dead-letters")); d.Find("[data-testid=wdl-operator]").Length() != 1 {
		t.Error("the operator's dead-letter page does not say webhook deliveries are each org's admins'")
	}
	if d := webtest.Doc(t, webtest.Get(t, admin, a.URL+"/admin/dead-letters")); d.Find("[data-testid=wdl-operator]").Length() != 0 {
		t.Error("an admin's dead-letter page says webhook deliveries are shown elsewhere")
	}
	if n, orgs := letters(op, "/admin/dead-letters?org="+globex.Slug); n != 2 || orgs[0] != globex.Slug || orgs[1] != globex.Slug {
		t.Errorf("operator filtered to %s sees %d dead letters (orgs %v), want 2", globex.Slug, n, orgs)
	}

	metrics := func(c *http.Client) string {
		t.Helper()
		resp := webtest.Get(t, c, a.URL+"/metrics")
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics: %d", resp.StatusCode)
		}
		return string(b)
	}
	if m := metrics(admin); !strings.Contains(m, `greatbook_jobs{status="abandoned"} 1`) || strings.Contains(m, "greatbook_http_request_duration_seconds") {
		t.Errorf("an org admin's metrics must count their org's jobs only (1 abandoned) and nothing instance-wide:\n%s", m)
	}
	if m := metrics(op); !strings.Contains(m, `greatbook_jobs{status="abandoned"} 3`) || !strings.Contains(m, "greatbook_http_request_duration_seconds") {
		t.Errorf("an operator's metrics must count every org's jobs (3 abandoned):\n%s", m)
	}

	// An operator is no org's member: no desk, no document, no approving.
	for _, path := range []string{"/desk", "/upload", "/ledger", "/admin/org"} {
		resp := webtest.Get(t, op, a.URL+path)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("operator GET %s: %d, want 403", path, resp.StatusCode)
		}
	}
}

// A confirmed bulk retry of more than SyncBulkRetryMax dead letters is a
// durable background run: the page shows its progress, polled through its
// fragment, until every letter is retried, each once.
func TestALargeBulkRetryRunsInTheBackgroundWithProgress(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	const n = jobs.SyncBulkRetryMax + 20
	for i := range n {
		webtest.SeedDeadLetter(t, a, o, fmt.Sprintf("B-%d", i))
	}
	// The posting service is still down: every retry fails at once, and
	// its letter is a dead letter again (which the run must not retry twice).
	a.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error { return errors.New("posting service unavailable") })
	post := func(form url.Values) *goquery.Document {
		t.Helper()
		form.Set("_csrf", csrf)
		resp, err := c.PostForm(a.URL+"/admin/dead-letters/retry", form)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("bulk retry: %d", resp.StatusCode)
		}
		return webtest.Doc(t, resp)
	}
	d := post(url.Values{"step": {"count"}})
	set, _ := d.Find("[data-testid=bulk-form] input[name=set]").Attr("value")
	d = post(url.Values{"step": {"retry"}, "expected": {strconv.Itoa(n)}, "set": {set}, "reason": {"service back"}})
	if d.Find("[data-testid=bulk-run]").Length() != 1 {
		t.Fatalf("the page shows no background bulk retry:\n%s", d.Find("main").Text())
	}
	testkit.Eventually(t, 60*time.Second, "the bulk retry's progress reaches the end", func() (bool, error) {
		resp := webtest.Get(t, c, a.URL+"/admin/dead-letters/bulk-runs")
		f := webtest.Doc(t, resp)
		run := f.Find("[data-testid=bulk-run]")
		status, _ := run.Attr("data-status")
		return status == "done" && strings.TrimSpace(run.Find("[data-testid=bulk-run-progress]").Text()) == fmt.Sprintf("%d of %d", n, n), nil
	})
	if got := testkit.Count(t, a.DB, `SELECT count(*) FROM job_attempts WHERE trigger LIKE 'operator: service back (bulk retry %'`); got != n {
		t.Errorf("%d retries recorded, want %d (each letter once)", got, n)
	}
}
