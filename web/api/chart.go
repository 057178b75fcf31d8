package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/chart"
	"greatbook/web/httpkit"
)

// CreateAccount is POST /api/v1/accounts (admin): 201 the account created,
// 200 the account when the identical one exists, 409 invalid_state when its
// code exists with another name or type.
func (h *Handlers) CreateAccount(c echo.Context) error {
	var body chart.NewAccount
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	a, created, err := chart.CreateAccount(c.Request().Context(), h.Pool, u.OrgID, body, u.Actor())
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, a)
}

// Dimensions is GET /api/v1/dimensions: the org's dimensions with their
// values, for any member of the org.
func (h *Handlers) Dimensions(c echo.Context) error {
	ds, err := chart.Dimensions(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"dimensions": ds})
}

// PutDimension is PUT /api/v1/dimensions/{name} (admin): creates the
// dimension if the org lacks it and sets the values listed; values not
// listed keep their state. 200 the dimension with all its values.
func (h *Handlers) PutDimension(c echo.Context) error {
	var body struct {
		Values []chart.ValueChange `json:"values"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	d, err := chart.PutValues(c.Request().Context(), h.Pool, u.OrgID, c.Param("name"), body.Values, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}
