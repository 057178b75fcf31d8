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
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/runs"
	"greatbook/views"
)

func deadLetterFilter(c echo.Context) jobs.DeadLetterFilter {
	return jobs.DeadLetterFilter{Status: c.FormValue("status"), ErrorClass: c.FormValue("class"), Supplier: c.FormValue("supplier"),
		From: c.FormValue("from"), To: c.FormValue("to")}
}

// deadLetterScope is whose dead letters the page shows: an org admin's
// own org's; an operator's every org's, or the one org the filter names.
func (s *Server) deadLetterScope(c echo.Context, p *views.DeadLettersProps) (org.Scope, error) {
	u := currentUser(c)
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
	return page(c, views.DeadLettersPage(s.chrome(c, "Dead letters", "dead-letters"), props))
}

// listDeadLetters fills the page's list, and the total when the list is
// cut; and its section of webhook deliveries.
func (s *Server) listDeadLetters(c echo.Context, p *views.DeadLettersProps) error {
	ctx := c.Request().Context()
	scope, err := s.deadLetterScope(c, p)
	if err != nil {
		return err
	}
	list, err := jobs.DeadLettersIn(ctx, s.pool, scope, p.Filter)
	if err != nil {
		return err
	}
	if p.BulkRuns, err = jobs.BulkRetryRuns(ctx, s.pool, currentUser(c).Scope()); err != nil {
		return err
	}
	p.Letters, p.Total = list, len(list)
	if len(list) == jobs.DeadLetterPage {
		if p.Total, err = jobs.CountDeadLettersIn(ctx, s.pool, scope, p.Filter); err != nil {
			return err
		}
	}
	return s.listWebhookDeadLetters(c, &p.Webhooks)
}

// bulkRetry counts what a filter matches (the dry run), then, confirmed with
// that count, the digest of that set and a reason, retries them all.
func (s *Server) bulkRetry(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	f := deadLetterFilter(c)
	props := views.DeadLettersProps{Filter: f}
	scope, err := s.deadLetterScope(c, &props)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if c.FormValue("step") == "retry" {
		expected, _ := strconv.Atoi(c.FormValue("expected"))
		confirmed := jobs.DryRun{Count: expected, Set: c.FormValue("set")}
		if expected > jobs.SyncBulkRetryMax {
			// Too many to retry while the operator waits: a durable run,
			// whose progress the page polls.
			_, err := s.app.BulkRetries.Start(ctx, scope, f, c.FormValue("reason"), confirmed, u.Actor())
			if status, err = bulkOutcome(&props, jobs.BulkRetry{}, err); err != nil {
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
		dry, err := jobs.DryRunRetryIn(ctx, s.pool, scope, f)
		if err != nil {
			return err
		}
		props.Preview = &dry
	}
	if err := s.listDeadLetters(c, &props); err != nil {
		return err
	}
	return render(c, status, views.DeadLettersPage(s.chrome(c, "Dead letters", "dead-letters"), props))
}

// retrySelected retries the dead letters ticked on the page, with a reason.
func (s *Server) retrySelected(c echo.Context) error {
	u := currentUser(c)
	form, err := c.FormParams()
	if err != nil {
		return apperr.New(apperr.Invalid, "the form could not be read")
	}
	if len(form["job"]) > jobs.MaxSelected {
		return apperr.New(apperr.Invalid, "at most %d dead letters can be retried at once", jobs.MaxSelected)
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
	return render(c, status, views.DeadLettersPage(s.chrome(c, "Dead letters", "dead-letters"), props))
}

func (s *Server) jobPage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	job, attempts, err := jobs.HistoryIn(ctx, s.pool, u.Scope(), id)
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
	return page(c, views.JobPage(s.chrome(c, fmt.Sprintf("Job %d", id), "dead-letters"), job, attempts, rv))
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
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	var out jobs.LaunchOutcome
	job, _, err := jobs.HistoryIn(c.Request().Context(), s.pool, u.Scope(), id)
	if err == nil { // the job's own org: an operator retries any org's
		out, err = s.app.Outbox.Retry(c.Request().Context(), job.OrgID, id, c.FormValue("reason"), u.Actor())
	}
	if err != nil {
		e := toAppError(err)
		if e.Code == apperr.Internal || e.Code == apperr.NotFound {
			return err
		}
		flash(c, fmt.Sprintf("Job %d was not retried: %s", id, e.Message))
	} else if out.Outcome == "launched" {
		flash(c, fmt.Sprintf("Job %d retried: bookkeeping launched.", id))
	} else {
		flash(c, fmt.Sprintf("Job %d retried, and the launch failed again: %s", id, out.Error))
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/admin/jobs/%d", id))
}

func (s *Server) runsPage(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	kind, state := c.QueryParam("kind"), c.QueryParam("state")
	list, err := runs.ListIn(ctx, s.pool, u.Scope(), runs.ListFilter{Kind: kind, State: state})
	if err != nil {
		return err
	}
	stranded, sweep, err := jobs.StrandedWorkIn(ctx, s.pool, u.Scope(), 2*s.app.Engine.LeaseTTL+time.Minute)
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
	return page(c, views.RunsPage(s.chrome(c, "Runs", "runs"), props))
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
	u := currentUser(c)
	id := c.Param("id")
	run, err := runs.GetIn(c.Request().Context(), s.pool, u.Scope(), id)
	if err == nil { // the run's own org: an operator acts on any org's
		err = act(c.Request().Context(), run.OrgID, id, u.Email)
	}
	if err != nil {
		e := toAppError(err)
		if e.Code == apperr.Internal || e.Code == apperr.NotFound {
			return err
		}
		flash(c, fmt.Sprintf("Run %s: %s", id, e.Message))
	} else {
		flash(c, fmt.Sprintf("Run %s %s.", id, done))
	}
	return c.Redirect(http.StatusSeeOther, "/admin/runs")
}

func (s *Server) runPage(c echo.Context) error {
	ctx := c.Request().Context()
	info, err := runs.GetIn(ctx, s.pool, currentUser(c).Scope(), c.Param("id"))
	if err != nil {
		return err
	}
	rv, err := s.runViews(c, []runs.Info{info})
	if err != nil {
		return err
	}
	return page(c, views.RunPage(s.chrome(c, "Run", "runs"), rv[0]))
}

func (s *Server) sourceKeys(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
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
	return page(c, views.SourceKeyPage(s.chrome(c, "Source keys", "ledger"), p))
}

// bulkOutcome puts a bulk retry's outcome on the dead-letter page: its
// result, or a refusal said in place with its status; an internal error is
// returned to become the error page.
func bulkOutcome(props *views.DeadLettersProps, res jobs.BulkRetry, err error) (int, error) {
	if err == nil {
		props.Result = &res
		return http.StatusOK, nil
	}
	e := toAppError(err)
	if e.Code == apperr.Internal {
		return 0, err
	}
	props.Error = e.Message
	return statusByCode[e.Code], nil
}

// bulkRetryProgress is the dead-letter page's progress of its durable bulk
// retries, which the page polls while one runs.
func (s *Server) bulkRetryProgress(c echo.Context) error {
	list, err := jobs.BulkRetryRuns(c.Request().Context(), s.pool, currentUser(c).Scope())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.BulkRetryRuns(list))
}
