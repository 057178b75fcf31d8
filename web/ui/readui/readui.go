// Package readui is the browser's pages over the text reading of PDFs and
// images without e-invoice data: the image of a read page, on which the
// type-in form draws where each field was read, and the admin's page of the
// suppliers' learned layouts. Like web/ui it stands on web/httpkit, renders
// the templ components of views, and leaves its routes to web.
package readui

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/reading"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// Handlers answers the reading pages' routes over the shared services.
type Handlers struct {
	*httpkit.Base
}

// New returns the reading pages' handlers over base.
func New(base *httpkit.Base) *Handlers { return &Handlers{Base: base} }

// pageDPI is the resolution of a read page's image: about a screen's
// width for an A4 page, sharp enough to check a figure against.
const pageDPI = 110

// PageImage is page n of a document read from its text, as a PNG; 404 for
// a document not read so, or a page it does not have.
func (h *Handlers) PageImage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 {
		return apperr.New(apperr.NotFound, "no page %q", c.Param("n"))
	}
	img, err := h.App.Readings.PageImage(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id, n, pageDPI)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "private, max-age=300")
	return c.Blob(http.StatusOK, "image/png", img)
}

// LayoutsPage is the admin's page of the org's learned layouts.
func (h *Handlers) LayoutsPage(c echo.Context) error {
	return h.renderLayouts(c, http.StatusOK, nil)
}

func (h *Handlers) renderLayouts(c echo.Context, status int, out *views.LayoutsOutcome) error {
	ls, err := h.App.Readings.Layouts(c.Request().Context(), httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	v := views.LayoutsView{Layouts: ls, Outcome: out}
	if httpkit.IsHTMX(c) {
		return httpkit.Render(c, status, views.LayoutsSection(v))
	}
	return httpkit.Render(c, status, views.LayoutsPage(h.Chrome(c, "Learned layouts", "layouts"), v))
}

// ForgetLayout forgets one layout: its supplier's next invoice is read at
// first sight again.
func (h *Handlers) ForgetLayout(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	name := fmt.Sprintf("layout %d", id)
	if l, err := reading.GetLayout(ctx, h.Pool, u.OrgID, id); err == nil {
		name = "the layout of " + views.ShowBidiControls(cmp.Or(l.SupplierName, l.SupplierKey))
	}
	err = h.App.Readings.Forget(ctx, u.OrgID, id, u.Actor())
	return h.changed(c, err, "Forgot "+name+": the supplier's next invoice is read at first sight.")
}

// ResetLayouts forgets every layout of the org.
func (h *Handlers) ResetLayouts(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	n, err := h.App.Readings.Reset(c.Request().Context(), u.OrgID, u.Actor())
	return h.changed(c, err, fmt.Sprintf("Forgot every layout (%d): every supplier's next invoice is read at first sight.", n))
}

// changed answers a change of the layouts: with htmx the table again and
// what was done, or why not; without, back to the page (post, redirect,
// get) with what was done in the flash.
func (h *Handlers) changed(c echo.Context, err error, done string) error {
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.NotFound {
			return err
		}
		return h.renderLayouts(c, httpkit.Status(e.Code), &views.LayoutsOutcome{Message: e.Message})
	}
	if !httpkit.IsHTMX(c) {
		httpkit.Flash(c, done)
		return c.Redirect(http.StatusSeeOther, "/admin/layouts")
	}
	return h.renderLayouts(c, http.StatusOK, &views.LayoutsOutcome{Done: true, Message: done})
}
