package ui

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/desk"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// answerFields is a question's answer as a form sends it. The button that
// offers the account used for the supplier before sends use_account, which
// wins over the (then empty) account select.
func answerFields(c echo.Context) map[string]string {
	account := c.FormValue("account")
	if suggested := c.FormValue("use_account"); suggested != "" {
		account = suggested
	}
	return map[string]string{"account": account, "rate": c.FormValue("rate")}
}

// deskQueue is the queue the desk showed when an answer was given on it
// (htmx says which page sent the request); the default queue otherwise.
func deskQueue(c echo.Context) desk.QueueFilter {
	if u, err := url.Parse(c.Request().Header.Get("HX-Current-URL")); err == nil && u.Path == "/desk" {
		f, _ := queueContext(u.Query())
		return f
	}
	return queueFilter(url.Values{})
}

// AnswerOnDesk answers one of the bookkeeper's questions in place on the
// Desk: htmx swaps the question's row for its outcome (or for the row again
// with the problem said); without htmx the desk is shown again.
func (h *Handlers) AnswerOnDesk(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	runID := c.Param("run")
	answer := answerFields(c)
	q, err := h.App.Bookkeeper.DeskAnswer(c.Request().Context(), u.OrgID, runID, answer, c.FormValue("remember") != "", u.Actor())
	var refusal *apperr.Error
	if err != nil {
		if refusal = httpkit.Classify(err); refusal.Code == apperr.Internal || refusal.Code == apperr.Unavailable {
			return err
		}
	}
	if !httpkit.IsHTMX(c) {
		if refusal != nil {
			httpkit.Flash(c, refusal.Message)
		} else {
			httpkit.Flash(c, "Answered; the bookkeeper continues.")
		}
		return c.Redirect(http.StatusSeeOther, "/desk")
	}
	switch {
	case refusal == nil:
		said := "account " + strings.TrimSpace(answer["account"])
		if q.Kind == bookkeeper.AskExchangeRate {
			said = "rate " + strings.TrimSpace(answer["rate"])
		}
		// The desk's tabs come along: the bookkeeper posts the document a
		// moment later, and the tabs follow it until it has.
		counts, err := desk.TabCounts(c.Request().Context(), h.Pool, u.OrgID, u.Actor().Label)
		if err != nil {
			return err
		}
		return httpkit.Render(c, http.StatusOK, templ.Join(views.DeskQuestionAnswered(*q, "answered with "+said+"; the bookkeeper continues."),
			views.DeskTabs(deskQueue(c), counts, 1, true)))
	case q == nil:
		return httpkit.Render(c, httpkit.Status(refusal.Code), views.DeskQuestionClosed(runID, refusal.Message))
	}
	return httpkit.Render(c, httpkit.Status(refusal.Code), views.DeskQuestion(httpkit.CSRFToken(c), *q, refusal.Message))
}
