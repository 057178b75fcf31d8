package payui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apchecks"
	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/desk"
	"greatbook/internal/payments"
	"greatbook/internal/review"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// listedRuns is how many of the org's latest runs the pay runs page lists.
const listedRuns = 100

// maxDue bounds the desk's list of the invoices due this week.
const maxDue = 500

// PaymentRunsPage lists the org's pay runs with the form that proposes one,
// its dates filled in with today and the end of the week.
func (h *Handlers) PaymentRunsPage(c echo.Context) error {
	today := time.Now().UTC()
	return h.renderPaymentRuns(c, http.StatusOK, views.PaymentRunsProps{ExecutionDate: today.Format(time.DateOnly),
		DueUntil: endOfWeek(today).Format(time.DateOnly)})
}

func (h *Handlers) renderPaymentRuns(c echo.Context, status int, p views.PaymentRunsProps) error {
	var err error
	if p.Runs, err = h.App.Payments.List(c.Request().Context(), httpkit.CurrentUser(c).OrgID, listedRuns); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.PaymentRunsPage(h.Chrome(c, "Pay runs", "payment-runs"), p))
}

// ProposePaymentRun proposes a run from the page's form and opens it; a
// refusal (a date, the org's missing bank account) is said above the form,
// with the dates as typed.
func (h *Handlers) ProposePaymentRun(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	p := payments.Proposal{ExecutionDate: strings.TrimSpace(c.FormValue("execution_date")), DueUntil: strings.TrimSpace(c.FormValue("due_until"))}
	run, err := h.App.Payments.Propose(c.Request().Context(), u.OrgID, p, u.Actor())
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.Invalid {
			return err
		}
		return h.renderPaymentRuns(c, httpkit.Status(e.Code), views.PaymentRunsProps{ExecutionDate: p.ExecutionDate, DueUntil: p.DueUntil,
			Error: e.Message, NoBankAccount: refusedField(err, "bank_iban")})
	}
	httpkit.Flash(c, fmt.Sprintf("Pay run %d proposed: %d items, %d documents not in it.", run.ID, len(run.Items), len(run.Blocked)))
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/payment-runs/%d", run.ID))
}

// refusedField reports whether a refusal names field among its reasons.
func refusedField(err error, field string) bool {
	e, ok := apperr.As(err)
	if !ok {
		return false
	}
	reasons, _ := e.Details["reasons"].([]map[string]string)
	for _, r := range reasons {
		if r["field"] == field {
			return true
		}
	}
	return false
}

// PaymentRunPage is one run of the org.
func (h *Handlers) PaymentRunPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	run, err := h.App.Payments.Get(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.PaymentRunPage(h.Chrome(c, fmt.Sprintf("Pay run %d", id), "payment-runs"), views.PaymentRunView{Run: run}))
}

// runAction is what an action on a run did, in words, and the blocked
// document it was about (none for an action on the run itself), with the
// IBAN typed for it.
type runAction struct {
	message   string
	intakeID  int64
	corrected string
}

// ApprovePaymentRun approves a proposed run.
func (h *Handlers) ApprovePaymentRun(c echo.Context) error {
	return h.changeRun(c, func(ctx context.Context, u *auth.User, id int64) (runAction, error) {
		_, err := h.App.Payments.Approve(ctx, u.OrgID, id, u.Actor())
		return runAction{message: "Approved: download the pain.001 file and hand it to the bank."}, err
	})
}

// CancelPaymentRun cancels a run whose file was not downloaded.
func (h *Handlers) CancelPaymentRun(c echo.Context) error {
	return h.changeRun(c, func(ctx context.Context, u *auth.User, id int64) (runAction, error) {
		_, err := h.App.Payments.Cancel(ctx, u.OrgID, id, u.Actor())
		return runAction{message: "Cancelled: its invoices may be paid in another run."}, err
	})
}

// RemovePaymentItem takes an item out of a proposed run.
func (h *Handlers) RemovePaymentItem(c echo.Context) error {
	itemID, err := httpkit.PathID(c, "item")
	if err != nil {
		return err
	}
	return h.changeRun(c, func(ctx context.Context, u *auth.User, id int64) (runAction, error) {
		_, err := h.App.Payments.RemoveItem(ctx, u.OrgID, id, itemID, u.Actor())
		return runAction{message: "Item removed: its invoice may be paid in another run."}, err
	})
}

// ConfirmPaymentAccount confirms a blocked document's account (the IBAN it
// states, or the corrected one typed in its place) from a run's page; the
// outcome, a four-eyes refusal too, is said beside the document.
func (h *Handlers) ConfirmPaymentAccount(c echo.Context) error {
	intakeID, err := strconv.ParseInt(c.FormValue("intake_id"), 10, 64)
	if err != nil || intakeID <= 0 {
		return apperr.New(apperr.Invalid, "intake_id must name a document")
	}
	corrected := strings.TrimSpace(c.FormValue("iban"))
	return h.changeRun(c, func(ctx context.Context, u *auth.User, id int64) (runAction, error) {
		act := runAction{intakeID: intakeID, corrected: corrected}
		conf, err := h.App.Payments.ConfirmIBAN(ctx, u.OrgID, intakeID, corrected, u.Actor())
		if err == nil {
			act.message = "Account " + apchecks.MaskIBAN(conf.IBAN) + " confirmed: the next proposal pays this supplier's invoices to it."
		}
		return act, err
	})
}

// changeRun runs an action on the run the path names and answers with the
// run's region (htmx) or page and the action's outcome in it: what it did,
// or why it was refused, with the refusal's status. Without htmx a done
// action goes back to the run's page, its outcome in the flash.
func (h *Handlers) changeRun(c echo.Context, do func(ctx context.Context, u *auth.User, runID int64) (runAction, error)) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx, u := c.Request().Context(), httpkit.CurrentUser(c)
	act, err := do(ctx, u, id)
	status := http.StatusOK
	out := &views.PaymentOutcome{Kind: "done", Message: act.message, IntakeID: act.intakeID}
	if err != nil {
		if out, status, err = runRefusal(err, act); err != nil {
			return err
		}
	} else if !httpkit.IsHTMX(c) {
		httpkit.Flash(c, act.message)
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/payment-runs/%d", id))
	}
	run, err := h.App.Payments.Get(ctx, u.OrgID, id)
	if err != nil {
		return err
	}
	v := views.PaymentRunView{Run: run, Outcome: out}
	if httpkit.IsHTMX(c) {
		return httpkit.Render(c, status, views.PaymentRunSection(v))
	}
	return httpkit.Render(c, status, views.PaymentRunPage(h.Chrome(c, fmt.Sprintf("Pay run %d", id), "payment-runs"), v))
}

// runRefusal turns an expected refusal of an action on a run into its
// inline outcome and status: a state that does not allow it (409), a value
// refused (422), the four-eyes rule (403). Anything else is returned for
// the error handler.
func runRefusal(err error, act runAction) (*views.PaymentOutcome, int, error) {
	e, ok := apperr.As(err)
	if !ok {
		return nil, 0, err
	}
	kind := "refused"
	switch reason, _ := e.Details["reason"].(string); {
	case e.Code == apperr.Forbidden && reason == review.ReasonSeparationOfDuties:
		kind = reason
	case e.Code == apperr.Invalid, e.Code == apperr.InvalidState:
	default:
		return nil, 0, err
	}
	return &views.PaymentOutcome{Kind: kind, Message: e.Message, IntakeID: act.intakeID, Corrected: act.corrected}, httpkit.Status(e.Code), nil
}

// DuePage is the desk's list of the posted invoices still to pay that are
// due by the end of this week, or state no due date.
func (h *Handlers) DuePage(c echo.Context) error {
	ctx, u := c.Request().Context(), httpkit.CurrentUser(c)
	today := time.Now().UTC()
	p := views.DueProps{Until: endOfWeek(today), Today: today, CanPropose: u.IsAdmin()}
	var err error
	if p.Invoices, err = payments.Due(ctx, h.Pool, u.OrgID, p.Until, maxDue+1); err != nil {
		return err
	}
	if len(p.Invoices) > maxDue {
		p.Invoices, p.More = p.Invoices[:maxDue], true
	}
	if p.Counts, err = desk.TabCounts(ctx, h.Pool, u.OrgID, u.Actor().Label); err != nil {
		return err
	}
	return httpkit.Page(c, views.DuePage(h.Chrome(c, "Due this week", "desk"), p))
}

// endOfWeek is the Sunday of day's week (day itself on a Sunday): weeks
// run Monday to Sunday, as ISO 8601 counts them.
func endOfWeek(day time.Time) time.Time {
	y, m, d := day.Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return start.AddDate(0, 0, (7-int(day.Weekday()))%7)
}
