package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/web/httpkit"
)

// User returns a user of the caller's org: integrators resolve the actor
// ids of audit data with it. Another org's user is not found.
func (h *Handlers) User(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u, err := h.Auth.UserInOrg(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "email": u.Email, "role": u.Role})
}

// Me tells an API client who its token belongs to.
func (h *Handlers) Me(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "email": u.Email, "role": u.Role, "org": u.OrgSlug})
}
