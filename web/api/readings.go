package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/reading"
	"greatbook/web/httpkit"
)

// Reading is GET /api/v1/intake/{id}/reading: what the text reading of a
// PDF or an image without e-invoice data found, each field with its
// confidence and its place on the page; 404 for a document not read from
// its text.
func (h *Handlers) Reading(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	r, err := h.App.Readings.Get(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

// layoutView is a learned layout as the API shows it.
type layoutView struct {
	reading.Layout
	Fields []string `json:"fields"`
}

// Layouts is GET /api/v1/layouts (admin): the suppliers' layouts the org
// has learned, newest first.
func (h *Handlers) Layouts(c echo.Context) error {
	ls, err := h.App.Readings.Layouts(c.Request().Context(), httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	out := make([]layoutView, 0, len(ls))
	for _, l := range ls {
		out = append(out, layoutView{Layout: l, Fields: l.FieldNames()})
	}
	return c.JSON(http.StatusOK, map[string]any{"layouts": out})
}

// ForgetLayout is DELETE /api/v1/layouts/{id} (admin): the supplier's next
// invoice is read at first sight again. 204.
func (h *Handlers) ForgetLayout(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	if err := h.App.Readings.Forget(c.Request().Context(), u.OrgID, id, u.Actor()); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// ResetLayouts is DELETE /api/v1/layouts (admin): forget every layout of
// the org. 200 with how many were forgotten.
func (h *Handlers) ResetLayouts(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	n, err := h.App.Readings.Reset(c.Request().Context(), u.OrgID, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int64{"forgotten": n})
}
