package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/views"
)

// TestTheDecisionPanelRefreshesOnlyOnItsTriggers guards against htmx's
// default trigger: an element with hx-get and no hx-trigger refreshes on
// every click inside it, which re-rendered a blocked panel under the
// reviewer's pointer. Every state of the panel names its triggers, and none
// of them is a click.
func TestTheDecisionPanelRefreshesOnlyOnItsTriggers(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	doc := func(s intake.Status) intake.Document {
		return intake.Document{ID: 7, OrgID: 1, Status: s, DocType: "invoice", SourceRef: "SE556677889901/INV-1"}
	}
	job := func(s jobs.Status) *jobs.Job {
		return &jobs.Job{ID: 3, IntakeID: 7, Status: s, Attempts: 1, MaxAttempts: 5}
	}
	states := map[string]views.DecisionView{
		"pending": {Doc: doc(intake.Pending)},
		"flagged": {Doc: doc(intake.Flagged)},
		"blocked": {Doc: doc(intake.Flagged), Outcome: &views.Outcome{Kind: "conflict",
			Blocking: &review.Blocking{ID: 6, Status: intake.Posted, ApprovedBy: "rev@example.test", ApprovedAt: &at, EntryID: 11}}},
		"working":  {Doc: doc(intake.Active), Job: job(jobs.Launched)},
		"failed":   {Doc: doc(intake.Active), Job: job(jobs.Abandoned), CanRetry: true},
		"posted":   {Doc: doc(intake.Posted), Job: job(jobs.Done)},
		"rejected": {Doc: doc(intake.Rejected)},
		"invalid": {Doc: doc(intake.Flagged), Verdict: review.Verdict{Applies: true, State: review.VerdictInvalid, Violations: 1,
			NeedsAcknowledgement: true, SupplierNotice: "Your invoice INV-1 cannot be accepted."}},
	}
	for name, v := range states {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := views.DecisionPanel(v).Render(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			d, err := goquery.NewDocumentFromReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			panel := d.Find("#decision")
			if panel.Length() != 1 {
				t.Fatalf("no panel in %s", buf.String())
			}
			// Buttons, links and form controls are meant to act on a click
			// or a submit; any other element that makes a request must say
			// when.
			d.Find("[hx-get], [hx-post]").Not("a, button, form, input, select, textarea").Each(func(_ int, s *goquery.Selection) {
				trigger, ok := s.Attr("hx-trigger")
				if !ok || strings.Contains(trigger, "click") {
					html, _ := goquery.OuterHtml(s)
					t.Errorf("%s: hx-trigger %q on %.120s", name, trigger, html)
				}
			})
		})
	}
}

// The panel's element carries its own attributes and nothing else: one
// refresh per state (at once while the bookkeeper works, slower while an
// approved document waits, else only on an event), and no stray attribute
// left by a condition written among them.
func TestTheDecisionPanelsAttributesFollowItsState(t *testing.T) {
	t.Parallel()
	doc := func(s intake.Status) intake.Document { return intake.Document{ID: 7, OrgID: 1, Status: s} }
	job := func(s jobs.Status) *jobs.Job {
		return &jobs.Job{ID: 3, IntakeID: 7, Status: s, MaxAttempts: 5}
	}
	for name, tc := range map[string]struct {
		v     views.DecisionView
		every string
	}{
		"working":  {views.DecisionView{Doc: doc(intake.Active), Job: job(jobs.Launched)}, "every 1s"},
		"waiting":  {views.DecisionView{Doc: doc(intake.Active), Job: job(jobs.Failed)}, "every 3s"},
		"pending":  {views.DecisionView{Doc: doc(intake.Pending)}, ""},
		"posted":   {views.DecisionView{Doc: doc(intake.Posted), Job: job(jobs.Done)}, ""},
		"rejected": {views.DecisionView{Doc: doc(intake.Rejected)}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := views.DecisionPanel(tc.v).Render(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			// The raw tag: a parser keeps only the first of two equal attributes.
			head := buf.String()[:strings.Index(buf.String(), ">")+1]
			panel := render(t, views.DecisionPanel(tc.v)).Find("#decision")
			for _, stray := range []string{"else", "if"} {
				if _, ok := panel.Attr(stray); ok {
					t.Errorf("a stray %q attribute: %s", stray, head)
				}
			}
			if n := strings.Count(head, "hx-trigger="); n != 1 {
				t.Errorf("%d hx-trigger attributes: %s", n, head)
			}
			trigger, _ := panel.Attr("hx-trigger")
			if tc.every == "" && strings.Contains(trigger, "every") || tc.every != "" && !strings.HasPrefix(trigger, tc.every+",") {
				t.Errorf("hx-trigger %q, want it to poll %q", trigger, tc.every)
			}
		})
	}
}

// A document with nothing to post is closed, never approved: the panel offers the one-click close and
// no approve, whether it was filed flagged nothing_to_post or pending (filed so before that reason).
func TestADocumentWithNothingToPostIsOfferedCloseNotApprove(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]intake.Document{
		"flagged": {ID: 7, OrgID: 1, Status: intake.Flagged, FlagReason: intake.FlagNothingToPost, DocType: "invoice"},
		"pending": {ID: 7, OrgID: 1, Status: intake.Pending, DocType: "invoice"},
	} {
		t.Run(name, func(t *testing.T) {
			panel := render(t, views.DecisionPanel(views.DecisionView{Doc: doc, CanCloseNothingToPost: true})).Find("#decision")
			form := panel.Find(`[data-testid=close-nothing-to-post-form]`)
			if form.AttrOr("hx-post", "") != "/intake/7/close-nothing-to-post" || form.Find(`[data-testid=close-nothing-to-post]`).Length() != 1 ||
				panel.Find(`[data-testid=approve], [data-testid=approve-next]`).Length() != 0 {
				html, _ := panel.Html()
				t.Fatalf("the panel: %s", html)
			}
		})
	}
}
