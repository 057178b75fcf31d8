package ui

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/bookkeeper"
	"greatbook/internal/coding"
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
		Account: c.QueryParam("account"), From: c.QueryParam("from"), To: c.QueryParam("to"),
		Dimension: c.QueryParam("dimension"), Value: c.QueryParam("value")}
	entries, err := ledger.List(ctx, h.Pool, u.OrgID, ledger.Filter{SourceType: f.SourceType, SourceID: f.SourceID,
		Account: f.Account, From: f.From, To: f.To, Dimension: f.Dimension, Value: valueOf(f.Dimension, f.Value), Limit: 200})
	if err != nil {
		return err
	}
	accounts, err := ledger.Accounts(ctx, h.Pool, u.OrgID)
	if err != nil {
		return err
	}
	dims, err := h.ledgerDimensions(c)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.LedgerPage(h.Chrome(c, "Ledger", "ledger"), views.LedgerPageProps{Filter: f, Entries: entries, Accounts: accounts, Dimensions: dims}))
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

// bookkeeperDimensions are the dimensions the bookkeeper gives the lines it
// posts, beside the org's own.
var bookkeeperDimensions = []string{"kind", "supplier", "vat_rate"}

// ledgerDimensions are the dimensions the ledger pages filter and group
// by: the org's, with their values, then the bookkeeper's.
func (h *Handlers) ledgerDimensions(c echo.Context) ([]views.LedgerDimension, error) {
	dims, err := coding.Dimensions(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return nil, err
	}
	out := make([]views.LedgerDimension, 0, len(dims)+len(bookkeeperDimensions))
	for _, d := range dims {
		out = append(out, views.LedgerDimension{Name: d.Name, Values: d.Values})
	}
	for _, name := range bookkeeperDimensions {
		out = append(out, views.LedgerDimension{Name: name})
	}
	return out, nil
}

// valueOf is the value a filter keeps: none without a dimension.
func valueOf(dimension, value string) string {
	if dimension == "" {
		return ""
	}
	return value
}

// TrialBalancePage is the trial balance as of the query's date (every date
// when it names none), grouped by the values of the dimension it names, of
// one value when it names one.
func (h *Handlers) TrialBalancePage(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	p := views.TrialBalanceProps{AsOf: c.QueryParam("as_of"), Dimension: c.QueryParam("dimension"), Value: c.QueryParam("value")}
	var err error
	if p.Rows, err = ledger.TrialBalanceBy(ctx, h.Pool, u.OrgID, p.AsOf, p.Dimension, valueOf(p.Dimension, p.Value)); err != nil {
		return err
	}
	o, err := org.ByID(ctx, h.Pool, u.OrgID)
	if err != nil {
		return err
	}
	if p.Dimensions, err = h.ledgerDimensions(c); err != nil {
		return err
	}
	p.BaseCurrency = o.BaseCurrency
	return httpkit.Page(c, views.TrialBalancePage(h.Chrome(c, "Trial balance", "ledger"), p))
}
