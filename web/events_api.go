package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/events"
)

// apiEvents is GET /api/v1/events?after=&limit=: the org's event feed from a
// cursor (the beginning without one), in commit order.
func (s *Server) apiEvents(c echo.Context) error {
	limit := 0
	if raw := c.QueryParam("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return invalidField("limit", "must be an integer between 1 and "+strconv.Itoa(events.MaxLimit))
		}
		if n == 0 {
			return invalidField("limit", "must be between 1 and "+strconv.Itoa(events.MaxLimit))
		}
		limit = n
	}
	list, next, err := events.Read(c.Request().Context(), s.pool, currentUser(c).OrgID, c.QueryParam("after"), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"events": list, "next_cursor": next})
}
