// Package ui is the browser's face: full pages, the htmx partials that swap
// a region of them, and the forms they post. Handlers parse the request,
// call one domain function and render a templ component of views. web
// wires the routes with the session, CSRF and role guards of web/httpkit,
// whose error handler answers every failure with an error page or partial.
// The pages for paying suppliers are a package of their own, web/ui/payui.
package ui

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/web/httpkit"
)

// Handlers answers the browser's routes over the shared services.
type Handlers struct {
	*httpkit.Base
}

// New returns the pages' handlers over base.
func New(base *httpkit.Base) *Handlers { return &Handlers{Base: base} }

// Home sends a signed-in user to where their work is: an instance operator
// to the runs, anyone else to the desk.
func (h *Handlers) Home(c echo.Context) error {
	if u := httpkit.CurrentUser(c); u != nil && u.IsOperator() {
		return c.Redirect(http.StatusSeeOther, "/admin/runs")
	}
	return c.Redirect(http.StatusSeeOther, "/desk")
}
