package web

import (
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"mime"
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
// session's synchronizer token, as the X-CSRF-Token header (htmx sends it
// through hx-headers, and it is preferred) or, from a form without the
// script, the form field _csrf. It also refuses requests a browser marks
// as cross-site. Unlike Echo's CSRF middleware it never trusts
// Sec-Fetch-Site alone: any client can send "same-origin".
//
// An anonymous visitor's token (the sign-in form's) is a double-submit one:
// the form's _csrf must match the visitor's anonymous CSRF cookie, so no
// session row is written for it.
//
// Nothing of the body is read before the session (or the anonymous cookie)
// is known to hold a token: a request with neither is refused unread. A
// multipart form is read only from a signed-in session, and then only its
// first part, which must be the token; the rest streams to the handler
// (uploadParts) without being spooled anywhere. A URL-encoded form is
// parsed only once the token is known good, within the route's body limit.
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
		var want string
		if sess != nil {
			want = auth.SessionCSRFToken(sess)
		}
		if want == "" {
			// A visitor without a session: the sign-in form's double-submit
			// token, which must match the cookie that came with it.
			want = s.sessions.AnonymousCSRFToken(req)
		}
		if want == "" {
			return errBadCSRF
		}
		got := req.Header.Get("X-CSRF-Token")
		mediaType, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
		if got == "" {
			var err error
			if got, err = formToken(c, sess, mediaType); err != nil {
				return err
			}
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return errBadCSRF
		}
		if mediaType == echo.MIMEApplicationForm {
			// The token is good: now the form may be read, and a form over
			// the limit is a 413 rather than a form that seems empty.
			if err := req.ParseForm(); err != nil {
				return formError(err)
			}
		}
		return next(c)
	}
}

var errBadCSRF = apperr.New(apperr.Forbidden, "the form has expired or did not come from this site (missing or invalid CSRF token); reload the page and try again")

// maxCSRFField bounds the token read from a form's first part.
const maxCSRFField = 256

// ctxUploadParts holds the multipart reader whose first part (the token)
// checkCSRF consumed.
const ctxUploadParts = "upload-parts"

// formToken reads the token of a form sent without the script. For a
// multipart form only a signed-in session's request is read at all, and only
// its first part, which must be the field _csrf (the upload form puts it
// first); the reader is kept for the handler.
func formToken(c echo.Context, sess *sessions.Session, mediaType string) (string, error) {
	req := c.Request()
	switch mediaType {
	case echo.MIMEApplicationForm:
		if err := req.ParseForm(); err != nil {
			return "", formError(err)
		}
		return req.PostForm.Get("_csrf"), nil
	case echo.MIMEMultipartForm:
		if auth.SessionUserID(sess) == 0 {
			return "", apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		mr, err := req.MultipartReader()
		if err != nil {
			return "", formError(err)
		}
		part, err := mr.NextPart()
		if err != nil {
			return "", formError(err)
		}
		if part.FormName() != "_csrf" {
			return "", nil
		}
		token, err := io.ReadAll(io.LimitReader(part, maxCSRFField))
		if err != nil {
			return "", formError(err)
		}
		c.Set(ctxUploadParts, mr)
		return string(token), nil
	}
	return "", nil
}

// formError classifies a failure to read a form: over the route's body
// limit is 413 too_large, anything else a malformed body (422).
func formError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return toAppError(err)
	}
	return apperr.Wrap(err, apperr.Invalid, "the form cannot be read: its framing or a part's header is malformed")
}

// maxFormBody bounds a browser form's body (everything but the upload).
const maxFormBody = 256 << 10

// bodyLimit is the most a route's request body may hold, by route class:
// documents (the upload limit plus room for a form's framing), the
// browser's upload of up to maxUploadFiles documents, JSON for the rest of
// the API, and small forms for the rest of the browser's routes.
func (s *Server) bodyLimit(route string) int64 {
	document := s.app.Pipeline.MaxBytes() + 64<<10
	switch {
	case route == "/api/v1/documents":
		return document
	case route == "/upload":
		return document * maxUploadFiles
	case strings.HasPrefix(route, "/api/"):
		return maxJSONBody
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

// requireUser lets only signed-in users through.
func requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		return next(c)
	}
}

// requireOrgMember keeps an instance operator out of an org's own pages
// (the desk, documents, the ledger): an operator is no org's member and
// decides no document.
func requireOrgMember(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u != nil && u.IsOperator() {
			return apperr.New(apperr.Forbidden, "an instance operator watches runs and dead letters; documents are for their org's reviewers")
		}
		return next(c)
	}
}

// requireAdminOrOperator lets through an org's admin (their org's runs and
// dead letters) and an instance operator (every org's).
func requireAdminOrOperator(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := currentUser(c)
		if u == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		if !u.IsAdmin() && !u.IsOperator() {
			return apperr.New(apperr.Forbidden, "this needs the admin or operator role")
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
