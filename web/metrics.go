package web

import (
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/web/httpkit"
)

// metricsObserve records a request's server time by route, with labels
// from closed sets only (app.RequestLabels).
func (s *Server) metricsObserve(route, method string, status int, d time.Duration) {
	s.base.App.Metrics.RequestDuration.WithLabelValues(app.RequestLabels(route, method, status)).Observe(d.Seconds())
}

// metrics serves Prometheus metrics. A reader with credentials (a session
// or an API token) sees what their role allows, wherever they read from:
// an instance operator the whole instance, an org's admin their org's jobs
// and runs only (app.OrgRegistry), anyone else nothing. A request without
// credentials is served the whole instance only when it comes straight
// from this machine (a local scraper): a request that came through a proxy
// is not a local scraper, even though it arrives from loopback: behind a
// proxy (Options.BehindProxy, or proxy headers) it must sign in.
func (s *Server) metrics(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	if u == nil && strings.HasPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ") {
		tok := strings.TrimPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		if found, err := s.base.Auth.UserForAPIToken(c.Request().Context(), tok); err == nil {
			u = &found
		}
	}
	registry := s.base.App.Metrics.Registry
	switch {
	case u == nil && s.localScraper(c.Request()):
	case u == nil:
		return apperr.New(apperr.Unauthorized, "sign in to read the metrics")
	case u.IsOperator():
	case u.IsAdmin():
		registry = app.OrgRegistry(s.base.Pool, u.OrgID)
	default:
		return apperr.New(apperr.Forbidden, "the metrics are for admins and operators")
	}
	promhttp.HandlerFor(registry, promhttp.HandlerOpts{}).ServeHTTP(c.Response(), c.Request())
	return nil
}

// localScraper reports whether a request comes straight from this machine:
// from loopback, with no proxy in between.
func (s *Server) localScraper(r *http.Request) bool {
	if s.opts.BehindProxy {
		return false
	}
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
