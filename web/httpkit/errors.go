package httpkit

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/views"
)

// statusByCode is the one place where domain error codes become HTTP
// statuses, for full pages, htmx partials and the JSON API alike.
var statusByCode = map[apperr.Code]int{
	apperr.Unauthorized:           http.StatusUnauthorized,
	apperr.Forbidden:              http.StatusForbidden,
	apperr.NotFound:               http.StatusNotFound,
	apperr.TooLarge:               http.StatusRequestEntityTooLarge,
	apperr.UnsupportedMediaType:   http.StatusUnsupportedMediaType,
	apperr.Invalid:                http.StatusUnprocessableEntity,
	apperr.DuplicateGroupConflict: http.StatusConflict,
	apperr.InvalidState:           http.StatusConflict,
	apperr.SourceReplayConflict:   http.StatusConflict,
	apperr.RateLimited:            http.StatusTooManyRequests,
	apperr.Unavailable:            http.StatusServiceUnavailable,
	apperr.Internal:               http.StatusInternalServerError,
}

// Status is the HTTP status of a domain error code: the table's, or 500
// for a code it does not know.
func Status(code apperr.Code) int {
	if status, ok := statusByCode[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

var titleByStatus = map[int]string{
	http.StatusUnauthorized:          "Sign-in needed",
	http.StatusForbidden:             "Not allowed",
	http.StatusNotFound:              "Not found",
	http.StatusMethodNotAllowed:      "Not allowed",
	http.StatusRequestEntityTooLarge: "Too large",
	http.StatusUnsupportedMediaType:  "Unsupported type",
	http.StatusUnprocessableEntity:   "Not accepted",
	http.StatusConflict:              "Conflict",
	http.StatusTooManyRequests:       "Too many attempts",
	http.StatusServiceUnavailable:    "Unavailable",
	http.StatusInternalServerError:   "Something went wrong",
}

// codeByStatus turns errors that Echo raises itself (no route, wrong method,
// body too large) into domain codes.
var codeByStatus = map[int]apperr.Code{
	http.StatusBadRequest:            apperr.Invalid,
	http.StatusUnauthorized:          apperr.Unauthorized,
	http.StatusForbidden:             apperr.Forbidden,
	http.StatusNotFound:              apperr.NotFound,
	http.StatusMethodNotAllowed:      apperr.NotFound,
	http.StatusRequestEntityTooLarge: apperr.TooLarge,
	http.StatusUnsupportedMediaType:  apperr.UnsupportedMediaType,
	http.StatusUnprocessableEntity:   apperr.Invalid,
	http.StatusTooManyRequests:       apperr.RateLimited,
}

// RetryAfter is the Retry-After of every 503: long enough for a
// restarting database to finish its crash recovery, short enough that a
// client does not give up on a blip.
const RetryAfter = "5"

// statusClientClosedRequest is the status logged for a request whose client
// went away before it was answered (nginx's 499; no response reaches it).
const statusClientClosedRequest = 499

// Classify makes a domain error of any error that reaches the handler
// boundary. A
// database that cannot be reached is unavailable (503), whichever handler
// met it and however the domain wrapped it.
func Classify(err error) *apperr.Error {
	e, ok := apperr.As(err)
	if (!ok || e.Code == apperr.Internal) && database.IsUnavailable(err) {
		return apperr.Wrap(err, apperr.Unavailable, "The database is unavailable for a moment. Try again in a few seconds.")
	}
	if ok {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if code, ok := codeByStatus[he.Code]; ok {
			msg := http.StatusText(he.Code)
			if m, ok := he.Message.(string); ok && he.Code != http.StatusInternalServerError {
				msg = m
			}
			if he.Code == http.StatusMethodNotAllowed {
				msg = "Not Found"
			}
			return &apperr.Error{Code: code, Message: msg, Cause: err}
		}
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.Wrap(err, apperr.TooLarge, "the request is larger than the limit of %d bytes", mbe.Limit)
	}
	return apperr.Wrap(err, apperr.Internal, "internal error")
}

// HandleError renders err for whoever asked: JSON for the API, a partial for
// htmx, a full page otherwise. Only 500s are logged as errors, with the
// request id the user sees.
func (b *Base) HandleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := Classify(err)
	status := Status(e.Code)
	requestID := c.Response().Header().Get(echo.HeaderXRequestID)
	if errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
		// The client gave up on the request (a browser cutting a fetch
		// short): no server error, and no one to answer. 499 is the
		// status proxies log for a request the client closed.
		b.Logger.Info("request cancelled by the client", "request_id", requestID, "method", c.Request().Method,
			"path", c.Request().URL.Path, "error", err)
		c.Response().WriteHeader(statusClientClosedRequest)
		return
	}
	message := e.Message
	switch {
	case status == http.StatusServiceUnavailable:
		// Expected while the database restarts: the client retries.
		c.Response().Header().Set("Retry-After", RetryAfter)
		if database.SessionLost(err) {
			// The server ended this session, so it most likely ended the
			// pool's idle ones too: drop them, so that the next request
			// dials afresh instead of meeting another dead connection
			// (connections in use close when they are returned).
			b.App.Pool.Reset()
		}
		b.Logger.Warn("request unavailable", "request_id", requestID, "method", c.Request().Method,
			"path", c.Request().URL.Path, "error", err)
	case status >= 500:
		b.Logger.Error("request failed", "request_id", requestID, "method", c.Request().Method,
			"path", c.Request().URL.Path, "error", err)
		message = "An internal error occurred. Quote the request id when you report it."
	}
	req := c.Request()
	switch {
	case strings.HasPrefix(req.URL.Path, "/api/"):
		body := map[string]any{"code": e.Code, "message": message}
		for k, v := range e.Details {
			body[k] = v
		}
		if status >= 500 {
			body["request_id"] = requestID
		}
		_ = c.JSON(status, map[string]any{"error": body})
	case status == http.StatusUnauthorized && req.Method == http.MethodGet && req.Header.Get("HX-Request") == "" &&
		req.Header.Get(echo.HeaderAuthorization) == "":
		// A person in a browser signs in and comes back; a program that
		// sent credentials (a scraper's token) gets its 401.
		_ = c.Redirect(http.StatusSeeOther, signInURL(req))
	case req.Header.Get("HX-Request") != "":
		if status == http.StatusUnauthorized {
			c.Response().Header().Set("HX-Redirect", signInURL(req))
		}
		p := views.ErrorProps{Status: status, Title: titleByStatus[status], Message: message}
		if status >= 500 {
			p.RequestID = requestID
		}
		_ = Render(c, status, views.ErrorPartial(p))
	default:
		p := views.ErrorProps{Status: status, Title: titleByStatus[status], Message: message}
		if status >= 500 {
			p.RequestID = requestID
		}
		_ = Render(c, status, views.ErrorPage(b.Chrome(c, p.Title, ""), p))
	}
}
