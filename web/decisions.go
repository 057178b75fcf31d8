package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/views"
)

// decisionView gathers the decision region of a document.
func (s *Server) decisionView(c echo.Context, id int64, out *views.Outcome) (views.DecisionView, error) {
	ctx := c.Request().Context()
	u := currentUser(c)
	doc, err := intake.GetDocument(ctx, s.pool, u.OrgID, id)
	if err != nil {
		return views.DecisionView{}, err
	}
	v := views.DecisionView{Doc: doc, IsAdmin: u.IsAdmin(), Outcome: out, Verdict: intake.VerdictOf(doc)}
	if out == nil && (doc.Status == intake.Pending || doc.Status == intake.Flagged) {
		// Another member accepted: say so before anyone presses approve.
		group, err := intake.Group(ctx, s.pool, u.OrgID, id)
		if err != nil {
			return v, err
		}
		if b, blocked := intake.BlockedBy(group, id); blocked {
			v.Outcome = &views.Outcome{Kind: "conflict", Blocking: &b}
		}
	}
	if job, ok, err := intake.JobForDocument(ctx, s.pool, u.OrgID, id); err != nil {
		return v, err
	} else if ok {
		v.Job = &job
	}
	if v.Question, err = s.app.Bookkeeper.QuestionFor(ctx, u.OrgID, id); err != nil {
		return v, err
	}
	if v.Question != nil && v.Question.Kind == bookkeeper.AskExpenseAccount {
		all, err := ledger.Accounts(ctx, s.pool, u.OrgID)
		if err != nil {
			return v, err
		}
		for _, a := range all {
			if a.Active && a.Type == ledger.Expense {
				v.Accounts = append(v.Accounts, a)
			}
		}
	}
	return v, nil
}

// decided answers a decision: the region (htmx), or the page again.
func (s *Server) decided(c echo.Context, id int64, status int, out *views.Outcome) error {
	if !isHTMX(c) {
		if out != nil && out.Message != "" {
			flash(c, out.Message)
		}
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/intake/%d", id))
	}
	v, err := s.decisionView(c, id, out)
	if err != nil {
		return err
	}
	return render(c, status, views.DecisionPanel(v))
}

// asOutcome turns an expected refusal into an inline outcome with its
// status; anything else is an error for the error handler.
func asOutcome(err error) (*views.Outcome, int, bool) {
	e, ok := apperr.As(err)
	if !ok {
		return nil, 0, false
	}
	switch e.Code {
	case apperr.DuplicateGroupConflict:
		b, _ := e.Details["blocking"].(intake.Blocking)
		return &views.Outcome{Kind: "conflict", Message: e.Message, Blocking: &b}, statusByCode[e.Code], true
	case apperr.InvalidState, apperr.Invalid, apperr.Unavailable:
		return &views.Outcome{Kind: "invalid", Message: e.Message}, statusByCode[e.Code], true
	}
	return nil, 0, false
}

func (s *Server) decisionPanel(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	v, err := s.decisionView(c, id, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.DecisionPanel(v))
}

func (s *Server) approve(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	// The panel's acknowledgement of an invalid e-invoice, as the API's
	// {"acknowledge_invalid": true, "reason": ...}; the plain approve button
	// sends neither.
	ack := intake.Acknowledgement{Invalid: c.FormValue("acknowledge_invalid") == "true", Reason: c.FormValue("reason")}
	u := currentUser(c)
	a, err := s.app.Decisions.ApproveWith(c.Request().Context(), u.OrgID, id, u.Actor(), ack)
	s.countApprove(&a.Launch, err)
	if err != nil {
		if out, status, ok := asOutcome(err); ok {
			return s.decided(c, id, status, out)
		}
		return err
	}
	out := &views.Outcome{Kind: "launched", Launch: &a.Launch, Message: "Approved; bookkeeping launched."}
	if a.Launch.Outcome == "failed" {
		out.Kind, out.Message = "launch_failed", "Approved, but launching the bookkeeping failed: "+a.Launch.Error+". The approval stands."
	}
	return s.decided(c, id, http.StatusOK, out)
}

func (s *Server) reject(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	if _, err := s.app.Decisions.Reject(c.Request().Context(), u.OrgID, id, c.FormValue("reason"), u.Actor()); err != nil {
		if out, status, ok := asOutcome(err); ok {
			return s.decided(c, id, status, out)
		}
		return err
	}
	return s.decided(c, id, http.StatusOK, &views.Outcome{Kind: "rejected", Message: "Rejected."})
}

func (s *Server) notADuplicate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	if _, err := s.app.Decisions.MarkDistinct(c.Request().Context(), u.OrgID, id, c.FormValue("reason"), u.Actor()); err != nil {
		if out, status, ok := asOutcome(err); ok {
			return s.decided(c, id, status, out)
		}
		return err
	}
	if isHTMX(c) {
		// The group changed: the whole page is out of date.
		flash(c, "Marked not a duplicate; it can be approved on its own now.")
		c.Response().Header().Set("HX-Refresh", "true")
		return c.NoContent(http.StatusOK)
	}
	return s.decided(c, id, http.StatusOK, &views.Outcome{Kind: "distinct", Message: "Marked not a duplicate; it can be approved on its own now."})
}

func (s *Server) answer(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	err = s.app.Bookkeeper.Answer(c.Request().Context(), u.OrgID, c.FormValue("run_id"),
		map[string]string{"account": c.FormValue("account"), "rate": c.FormValue("rate")}, c.FormValue("remember") != "", u.Actor())
	if err != nil {
		if out, status, ok := asOutcome(err); ok {
			return s.decided(c, id, status, out)
		}
		return err
	}
	return s.decided(c, id, http.StatusOK, &views.Outcome{Kind: "answered", Message: "Answered; the bookkeeper continues."})
}

// retryJob is an admin's retry from a document's page.
func (s *Server) retryJob(c echo.Context) error {
	jobID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	ctx := c.Request().Context()
	job, err := intake.GetJob(ctx, s.pool, u.OrgID, jobID)
	if err != nil {
		return err
	}
	out, err := s.app.Outbox.Retry(ctx, u.OrgID, jobID, c.FormValue("reason"), u.Actor())
	if err != nil {
		if o, status, ok := asOutcome(err); ok {
			return s.decided(c, job.IntakeID, status, o)
		}
		return err
	}
	o := &views.Outcome{Kind: "launched", Launch: &out, Message: "Retried; bookkeeping launched (job " + strconv.FormatInt(jobID, 10) + ")."}
	if out.Outcome == "failed" {
		o.Kind, o.Message = "launch_failed", "The retry failed: "+out.Error
	}
	return s.decided(c, job.IntakeID, http.StatusOK, o)
}
