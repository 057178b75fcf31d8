package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/payments"
	"greatbook/web/httpkit"
)

// maxRuns is how many runs GET /api/v1/payment-runs lists at most.
const maxRuns = 200

// ProposePaymentRun is POST /api/v1/payment-runs (admin): a run of what is
// payable by due_until, from the org's bank account, with what it blocked.
func (h *Handlers) ProposePaymentRun(c echo.Context) error {
	var body payments.Proposal
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	run, err := h.App.Payments.Propose(c.Request().Context(), u.OrgID, body, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, run)
}

// PaymentRuns is GET /api/v1/payment-runs (admin): the org's latest runs,
// newest first, without their items (?limit, at most 200).
func (h *Handlers) PaymentRuns(c echo.Context) error {
	limit := 50
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxRuns {
			return apperr.New(apperr.Invalid, "limit must be a number from 1 to %d", maxRuns)
		}
		limit = n
	}
	runs, err := h.App.Payments.List(c.Request().Context(), httpkit.CurrentUser(c).OrgID, limit)
	if err != nil {
		return err
	}
	if runs == nil {
		runs = []payments.Run{}
	}
	return c.JSON(http.StatusOK, map[string]any{"runs": runs})
}

// PaymentRun is GET /api/v1/payment-runs/{id} (admin).
func (h *Handlers) PaymentRun(c echo.Context) error {
	return h.paymentRun(c, func(s *payments.Service, orgID, id int64) (payments.Run, error) {
		return s.Get(c.Request().Context(), orgID, id)
	})
}

// ApprovePaymentRun is POST /api/v1/payment-runs/{id}/approve (admin).
func (h *Handlers) ApprovePaymentRun(c echo.Context) error {
	return h.paymentRun(c, func(s *payments.Service, orgID, id int64) (payments.Run, error) {
		return s.Approve(c.Request().Context(), orgID, id, httpkit.CurrentUser(c).Actor())
	})
}

// CancelPaymentRun is POST /api/v1/payment-runs/{id}/cancel (admin): 409
// invalid_state once its file was downloaded.
func (h *Handlers) CancelPaymentRun(c echo.Context) error {
	return h.paymentRun(c, func(s *payments.Service, orgID, id int64) (payments.Run, error) {
		return s.Cancel(c.Request().Context(), orgID, id, httpkit.CurrentUser(c).Actor())
	})
}

// RemovePaymentItem is DELETE /api/v1/payment-runs/{id}/items/{item_id}
// (admin): the item out of a proposed run, whose invoice may then be paid in
// another.
func (h *Handlers) RemovePaymentItem(c echo.Context) error {
	item, err := httpkit.PathID(c, "item_id")
	if err != nil {
		return err
	}
	return h.paymentRun(c, func(s *payments.Service, orgID, id int64) (payments.Run, error) {
		return s.RemoveItem(c.Request().Context(), orgID, id, item, httpkit.CurrentUser(c).Actor())
	})
}

func (h *Handlers) paymentRun(c echo.Context, do func(s *payments.Service, orgID, id int64) (payments.Run, error)) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	run, err := do(h.App.Payments, httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, run)
}

// confirmAccountBody is POST /api/v1/intake/{id}/payment-account/confirm's
// body: the corrected IBAN, or nothing to confirm the one the invoice states.
type confirmAccountBody struct {
	IBAN string `json:"iban"`
}

// ConfirmPaymentAccount is POST /api/v1/intake/{id}/payment-account/confirm
// (admin): the invoice's creditor account confirmed as its supplier's by an
// admin who did not approve the invoice (403 separation_of_duties
// otherwise), which unblocks it for pay runs.
func (h *Handlers) ConfirmPaymentAccount(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	var body confirmAccountBody
	if err := decodeOptionalJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	conf, err := h.App.Payments.ConfirmIBAN(c.Request().Context(), u.OrgID, id, body.IBAN, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, conf)
}
