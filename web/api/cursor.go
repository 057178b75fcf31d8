package api

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/storable"
)

// The API's listings page by an opaque cursor: base64url of the listing's
// name and its keyset position, so that a cursor of one listing is refused
// by another and a client never builds one by hand.

// encodeCursor is the cursor of a keyset position of listing.
func encodeCursor(listing string, position ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(listing + "\n" + strings.Join(position, "\n")))
}

// decodeCursor reads a cursor encodeCursor made for listing into its n
// parts; anything else is a 422 naming the parameter cursor.
func decodeCursor(listing, cursor string, n int) ([]string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(raw), "\n")
	if err != nil || len(parts) != n+1 || parts[0] != listing {
		return nil, invalidParam("cursor", "is not a cursor this listing gave (pass next_cursor as it came)")
	}
	return parts[1:], nil
}

// invalidParam is the 422 for a bad query parameter, named in the message
// and in the "parameter" detail.
func invalidParam(name, problem string) error {
	return apperr.New(apperr.Invalid, "the parameter %s %s", name, problem).With("parameter", name)
}

// nameParameter adds the "parameter" detail to a refusal of query
// parameters that names them only in its reasons (storable.CheckParameters).
func nameParameter(err error) error {
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.Invalid || e.Details["parameter"] != nil {
		return err
	}
	if reasons, ok := e.Details["reasons"].([]storable.Reason); ok && len(reasons) > 0 {
		return e.With("parameter", reasons[0].Field)
	}
	return err
}

// queryParams checks a listing's query string: well formed, every
// parameter given at most once and, when known is not nil, one the route
// knows (a typo never passes silently). Routes that took any parameter
// before they were listings pass nil, so that no client they served breaks.
func queryParams(c echo.Context, known []string) (url.Values, error) {
	raw := c.Request().URL.RawQuery
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, malformedQuery(raw)
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names) // the same answer every time
	for _, name := range names {
		switch {
		case known != nil && !slices.Contains(known, name):
			return nil, invalidParam(name, "is not known here; known: "+strings.Join(known, ", "))
		case len(v[name]) > 1:
			return nil, invalidParam(name, "is given more than once")
		}
	}
	return v, nil
}

// malformedQuery names the first parameter of a query string that is not
// URL-encoded (its name as far as it can be read).
func malformedQuery(raw string) error {
	for pair := range strings.SplitSeq(raw, "&") {
		key, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(key)
		if err != nil {
			return invalidParam(key, "is not URL-encoded")
		}
		if strings.Contains(pair, ";") {
			name, _, _ = strings.Cut(name, ";")
			return invalidParam(name, "holds a semicolon; separate parameters with &")
		}
		if _, err := url.QueryUnescape(value); err != nil {
			return invalidParam(name, "is not URL-encoded")
		}
	}
	return apperr.New(apperr.Invalid, "the query string is not URL-encoded")
}

// limitParam reads a page size: default def, 1 to max.
func limitParam(v url.Values, def, max int) (int, error) {
	s := v.Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		return 0, invalidParam("limit", "must be a whole number from 1 to "+strconv.Itoa(max))
	}
	return n, nil
}

// timeParam reads a date (YYYY-MM-DD, the start of that day in UTC) or an
// RFC 3339 timestamp.
func timeParam(v url.Values, name string) (t time.Time, dateOnly bool, err error) {
	s := v.Get(name)
	if s == "" {
		return time.Time{}, false, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, invalidParam(name, "must be a date (2026-11-30) or an RFC 3339 timestamp (2026-11-30T12:00:00Z)")
}

// nextCursor is the JSON of a next cursor: null on the last page.
func nextCursor(c string) any {
	if c == "" {
		return nil
	}
	return c
}
