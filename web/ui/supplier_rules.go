package ui

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/bookkeeper"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// SupplierRules is the admin's page of remembered supplier rules.
func (h *Handlers) SupplierRules(c echo.Context) error {
	return h.renderSupplierRules(c, http.StatusOK, "")
}

func (h *Handlers) renderSupplierRules(c echo.Context, status int, problem string) error {
	p, err := bookkeeper.ReadSupplierRules(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.SupplierRulesPage(h.Chrome(c, "Supplier rules", "supplier-rules"),
		views.SupplierRulesProps{Rules: p.Rules, Accounts: p.Accounts, Error: problem}))
}

// ChangeSupplierRule books a supplier's future costs to another account.
func (h *Handlers) ChangeSupplierRule(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	err := bookkeeper.ChangeSupplierRule(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("supplier_key"), c.FormValue("account"), u.Actor())
	return h.ruleChanged(c, err, "Rule changed: the next bill of "+bookkeeper.DescribeSupplier(c.FormValue("supplier_key"))+" goes to "+c.FormValue("account")+".")
}

// ForgetSupplierRule forgets a supplier's rule.
func (h *Handlers) ForgetSupplierRule(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	err := bookkeeper.ForgetSupplierRule(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("supplier_key"), u.Actor())
	return h.ruleChanged(c, err, "Rule forgotten: the bookkeeper asks again for "+bookkeeper.DescribeSupplier(c.FormValue("supplier_key"))+".")
}

// ruleChanged answers a change of a rule: back to the list with what was
// done, or the list again with why not.
func (h *Handlers) ruleChanged(c echo.Context, err error, done string) error {
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code == apperr.Internal || e.Code == apperr.Unavailable {
			return err
		}
		return h.renderSupplierRules(c, httpkit.Status(e.Code), e.Message)
	}
	httpkit.Flash(c, done)
	return c.Redirect(http.StatusSeeOther, "/admin/supplier-rules")
}
