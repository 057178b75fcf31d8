package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/runs"
	"greatbook/views"
	"greatbook/web/httpkit"
)

func deadLetterFilter(c echo.Context) intake.DeadLetterFilter {
	return intake.DeadLetterFilter{Status: c.FormValue("status"), ErrorClass: c.FormValue("class"), Supplier: c.FormValue("supplier"),
		From: c.FormValue("from"), To: c.FormValue("to")}
}

// deadLetterScope is whose dead letters the page shows: an org admin's
// own org's; an operator's every org's, or the one org the filter names.
func (s *Server) deadLetterScope(c echo.Context, p *views.DeadLettersProps) (org.Scope, error) {
	u := httpkit.CurrentUser(c)
	scope := u.Scope()
	if !u.IsOperator() {
		return scope, nil
	}
	p.Operator, p.OrgFilter = true, strings.TrimSpace(c.FormValue("org"))
	if p.OrgFilter == "" {
		return scope, nil
	}
	o, err := org.BySlug(c.Request().Context(), s.pool, p.OrgFilter)
	if err != nil {
		return scope, err
	}
	return scope.Narrow(o.ID), nil
}

func (s *Server) deadLetters(c echo.Context) error {
	f := deadLetterFilter(c)
	props := views.DeadLettersProps{Filter: f, Webhooks: views.WebhookDeadLettersProps{Filter: webhookDeadLetterFilter(c)}}
	if err := s.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Page(c, views.DeadLettersPage(s.base.Chrome(c, "Dead letters", "dead-letters"), props))
}

// listDeadLetters fills the page's list, and the total when the list is
// cut; and its section of webhook deliveries.
func (s *Server) listDeadLetters(c echo.Context, p *views.DeadLettersProps) error {
	ctx := c.Request().Context()
	scope, err := s.deadLetterScope(c, p)
	if err != nil {
		return err
	}
	list, err := intake.DeadLettersIn(ctx, s.pool, scope, p.Filter)
	if err != nil {
		return err
	}
	if p.BulkRuns, err = intake.BulkRetryRuns(ctx, s.pool, httpkit.CurrentUser(c).Scope()); err != nil {
		return err
	}
	p.Letters, p.Total = list, len(list)
	if len(list) == intake.DeadLetterPage {
		if p.Total, err = intake.CountDeadLettersIn(ctx, s.pool, scope, p.Filter); err != nil {
			return err
		}
	}
	return s.listWebhookDeadLetters(c, &p.Webhooks)
}

// bulkRetry counts what a filter matches (the dry run), then, confirmed with
// that count, the digest of that set and a reason, retries them all.
func (s *Server) bulkRetry(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	f := deadLetterFilter(c)
	props := views.DeadLettersProps{Filter: f}
	scope, err := s.deadLetterScope(c, &props)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if c.FormValue("step") == "retry" {
		expected, _ := strconv.Atoi(c.FormValue("expected"))
		confirmed := intake.DryRun{Count: expected, Set: c.FormValue("set")}
		if expected > intake.SyncBulkRetryMax {
			// Too many to retry while the operator waits: a durable run,
			// whose progress the page polls.
			_, err := s.app.BulkRetries.Start(ctx, scope, f, c.FormValue("reason"), confirmed, u.Actor())
			if status, err = bulkOutcome(&props, intake.BulkRetry{}, err); err != nil {
				return err
			}
			props.Result = nil
		} else {
			res, err := s.app.Outbox.RetryMatchingIn(ctx, scope, f, c.FormValue("reason"), confirmed, u.Actor())
			if status, err = bulkOutcome(&props, res, err); err != nil {
				return err
			}
		}
	} else {
		dry, err := intake.DryRunRetryIn(ctx, s.pool, scope, f)
		if err != nil {
			return err
		}
		props.Preview = &dry
	}
	if err := s.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DeadLettersPage(s.base.Chrome(c, "Dead letters", "dead-letters"), props))
}

// retrySelected retries the dead letters ticked on the page, with a reason.
func (s *Server) retrySelected(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	form, err := c.FormParams()
	if err != nil {
		return apperr.New(apperr.Invalid, "the form could not be read")
	}
	if len(form["job"]) > intake.MaxSelected {
		return apperr.New(apperr.Invalid, "at most %d dead letters can be retried at once", intake.MaxSelected)
	}
	ids := make([]int64, 0, len(form["job"]))
	for _, v := range form["job"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return apperr.New(apperr.Invalid, "job ids are positive integers")
		}
		ids = append(ids, id)
	}
	props := views.DeadLettersProps{Filter: deadLetterFilter(c)}
	scope, err := s.deadLetterScope(c, &props)
	if err != nil {
		return err
	}
	res, err := s.app.Outbox.RetrySelectedIn(c.Request().Context(), scope, ids, c.FormValue("reason"), u.Actor())
	status, err := bulkOutcome(&props, res, err)
	if err != nil {
		return err
	}
	if err := s.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DeadLettersPage(s.base.Chrome(c, "Dead letters", "dead-letters"), props))
}

func (s *Server) jobPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	job, attempts, err := intake.JobHistoryIn(ctx, s.pool, u.Scope(), id)
	if err != nil {
		return err
	}
	infos, err := runs.ForSubject(ctx, s.pool, job.OrgID, "bookkeeper", job.IntakeID)
	if err != nil {
		return err
	}
	rv, err := s.runViews(c, infos)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.JobPage(s.base.Chrome(c, fmt.Sprintf("Job %d", id), "dead-letters"), job, attempts, rv))
}

func (s *Server) runViews(c echo.Context, infos []runs.Info) ([]views.RunView, error) {
	var out []views.RunView
	for _, info := range infos {
		cps, err := runs.Checkpoints(c.Request().Context(), s.pool, info.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, views.RunView{Info: info, Checkpoints: cps})
	}
	return out, nil
}

// adminRetry is an operator's retry from the dead-letter or the job page.
func (s *Server) adminRetry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	var out intake.LaunchOutcome
	job, _, err := intake.JobHistoryIn(c.Request().Context(), s.pool, u.Scope(), id)
	if err == nil { // the job's own org: an operator retries any org's
		out, err = s.app.Outbox.Retry(c.Request().Context(), job.OrgID, id, c.FormValue("reason"), u.Actor())
	}
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code == apperr.Internal || e.Code == apperr.NotFound {
			return err
		}
		httpkit.Flash(c, fmt.Sprintf("Job %d was not retried: %s", id, e.Message))
	} else if out.Outcome == "launched" {
		httpkit.Flash(c, fmt.Sprintf("Job %d retried: bookkeeping launched.", id))
	} else {
		httpkit.Flash(c, fmt.Sprintf("Job %d retried, and the launch failed again: %s", id, out.Error))
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/admin/jobs/%d", id))
}

func (s *Server) runsPage(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	kind, state := c.QueryParam("kind"), c.QueryParam("state")
	list, err := runs.ListIn(ctx, s.pool, u.Scope(), runs.ListFilter{Kind: kind, State: state})
	if err != nil {
		return err
	}
	stranded, sweep, err := intake.StrandedWorkIn(ctx, s.pool, u.Scope(), 2*s.app.Engine.LeaseTTL+time.Minute)
	if err != nil {
		return err
	}
	counts, err := runs.CountsIn(ctx, s.pool, u.Scope())
	if err != nil {
		return err
	}
	props := views.RunsProps{Kind: kind, State: state, Runs: list, Stranded: stranded, Sweep: sweep, Counts: counts}
	if u.IsOperator() {
		if props.OrgSlugs, err = org.Slugs(ctx, s.pool); err != nil {
			return err
		}
	}
	return httpkit.Page(c, views.RunsPage(s.base.Chrome(c, "Runs", "runs"), props))
}

// runRetry is an operator's retry of a stranded pipeline run, from the runs page.
func (s *Server) runRetry(c echo.Context) error {
	return s.runAction(c, "retried", s.app.Pipeline.Retry)
}

// runAbandon is an operator's abandon of a stranded pipeline run: its
// document is filed flagged for a person.
func (s *Server) runAbandon(c echo.Context) error {
	return s.runAction(c, "abandoned; its document is filed flagged for a person", s.app.Pipeline.Abandon)
}

func (s *Server) runAction(c echo.Context, done string, act func(ctx context.Context, orgID int64, runID, actor string) error) error {
	u := httpkit.CurrentUser(c)
	id := c.Param("id")
	run, err := runs.GetIn(c.Request().Context(), s.pool, u.Scope(), id)
	if err == nil { // the run's own org: an operator acts on any org's
		err = act(c.Request().Context(), run.OrgID, id, u.Email)
	}
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code == apperr.Internal || e.Code == apperr.NotFound {
			return err
		}
		httpkit.Flash(c, fmt.Sprintf("Run %s: %s", id, e.Message))
	} else {
		httpkit.Flash(c, fmt.Sprintf("Run %s %s.", id, done))
	}
	return c.Redirect(http.StatusSeeOther, "/admin/runs")
}

func (s *Server) runPage(c echo.Context) error {
	ctx := c.Request().Context()
	info, err := runs.GetIn(ctx, s.pool, httpkit.CurrentUser(c).Scope(), c.Param("id"))
	if err != nil {
		return err
	}
	rv, err := s.runViews(c, []runs.Info{info})
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.RunPage(s.base.Chrome(c, "Run", "runs"), rv[0]))
}

func (s *Server) sourceKeys(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	p := views.SourceKeyProps{Key: ledger.SourceKey{OrgID: u.OrgID, SourceType: c.QueryParam("source_type"),
		SourceID: c.QueryParam("source_id"), EntrySet: c.QueryParam("entry_set")}}
	if p.Key.SourceType != "" && p.Key.SourceID != "" && p.Key.EntrySet != "" {
		p.Searched = true
		e, found, err := ledger.ByKey(ctx, s.pool, p.Key)
		if err != nil {
			return err
		}
		if found {
			p.Entry = &e
		}
		if p.Observations, err = ledger.Observations(ctx, s.pool, p.Key); err != nil {
			return err
		}
	}
	return httpkit.Page(c, views.SourceKeyPage(s.base.Chrome(c, "Source keys", "ledger"), p))
}

// bulkOutcome puts a bulk retry's outcome on the dead-letter page: its
// result, or a refusal said in place with its status; an internal error is
// returned to become the error page.
func bulkOutcome(props *views.DeadLettersProps, res intake.BulkRetry, err error) (int, error) {
	if err == nil {
		props.Result = &res
		return http.StatusOK, nil
	}
	e := httpkit.Classify(err)
	if e.Code == apperr.Internal {
		return 0, err
	}
	props.Error = e.Message
	return httpkit.Status(e.Code), nil
}

// bulkRetryProgress is the dead-letter page's progress of its durable bulk
// retries, which the page polls while one runs.
func (s *Server) bulkRetryProgress(c echo.Context) error {
	list, err := intake.BulkRetryRuns(c.Request().Context(), s.pool, httpkit.CurrentUser(c).Scope())
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.BulkRetryRuns(list))
}
