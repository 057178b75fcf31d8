package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/ledger"
	"greatbook/internal/money"
	"greatbook/web/httpkit"
)

// entryRequest is the JSON body of POST /api/v1/journal-entries.
type entryRequest struct {
	SourceType  string             `json:"source_type"`
	SourceID    string             `json:"source_id"`
	EntrySet    string             `json:"entry_set"`
	Date        string             `json:"date"`
	Currency    string             `json:"currency"`
	Description string             `json:"description"`
	Lines       []entryLineRequest `json:"lines"`
}

type entryLineRequest struct {
	Account    string            `json:"account"`
	Debit      string            `json:"debit"`
	Credit     string            `json:"credit"`
	BaseDebit  *string           `json:"base_debit"`
	BaseCredit *string           `json:"base_credit"`
	Dimensions map[string]string `json:"dimensions"`
}

// toRequest parses amounts strictly; every bad amount is a reason.
func (r entryRequest) toRequest(orgID int64, actor string) (ledger.Request, error) {
	req := ledger.Request{
		SourceKey:   ledger.SourceKey{OrgID: orgID, SourceType: r.SourceType, SourceID: r.SourceID, EntrySet: r.EntrySet},
		Date:        r.Date,
		Currency:    r.Currency,
		Description: r.Description,
		Actor:       actor,
	}
	var reasons []ledger.Reason
	amount := func(field, s string, empty bool) decimal.Decimal {
		if s == "" && empty {
			return decimal.Zero
		}
		d, err := money.Parse(s)
		if err != nil {
			reasons = append(reasons, ledger.Reason{Field: field, Message: fmt.Sprintf("%q is not a decimal amount such as \"100.00\"", s)})
		}
		return d
	}
	for i, l := range r.Lines {
		f := fmt.Sprintf("lines[%d].", i)
		line := ledger.Line{Account: l.Account, Dimensions: l.Dimensions,
			Debit: amount(f+"debit", l.Debit, true), Credit: amount(f+"credit", l.Credit, true)}
		if l.BaseDebit != nil {
			d := amount(f+"base_debit", *l.BaseDebit, false)
			line.BaseDebit = &d
		}
		if l.BaseCredit != nil {
			d := amount(f+"base_credit", *l.BaseCredit, false)
			line.BaseCredit = &d
		}
		req.Lines = append(req.Lines, line)
	}
	if len(reasons) > 0 {
		return req, apperr.New(apperr.Invalid, "the journal entry has malformed amounts").With("reasons", reasons)
	}
	return req, nil
}

// entryJSON is an entry in a response (docs/api.md, `POST /api/v1/journal-entries`), amounts as decimal strings
// with the currency's minor units.
func entryJSON(e ledger.Entry) map[string]any {
	minor := func(cur string) int32 {
		if c, ok := money.Lookup(cur); ok {
			return c.MinorUnits
		}
		return 2
	}
	em, bm := minor(e.Currency), minor(e.BaseCurrency)
	lines := make([]map[string]any, 0, len(e.Lines))
	for _, l := range e.Lines {
		lines = append(lines, map[string]any{
			"account": l.Account, "debit": money.Format(l.Debit, em), "credit": money.Format(l.Credit, em),
			"base_debit": money.Format(l.BaseDebit, bm), "base_credit": money.Format(l.BaseCredit, bm),
			"dimensions": l.Dimensions,
		})
	}
	var fp, reverses, reversedBy any
	if e.Fingerprint != nil {
		fp = fmt.Sprintf("%x", e.Fingerprint)
	}
	if e.ReversesID != 0 {
		reverses = e.ReversesID
	}
	if e.ReversedByID != 0 {
		reversedBy = e.ReversedByID
	}
	return map[string]any{
		"id": e.ID, "source_type": e.SourceType, "source_id": e.SourceID, "entry_set": e.EntrySet,
		"date": e.Date, "currency": e.Currency, "base_currency": e.BaseCurrency, "description": e.Description,
		"fingerprint": fp, "reverses_id": reverses, "reversed_by_id": reversedBy, "lines": lines,
		"created_at": e.CreatedAt, "created_by": e.CreatedBy,
	}
}

func resultJSON(c echo.Context, res ledger.Result) error {
	body := entryJSON(res.Entry)
	body["replayed"] = res.Replayed
	status := http.StatusCreated
	if res.Replayed {
		status = http.StatusOK
	}
	return c.JSON(status, body)
}

// PostEntry posts a journal entry: 201 new, 200 exact replay, 409
// source_replay_conflict with the differences, 422 with the reasons.
func (h *Handlers) PostEntry(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	var body entryRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	req, err := body.toRequest(u.OrgID, u.Email)
	if err != nil {
		return err
	}
	res, err := ledger.PostForClient(c.Request().Context(), h.App.Pool, req)
	if err != nil {
		return err
	}
	return resultJSON(c, res)
}

// GetEntry is GET /api/v1/journal-entries/{id}.
func (h *Handlers) GetEntry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	e, err := ledger.Get(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entryJSON(e))
}

// ListEntries is GET /api/v1/journal-entries: the org's entries, newest
// first (by date, then id), filtered by source_type, source_id, account and
// the date range from..to, a page of limit (1 to 500, default 100) with the
// cursor of the next page (null on the last). offset still pages as it
// did before the cursor, for clients that used it.
func (h *Handlers) ListEntries(c echo.Context) error {
	v, err := queryParams(c, nil)
	if err != nil {
		return err
	}
	limit, err := limitParam(v, defaultEntriesLimit, maxEntriesLimit)
	if err != nil {
		return err
	}
	f := ledger.Filter{SourceType: v.Get("source_type"), SourceID: v.Get("source_id"), Account: v.Get("account"),
		From: v.Get("from"), To: v.Get("to"), Limit: limit + 1}
	if o := v.Get("offset"); o != "" {
		if f.Offset, err = strconv.Atoi(o); err != nil || f.Offset < 0 {
			return invalidParam("offset", "must be a whole number from 0")
		}
	}
	if cursor := v.Get("cursor"); cursor != "" {
		parts, err := decodeCursor("entries", cursor, 2)
		if err != nil {
			return err
		}
		id, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return invalidParam("cursor", "is not a cursor this listing gave (pass next_cursor as it came)")
		}
		f.Before = &ledger.Position{Date: parts[0], ID: id}
	}
	entries, err := ledger.List(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, f)
	if err != nil {
		return nameParameter(err)
	}
	next := ""
	if len(entries) > limit {
		entries = entries[:limit]
		last := entries[limit-1]
		next = encodeCursor("entries", last.Date, strconv.FormatInt(last.ID, 10))
	}
	out := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		out = append(out, entryJSON(e))
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": out, "next_cursor": nextCursor(next)})
}

// The journal-entries listing's page size: the default and the largest
// page are what they were before the cursor (100 and 500), so that a
// client paging by offset with the default page still visits every entry.
const (
	defaultEntriesLimit = 100
	maxEntriesLimit     = 500
)

// reverseRequest is the optional body of POST .../reverse.
type reverseRequest struct {
	Date string `json:"date"`
	// Reason is optional here (the contract had none); it is recorded in
	// the audit trail like the page's.
	Reason string `json:"reason"`
}

// ReverseEntry is POST /api/v1/journal-entries/{id}/reverse: the body,
// optional, gives the reversal's date and reason.
func (h *Handlers) ReverseEntry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	var body reverseRequest
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &body); err != nil {
			return err
		}
	}
	u := httpkit.CurrentUser(c)
	res, err := ledger.Reverse(c.Request().Context(), h.App.Pool, u.OrgID, id, ledger.Reversal{Date: body.Date, Reason: body.Reason, Actor: u.Actor()})
	if err != nil {
		return err
	}
	return resultJSON(c, res)
}

// Accounts is GET /api/v1/accounts: the org's chart of accounts.
func (h *Handlers) Accounts(c echo.Context) error {
	accounts, err := ledger.Accounts(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	if accounts == nil {
		accounts = []ledger.Account{}
	}
	return c.JSON(http.StatusOK, map[string]any{"accounts": accounts})
}
