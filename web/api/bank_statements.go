package api

import (
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/bankstatement"
	"greatbook/web/httpkit"
)

// MaxStatementBody bounds an uploaded bank statement (web limits the
// route's body to it).
const MaxStatementBody = bankstatement.MaxBytes

// ImportBankStatement is POST /api/v1/bank-statements (admin): the body is
// a camt.053 statement (or camt.054 notification). 201 with what the import
// found; 200 with the first import's answer for bytes imported before; 422
// for a statement that cannot be read.
func (h *Handlers) ImportBankStatement(c echo.Context) error {
	req := c.Request()
	ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if ct != "application/xml" && ct != "text/xml" {
		return apperr.New(apperr.UnsupportedMediaType, "a bank statement is sent as application/xml, not %q", ct)
	}
	content, err := httpkit.ReadLimited(req.Body, MaxStatementBody)
	if err != nil {
		return err
	}
	imp, created, err := h.ImportStatement(c, content)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, imp)
}

// BankStatement is GET /api/v1/bank-statements/{id} (admin): the import
// with the lines no payment matched.
func (h *Handlers) BankStatement(c echo.Context) error {
	r, err := h.Statement(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}
