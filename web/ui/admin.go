package ui

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
	"greatbook/web/httpkit"
)

func deadLetterFilter(c echo.Context) jobs.DeadLetterFilter {
	return jobs.DeadLetterFilter{Status: c.FormValue("status"), ErrorClass: c.FormValue("class"), Supplier: c.FormValue("supplier"),
		From: c.FormValue("from"), To: c.FormValue("to")}
}

// deadLetterScope is whose dead letters the page shows: an org admin's
// own org's; an operator's every org's, or the one org the filter names.
func (h *Handlers) deadLetterScope(c echo.Context, p *views.DeadLettersProps) (org.Scope, error) {
	u := httpkit.CurrentUser(c)
	scope := u.Scope()
	if !u.IsOperator() {
		return scope, nil
	}
	p.Operator, p.OrgFilter = true, strings.TrimSpace(c.FormValue("org"))
	if p.OrgFilter == "" {
		return scope, nil
	}
	o, err := org.BySlug(c.Request().Context(), h.Pool, p.OrgFilter)
	if err != nil {
		return scope, err
	}
	return scope.Narrow(o.ID), nil
}

// DeadLetters is the dead-letter page: the jobs (and the org's webhook
// deliveries) that ran out of attempts, filtered as the query says.
func (h *Handlers) DeadLetters(c echo.Context) error {
	f := deadLetterFilter(c)
	after, err := jobs.ParseDeadLetterCursor(c.FormValue("after"))
	if err != nil {
		return err
	}
	props := views.DeadLettersProps{Filter: f, After: after, Webhooks: views.WebhookDeadLettersProps{Filter: webhookDeadLetterFilter(c)}}
	if err := h.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Page(c, views.DeadLettersPage(h.Chrome(c, "Dead letters", "dead-letters"), props))
}

// listDeadLetters fills the page's list from its cursor (p.After), and the
// total (counted up to views.DeadLetterCountMax) when one page does not
// show every match; and its section of webhook deliveries.
func (h *Handlers) listDeadLetters(c echo.Context, p *views.DeadLettersProps) error {
	ctx := c.Request().Context()
	scope, err := h.deadLetterScope(c, p)
	if err != nil {
		return err
	}
	page, err := jobs.DeadLettersIn(ctx, h.Pool, scope, p.Filter, p.After)
	if err != nil {
		return err
	}
	if p.BulkRuns, err = jobs.BulkRetryRuns(ctx, h.Pool, httpkit.CurrentUser(c).Scope()); err != nil {
		return err
	}
	p.Letters, p.Next, p.Total = page.Letters, page.Next, len(page.Letters)
	if p.After.IsZero() && p.Next.IsZero() {
		return h.listWebhookDeadLetters(c, &p.Webhooks)
	}
	switch {
	case page.Matches >= 0:
		p.Total = page.Matches
	default:
		if p.Total, err = jobs.CountMatchingUpTo(ctx, h.Pool, scope, p.Filter, views.DeadLetterCountMax+1); err != nil {
			return err
		}
	}
	if p.Total > views.DeadLetterCountMax {
		p.Total, p.TotalMore = views.DeadLetterCountMax, true
	}
	return h.listWebhookDeadLetters(c, &p.Webhooks)
}

// BulkRetry counts what a filter matches (the dry run), then, confirmed with
// that count, the digest of that set and a reason, retries them all.
func (h *Handlers) BulkRetry(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	f := deadLetterFilter(c)
	props := views.DeadLettersProps{Filter: f}
	scope, err := h.deadLetterScope(c, &props)
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
			_, err := h.App.BulkRetries.Start(ctx, scope, f, c.FormValue("reason"), confirmed, u.Actor())
			if status, err = bulkOutcome(&props, jobs.BulkRetry{}, err); err != nil {
				return err
			}
			props.Result = nil
		} else {
			res, err := h.App.Outbox.RetryMatchingIn(ctx, scope, f, c.FormValue("reason"), confirmed, u.Actor())
			if status, err = bulkOutcome(&props, res, err); err != nil {
				return err
			}
		}
	} else {
		dry, err := jobs.DryRunRetryIn(ctx, h.Pool, scope, f)
		if err != nil {
			return err
		}
		props.Preview = &dry
	}
	if err := h.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DeadLettersPage(h.Chrome(c, "Dead letters", "dead-letters"), props))
}

// RetrySelected retries the dead letters ticked on the page, with a reason.
func (h *Handlers) RetrySelected(c echo.Context) error {
	u := httpkit.CurrentUser(c)
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
	scope, err := h.deadLetterScope(c, &props)
	if err != nil {
		return err
	}
	res, err := h.App.Outbox.RetrySelectedIn(c.Request().Context(), scope, ids, c.FormValue("reason"), u.Actor())
	status, err := bulkOutcome(&props, res, err)
	if err != nil {
		return err
	}
	if err := h.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DeadLettersPage(h.Chrome(c, "Dead letters", "dead-letters"), props))
}

// JobPage is an outbox job's page: its attempts and its document's
// bookkeeper runs with their checkpoints.
func (h *Handlers) JobPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	job, attempts, err := jobs.HistoryIn(ctx, h.Pool, u.Scope(), id)
	if err != nil {
		return err
	}
	infos, err := runs.ForSubject(ctx, h.Pool, job.OrgID, "bookkeeper", job.IntakeID)
	if err != nil {
		return err
	}
	rv, err := h.runViews(c, infos)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.JobPage(h.Chrome(c, fmt.Sprintf("Job %d", id), "dead-letters"), job, attempts, rv))
}

func (h *Handlers) runViews(c echo.Context, infos []runs.Info) ([]views.RunView, error) {
	var out []views.RunView
	for _, info := range infos {
		cps, err := runs.Checkpoints(c.Request().Context(), h.Pool, info.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, views.RunView{Info: info, Checkpoints: cps})
	}
	return out, nil
}

// AdminRetry is an operator's retry from the dead-letter or the job page.
func (h *Handlers) AdminRetry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	var out jobs.LaunchOutcome
	job, _, err := jobs.HistoryIn(c.Request().Context(), h.Pool, u.Scope(), id)
	if err == nil { // the job's own org: an operator retries any org's
		out, err = h.App.Outbox.Retry(c.Request().Context(), job.OrgID, id, c.FormValue("reason"), u.Actor())
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

// RunsPage lists the durable runs by kind and state, with their counts and
// the stranded work the sweep has not picked up.
func (h *Handlers) RunsPage(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	kind, state := c.QueryParam("kind"), c.QueryParam("state")
	list, err := runs.ListIn(ctx, h.Pool, u.Scope(), runs.ListFilter{Kind: kind, State: state})
	if err != nil {
		return err
	}
	stranded, sweep, err := jobs.StrandedWorkIn(ctx, h.Pool, u.Scope(), 2*h.App.Engine.LeaseTTL+time.Minute)
	if err != nil {
		return err
	}
	counts, err := runs.CountsIn(ctx, h.Pool, u.Scope())
	if err != nil {
		return err
	}
	props := views.RunsProps{Kind: kind, State: state, Runs: list, Stranded: stranded, Sweep: sweep, Counts: counts}
	if u.IsOperator() {
		if props.OrgSlugs, err = org.Slugs(ctx, h.Pool); err != nil {
			return err
		}
	}
	return httpkit.Page(c, views.RunsPage(h.Chrome(c, "Runs", "runs"), props))
}

// RunRetry is an operator's retry of a stranded pipeline run, from the runs page.
func (h *Handlers) RunRetry(c echo.Context) error {
	return h.runAction(c, "retried", h.App.Pipeline.Retry)
}

// RunAbandon is an operator's abandon of a stranded pipeline run: its
// document is filed flagged for a person.
func (h *Handlers) RunAbandon(c echo.Context) error {
	return h.runAction(c, "abandoned; its document is filed flagged for a person", h.App.Pipeline.Abandon)
}

func (h *Handlers) runAction(c echo.Context, done string, act func(ctx context.Context, orgID int64, runID, actor string) error) error {
	u := httpkit.CurrentUser(c)
	id := c.Param("id")
	run, err := runs.GetIn(c.Request().Context(), h.Pool, u.Scope(), id)
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

// RunPage is one durable run with its checkpoints.
func (h *Handlers) RunPage(c echo.Context) error {
	ctx := c.Request().Context()
	info, err := runs.GetIn(ctx, h.Pool, httpkit.CurrentUser(c).Scope(), c.Param("id"))
	if err != nil {
		return err
	}
	rv, err := h.runViews(c, []runs.Info{info})
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.RunPage(h.Chrome(c, "Run", "runs"), rv[0]))
}

// SourceKeys is the source-key explorer: the entry a key posted, and every
// replay and conflict observed under it.
func (h *Handlers) SourceKeys(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	p := views.SourceKeyProps{Key: ledger.SourceKey{OrgID: u.OrgID, SourceType: c.QueryParam("source_type"),
		SourceID: c.QueryParam("source_id"), EntrySet: c.QueryParam("entry_set")}}
	if p.Key.SourceType != "" && p.Key.SourceID != "" && p.Key.EntrySet != "" {
		p.Searched = true
		e, found, err := ledger.ByKey(ctx, h.Pool, p.Key)
		if err != nil {
			return err
		}
		if found {
			p.Entry = &e
		}
		if p.Observations, err = ledger.Observations(ctx, h.Pool, p.Key); err != nil {
			return err
		}
	}
	return httpkit.Page(c, views.SourceKeyPage(h.Chrome(c, "Source keys", "ledger"), p))
}

// bulkOutcome puts a bulk retry's outcome on the dead-letter page: its
// result, or a refusal said in place with its status; an internal error is
// returned to become the error page.
func bulkOutcome(props *views.DeadLettersProps, res jobs.BulkRetry, err error) (int, error) {
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

// BulkRetryProgress is the dead-letter page's progress of its durable bulk
// retries, which the page polls while one runs.
func (h *Handlers) BulkRetryProgress(c echo.Context) error {
	list, err := jobs.BulkRetryRuns(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).Scope())
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.BulkRetryRuns(list))
}
