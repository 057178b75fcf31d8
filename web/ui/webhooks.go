package ui

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/webhooks"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// WebhooksPage lists the org's endpoints with the form to register one.
func (h *Handlers) WebhooksPage(c echo.Context) error {
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksProps{})
}

func (h *Handlers) renderWebhooks(c echo.Context, status int, p views.WebhooksProps) error {
	list, err := webhooks.Endpoints(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	p.Endpoints = list
	return httpkit.Render(c, status, views.WebhooksPage(h.Chrome(c, "Webhooks", "webhooks"), p))
}

// RegisterWebhook registers an endpoint and shows its secret once, in this
// response (never stored in the session, never shown again). A refused
// URL, types or secret shows the form again with what was wrong.
func (h *Handlers) RegisterWebhook(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	reg := webhooks.Registration{URL: c.FormValue("url"), EventTypes: []string{c.FormValue("event_types")}, Secret: c.FormValue("secret")}
	ep, secret, err := h.App.Webhooks.Register(c.Request().Context(), u.OrgID, reg, u.Actor())
	if err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.Invalid {
			return err
		}
		return h.renderWebhooks(c, httpkit.Status(e.Code), views.WebhooksProps{URL: reg.URL, EventTypes: c.FormValue("event_types"), Error: e.Message})
	}
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksProps{Created: &ep, Secret: secret})
}

// DisableWebhook stops sending to an endpoint.
func (h *Handlers) DisableWebhook(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	if err := h.App.Webhooks.Disable(c.Request().Context(), u.OrgID, id, u.Actor()); err != nil {
		return err
	}
	httpkit.Flash(c, fmt.Sprintf("Webhook endpoint %d disabled: nothing more is sent to it.", id))
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks")
}

func webhookDeadLetterFilter(c echo.Context) webhooks.DeadLetterFilter {
	return webhooks.DeadLetterFilter{Endpoint: c.FormValue("wh_endpoint"), EventType: c.FormValue("wh_type"),
		From: c.FormValue("wh_from"), To: c.FormValue("wh_to")}
}

// listWebhookDeadLetters fills the dead-letter page's webhook section, and
// its total when the list is cut.
func (h *Handlers) listWebhookDeadLetters(c echo.Context, p *views.WebhookDeadLettersProps) error {
	if httpkit.CurrentUser(c).IsOperator() {
		p.ForOperator = true
		return nil
	}
	ctx, orgID := c.Request().Context(), httpkit.CurrentUser(c).OrgID
	list, err := webhooks.DeadLetters(ctx, h.Pool, orgID, p.Filter)
	if err != nil {
		return err
	}
	p.Letters, p.Total = list, len(list)
	if len(list) == webhooks.DeadLetterPage {
		p.Total, err = webhooks.CountDeadLetters(ctx, h.Pool, orgID, p.Filter)
	}
	return err
}

// WebhookBulkRetry counts the dead deliveries a filter matches (the dry
// run), then, confirmed with that count, the digest of that set and a
// reason, sends them all again; like the jobs' bulk retry.
func (h *Handlers) WebhookBulkRetry(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	props := views.DeadLettersProps{Filter: deadLetterFilter(c), Webhooks: views.WebhookDeadLettersProps{Filter: webhookDeadLetterFilter(c)}}
	wp := &props.Webhooks
	status := http.StatusOK
	if c.FormValue("step") == "retry" {
		expected, _ := strconv.Atoi(c.FormValue("expected"))
		res, err := h.App.Webhooks.RetryMatching(ctx, u.OrgID, wp.Filter, c.FormValue("reason"),
			webhooks.DryRun{Count: expected, Set: c.FormValue("set")}, u.Actor())
		if err != nil {
			e := httpkit.Classify(err)
			if e.Code == apperr.Internal {
				return err
			}
			wp.Error, status = e.Message, httpkit.Status(e.Code)
		} else {
			wp.Result = &res
		}
	} else {
		dry, err := webhooks.DryRunRetry(ctx, h.Pool, u.OrgID, wp.Filter)
		if err != nil {
			return err
		}
		wp.Preview = &dry
	}
	if err := h.listDeadLetters(c, &props); err != nil {
		return err
	}
	return httpkit.Render(c, status, views.DeadLettersPage(h.Chrome(c, "Dead letters", "dead-letters"), props))
}

// WebhookRetry sends one dead delivery again, with a reason.
func (h *Handlers) WebhookRetry(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	if err := h.App.Webhooks.Retry(c.Request().Context(), u.OrgID, id, c.FormValue("reason"), u.Actor()); err != nil {
		e := httpkit.Classify(err)
		if e.Code == apperr.Internal || e.Code == apperr.NotFound {
			return err
		}
		httpkit.Flash(c, fmt.Sprintf("Webhook delivery %d was not retried: %s", id, e.Message))
	} else {
		httpkit.Flash(c, fmt.Sprintf("Webhook delivery %d is sent again.", id))
	}
	return c.Redirect(http.StatusSeeOther, "/admin/dead-letters#webhook-dead-letters")
}
