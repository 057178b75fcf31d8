package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/web/httpkit"
)

// apiUser returns a user of the caller's org: integrators resolve the actor
// ids of audit data with it. Another org's user is not found.
func (s *Server) apiUser(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u, err := s.auth.UserInOrg(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "email": u.Email, "role": u.Role})
}
