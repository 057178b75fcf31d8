package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
)

// pathID parses a numeric path parameter. Anything else is simply not found.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.New(apperr.NotFound, "not found")
	}
	return id, nil
}

// apiUser returns a user of the caller's org: integrators resolve the actor
// ids of audit data with it. Another org's user is not found.
func (s *Server) apiUser(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u, err := s.auth.UserInOrg(c.Request().Context(), currentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "email": u.Email, "role": u.Role})
}
