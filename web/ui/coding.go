package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/money"
	"greatbook/internal/review"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// codingGrid is document d's coding as its page shows it: the rows stored
// (suggested or set), or, with none yet, one empty row per amount to code.
func (h *Handlers) codingGrid(c echo.Context, doc intake.Document, d einvoice.Document) (*views.CodingGrid, error) {
	ctx := c.Request().Context()
	g, err := h.codingChoices(c, doc, d)
	if err != nil {
		return nil, err
	}
	rows, err := coding.Read(ctx, h.Pool, doc.OrgID, doc.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		g.Rows = append(g.Rows, views.CodingGridRow{Line: lineKey(r.Line), Account: r.Account, Dimensions: r.Dimensions,
			Amount: money.Format(r.Amount, g.MinorUnits), Source: string(r.Source)})
	}
	if len(rows) == 0 && g.Editable {
		for _, t := range g.Targets {
			g.Rows = append(g.Rows, views.CodingGridRow{Line: t.Line, Amount: money.Format(t.Net, g.MinorUnits)})
		}
	}
	return g, nil
}

// codingChoices is a coding grid without rows: what document d's coding
// covers and what it may name.
func (h *Handlers) codingChoices(c echo.Context, doc intake.Document, d einvoice.Document) (*views.CodingGrid, error) {
	ctx := c.Request().Context()
	g := &views.CodingGrid{DocumentID: doc.ID, Currency: d.Currency, MinorUnits: 2,
		Editable: doc.Status == intake.Pending || doc.Status == intake.Flagged}
	if cur, ok := money.Lookup(d.Currency); ok {
		g.MinorUnits = cur.MinorUnits
	}
	for _, t := range coding.Targets(d) {
		label := "allowances and charges"
		if t.Line != nil {
			label = d.Lines[*t.Line-1].Description
		} else if len(d.Lines) == 0 {
			label = "the whole document"
		}
		g.Targets = append(g.Targets, views.CodingTarget{Line: lineKey(t.Line), Label: label, Net: t.Net})
	}
	var err error
	if g.Accounts, err = ledger.Accounts(ctx, h.Pool, doc.OrgID); err != nil {
		return nil, err
	}
	if g.Dimensions, err = coding.Dimensions(ctx, h.Pool, doc.OrgID); err != nil {
		return nil, err
	}
	return g, nil
}

func lineKey(line *int) string {
	if line == nil {
		return ""
	}
	return strconv.Itoa(*line)
}

// typedCoding reads the coding form: its rows as typed (fields repeat by
// name, one of each per row) less those left wholly empty.
func typedCoding(c echo.Context, g *views.CodingGrid) error {
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	lines, accounts, amounts := form["line"], form["account"], form["amount"]
	for i := range max(len(lines), len(accounts), len(amounts)) {
		r := views.CodingGridRow{Line: strings.TrimSpace(at(lines, i)), Account: strings.TrimSpace(at(accounts, i)),
			Amount: strings.TrimSpace(at(amounts, i)), Dimensions: map[string]string{}, Source: string(coding.Reviewer)}
		for _, d := range g.Dimensions {
			if v := strings.TrimSpace(at(form["dim_"+d.Name], i)); v != "" {
				r.Dimensions[d.Name] = v
			}
		}
		if r.Account == "" && r.Amount == "" && len(r.Dimensions) == 0 {
			continue
		}
		g.Rows = append(g.Rows, r)
	}
	return nil
}

// codingRows turns the typed rows into a coding. A percentage ("40%") is
// that share of its line's net, rounded to the currency's minor unit; the
// last row of a line, when it is a percentage, takes the rest, so that
// the rows sum to the net to the cent. A field that cannot be read is
// named beside it; ok is false then.
func codingRows(g *views.CodingGrid) (rows []coding.Row, ok bool) {
	ok = true
	fault := func(i int, field, msg string) {
		if g.Rows[i].Faults == nil {
			g.Rows[i].Faults = map[string]string{}
		}
		g.Rows[i].Faults[field], ok = msg, false
	}
	last := map[string]int{}
	for i, r := range g.Rows {
		last[r.Line] = i
	}
	percent := make([]bool, len(g.Rows))
	rows = make([]coding.Row, len(g.Rows))
	for i, r := range g.Rows {
		row := coding.Row{Account: r.Account, Dimensions: r.Dimensions}
		if r.Line != "" {
			n, err := strconv.Atoi(r.Line)
			if err != nil {
				fault(i, "line", "not a line number")
				continue
			}
			row.Line = &n
		}
		if p, isPercent := strings.CutSuffix(r.Amount, "%"); isPercent {
			v, err := money.Parse(strings.TrimSpace(p))
			if err != nil {
				fault(i, "amount", "not a percentage: type a number before %")
				continue
			}
			row.Amount, percent[i] = netOf(g, r.Line).Mul(v).Div(decimal.NewFromInt(100)).Round(g.MinorUnits), true
		} else if v, err := money.Parse(r.Amount); err == nil {
			row.Amount = v
		} else {
			fault(i, "amount", "not an amount: type it as 120.50, or a percentage of the line's net as 40%")
			continue
		}
		rows[i] = row
	}
	for line, i := range last {
		if !percent[i] {
			continue
		}
		rest := netOf(g, line)
		for j, r := range rows {
			if j != i && g.Rows[j].Line == line {
				rest = rest.Sub(r.Amount)
			}
		}
		rows[i].Amount = rest
	}
	for i := range rows {
		if percent[i] {
			g.Rows[i].Amount = money.Format(rows[i].Amount, g.MinorUnits)
		}
	}
	return rows, ok
}

func netOf(g *views.CodingGrid, line string) decimal.Decimal {
	for _, t := range g.Targets {
		if t.Line == line {
			return t.Net
		}
	}
	return decimal.Zero
}

// withCodingFaults places the faults an invalid coding names ("reasons",
// coding[i].field) beside the fields of row i, with those that name no
// row's field listed above the grid.
func withCodingFaults(g *views.CodingGrid, e *apperr.Error) {
	g.Error = "The coding was not saved: " + e.Message
	reasons, _ := e.Details["reasons"].([]coding.Fault)
	if len(reasons) > 0 {
		g.Error = "The coding was not saved: what is wrong is said beside each field."
	}
	for _, r := range reasons {
		var i int
		rest, found := strings.CutPrefix(r.Field, "coding[")
		if n, err := fmt.Sscanf(rest, "%d]", &i); !found || err != nil || n != 1 || i < 0 || i >= len(g.Rows) {
			g.General = append(g.General, r.Message)
			continue
		}
		_, field, _ := strings.Cut(rest, "].")
		if field == "" {
			field = "line"
		}
		if g.Rows[i].Faults == nil {
			g.Rows[i].Faults = map[string]string{}
		}
		g.Rows[i].Faults[field] = r.Message
	}
}

// SaveCoding replaces a document's coding with the grid as typed, by the
// signed-in reviewer. Approvals already given are discarded (what was
// approved is no longer what the document says), and the page says so. A
// coding that is not valid shows the page again (422) with each fault
// beside its field; a document no longer open to review is refused (409).
func (h *Handlers) SaveCoding(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	var d einvoice.Document
	if len(doc.Fields) == 0 || json.Unmarshal(doc.Fields, &d) != nil {
		return apperr.New(apperr.InvalidState, "document %d has no facts read yet to code", doc.ID)
	}
	if doc.Status != intake.Pending && doc.Status != intake.Flagged {
		return apperr.New(apperr.InvalidState, "document %d is %s: its coding is settled", doc.ID, doc.Status).With("status", doc.Status)
	}
	g, err := h.codingChoices(c, doc, d)
	if err != nil {
		return err
	}
	if err := typedCoding(c, g); err != nil {
		return err
	}
	ctx, u := c.Request().Context(), httpkit.CurrentUser(c)
	again := func() error {
		v, err := h.documentView(c, doc.ID)
		if err != nil {
			return err
		}
		v.Coding = g
		return httpkit.Render(c, http.StatusUnprocessableEntity,
			views.DocumentPage(h.Chrome(c, fmt.Sprintf("Document %d", doc.ID), "desk"), v))
	}
	rows, ok := codingRows(g)
	if !ok {
		g.Error = "The coding was not saved: what is wrong is said beside each field."
		return again()
	}
	before, err := review.Approvals(ctx, h.Pool, u.OrgID, doc.ID)
	if err != nil {
		return err
	}
	if _, err := coding.Replace(ctx, h.Pool, u.OrgID, doc.ID, rows, u.Actor()); err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.Invalid {
			return err
		}
		withCodingFaults(g, e)
		return again()
	}
	msg := "Coding saved."
	if len(before.Approvals) > 0 {
		msg = "Coding saved: the approvals given were discarded; the document needs its approvals again."
	}
	httpkit.Flash(c, msg)
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/intake/%d#coding", doc.ID))
}
