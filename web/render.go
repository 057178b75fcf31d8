package web

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/views"
)

// render writes a templ component with a status. Components deep in a
// page find the session's CSRF token in the context. The component renders
// into a buffer first (pages are small): a component that fails leaves
// nothing written, so the error handler answers with its status and error
// page instead of a cut-off page with the status already sent.
func render(c echo.Context, status int, comp templ.Component) error {
	ctx := c.Request().Context()
	if sess, ok := c.Get(ctxSession).(*sessions.Session); ok {
		if t, ok := sess.Values["csrf"].(string); ok {
			ctx = views.WithCSRF(ctx, t)
		}
	}
	var body bytes.Buffer
	if err := comp.Render(ctx, &body); err != nil {
		return fmt.Errorf("web: render page: %w", err)
	}
	// Every page and fragment shows state that actions change (statuses,
	// the desk's counts): a browser must ask again, also going back.
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.HTMLBlob(status, body.Bytes())
}

// page renders a full page with status 200.
func page(c echo.Context, comp templ.Component) error { return render(c, http.StatusOK, comp) }

// chrome gathers what every full page shows: the user, the CSRF token, the
// one-time flash message.
func (s *Server) chrome(c echo.Context, title, active string) views.Chrome {
	ch := views.Chrome{Title: title, Active: active, RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}
	if u, ok := c.Get(ctxUser).(*auth.User); ok {
		ch.User = u
		if u.IsAdmin() || u.IsOperator() {
			ch.DeadLetters = s.deadLetterCount(c, u.Scope())
		}
	}
	if sess, ok := c.Get(ctxSession).(*sessions.Session); ok {
		if t, ok := sess.Values["csrf"].(string); ok {
			ch.CSRF = t
		}
		if f, ok := sess.Values[auth.SessionFlashKey].(string); ok && f != "" {
			ch.Flash = f
			delete(sess.Values, auth.SessionFlashKey)
			_ = sess.Save(c.Request(), c.Response())
		}
	}
	return ch
}

// deadLetterCount is the nav's dead-letter badge: counted on every admin
// page, so it is right after any retry or abandon (an index-only count on
// jobs_dead_letters_idx). A count that fails leaves the badge off rather
// than the page.
func (s *Server) deadLetterCount(c echo.Context, scope org.Scope) int {
	n, err := jobs.CountDeadLettersIn(c.Request().Context(), s.pool, scope, jobs.DeadLetterFilter{})
	if err != nil {
		s.logger.Warn("web: count dead letters for the nav", "error", err, "request_id", c.Response().Header().Get(echo.HeaderXRequestID))
		return 0
	}
	return n
}

// flash leaves a one-time message for the next page.
func flash(c echo.Context, msg string) {
	if sess, ok := c.Get(ctxSession).(*sessions.Session); ok {
		sess.Values[auth.SessionFlashKey] = msg
		_ = sess.Save(c.Request(), c.Response())
	}
}

// isHTMX reports whether htmx sent the request.
func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") != "" }
