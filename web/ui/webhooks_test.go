package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Without the operator's allowance an endpoint on loopback is refused with
// a 422 saying why, and nothing is registered.
func TestWebhookPageRefusesALoopbackURL(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	resp, err := c.PostForm(a.URL+"/admin/webhooks", url.Values{"_csrf": {csrf}, "url": {"http://127.0.0.1:9/hook"}})
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	if resp.StatusCode != 422 || !strings.Contains(d.Find("[data-testid=webhook-error]").Text(), "loopback") {
		t.Fatalf("%d %q", resp.StatusCode, d.Find("[data-testid=webhook-error]").Text())
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM webhook_endpoints`); n != 0 {
		t.Fatalf("%d endpoints registered", n)
	}
}

// An admin registers an endpoint (its secret shown once), sees its dead
// deliveries beside the jobs' and retries them with the counted bulk
// retry; a reviewer may not see the page.
func TestWebhookEndpointsAndTheirDeadLettersOnTheAdminPages(t *testing.T) {
	t.Parallel()
	a := webtest.NewSiteWith(t, app.Config{WebhookAllowPrivate: true, WebhookTimeout: 5 * time.Second})
	o, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(receiver.Close)

	resp, err := c.PostForm(a.URL+"/admin/webhooks", url.Values{"_csrf": {csrf}, "url": {receiver.URL + "/hook"}, "event_types": {"document.posted, job.failed"}})
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	secret := d.Find("[data-testid=webhook-secret]").Text()
	if resp.StatusCode != 200 || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("register: %d, secret %q, error %q", resp.StatusCode, secret, d.Find("[data-testid=webhook-error]").Text())
	}
	d = webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/webhooks"))
	if d.Find("[data-testid=webhook-endpoint]").Length() != 1 || strings.Contains(d.Text(), secret) {
		t.Fatal("the endpoint is not listed, or its secret is shown again")
	}
	var endpointID int64
	if err := a.DB.Pool.QueryRow(context.Background(), `SELECT id FROM webhook_endpoints WHERE org_id = $1`, o.ID).Scan(&endpointID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.Pool.Exec(context.Background(), `INSERT INTO webhook_deliveries (org_id, endpoint_id, event_id, event_type, body, status, attempts, last_error)
		VALUES ($1, $2, 'ev-1', 'job.failed', '{}', 'dead', 8, 'the endpoint answered 503'), ($1, $2, 'ev-2', 'document.posted', '{}', 'dead', 8, 'the endpoint answered 503')`,
		o.ID, endpointID); err != nil {
		t.Fatal(err)
	}

	d = webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/dead-letters?wh_type=job.failed"))
	if n := d.Find("[data-testid=webhook-dead-letter]").Length(); n != 1 {
		t.Fatalf("%d webhook dead letters listed for job.failed", n)
	}
	count := url.Values{"_csrf": {csrf}, "wh_type": {"job.failed"}, "step": {"count"}}
	resp, err = c.PostForm(a.URL+"/admin/dead-letters/webhooks/retry", count)
	if err != nil {
		t.Fatal(err)
	}
	d = webtest.Doc(t, resp)
	set, _ := d.Find(`[data-testid=webhook-bulk-form] input[name=set]`).Attr("value")
	if !strings.Contains(d.Find("[data-testid=webhook-bulk-preview]").Text(), "1 webhook delivery matches") || set == "" {
		t.Fatalf("preview: %q", d.Find("[data-testid=webhook-bulk-preview]").Text())
	}
	retry := url.Values{"_csrf": {csrf}, "wh_type": {"job.failed"}, "step": {"retry"}, "expected": {"1"}, "set": {set}, "reason": {"receiver fixed"}}
	resp, err = c.PostForm(a.URL+"/admin/dead-letters/webhooks/retry", retry)
	if err != nil {
		t.Fatal(err)
	}
	d = webtest.Doc(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(d.Find("[data-testid=wdl-result]").Text(), "Retried 1 of 1") {
		t.Fatalf("bulk retry: %d %q %q", resp.StatusCode, d.Find("[data-testid=wdl-result]").Text(), d.Find("[data-testid=wdl-error]").Text())
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM webhook_deliveries WHERE status = 'dead'`); n != 1 {
		t.Fatalf("%d dead after retrying one of two", n)
	}
	// The same confirmation again: the set changed, nothing is retried.
	resp, err = c.PostForm(a.URL+"/admin/dead-letters/webhooks/retry", retry)
	if err != nil {
		t.Fatal(err)
	}
	if d = webtest.Doc(t, resp); resp.StatusCode != 409 || d.Find("[data-testid=wdl-error]").Length() != 1 {
		t.Fatalf("a stale confirmation: %d", resp.StatusCode)
	}

	resp, err = c.PostForm(a.URL+"/admin/webhooks/"+webtest.Itoa(endpointID)+"/disable", url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM webhook_endpoints WHERE NOT enabled`); n != 1 {
		t.Fatal("the endpoint was not disabled")
	}

	_, _, rc, _ := a.SignedInClient(t, auth.RoleReviewer)
	if resp := webtest.Get(t, rc, a.URL+"/admin/webhooks"); resp.StatusCode != 403 {
		t.Fatalf("a reviewer got %d", resp.StatusCode)
	}
}
