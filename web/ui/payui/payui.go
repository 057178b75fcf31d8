// Package payui is the browser's pages for paying suppliers: the pay runs
// (proposed, approved, downloaded as a pain.001 file or cancelled, and the
// four-eyes confirmation of a supplier's account), the desk's tab of the
// invoices due this week, and the bank statements that reconcile the runs.
// Like web/ui it stands on web/httpkit, renders the templ components of
// views, and leaves its routes to web.
package payui

import "greatbook/web/httpkit"

// Handlers answers the payment pages' routes over the shared services.
type Handlers struct {
	*httpkit.Base
}

// New returns the payment pages' handlers over base.
func New(base *httpkit.Base) *Handlers { return &Handlers{Base: base} }
