package httpkit

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
)

// Keys of values kept on the echo.Context for one request.
const (
	ctxUser    = "user"
	ctxSession = "session"
	// ctxUploadParts holds the multipart reader whose first part (the
	// token) CheckCSRF consumed.
	ctxUploadParts = "upload-parts"
)

// CurrentUser returns the signed-in (or token-authenticated) user.
func CurrentUser(c echo.Context) *auth.User {
	u, _ := c.Get(ctxUser).(*auth.User)
	return u
}

// Session returns the browser's session that LoadSession attached.
func Session(c echo.Context) *sessions.Session {
	sess, _ := c.Get(ctxSession).(*sessions.Session)
	return sess
}

// CSRFToken is the session's CSRF token, for a fragment's forms (without
// taking the flash that Chrome would).
func CSRFToken(c echo.Context) string {
	if sess := Session(c); sess != nil {
		if t, ok := sess.Values["csrf"].(string); ok {
			return t
		}
	}
	return ""
}

// UploadParts is the multipart reader of a form sent without the script,
// whose first part (the token) CheckCSRF read; nil for any other request.
func UploadParts(c echo.Context) *multipart.Reader {
	mr, _ := c.Get(ctxUploadParts).(*multipart.Reader)
	return mr
}

// PathID parses a numeric path parameter. Anything else is simply not found.
func PathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.New(apperr.NotFound, "not found")
	}
	return id, nil
}

// ReadLimited reads an uploaded document of at most limit bytes; a longer
// one is too large.
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, Classify(err)
	}
	if int64(len(b)) > limit {
		return nil, apperr.New(apperr.TooLarge, "the document is larger than the limit of %d bytes", limit)
	}
	return b, nil
}

// FormError classifies a failure to read a form: over the route's body
// limit is 413 too_large, anything else a malformed body (422).
func FormError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return Classify(err)
	}
	return apperr.Wrap(err, apperr.Invalid, "the form cannot be read: its framing or a part's header is malformed")
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

// LocalPath returns p when it is a path on this site, else "/".
func LocalPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return p
}
