package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/coding"
	"greatbook/internal/intake"
	"greatbook/internal/money"
	"greatbook/web/httpkit"
)

// codingRowRequest is one row of a PUT /api/v1/intake/{id}/coding body.
// source is accepted so that a client may send back the rows GET gave it;
// what it says is replaced by reviewer.
type codingRowRequest struct {
	Line       *int              `json:"line"`
	Account    string            `json:"account"`
	Dimensions map[string]string `json:"dimensions"`
	Amount     string            `json:"amount"`
	Source     string            `json:"source"`
}

// SetCoding is PUT /api/v1/intake/{id}/coding: the document's whole coding,
// replaced by the caller's rows.
func (h *Handlers) SetCoding(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	var body struct {
		Coding *[]codingRowRequest `json:"coding"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Coding == nil {
		return apperr.New(apperr.Invalid, "the body needs \"coding\", a list of rows").
			With("reasons", []coding.Fault{{Field: "coding", Message: "missing"}})
	}
	rows := make([]coding.Row, 0, len(*body.Coding))
	var faults []coding.Fault
	for i, r := range *body.Coding {
		a, err := money.Parse(r.Amount)
		if err != nil {
			faults = append(faults, coding.Fault{Field: fmt.Sprintf("coding[%d].amount", i),
				Message: fmt.Sprintf("%q is not a decimal amount such as \"80.00\"", r.Amount)})
		}
		rows = append(rows, coding.Row{Line: r.Line, Account: r.Account, Dimensions: r.Dimensions, Amount: a})
	}
	if len(faults) > 0 {
		return apperr.New(apperr.Invalid, "the coding has malformed amounts").With("reasons", faults)
	}
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	out, err := coding.Replace(ctx, h.Pool, u.OrgID, id, rows, u.Actor())
	if err != nil {
		return err
	}
	// The amounts are written with the minor units of the document's currency.
	doc, err := intake.GetDocument(ctx, h.Pool, u.OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"coding": codingJSON(out, currencyOf(doc.Fields))})
}

// currencyOf is the currency stated in a document's fields ("" when none).
func currencyOf(fields json.RawMessage) string {
	var f struct {
		Currency string `json:"currency"`
	}
	_ = json.Unmarshal(fields, &f)
	return f.Currency
}

// codingJSON is a document's coding as docs/api.md shows it: amounts as
// decimal strings with the currency's minor units (more where a row has
// more), [] when there is none.
func codingJSON(rows []coding.Row, currency string) []map[string]any {
	minor := int32(2)
	if c, ok := money.Lookup(currency); ok {
		minor = c.MinorUnits
	}
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		amount := money.Format(r.Amount, minor)
		if !r.Amount.Equal(r.Amount.Round(minor)) {
			amount = r.Amount.String()
		}
		dims := r.Dimensions
		if dims == nil {
			dims = map[string]string{}
		}
		out = append(out, map[string]any{"line": r.Line, "account": r.Account, "dimensions": dims, "amount": amount, "source": r.Source})
	}
	return out
}
