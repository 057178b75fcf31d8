package web_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"greatbook/internal/app"
)

// requestSeries counts the request-duration series the registry holds.
func requestSeries(t *testing.T, a *site) int {
	t.Helper()
	families, err := a.app.Metrics.Registry.Gather()
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
	a := newApp(t)
	serve := func(method, path string) {
		req := httptest.NewRequest("GET", path, nil)
		req.Method = method // NewRequest refuses some method names a client can still send
		req.RemoteAddr = "203.0.113.9:40000"
		a.srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
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
	if bound := app.RequestSeriesBound(len(a.srv.Routes())); got > bound {
		t.Errorf("%d request series, over the documented bound %d", got, bound)
	}
}
