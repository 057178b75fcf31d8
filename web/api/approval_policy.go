package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/org"
	"greatbook/web/httpkit"
)

// ApprovalPolicy is GET /api/v1/approval-policy: the org's approval policy
// (the default when it never set one), for any member of the org.
func (h *Handlers) ApprovalPolicy(c echo.Context) error {
	p, err := org.ApprovalPolicyOf(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

// SetApprovalPolicy is PUT /api/v1/approval-policy (admin): the body is the
// whole policy, as GET answers it; 422 invalid naming each fault.
func (h *Handlers) SetApprovalPolicy(c echo.Context) error {
	var body org.ApprovalPolicy
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	p, err := org.SetApprovalPolicy(c.Request().Context(), h.Pool, u.OrgID, body, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}
