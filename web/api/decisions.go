package api

import (
	"net/http"
	"regexp"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/bookkeeper"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/web/httpkit"
)

// reasonRequest is the body of reject, not-a-duplicate and retry.
type reasonRequest struct {
	Reason string `json:"reason"`
}

// idAndReason reads the id the path names and the reason the body gives.
func idAndReason(c echo.Context) (int64, string, error) {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return 0, "", err
	}
	var body reasonRequest
	if err := decodeJSON(c, &body); err != nil {
		return 0, "", err
	}
	return id, body.Reason, nil
}

// Approve is POST /api/v1/intake/{id}/approve: 200 with the launch's
// outcome (launched or failed: the approval stands either way), or, for an
// approval short of the count the org's policy asks, the approvals so far;
// 403 forbidden (separation_of_duties), 409
// duplicate_group_conflict naming the blocking member, 409 invalid_state.
// The body is optional: empty, it approves as docs/api.md's "(no body)"; an
// invalid e-invoice needs {"acknowledge_invalid": true, "reason": "..."}.
// Reviewers and admins alike may acknowledge, as both may approve.
func (h *Handlers) Approve(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	var ack review.Acknowledgement
	if err := decodeOptionalJSON(c, &ack); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	a, err := h.App.Decisions.ApproveWith(c.Request().Context(), u.OrgID, id, u.Actor(), ack)
	h.CountApprove(&a.Launch, err)
	if err != nil {
		return err
	}
	if !a.Complete {
		// An approval short of the count the org's policy asks: no launch.
		return c.JSON(http.StatusOK, map[string]any{"status": a.Status, "approvals": givenJSON(a.Approvals), "approvals_required": a.Required})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": a.Status, "launch": launchJSON(a.Launch)})
}

// launchJSON is a launch as docs/api.md shows it, with the job's status added.
func launchJSON(l jobs.LaunchOutcome) map[string]any {
	out := map[string]any{"outcome": l.Outcome, "job_id": l.JobID, "job_status": l.Status}
	if l.RunID != "" {
		out["run_id"] = l.RunID
	}
	if l.Outcome == "failed" {
		out["error"] = l.Error
		out["error_class"] = l.Class
	}
	return out
}

// Reject is POST /api/v1/intake/{id}/reject, with the reason the body gives.
func (h *Handlers) Reject(c echo.Context) error {
	id, reason, err := idAndReason(c)
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	doc, err := h.App.Decisions.Reject(c.Request().Context(), u.OrgID, id, reason, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"status": doc.Status})
}

// CloseNothingToPost is POST /api/v1/intake/{id}/close-nothing-to-post:
// a document that is valid but posts nothing (every amount zero) is closed
// in one step, rejected with a fixed reason; 409 invalid_state for any
// other. There is nothing to say in the body: an empty object at most.
func (h *Handlers) CloseNothingToPost(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := decodeOptionalJSON(c, &struct{}{}); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	doc, err := h.App.Decisions.CloseNothingToPost(c.Request().Context(), u.OrgID, id, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"status": doc.Status})
}

// NotADuplicate is POST /api/v1/intake/{id}/not-a-duplicate (admin).
func (h *Handlers) NotADuplicate(c echo.Context) error {
	id, reason, err := idAndReason(c)
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	doc, err := h.App.Decisions.MarkDistinct(ctx, u.OrgID, id, reason, u.Actor())
	if err != nil {
		return err
	}
	group, err := review.Group(ctx, h.Pool, u.OrgID, id)
	if err != nil {
		return err
	}
	out, err := h.intakeJSON(c, doc, group)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// RetryJob is POST /api/v1/jobs/{id}/retry (admin).
func (h *Handlers) RetryJob(c echo.Context) error {
	id, reason, err := idAndReason(c)
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	out, err := h.App.Outbox.Retry(c.Request().Context(), u.OrgID, id, reason, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"launch": launchJSON(out)})
}

// answerRequest answers a paused bookkeeper run.
type answerRequest struct {
	Account  string `json:"account"`
	Rate     string `json:"rate"`
	Remember bool   `json:"remember"`
}

// Answer is POST /api/v1/runs/{id}/answer: the answer to a paused run's
// question (an expense account, or an exchange rate).
func (h *Handlers) Answer(c echo.Context) error {
	var body answerRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	if err := h.App.Bookkeeper.Answer(c.Request().Context(), u.OrgID, c.Param("id"),
		map[string]string{"account": body.Account, "rate": body.Rate}, body.Remember, u.Actor()); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"run_id": c.Param("id"), "status": "running"})
}

// Questions lists the questions paused runs ask, oldest first, a page
// of limit (1 to 500, default 500) with the cursor of the next page (null on
// the last).
func (h *Handlers) Questions(c echo.Context) error {
	v, err := queryParams(c, nil)
	if err != nil {
		return err
	}
	limit, err := limitParam(v, defaultQuestionsLimit, maxQuestionsLimit)
	if err != nil {
		return err
	}
	var after *bookkeeper.QuestionPosition
	if cursor := v.Get("cursor"); cursor != "" {
		parts, err := decodeCursor("questions", cursor, 2)
		if err != nil {
			return err
		}
		at, err := time.Parse(time.RFC3339Nano, parts[0])
		if err != nil || !runIDPattern.MatchString(parts[1]) {
			return invalidParam("cursor", "is not a cursor this listing gave (pass next_cursor as it came)")
		}
		after = &bookkeeper.QuestionPosition{AskedAt: at, RunID: parts[1]}
	}
	qs, more, err := h.App.Bookkeeper.QuestionPage(c.Request().Context(), httpkit.CurrentUser(c).OrgID, after, limit)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(qs))
	for _, q := range qs {
		out = append(out, map[string]any{"run_id": q.RunID, "intake_id": q.IntakeID, "kind": q.Kind, "prompt": q.Prompt,
			"data": q.Data, "asked_at": q.AskedAt})
	}
	next := ""
	if more {
		last := qs[len(qs)-1]
		next = encodeCursor("questions", last.AskedAt.UTC().Format(time.RFC3339Nano), last.RunID)
	}
	return c.JSON(http.StatusOK, map[string]any{"questions": out, "next_cursor": nextCursor(next)})
}

// runIDPattern is a run id as the database writes a uuid.
var runIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// The questions listing's page size. It listed every open question before
// it had a cursor: the default page is large, so that a client that does
// not know next_cursor yet misses nothing in any ordinary backlog.
const (
	defaultQuestionsLimit = 500
	maxQuestionsLimit     = 500
)
