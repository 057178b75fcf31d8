package ui

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/org"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// OrgSettings is the admin's page of the org's settings.
func (h *Handlers) OrgSettings(c echo.Context) error {
	return h.renderOrgSettings(c, http.StatusOK, nil)
}

// renderOrgSettings shows the settings as stored; edit, when not nil,
// replaces a form's values by what was typed (with its errors).
func (h *Handlers) renderOrgSettings(c echo.Context, status int, edit func(*views.OrgSettingsProps)) error {
	ctx, orgID := c.Request().Context(), httpkit.CurrentUser(c).OrgID
	st, err := org.ReadSettings(ctx, h.Pool, orgID)
	if err != nil {
		return err
	}
	policy, err := org.ApprovalPolicyOf(ctx, h.Pool, orgID)
	if err != nil {
		return err
	}
	id := st.Org.Identity
	p := views.OrgSettingsProps{LegalName: id.LegalName, VATID: id.VATID, MaxIssueAgeMonths: id.MaxIssueAgeMonths, Address: id.Address,
		BaseCurrency: st.Org.BaseCurrency, DefaultExpenseAccount: st.Org.DefaultExpenseAccount, BankIBAN: st.Org.BankIBAN, BankBIC: st.Org.BankBIC,
		ExpenseAccounts: st.ExpenseAccounts, Rates: st.Rates,
		Policy: approvalPolicyForm(policy)}
	if edit != nil {
		edit(&p)
	}
	return httpkit.Render(c, status, views.OrgSettingsPage(h.Chrome(c, "Org settings", "org"), p))
}

// SaveOrgSettings sets the org's identity (audited); a value out of bounds
// shows the form again with what was wrong, and the values as typed.
func (h *Handlers) SaveOrgSettings(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	months, err := strconv.Atoi(strings.TrimSpace(c.FormValue("max_issue_age_months")))
	if err != nil {
		months = -1 // not a number: SetIdentity says what is allowed
	}
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	id := org.Identity{LegalName: c.FormValue("legal_name"), VATID: c.FormValue("vat_id"), MaxIssueAgeMonths: months,
		Address: org.Address{Lines: form["address_line"], City: c.FormValue("city"), Postcode: c.FormValue("postcode"), Country: c.FormValue("country")}}
	if _, err := org.SetIdentity(c.Request().Context(), h.Pool, u.OrgID, id, u.Actor()); err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.Invalid {
			return err
		}
		return h.renderOrgSettings(c, httpkit.Status(e.Code), func(p *views.OrgSettingsProps) {
			p.LegalName, p.VATID, p.MaxIssueAgeMonths, p.Address, p.Error = id.LegalName, id.VATID, max(months, 0), id.Address, e.Message
		})
	}
	httpkit.Flash(c, "Org settings saved: the AP checks compare documents with them from now on.")
	return c.Redirect(http.StatusSeeOther, "/admin/org")
}

// SetDefaultExpenseAccount sets the account a bill goes to when no
// supplier rule names one.
func (h *Handlers) SetDefaultExpenseAccount(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	o, err := org.SetDefaultExpenseAccount(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("account"), u.Actor())
	done := "Default expense account cleared: the bookkeeper asks for bills no supplier rule covers."
	if o.DefaultExpenseAccount != "" {
		done = "Default expense account set: bills no supplier rule covers go to " + o.DefaultExpenseAccount + " from now on."
	}
	return h.orgSettingChanged(c, err, done)
}

// SetBankAccount sets the org's own bank account, the debtor of its pay
// runs; an empty IBAN clears it.
func (h *Handlers) SetBankAccount(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	o, err := org.SetBankAccount(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("bank_iban"), c.FormValue("bank_bic"), u.Actor())
	done := "Bank account cleared: pay runs cannot be proposed until one is set."
	if o.BankIBAN != "" {
		done = "Bank account set: pay runs pay from " + o.BankIBAN + "."
	}
	return h.orgSettingChanged(c, err, done)
}

// SetBaseCurrency changes the base currency while the ledger is empty.
func (h *Handlers) SetBaseCurrency(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	o, err := org.SetBaseCurrency(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("base_currency"), u.Actor())
	return h.orgSettingChanged(c, err, "Base currency: "+o.BaseCurrency+".")
}

// ChangeExchangeRate changes a remembered exchange rate.
func (h *Handlers) ChangeExchangeRate(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	err := org.ChangeExchangeRate(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("currency"), c.FormValue("date"), c.FormValue("rate"), u.Actor())
	return h.orgSettingChanged(c, err, "Rate changed: bills posted from now on use it.")
}

// ForgetExchangeRate forgets a remembered exchange rate.
func (h *Handlers) ForgetExchangeRate(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	err := org.ForgetExchangeRate(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("currency"), c.FormValue("date"), u.Actor())
	return h.orgSettingChanged(c, err, "Rate forgotten: the bookkeeper asks again for that currency and day.")
}

// orgSettingChanged answers a change of a setting: back to the page with
// what was done, or the page again with why not and its status.
func (h *Handlers) orgSettingChanged(c echo.Context, err error, done string) error {
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code == apperr.Internal || e.Code == apperr.Unavailable {
			return err
		}
		return h.renderOrgSettings(c, httpkit.Status(e.Code), func(p *views.OrgSettingsProps) { p.Refusal = e.Message })
	}
	httpkit.Flash(c, done)
	return c.Redirect(http.StatusSeeOther, "/admin/org")
}
