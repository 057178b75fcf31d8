package ui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/desk"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// decisionView is the decision region of a document as the read model
// gave it, with the bookkeeper's open question and out, what a decision
// just did (nil for none: then a blocking member is said as a conflict).
func (h *Handlers) decisionView(c echo.Context, p desk.DecisionPanel, out *views.Outcome) (views.DecisionView, error) {
	v := views.DecisionView{Doc: p.Document, Job: p.Job, Verdict: p.Verdict, Outcome: out,
		CanMarkDistinct: p.CanMarkDistinct, CanRetry: p.CanRetry, SeesDeadLetters: p.SeesDeadLetters, Reversal: p.Reversal,
		CanCloseNothingToPost: p.CanCloseNothingToPost, Approval: p.Approval}
	if out == nil && p.Blocking != nil {
		v.Outcome = &views.Outcome{Kind: "conflict", Blocking: p.Blocking}
	}
	var err error
	v.Question, v.Accounts, err = h.App.Bookkeeper.OpenQuestion(c.Request().Context(), p.Document.OrgID, p.Document.ID)
	if err == nil && p.Document.Status == intake.Posted {
		v.AccountChoice, err = bookkeeper.ChoiceForDocument(c.Request().Context(), h.Pool, p.Document.OrgID, p.Document.ID)
		v.CanChangeRules = httpkit.CurrentUser(c).IsAdmin()
	}
	return v, err
}

// readDecision reads document id's decision region for the signed-in user.
func (h *Handlers) readDecision(c echo.Context, id int64, out *views.Outcome) (views.DecisionView, error) {
	p, err := desk.ReadDecision(c.Request().Context(), h.Pool, reader(c), id)
	if err != nil {
		return views.DecisionView{}, err
	}
	return h.decisionView(c, p, out)
}

// decided answers a decision: the region (htmx), or the page again.
func (h *Handlers) decided(c echo.Context, id int64, status int, out *views.Outcome) error {
	if !httpkit.IsHTMX(c) {
		if out != nil && out.Message != "" {
			httpkit.Flash(c, out.Message)
		}
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/intake/%d", id))
	}
	v, err := h.readDecision(c, id, out)
	if err != nil {
		return err
	}
	// A decision, made or refused, may have changed a member's status: the
	// page's other regions that show them read them again.
	c.Response().Header().Set("HX-Trigger", membersChangedEvent)
	return httpkit.Render(c, status, views.DecisionUpdate(v))
}

// membersChangedEvent is the event after which a document page's regions
// that show statuses of its group and versions read them again.
const membersChangedEvent = "membersChanged"

// refused answers a decision that failed: an expected refusal is shown in
// document id's decision region; anything else is an error for the error
// handler.
func (h *Handlers) refused(c echo.Context, id int64, err error) error {
	if out, status, ok := asOutcome(err); ok {
		out.Typed = typedDecision(c)
		return h.decided(c, id, status, out)
	}
	return err
}

// typedDecision is the decision form a request sent, to fill the form in
// again when the decision is refused; nil for a request from no such form.
func typedDecision(c echo.Context) *views.TypedDecision {
	path := c.Path()
	for _, action := range []string{"approve", "reject", "not-a-duplicate"} {
		if strings.HasSuffix(path, "/"+action) {
			return &views.TypedDecision{Action: action, AcknowledgeInvalid: c.FormValue("acknowledge_invalid") == "true", Reason: c.FormValue("reason")}
		}
	}
	return nil
}

// asOutcome turns an expected refusal into an inline outcome with its
// status; anything else is an error for the error handler.
func asOutcome(err error) (*views.Outcome, int, bool) {
	e, ok := apperr.As(err)
	if !ok {
		return nil, 0, false
	}
	// The org's approval policy refused this reviewer's approval (403
	// separation_of_duties, 409 already_approved): the panel says why.
	if reason, _ := e.Details["reason"].(string); reason == review.ReasonSeparationOfDuties || reason == review.ReasonAlreadyApproved {
		return &views.Outcome{Kind: reason, Message: e.Message}, httpkit.Status(e.Code), true
	}
	switch e.Code {
	case apperr.DuplicateGroupConflict:
		b, _ := e.Details["blocking"].(review.Blocking)
		return &views.Outcome{Kind: "conflict", Message: e.Message, Blocking: &b}, httpkit.Status(e.Code), true
	case apperr.InvalidState, apperr.Invalid, apperr.Unavailable:
		return &views.Outcome{Kind: "invalid", Message: e.Message}, httpkit.Status(e.Code), true
	}
	return nil, 0, false
}

// DecisionPanel answers a document page's decision region reading itself
// again.
func (h *Handlers) DecisionPanel(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.readDecision(c, id, nil)
	if err != nil {
		return err
	}
	// The region says which status it showed: when the document moved on
	// (the bookkeeper posted it), the page's other regions follow.
	if seen := c.QueryParam("seen"); seen != "" && seen != string(v.Doc.Status) {
		c.Response().Header().Set("HX-Trigger", membersChangedEvent)
	}
	return httpkit.Render(c, http.StatusOK, views.DecisionUpdate(v))
}

// decide runs a decision on the document the path names and answers with
// its outcome, or with its refusal in the decision region.
func (h *Handlers) decide(c echo.Context, do func(ctx context.Context, u *auth.User, id int64) (*views.Outcome, error)) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	out, err := do(c.Request().Context(), httpkit.CurrentUser(c), id)
	if err != nil {
		return h.refused(c, id, err)
	}
	// "And next" moves on only when the decision went through cleanly (an
	// approval short of the policy's count did): a launch that failed stays
	// on the page, where its alert says what to do.
	if advances(c) && (out.Kind == "launched" || out.Kind == views.OutcomeApprovalRecorded || out.Kind == "rejected") {
		return h.advance(c, id, out)
	}
	return h.decided(c, id, http.StatusOK, out)
}

// Approve approves the document from its page, acknowledging an invalid
// e-invoice where the panel asked for it.
func (h *Handlers) Approve(c echo.Context) error {
	return h.decide(c, func(ctx context.Context, u *auth.User, id int64) (*views.Outcome, error) {
		// The panel's acknowledgement of an invalid e-invoice, as the API's
		// {"acknowledge_invalid": true, "reason": ...}; the plain approve button
		// sends neither.
		ack := review.Acknowledgement{Invalid: c.FormValue("acknowledge_invalid") == "true", Reason: c.FormValue("reason")}
		a, err := h.App.Decisions.ApproveWith(ctx, u.OrgID, id, u.Actor(), ack)
		h.CountApprove(&a.Launch, err)
		if err != nil {
			return nil, err
		}
		if !a.Complete {
			// Recorded towards the count; nothing was launched.
			return &views.Outcome{Kind: views.OutcomeApprovalRecorded, Message: views.ApprovalRecordedMessage(len(a.Approvals), a.Required)}, nil
		}
		out := &views.Outcome{Kind: "launched", Launch: &a.Launch, Message: "Approved; bookkeeping launched."}
		if a.Launch.Outcome == "failed" {
			out.Kind, out.Message = "launch_failed", "Approved, but launching the bookkeeping failed: "+a.Launch.Error+". The approval stands."
		}
		return out, nil
	})
}

// Reject rejects the document with the reason the form gives.
func (h *Handlers) Reject(c echo.Context) error {
	return h.decide(c, func(ctx context.Context, u *auth.User, id int64) (*views.Outcome, error) {
		_, err := h.App.Decisions.Reject(ctx, u.OrgID, id, c.FormValue("reason"), u.Actor())
		return &views.Outcome{Kind: "rejected", Message: "Rejected."}, err
	})
}

// CloseNothingToPost is the page's one-click close of a document with
// nothing to post (a fixed reason, no form to fill in).
func (h *Handlers) CloseNothingToPost(c echo.Context) error {
	return h.decide(c, func(ctx context.Context, u *auth.User, id int64) (*views.Outcome, error) {
		_, err := h.App.Decisions.CloseNothingToPost(ctx, u.OrgID, id, u.Actor())
		return &views.Outcome{Kind: "rejected", Message: "Closed: nothing to post."}, err
	})
}

// NotADuplicate is an admin's decision that a flagged duplicate is a
// document of its own.
func (h *Handlers) NotADuplicate(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	if _, err := h.App.Decisions.MarkDistinct(c.Request().Context(), u.OrgID, id, c.FormValue("reason"), u.Actor()); err != nil {
		return h.refused(c, id, err)
	}
	if httpkit.IsHTMX(c) {
		// The group changed: the whole page is out of date.
		httpkit.Flash(c, "Marked not a duplicate; it can be approved on its own now.")
		c.Response().Header().Set("HX-Refresh", "true")
		return c.NoContent(http.StatusOK)
	}
	return h.decided(c, id, http.StatusOK, &views.Outcome{Kind: "distinct", Message: "Marked not a duplicate; it can be approved on its own now."})
}

// Answer answers the bookkeeper's question on the document's page.
func (h *Handlers) Answer(c echo.Context) error {
	return h.decide(c, func(ctx context.Context, u *auth.User, id int64) (*views.Outcome, error) {
		err := h.App.Bookkeeper.Answer(ctx, u.OrgID, c.FormValue("run_id"), answerFields(c), c.FormValue("remember") != "", u.Actor())
		return &views.Outcome{Kind: "answered", Message: "Answered; the bookkeeper continues."}, err
	})
}

// RetryJob is an admin's retry from a document's page.
func (h *Handlers) RetryJob(c echo.Context) error {
	jobID, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	job, err := jobs.Get(ctx, h.Pool, u.OrgID, jobID)
	if err != nil {
		return err
	}
	out, err := h.App.Outbox.Retry(ctx, u.OrgID, jobID, c.FormValue("reason"), u.Actor())
	if err != nil {
		return h.refused(c, job.IntakeID, err)
	}
	o := &views.Outcome{Kind: "launched", Launch: &out, Message: "Retried; bookkeeping launched (job " + strconv.FormatInt(jobID, 10) + ")."}
	if out.Outcome == "failed" {
		o.Kind, o.Message = "launch_failed", "The retry failed: "+out.Error
	}
	return h.decided(c, job.IntakeID, http.StatusOK, o)
}
