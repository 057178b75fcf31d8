package ui

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/chart"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// AccountsPage is the admin's page of the chart of accounts.
func (h *Handlers) AccountsPage(c echo.Context) error {
	return h.renderAccounts(c, http.StatusOK, nil)
}

// CreateAccount adds an account from the page's form.
func (h *Handlers) CreateAccount(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	a, created, err := chart.CreateAccount(c.Request().Context(), h.Pool, u.OrgID,
		chart.NewAccount{Code: c.FormValue("code"), Name: c.FormValue("name"), Type: ledger.AccountType(c.FormValue("type"))}, u.Actor())
	if err != nil {
		return h.renderAccounts(c, 0, err)
	}
	if created {
		httpkit.Flash(c, "Account "+a.Code+" "+a.Name+" added.")
	} else {
		httpkit.Flash(c, "Account "+a.Code+" "+a.Name+" exists already.")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/accounts")
}

// SetAccountActive deactivates or reactivates an account.
func (h *Handlers) SetAccountActive(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	active := c.FormValue("active") == "true"
	a, err := chart.SetAccountActive(c.Request().Context(), h.Pool, u.OrgID, c.FormValue("code"), active, u.Actor())
	if err != nil {
		return h.renderAccounts(c, 0, err)
	}
	if active {
		httpkit.Flash(c, "Account "+a.Code+" reactivated.")
	} else {
		httpkit.Flash(c, "Account "+a.Code+" deactivated: it is no longer offered for coding.")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/accounts")
}

// ImportAccounts imports a chart of accounts CSV file from the page.
func (h *Handlers) ImportAccounts(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	form, err := readImport(c)
	if err == nil {
		var res chart.Imported
		res, err = chart.ImportAccounts(c.Request().Context(), h.Pool, u.OrgID, form.content, form.filename, u.Actor())
		if err == nil {
			httpkit.Flash(c, imported(form.filename, res))
			return c.Redirect(http.StatusSeeOther, "/admin/accounts")
		}
	}
	return h.renderAccounts(c, 0, err)
}

// renderAccounts renders the accounts page, with why a change was refused
// when err says (a status of 0 takes it from err).
func (h *Handlers) renderAccounts(c echo.Context, status int, refused error) error {
	p, status, err := chartProps(status, refused)
	if err != nil {
		return err
	}
	if p.Accounts, err = ledger.Accounts(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.AccountsPage(h.Chrome(c, "Accounts", "accounts"), p))
}

// DimensionsPage is the admin's page of the dimensions and their values.
func (h *Handlers) DimensionsPage(c echo.Context) error {
	return h.renderDimensions(c, http.StatusOK, nil)
}

// CreateDimension creates a dimension, without values yet.
func (h *Handlers) CreateDimension(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	name := strings.TrimSpace(c.FormValue("name"))
	if _, err := chart.PutValues(c.Request().Context(), h.Pool, u.OrgID, name, nil, u.Actor()); err != nil {
		return h.renderDimensions(c, 0, err)
	}
	httpkit.Flash(c, "Dimension "+name+" is there: add its values.")
	return c.Redirect(http.StatusSeeOther, "/admin/dimensions")
}

// SetValue adds, renames, deactivates or reactivates one value of a
// dimension (active left out keeps its state).
func (h *Handlers) SetValue(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	v := chart.ValueChange{Code: c.FormValue("code"), Name: c.FormValue("name")}
	switch c.FormValue("active") {
	case "true":
		v.Active = new(true)
	case "false":
		v.Active = new(false)
	}
	name := c.Param("name")
	if _, err := chart.PutValues(c.Request().Context(), h.Pool, u.OrgID, name, []chart.ValueChange{v}, u.Actor()); err != nil {
		return h.renderDimensions(c, 0, err)
	}
	httpkit.Flash(c, "Value "+strings.TrimSpace(v.Code)+" of "+name+" saved.")
	return c.Redirect(http.StatusSeeOther, "/admin/dimensions")
}

// ImportValues imports a dimension's values from a CSV file.
func (h *Handlers) ImportValues(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	form, err := readImport(c)
	if err == nil {
		var res chart.Imported
		res, err = chart.ImportValues(c.Request().Context(), h.Pool, u.OrgID, form.dimension, form.content, form.filename, u.Actor())
		if err == nil {
			httpkit.Flash(c, imported(form.filename, res)+" ("+form.dimension+")")
			return c.Redirect(http.StatusSeeOther, "/admin/dimensions")
		}
	}
	return h.renderDimensions(c, 0, err)
}

func (h *Handlers) renderDimensions(c echo.Context, status int, refused error) error {
	p, status, err := chartProps(status, refused)
	if err != nil {
		return err
	}
	if p.Dimensions, err = chart.Dimensions(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DimensionsPage(h.Chrome(c, "Dimensions", "dimensions"), p))
}

// chartProps turns a refusal into what the page shows: its message and
// faults, and its status. An internal error is no refusal: it is returned.
func chartProps(status int, refused error) (views.ChartProps, int, error) {
	if refused == nil {
		return views.ChartProps{}, status, nil
	}
	e := httpkit.Classify(refused)
	if e.Code == apperr.Internal || e.Code == apperr.Unavailable {
		return views.ChartProps{}, 0, refused
	}
	p := views.ChartProps{Error: e.Message}
	if ae, ok := apperr.As(refused); ok {
		p.Faults, _ = ae.Details["reasons"].([]chart.Fault)
	}
	return p, httpkit.Status(e.Code), nil
}

// importForm is an import form as sent: the file and, for values, the
// dimension they are of.
type importForm struct {
	filename, dimension string
	content             []byte
}

// readImport reads an import form's parts: the file (at most what an import
// may hold) and the dimension's name, in any order.
func readImport(c echo.Context) (importForm, error) {
	var f importForm
	mr := httpkit.UploadParts(c)
	if mr == nil {
		var err error
		if mr, err = c.Request().MultipartReader(); err != nil {
			return f, apperr.Wrap(err, apperr.Invalid, "send the file as a multipart form")
		}
	}
	seenFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f, httpkit.FormError(err)
		}
		switch part.FormName() {
		case "dimension":
			b, err := io.ReadAll(io.LimitReader(part, 256))
			if err != nil {
				return f, httpkit.FormError(err)
			}
			f.dimension = strings.TrimSpace(string(b))
		case "file":
			if f.content, err = httpkit.ReadLimited(part, chart.MaxImportBytes); err != nil {
				return f, err
			}
			f.filename, seenFile = intake.CleanFilename(part.FileName()), true
		}
	}
	if !seenFile {
		return f, apperr.New(apperr.Invalid, "choose a CSV file to import")
	}
	return f, nil
}

// imported says what an import did.
func imported(file string, res chart.Imported) string {
	return fmt.Sprintf("%s imported: %d rows, %d added, %d changed.", file, res.Rows, res.Added, res.Changed)
}
