package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/intake"
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
	job := func(s intake.JobStatus) *intake.Job {
		return &intake.Job{ID: 3, IntakeID: 7, Status: s, Attempts: 1, MaxAttempts: 5}
	}
	states := map[string]views.DecisionView{
		"pending": {Doc: doc(intake.Pending)},
		"flagged": {Doc: doc(intake.Flagged)},
		"blocked": {Doc: doc(intake.Flagged), Outcome: &views.Outcome{Kind: "conflict",
			Blocking: &intake.Blocking{ID: 6, Status: intake.Posted, ApprovedBy: "rev@example.test", ApprovedAt: &at, EntryID: 11}}},
		"working":  {Doc: doc(intake.Active), Job: job(intake.JobLaunched)},
		"failed":   {Doc: doc(intake.Active), Job: job(intake.JobAbandoned), CanRetry: true},
		"posted":   {Doc: doc(intake.Posted), Job: job(intake.JobDone)},
		"rejected": {Doc: doc(intake.Rejected)},
		"invalid": {Doc: doc(intake.Flagged), Verdict: intake.Verdict{Applies: true, State: intake.VerdictInvalid, Violations: 1,
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
