package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/chart"
	"greatbook/web/api"
	"greatbook/web/ui"
)

// logRequests writes one structured line per request.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelWarn
		}
		route := c.Path()
		s.metricsObserve(route, c.Request().Method, status, time.Since(start))
		if strings.HasPrefix(c.Request().URL.Path, "/static/") {
			return nil
		}
		s.base.Logger.Log(c.Request().Context(), level, "request",
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
			"method", c.Request().Method, "path", c.Request().URL.Path, "route", route,
			"status", status, "duration_ms", time.Since(start).Milliseconds())
		return nil
	}
}

// maxFormBody bounds a browser form's body (everything but the upload).
const maxFormBody = 256 << 10

// bodyLimit is the most a route's request body may hold, by route class:
// documents (the upload limit plus room for a form's framing), the
// browser's upload of up to ui.MaxUploadFiles documents, a bank statement
// (through the API, or the page's form with room for its framing), JSON
// for the rest of the API, and small forms for the rest of the browser's
// routes.
func (s *Server) bodyLimit(route string) int64 {
	document := s.base.App.Pipeline.MaxBytes() + 64<<10
	switch {
	case route == "/api/v1/documents":
		return document
	case route == "/upload":
		return document * ui.MaxUploadFiles
	case route == "/api/v1/bank-statements":
		return api.MaxStatementBody
	case route == "/bank-statements":
		return api.MaxStatementBody + 64<<10
	case route == "/admin/accounts/import" || route == "/admin/dimensions/import":
		return chart.MaxImportBytes + 64<<10
	case strings.HasPrefix(route, "/api/"):
		return api.MaxJSONBody
	}
	return maxFormBody
}

// limitBodies bounds request bodies by the route's class before anything
// reads them: a declared length over the limit is refused unread, and a
// body that turns out longer ends its reader with a 413.
func (s *Server) limitBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		limit := s.bodyLimit(c.Path())
		if req.ContentLength > limit {
			c.Response().Header().Set(echo.HeaderConnection, "close")
			return apperr.New(apperr.TooLarge, "the request is larger than the limit of %d bytes", limit)
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		return next(c)
	}
}
