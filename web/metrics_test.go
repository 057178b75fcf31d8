package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

// requestSeries counts the request-duration series the registry holds.
func requestSeries(t *testing.T, a *webtest.Site) int {
	t.Helper()
	families, err := a.App.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "greatbook_http_request_duration_seconds" {
			return len(f.GetMetric())
		}
	}
	return 0
}

// TestRequestsCannotGrowTheMetricsWithoutBound sends thousands of requests
// with method names, paths and routes no one registered, without signing
// in: the request metric's series stay within the documented bound, and
// after the first few such requests they stop growing at all.
func TestRequestsCannotGrowTheMetricsWithoutBound(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	serve := func(method, path string) {
		req := httptest.NewRequest("GET", path, nil)
		req.Method = method // NewRequest refuses some method names a client can still send
		req.RemoteAddr = "203.0.113.9:40000"
		a.Web.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	for _, m := range []string{"GET", "POST", "M0", "PROPFIND"} {
		for _, p := range []string{"/healthz", "/nope/0", "/intake/1", "/api/v1/intake/1", "/static/nope-0.css"} {
			serve(m, p)
		}
	}
	warm := requestSeries(t, a)
	for i := range 3000 {
		serve(fmt.Sprintf("M%d", i), "/healthz")
		serve("GET", fmt.Sprintf("/nope/%d", i))
		serve(fmt.Sprintf("X-%d", i), fmt.Sprintf("/api/v1/nope/%d", i))
	}
	got := requestSeries(t, a)
	if got > warm {
		t.Errorf("9,000 requests with new methods and paths grew the request metric from %d to %d series", warm, got)
	}
	if bound := app.RequestSeriesBound(len(a.Web.Routes())); got > bound {
		t.Errorf("%d request series, over the documented bound %d", got, bound)
	}
}

func TestMetricsAreForLoopbackAndAdmins(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	reviewer, _ := a.API(t, auth.RoleReviewer)
	admin, _ := a.API(t, auth.RoleAdmin)

	webtest.Get(t, http.DefaultClient, a.URL+"/signin").Body.Close() // a request for the latency histogram

	// A scraper on this machine needs no credentials.
	resp := webtest.Get(t, http.DefaultClient, a.URL+"/metrics")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("loopback scrape: %d", resp.StatusCode)
	}
	for _, want := range []string{`greatbook_jobs{status="abandoned"}`, `greatbook_approve_outcomes_total{outcome="conflict"}`,
		"greatbook_sweep_passes_total", "greatbook_http_request_duration_seconds"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the metrics lack %s", want)
		}
	}

	// Through a proxy on this machine (proxy headers): not a local scraper.
	req, _ := http.NewRequest("GET", a.URL+"/metrics", nil)
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	req.Header.Set("Authorization", "Bearer "+reviewer.Token)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != 403 {
		t.Errorf("a reviewer through a proxy: %d, want 403", resp.StatusCode)
	}

	// From elsewhere: admins only.
	for _, tc := range []struct {
		name  string
		token string
		want  int
	}{{"a person not signed in (sent to sign in)", "", 303}, {"reviewer", reviewer.Token, 403}, {"admin", admin.Token, 200}, {"a bad token", "nope", 401}} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.RemoteAddr = "203.0.113.9:40000"
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		rec := httptest.NewRecorder()
		a.Web.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s from another machine: %d, want %d", tc.name, rec.Code, tc.want)
		}
	}
}
