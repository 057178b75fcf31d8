package views_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/shopspring/decimal"

	"greatbook/internal/apchecks"
	"greatbook/internal/desk"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/review"
	"greatbook/internal/webhooks"
	"greatbook/views"
)

// rawCode is a status, flag or finding code as the JSON API spells it
// (lower case words joined by underscores): never shown to a person.
var rawCode = regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)

// text is what a person reads of c: its text, white space collapsed.
func text(t *testing.T, c templ.Component) string {
	t.Helper()
	return strings.Join(strings.Fields(render(t, c).Text()), " ")
}

// The pages say statuses, flag reasons and finding codes in words; the
// codes stay in attributes (data-*, option values) for scripts and tests.
func TestPagesSayCodesInWords(t *testing.T) {
	t.Parallel()
	dec := decimal.RequireFromString
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	manual := intake.Document{ID: 7, Status: intake.Flagged, FlagReason: intake.FlagNeedsManualExtraction, ContentHash: strings.Repeat("ab", 32)}
	members := []review.Member{{ID: 6, Status: intake.Active}, {ID: 7, Status: intake.Flagged, DuplicateOf: 6, DuplicateReason: intake.SameReference}}
	for name, tc := range map[string]struct {
		c     templ.Component
		words []string
	}{
		"badges": {views.DocumentBadges(manual, false, false), []string{"needs typing in"}},
		"desk": {views.DeskPage(views.Chrome{Title: "Desk"}, views.DeskProps{Page: desk.QueuePage{Rows: []desk.QueueRow{
			{ID: 7, Status: intake.Flagged, FlagReason: intake.FlagExtractionFailed, ReceivedAt: at},
			{ID: 8, Status: intake.Active, ReceivedAt: at},
		}}}), []string{"extraction failed", "approved", "needs typing in", "not an invoice", "nothing to post"}},
		"upload": {views.UploadResultItem(views.UploadResult{Outcome: "new", DocumentID: 7, Status: "flagged", FlagReason: intake.FlagNeedsManualExtraction}),
			[]string{"needs typing in"}},
		"ap checks": {views.PayableChecks(apchecks.Report{Findings: []einvoice.Finding{
			{Code: apchecks.CodeSupplierIBANDiff, Severity: einvoice.SeverityWarning, Field: "BT-84", Message: "the bank account differs"},
			{Code: apchecks.CodeDueAtArrival, Severity: einvoice.SeverityWarning, Field: "BT-9", Message: "it was due already"},
		}}), []string{"Bank account changed", "Due date passed at arrival"}},
		"findings": {views.ConformancePanel(review.Verdict{Applies: true, State: review.VerdictInvalid, Violations: 1, Findings: []einvoice.Finding{
			{Code: "BR-CO-10", Severity: einvoice.SeverityFatal, Field: "BT-106", Message: "the sum of the lines is wrong"},
			{Code: einvoice.CodeLineNet, Severity: einvoice.SeverityWarning, Field: "BT-131", Message: "a line's net is off"},
		}}), []string{"BR-CO-10", "Line net does not add up"}},
		"group":   {views.GroupGraph(members, 7), []string{"approved"}},
		"compare": {views.Compare(views.CompareView{DocumentID: 7, With: 6, Members: members}), []string{"document 6 (approved)"}},
		"blocked": {views.DecisionPanel(views.DecisionView{Doc: intake.Document{ID: 7, Status: intake.Flagged, DuplicateOf: 6},
			Outcome: &views.Outcome{Kind: "conflict", Blocking: &review.Blocking{ID: 6, Status: intake.Active, ApprovedBy: "ann@example.test", ApprovedAt: &at}}}),
			[]string{"is already approved"}},
		"lines": {views.DocumentPage(views.Chrome{Title: "Document"}, views.DocumentView{Doc: manual, Decision: views.DecisionView{Doc: manual},
			Fields: &einvoice.Document{Type: einvoice.TypeCreditNote, Lines: []einvoice.Line{{Quantity: dec("1"), UnitPrice: dec("1")}}}}),
			[]string{"Credit note"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := text(t, tc.c)
			if code := rawCode.FindString(got); code != "" {
				t.Errorf("shows the code %q: %s", code, got)
			}
			for _, w := range tc.words {
				if !strings.Contains(got, w) {
					t.Errorf("does not say %q: %s", w, got)
				}
			}
		})
	}
}

// Every count printed on a page takes its noun in the singular for one.
func TestCountsOfOneAreSingular(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		c    templ.Component
		want string
	}{
		"dead letters": {views.DeadLettersPage(views.Chrome{Title: "Dead letters"}, views.DeadLettersProps{Preview: &jobs.DryRun{Count: 1},
			Letters: []jobs.DeadLetter{{Job: jobs.Job{ID: 3, IntakeID: 7, Status: jobs.Abandoned}}}}),
			"1 dead letter matches."},
		"dead letters past the count": {views.DeadLettersPage(views.Chrome{Title: "Dead letters"}, views.DeadLettersProps{
			Letters: []jobs.DeadLetter{{Job: jobs.Job{ID: 3, IntakeID: 7, Status: jobs.Abandoned}}}, Next: jobs.DeadLetterCursor{ID: 3},
			Total: views.DeadLetterCountMax, TotalMore: true}),
			"More than 1000 dead letters match, the most recent first; this page shows 1 of them."},
		"webhook preview": {views.WebhookDeadLetters(views.Chrome{}, views.WebhookDeadLettersProps{Preview: &webhooks.DryRun{Count: 1}, Letters: []webhooks.DeadLetter{{ID: 3}}}),
			"1 webhook delivery matches."},
		"webhook result": {views.WebhookDeadLetters(views.Chrome{}, views.WebhookDeadLettersProps{Result: &webhooks.BulkRetry{Matched: 1, Revived: 1}}),
			"Retried 1 of 1 webhook delivery:"},
		"bytes": {views.Original(intake.Document{ID: 7, MediaType: "application/json", Size: 1, ContentHash: strings.Repeat("ab", 32)}, "{}"),
			"application/json, 1 byte,"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := text(t, tc.c); !strings.Contains(got, tc.want) {
				t.Errorf("does not say %q: %s", tc.want, got)
			}
		})
	}
}

// No sentence has a space before its full stop or comma (templ puts one
// between an element and text that starts its own line).
func TestNoSpaceBeforePunctuation(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	for name, c := range map[string]templ.Component{
		"blocked": views.DecisionPanel(views.DecisionView{Doc: intake.Document{ID: 7, Status: intake.Flagged, DuplicateOf: 6},
			Outcome: &views.Outcome{Kind: "conflict", Blocking: &review.Blocking{ID: 6, Status: intake.Posted, ApprovedBy: "ann@example.test", ApprovedAt: &at, EntryID: 11}}}),
		"reversed": views.DecisionPanel(views.DecisionView{Doc: intake.Document{ID: 7, Status: intake.Posted, ResultEntryID: 11, DecidedBy: "ann@example.test", DecidedAt: &at},
			Reversal: &ledger.Entry{ID: 12, ReversesID: 11, ReversalReason: "booked twice", CreatedBy: "ann@example.test", CreatedAt: at}}),
		"bank change": views.BankChangeAlert(apchecks.BankChange{IBAN: "SE3550000000054910000003",
			Previous: []apchecks.PreviousAccount{{IBAN: "SE4550000000058398257466", Documents: []int64{3, 4}}}}),
	} {
		t.Run(name, func(t *testing.T) {
			got := text(t, c)
			if loc := regexp.MustCompile(`\s[.,;:]`).FindStringIndex(got); loc != nil {
				t.Errorf("a space before punctuation at %q: %s", got[max(loc[0]-30, 0):loc[1]], got)
			}
		})
	}
}
