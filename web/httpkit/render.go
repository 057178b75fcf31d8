package httpkit

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/views"
)

// Render writes a templ component with a status. Components deep in a
// page find the session's CSRF token in the context. The component renders
// into a buffer first (pages are small): a component that fails leaves
// nothing written, so the error handler answers with its status and error
// page instead of a cut-off page with the status already sent.
func Render(c echo.Context, status int, comp templ.Component) error {
	ctx := c.Request().Context()
	if t := CSRFToken(c); t != "" {
		ctx = views.WithCSRF(ctx, t)
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

// Page renders a full page with status 200.
func Page(c echo.Context, comp templ.Component) error { return Render(c, http.StatusOK, comp) }

// Chrome gathers what every full page shows: the user, the CSRF token, the
// one-time flash message.
func (b *Base) Chrome(c echo.Context, title, active string) views.Chrome {
	ch := views.Chrome{Title: title, Active: active, RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}
	if u, ok := c.Get(ctxUser).(*auth.User); ok {
		ch.User = u
		if u.IsAdmin() || u.IsOperator() {
			ch.DeadLetters = b.deadLetterCount(c, u.Scope())
		}
	}
	ch.CSRF = CSRFToken(c)
	if sess := Session(c); sess != nil {
		if f, ok := sess.Values[auth.SessionFlashKey].(string); ok && f != "" {
			ch.Flash = f
			delete(sess.Values, auth.SessionFlashKey)
			_ = sess.Save(c.Request(), c.Response())
		}
	}
	return ch
}

// deadLetterCount is the nav's dead-letter badge: counted on every admin
// page, so it is right after any retry or abandon (an index-only count),
// and up to views.DeadLetterBadgeMax only, so that it costs every page the
// same however many have gathered. A count that fails leaves the badge off
// rather than the page.
func (b *Base) deadLetterCount(c echo.Context, scope org.Scope) int {
	n, err := jobs.CountDeadLettersUpTo(c.Request().Context(), b.Pool, scope, views.DeadLetterBadgeMax)
	if err != nil {
		b.Logger.Warn("web: count dead letters for the nav", "error", err, "request_id", c.Response().Header().Get(echo.HeaderXRequestID))
		return 0
	}
	return n
}

// Flash leaves a one-time message for the next page.
func Flash(c echo.Context, msg string) {
	if sess := Session(c); sess != nil {
		sess.Values[auth.SessionFlashKey] = msg
		_ = sess.Save(c.Request(), c.Response())
	}
}

// IsHTMX reports whether htmx sent the request.
func IsHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") != "" }
