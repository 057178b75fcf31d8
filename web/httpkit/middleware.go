package httpkit

import (
	"crypto/subtle"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
)

// LoadSession attaches the web session and, when signed in, its user.
func (b *Base) LoadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, err := b.Sessions.Get(c.Request(), b.Sessions.CookieName())
		if err != nil {
			return err
		}
		c.Set(ctxSession, sess)
		if id := auth.SessionUserID(sess); id != 0 {
			u, err := b.Auth.UserByID(c.Request().Context(), id)
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

// CheckCSRF refuses state-changing browser requests that do not carry the
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
// (UploadParts) without being spooled anywhere. A URL-encoded form is
// parsed only once the token is known good, within the route's body limit.
func (b *Base) CheckCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if safeMethod(req.Method) {
			return next(c)
		}
		if req.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return apperr.New(apperr.Forbidden, "cross-site requests are refused")
		}
		sess := Session(c)
		var want string
		if sess != nil {
			want = auth.SessionCSRFToken(sess)
		}
		if want == "" {
			// A visitor without a session: the sign-in form's double-submit
			// token, which must match the cookie that came with it.
			want = b.Sessions.AnonymousCSRFToken(req)
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
				return FormError(err)
			}
		}
		return next(c)
	}
}

var errBadCSRF = apperr.New(apperr.Forbidden, "the form has expired or did not come from this site (missing or invalid CSRF token); reload the page and try again")

// maxCSRFField bounds the token read from a form's first part.
const maxCSRFField = 256

// formToken reads the token of a form sent without the script. For a
// multipart form only a signed-in session's request is read at all, and only
// its first part, which must be the field _csrf (the upload form puts it
// first); the reader is kept for the handler.
func formToken(c echo.Context, sess *sessions.Session, mediaType string) (string, error) {
	req := c.Request()
	switch mediaType {
	case echo.MIMEApplicationForm:
		if err := req.ParseForm(); err != nil {
			return "", FormError(err)
		}
		return req.PostForm.Get("_csrf"), nil
	case echo.MIMEMultipartForm:
		if auth.SessionUserID(sess) == 0 {
			return "", apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		mr, err := req.MultipartReader()
		if err != nil {
			return "", FormError(err)
		}
		part, err := mr.NextPart()
		if err != nil {
			return "", FormError(err)
		}
		if part.FormName() != "_csrf" {
			return "", nil
		}
		token, err := io.ReadAll(io.LimitReader(part, maxCSRFField))
		if err != nil {
			return "", FormError(err)
		}
		c.Set(ctxUploadParts, mr)
		return string(token), nil
	}
	return "", nil
}

// RequireUser lets only signed-in users through.
func RequireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if CurrentUser(c) == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		return next(c)
	}
}

// RequireOrgMember keeps an instance operator out of an org's own pages
// (the desk, documents, the ledger): an operator is no org's member and
// decides no document.
func RequireOrgMember(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := CurrentUser(c); u != nil && u.IsOperator() {
			return apperr.New(apperr.Forbidden, "an instance operator watches runs and dead letters; documents are for their org's reviewers")
		}
		return next(c)
	}
}

// RequireAdminOrOperator lets through an org's admin (their org's runs and
// dead letters) and an instance operator (every org's).
func RequireAdminOrOperator(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := CurrentUser(c)
		if u == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		if !u.IsAdmin() && !u.IsOperator() {
			return apperr.New(apperr.Forbidden, "this needs the admin or operator role")
		}
		return next(c)
	}
}

// RequireAdmin lets only admins through.
func RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := CurrentUser(c)
		if u == nil {
			return apperr.New(apperr.Unauthorized, "sign in to continue")
		}
		if !u.IsAdmin() {
			return apperr.New(apperr.Forbidden, "this needs the admin role")
		}
		return next(c)
	}
}

// BearerAuth authenticates /api/v1 calls with an API token.
func (b *Base) BearerAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		token, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || token == "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="greatbook"`)
			return apperr.New(apperr.Unauthorized, "missing bearer token")
		}
		u, err := b.Auth.UserForAPIToken(c.Request().Context(), strings.TrimSpace(token))
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
