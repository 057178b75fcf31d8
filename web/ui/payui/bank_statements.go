package payui

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/bankstatement"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// statementsListed is how many imports the bank statements page lists.
const statementsListed = 50

// BankStatementsPage is the admin's page of bank statements: the upload
// form and the latest imports.
func (h *Handlers) BankStatementsPage(c echo.Context) error {
	return h.renderBankStatements(c, http.StatusOK, nil)
}

// ImportBankStatement imports the uploaded statement and sends the admin
// to its import's page, which lists what matched nothing. A refused file is
// shown on the list page with why.
func (h *Handlers) ImportBankStatement(c echo.Context) error {
	content, err := readStatement(c)
	if err == nil {
		var imp bankstatement.Import
		var created bool
		imp, created, err = h.ImportStatement(c, content)
		if err == nil {
			httpkit.Flash(c, statementImported(imp, created))
			return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/bank-statements/%d", imp.ID))
		}
	}
	return h.renderBankStatements(c, 0, err)
}

// BankStatementPage is one import with the lines left for a person.
func (h *Handlers) BankStatementPage(c echo.Context) error {
	r, err := h.Statement(c)
	if err != nil {
		return err
	}
	title := "Bank statement " + r.StatementID
	if r.StatementID == "" {
		title = fmt.Sprintf("Bank statement import %d", r.ID)
	}
	return httpkit.Page(c, views.BankStatementPage(h.Chrome(c, title, "bank-statements"), r))
}

// renderBankStatements renders the list page, with why an upload was
// refused when refused says (its status then taken from it). An internal
// error is no refusal: it is returned.
func (h *Handlers) renderBankStatements(c echo.Context, status int, refused error) error {
	p := views.BankStatementsProps{Limit: statementsListed}
	if refused != nil {
		e := httpkit.Classify(refused)
		if e.Code == apperr.Internal || e.Code == apperr.Unavailable {
			return refused
		}
		status = httpkit.Status(e.Code)
		p.Error, p.RefusedStatus = e.Message, status
	}
	var err error
	if p.Imports, err = h.App.BankStatements.List(c.Request().Context(), httpkit.CurrentUser(c).OrgID, statementsListed); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.BankStatementsPage(h.Chrome(c, "Bank statements", "bank-statements"), p))
}

// readStatement reads the upload form's file, at most what a statement
// may hold.
func readStatement(c echo.Context) ([]byte, error) {
	mr := httpkit.UploadParts(c)
	if mr == nil {
		var err error
		if mr, err = c.Request().MultipartReader(); err != nil {
			return nil, apperr.Wrap(err, apperr.Invalid, "send the statement as a multipart form")
		}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, httpkit.FormError(err)
		}
		if part.FormName() != "file" {
			continue
		}
		content, err := httpkit.ReadLimited(part, bankstatement.MaxBytes)
		if err != nil {
			return nil, err
		}
		if len(content) == 0 {
			return nil, apperr.New(apperr.Invalid, "the file is empty: choose a camt.053 or camt.054 statement")
		}
		return content, nil
	}
	return nil, apperr.New(apperr.Invalid, "choose a camt.053 or camt.054 statement to import")
}

// statementImported says what an upload did: a new import's counts, or
// that the file was imported before.
func statementImported(imp bankstatement.Import, created bool) string {
	if !created {
		return fmt.Sprintf("Already imported: nothing new. This file is import %d (%d entries, %d matched, %d unmatched).",
			imp.ID, imp.Entries, imp.Matched, imp.Unmatched)
	}
	return fmt.Sprintf("Statement imported: %d entries, %d matched, %d unmatched.", imp.Entries, imp.Matched, imp.Unmatched)
}
