// Package httpkit is what the JSON API (web/api) and the browser's pages
// (web/ui) both stand on: who is asking (a session or an API token) and the
// guards on it, the one table where domain error codes become HTTP statuses
// with the error handler that answers every failure, the rendering of
// pages, and what both serve alike (the pay run's file, the reading of a
// bank statement). It holds no route: web wires them.
package httpkit

import (
	"log/slog"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/database"
	"greatbook/internal/jobs"
)

// Base holds the services the middleware and every handler call: the
// assembled domain services, the sign-in service, the session store and
// the logger. The API's and the pages' handlers embed it.
type Base struct {
	App      *app.App
	Pool     database.Executor
	Auth     *auth.Service
	Sessions *auth.SessionStore
	Logger   *slog.Logger
}

// NewBase builds the sign-in service and the session store over the
// assembled services. Secure says the site is served over TLS: cookies
// become Secure and __Host- prefixed.
func NewBase(a *app.App, logger *slog.Logger, secure bool) *Base {
	return &Base{App: a, Pool: a.Pool, Auth: auth.NewService(a.Pool), Sessions: auth.NewSessionStore(a.Pool, secure), Logger: logger}
}

// CountApprove counts an approval's outcome, whichever door it came through.
func (b *Base) CountApprove(launch *jobs.LaunchOutcome, err error) {
	outcome := "launched"
	switch {
	case apperr.Is(err, apperr.DuplicateGroupConflict):
		outcome = "conflict"
	case apperr.Is(err, apperr.Invalid), apperr.Is(err, apperr.InvalidState):
		outcome = "invalid"
	case err != nil:
		outcome = "error"
	case launch != nil && launch.Outcome == "":
		outcome = "recorded" // an approval short of the policy's count: nothing launched
	case launch != nil && launch.Outcome == "failed":
		outcome = "launch_failed"
	}
	b.App.Metrics.ApproveOutcomes.WithLabelValues(outcome).Inc()
}
