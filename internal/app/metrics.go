package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"greatbook/internal/database"
	"greatbook/internal/org"
)

// Metrics are what the people who run greatbook watch (GET /metrics).
type Metrics struct {
	Registry        *prometheus.Registry
	ApproveOutcomes *prometheus.CounterVec
	SweepPasses     prometheus.Counter
	SweepLaunched   prometheus.Counter
	SweepFailed     prometheus.Counter
	RequestDuration *prometheus.HistogramVec
}

// NewMetrics registers greatbook's metrics, and gauges that read the jobs
// and runs from the database when scraped.
func NewMetrics(pool database.Executor) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		ApproveOutcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "greatbook_approve_outcomes_total",
			Help: "Approvals by outcome: launched, launch_failed, recorded (short of the approval policy's count), conflict (409 duplicate group), invalid (409 state, 422), error."}, []string{"outcome"}),
		SweepPasses:   prometheus.NewCounter(prometheus.CounterOpts{Name: "greatbook_sweep_passes_total", Help: "Sweep passes run by this process."}),
		SweepLaunched: prometheus.NewCounter(prometheus.CounterOpts{Name: "greatbook_sweep_launched_total", Help: "Jobs the sweep launched."}),
		SweepFailed:   prometheus.NewCounter(prometheus.CounterOpts{Name: "greatbook_sweep_failed_total", Help: "Launches by the sweep that failed."}),
		RequestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "greatbook_http_request_duration_seconds",
			Help: "Server time of HTTP requests by route.", Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}},
			[]string{"route", "method", "code"}),
	}
	m.Registry.MustRegister(m.ApproveOutcomes, m.SweepPasses, m.SweepLaunched, m.SweepFailed, m.RequestDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), dbCollector{pool: pool, scope: org.AllOrgs()})
	for _, o := range []string{"launched", "launch_failed", "conflict", "invalid", "error"} {
		m.ApproveOutcomes.WithLabelValues(o)
	}
	return m
}

// The request metric's labels take values from closed sets only, so that
// no request, signed in or not, can add a series: the route is the path
// pattern the request matched ("unmatched" when none), the method one of
// RequestMethods ("other" for any other name a client sends), the code a
// status net/http names ("other" for any other).
var RequestMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}

// requestCodes are the status codes net/http names.
var requestCodes = func() map[int]string {
	m := map[int]string{}
	for code := 100; code < 600; code++ {
		if http.StatusText(code) != "" {
			m[code] = strconv.Itoa(code)
		}
	}
	return m
}()

// RequestLabels returns the request metric's labels for a request: every
// value from a closed set.
func RequestLabels(route, method string, status int) (string, string, string) {
	if route == "" {
		route = "unmatched"
	}
	if !slices.Contains(RequestMethods, method) {
		method = "other"
	}
	code, ok := requestCodes[status]
	if !ok {
		code = "other"
	}
	return route, method, code
}

// RequestSeriesBound is the most series the request metric can hold for a
// server of routes routes: every route and "unmatched", by every method
// and "other", by every code and "other". In practice a route answers a
// handful of codes for the methods it serves, far below the bound.
func RequestSeriesBound(routes int) int {
	return (routes + 1) * (len(RequestMethods) + 1) * (len(requestCodes) + 1)
}

// OrgRegistry is what an org's admin reads on /metrics: the jobs and runs
// of that org only, gathered at scrape time. The process's own metrics
// (request timings, approvals, sweeps) are the instance's, every org's
// together, so they are left out: only an operator or a local scraper
// reads them.
func OrgRegistry(pool database.Executor, orgID int64) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(dbCollector{pool: pool, scope: org.Only(orgID)})
	return r
}

// dbCollector reads jobs by status and runs by state and node at scrape
// time, of the orgs in its scope.
type dbCollector struct {
	pool  database.Executor
	scope org.Scope
}

var (
	jobsDesc = prometheus.NewDesc("greatbook_jobs", "Outbox jobs by status (pending, launched, failed, abandoned, done).", []string{"status"}, nil)
	runsDesc = prometheus.NewDesc("greatbook_runs", "Runs by kind, state and the node they are at.", []string{"kind", "state", "node"}, nil)
)

func (dbCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc; ch <- runsDesc }

func (c dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	counts := map[string]float64{"pending": 0, "launched": 0, "failed": 0, "abandoned": 0, "done": 0}
	var args []any
	if rows, err := c.pool.Query(ctx, fmt.Sprintf(jobsByStatusSQL, c.scope.Where("org_id", &args)), args...); err == nil {
		for rows.Next() {
			var s string
			var n float64
			if rows.Scan(&s, &n) == nil {
				counts[s] = n
			}
		}
		rows.Close()
	}
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, n, s)
	}
	args = nil
	if rows, err := c.pool.Query(ctx, fmt.Sprintf(runsByNodeSQL, c.scope.Where("org_id", &args)), args...); err == nil {
		for rows.Next() {
			var kind, state, node string
			var n float64
			if rows.Scan(&kind, &state, &node, &n) == nil {
				ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, n, kind, state, node)
			}
		}
		rows.Close()
	}
}
