package web

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"greatbook/internal/apperr"
	"greatbook/internal/intake"
)

// metricsObserve records a request's server time by route.
func (s *Server) metricsObserve(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	s.app.Metrics.RequestDuration.WithLabelValues(route, method, strconv.Itoa(status)).Observe(d.Seconds())
}

// countApprove counts an approval's outcome.
func (s *Server) countApprove(launch *intake.LaunchOutcome, err error) {
	outcome := "launched"
	switch {
	case apperr.Is(err, apperr.DuplicateGroupConflict):
		outcome = "conflict"
	case err != nil:
		outcome = "invalid"
	case launch != nil && launch.Outcome == "failed":
		outcome = "launch_failed"
	}
	s.app.Metrics.ApproveOutcomes.WithLabelValues(outcome).Inc()
}

// metrics serves Prometheus metrics to this machine (a scraper on
// loopback), and otherwise to admins only (session or API token).
func (s *Server) metrics(c echo.Context) error {
	host, _, _ := net.SplitHostPort(c.Request().RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		u := currentUser(c)
		if u == nil && strings.HasPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ") {
			tok := strings.TrimPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
			if found, err := s.auth.UserForAPIToken(c.Request().Context(), tok); err == nil {
				u = &found
			}
		}
		if u == nil {
			return apperr.New(apperr.Unauthorized, "sign in to read the metrics")
		}
		if !u.IsAdmin() {
			return apperr.New(apperr.Forbidden, "the metrics are for admins")
		}
	}
	promhttp.HandlerFor(s.app.Metrics.Registry, promhttp.HandlerOpts{}).ServeHTTP(c.Response(), c.Request())
	return nil
}
