package web

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
)

// Keys of values kept on the echo.Context for one request.
const (
	ctxUser    = "user"
	ctxSession = "session"
)

// currentUser returns the signed-in (or token-authenticated) user.
func currentUser(c echo.Context) *auth.User {
	u, _ := c.Get(ctxUser).(*auth.User)
	return u
}

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
		s.logger.Log(c.Request().Context(), level, "request",
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
			"method", c.Request().Method, "path", c.Request().URL.Path, "route", route,
			"status", status, "duration_ms", time.Since(start).Milliseconds())
		return nil
	}
}

// loadSession attaches the web session and, when signed in, its user.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, err := s.sessions.Get(c.Request(), s.sessions.CookieName())
		if err != nil {
			return err
		}
		c.Set(ctxSession, sess)
		if id := auth.SessionUserID(sess); id != 0 {
			u, err := s.auth.UserByID(c.Request().Context(), id)
			if err == nil {
				c.Set(ctxUser, &u)
			} else if !apperr.Is(err, apperr.Unauthorized) {
				return err
			}
		}
		return next(c)
	}
}

// safeMethod reports whether a method must not change state.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// checkCSRF refuses state-changing browser requests that do not carry the
// session's synchronizer token, as the form field _csrf or, for htmx, the
// X-CSRF-Token header set through hx-headers. It also refuses requests a
// browser marks as cross-site. Unlike Echo's CSRF middleware it never trusts
// Sec-Fetch-Site alone: any client can send "same-origin".
func (s *Server) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if safeMethod(req.Method) {
			return next(c)
		}
		if req.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return apperr.New(apperr.Forbidden, "cross-site requests are refused")
		}
		sess, _ := c.Get(ctxSession).(*sessions.Session)
		want, _ := sess.Values["csrf"].(string)
		got := req.Header.Get("X-CSRF-Token")
		if got == "" {
			// A form without the script: for a multipart upload this parses
			// the form (files over 32 MiB go to temporary files), bounded by
			// limitBodies; the handler then reads the parsed form.
			got = req.FormValue("_csrf")
		}
		if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return apperr.New(apperr.Forbidden, "the form has expired or did not come from this site (missing or invalid CSRF token); reload the page and try again")
		}
		return next(c)
	}
}

// limitBodies bounds request bodies before anything reads them: document
// uploads get the upload limit (many files for the browser's form), every
// other request 1 MiB.
func (s *Server) limitBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body != nil && !safeMethod(req.Method) {
			limit := int64(maxJSONBody)
			switch req.URL.Path {
			case "/api/v1/documents":
				limit = s.app.Pipeline.MaxBytes() + 1<<20
			case "/upload":
				limit = (s.app.Pipeline.MaxBytes() + 1<<20) * maxUploadFiles
			}
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		}
		return next(c)
	}
}

// requireUser lets only signed-in users through.
func requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		return next(c)
	}
}

// requireAdmin lets only admins through.
func requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := currentUser(c)
		if u == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		if !u.IsAdmin() {
			return apperr.New(apperr.Forbidden, "this needs the admin role")
		}
		return next(c)
	}
}

// bearerAuth authenticates /api/v1 calls with an API token.
func (s *Server) bearerAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		token, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || token == "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="greatbook"`)
			return apperr.New(apperr.Unauthorized, "missing bearer token")
		}
		u, err := s.auth.UserForAPIToken(c.Request().Context(), strings.TrimSpace(token))
		if err != nil {
			if apperr.Is(err, apperr.Unauthorized) {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="greatbook", error="invalid_token"`)
			}
			return err
		}
		c.Set(ctxUser, &u)
		return next(c)
	}
}

// signInURL is where an anonymous request is sent, coming back after.
func signInURL(r *http.Request) string {
	next := r.URL.RequestURI()
	if r.Header.Get("HX-Request") != "" {
		if cur := r.Header.Get("HX-Current-URL"); cur != "" {
			if u, err := url.Parse(cur); err == nil {
				next = u.RequestURI()
			}
		}
	}
	return "/signin?next=" + url.QueryEscape(next)
}

// localPath returns p when it is a path on this site, else "/".
func localPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return p
}
