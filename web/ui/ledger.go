package ui

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/bookkeeper"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// LedgerPage lists the org's journal entries, filtered as the query says.
func (h *Handlers) LedgerPage(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	f := views.LedgerFilter{SourceType: c.QueryParam("source_type"), SourceID: c.QueryParam("source_id"),
		Account: c.QueryParam("account"), From: c.QueryParam("from"), To: c.QueryParam("to")}
	entries, err := ledger.List(ctx, h.Pool, u.OrgID, ledger.Filter{SourceType: f.SourceType, SourceID: f.SourceID,
		Account: f.Account, From: f.From, To: f.To, Limit: 200})
	if err != nil {
		return err
	}
	accounts, err := ledger.Accounts(ctx, h.Pool, u.OrgID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.LedgerPage(h.Chrome(c, "Ledger", "ledger"), views.LedgerPageProps{Filter: f, Entries: entries, Accounts: accounts}))
}

// EntryPage is a journal entry with the rate it was posted at and the rule
// that chose its account.
func (h *Handlers) EntryPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := ledger.Get(ctx, h.Pool, httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	rate, _, err := ledger.RateOf(ctx, h.Pool, e)
	if err != nil {
		return err
	}
	choice, err := bookkeeper.ChoiceForEntry(ctx, h.Pool, e.OrgID, e.ID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.EntryPage(h.Chrome(c, "Entry "+strconv.FormatInt(id, 10), "ledger"), e, rate, choice))
}

// ReverseEntry is the reversal form's two steps: with a reason it asks for
// confirmation; confirmed, it posts the reversal.
func (h *Handlers) ReverseEntry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	reason := c.FormValue("reason")
	if c.FormValue("confirm") == "yes" {
		if err := ledger.NeedReversalReason(reason); err != nil {
			return err
		}
		res, err := ledger.Reverse(ctx, h.App.Pool, u.OrgID, id, ledger.Reversal{Reason: reason, Actor: u.Actor()})
		if err != nil {
			return err
		}
		httpkit.Flash(c, "Reversal posted as entry "+strconv.FormatInt(res.Entry.ID, 10)+".")
		return c.Redirect(http.StatusSeeOther, "/ledger/entries/"+strconv.FormatInt(res.Entry.ID, 10))
	}
	e, err := ledger.Get(ctx, h.Pool, u.OrgID, id)
	if err != nil {
		return err
	}
	status, problem := http.StatusOK, ""
	if err := ledger.NeedReversalReason(reason); err != nil {
		status, problem = http.StatusUnprocessableEntity, httpkit.Classify(err).Message
	}
	return httpkit.Render(c, status, views.ReverseConfirmPage(h.Chrome(c, "Reverse entry "+strconv.FormatInt(id, 10), "ledger"), e, reason, problem))
}

// TrialBalancePage is the trial balance as of the query's date (every date
// when it names none).
func (h *Handlers) TrialBalancePage(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	asOf := c.QueryParam("as_of")
	rows, err := ledger.TrialBalance(ctx, h.Pool, u.OrgID, asOf)
	if err != nil {
		return err
	}
	o, err := org.ByID(ctx, h.Pool, u.OrgID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.TrialBalancePage(h.Chrome(c, "Trial balance", "ledger"), rows, asOf, o.BaseCurrency))
}
