package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/desk"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// maxQueueContext bounds the desk's query string a document page carries
// along (tab, search, filters, order): longer, and the page falls back to
// the default queue rather than echo it into every link.
const maxQueueContext = 4096

// Desk is the reviewer's desk: the queue the query describes and the
// bookkeeper's open questions.
func (h *Handlers) Desk(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	f := queueFilter(c.QueryParams())
	f.Approver = u.Actor().Label
	p, err := desk.Queue(ctx, h.Pool, u.OrgID, f)
	if err != nil {
		return err
	}
	qs, err := h.App.Bookkeeper.DeskQuestions(ctx, u.OrgID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.DeskPage(h.Chrome(c, "Desk", "desk"), views.DeskProps{Page: p, Questions: qs}))
}

// DeskTabs answers the desk's tabs reading their counts again.
func (h *Handlers) DeskTabs(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	counts, err := desk.TabCounts(c.Request().Context(), h.Pool, u.OrgID, u.Actor().Label)
	if err != nil {
		return err
	}
	poll, _ := strconv.Atoi(c.QueryParam("poll"))
	return httpkit.Render(c, http.StatusOK, views.DeskTabs(queueFilter(c.QueryParams()), counts, poll, false))
}

// queueFilter is the desk's queue the query v describes: the desk's own
// parameters, and the same ones carried along to a document page.
func queueFilter(v url.Values) desk.QueueFilter { return desk.ParseQueueFilter(v) }

// queueContext is the queue a document page was opened from, as the query
// string the page passes along: the desk's parameters without its page
// cursors (the queue, not where the desk's page started).
func queueContext(v url.Values) (desk.QueueFilter, string) {
	kept := url.Values{}
	for k, vs := range v {
		switch k {
		case "before", "after", "at":
		default:
			kept[k] = vs
		}
	}
	query := kept.Encode()
	if len(query) > maxQueueContext {
		kept, query = url.Values{}, ""
	}
	f := queueFilter(kept)
	return f, query
}

// queueNavigation is where document id stands in the queue its page was
// opened from (the query of the request).
func (h *Handlers) queueNavigation(c echo.Context, id int64) (views.QueueNav, error) {
	f, query := queueContext(c.QueryParams())
	pos, query, err := h.position(c, f, query, id)
	return views.QueueNav{DocumentID: id, Query: query, Position: pos}, err
}

// position is document id's place in queue f (query, its query string). A
// queue the desk would refuse (a search it cannot store) falls back to the
// default queue: it must fail neither the document's page nor a decision
// already made.
func (h *Handlers) position(c echo.Context, f desk.QueueFilter, query string, id int64) (desk.QueuePosition, string, error) {
	ctx, u := c.Request().Context(), httpkit.CurrentUser(c)
	orgID := u.OrgID
	// The Mine tab is the signed-in reviewer's.
	f.Approver = u.Actor().Label
	pos, err := desk.Position(ctx, h.Pool, orgID, f, id)
	if e, ok := apperr.As(err); ok && e.Code == apperr.Invalid {
		query = ""
		pos, err = desk.Position(ctx, h.Pool, orgID, desk.QueueFilter{}, id)
	}
	return pos, query, err
}

// advances reports whether a decision was asked "and next".
func advances(c echo.Context) bool { return c.FormValue("next") != "" }

// advance answers a decision made "and next": the outcome goes along as a
// flash, and the reviewer to the next document of the queue the page was
// opened from, or back to that queue when it has no more.
func (h *Handlers) advance(c echo.Context, id int64, out *views.Outcome) error {
	raw := c.FormValue("queue")
	if len(raw) > maxQueueContext {
		raw = ""
	}
	v, _ := url.ParseQuery(raw)
	f, query := queueContext(v)
	pos, query, err := h.position(c, f, query, id)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("Document %d: %s", id, out.Message)
	target := views.QueueDocumentURL(pos.Next, query)
	if pos.Next == 0 {
		msg += " That was the last document of this queue."
		target = views.QueueDeskURL(id, query)
	}
	httpkit.Flash(c, msg)
	if httpkit.IsHTMX(c) {
		c.Response().Header().Set("HX-Redirect", target)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, target)
}
