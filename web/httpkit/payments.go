package httpkit

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/bankstatement"
	"greatbook/internal/payments"
)

// PaymentFile serves an approved run's ISO 20022 pain.001.001.09 file as a
// download, to the API and the pages alike. The first download marks the
// run sent; every download is the same bytes.
func (b *Base) PaymentFile(c echo.Context) error {
	id, err := PathID(c, "id")
	if err != nil {
		return err
	}
	u := CurrentUser(c)
	file, err := b.App.Payments.Export(c.Request().Context(), u.OrgID, id, u.Actor())
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+payments.FileName(id)+`"`)
	return c.Blob(http.StatusOK, "application/xml", file)
}

// ImportStatement imports a bank statement's bytes for the user's org: the
// import, and whether it is new (false for bytes imported before, with the
// first import's answer).
func (b *Base) ImportStatement(c echo.Context, content []byte) (bankstatement.Import, bool, error) {
	u := CurrentUser(c)
	return b.App.BankStatements.Import(c.Request().Context(), u.OrgID, content, u.Actor())
}

// Statement is the import of the user's org that the path's id names, with
// the lines no payment matched.
func (b *Base) Statement(c echo.Context) (bankstatement.Report, error) {
	id, err := PathID(c, "id")
	if err != nil {
		return bankstatement.Report{}, err
	}
	return b.App.BankStatements.Get(c.Request().Context(), CurrentUser(c).OrgID, id)
}
