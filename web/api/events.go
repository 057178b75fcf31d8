package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/events"
	"greatbook/web/httpkit"
)

// Events is GET /api/v1/events?after=&limit=: the org's event feed from a
// cursor (the beginning without one), in transaction order (see
// events.Read). Like the listings it refuses unknown or repeated
// parameters, naming the parameter: a listing's "cursor" sent here must not
// quietly restart the feed from the beginning.
func (h *Handlers) Events(c echo.Context) error {
	v, err := queryParams(c, []string{"after", "limit"})
	if err != nil {
		return err
	}
	limit, err := limitParam(v, events.DefaultLimit, events.MaxLimit)
	if err != nil {
		return err
	}
	list, next, err := events.Read(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, v.Get("after"), limit)
	if e, ok := apperr.As(err); ok && e.Code == apperr.Invalid {
		// limit was checked above: what Read refuses is the cursor.
		return e.With("parameter", "after")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"events": list, "next_cursor": next})
}
