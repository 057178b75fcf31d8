package views_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/views"
)

func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// filedDocument is a document as the pipeline files it.
func filedDocument(format, profile, flag string, findings ...einvoice.Finding) intake.Document {
	fs, _ := json.Marshal(findings)
	status := intake.Pending
	if flag != "" {
		status = intake.Flagged
	}
	return intake.Document{ID: 7, OrgID: 1, Status: status, FlagReason: flag, DocType: "invoice", Format: format, Profile: profile,
		Fields: json.RawMessage(`{"type":"invoice","number":"INV-1"}`), Findings: fs}
}

var brokenTotal = einvoice.Finding{Code: "BR-CO-16", Severity: einvoice.SeverityFatal, Field: "BT-115",
	Message: "totals: [BR-CO-16]-Amount due for payment (BT-115) = ... (amount due 24331.00 ≠ total with VAT 24321.07 − paid 0.00 + rounding -0.07)"}

// The conformance panel says the verdict in words, with the profile, and
// lists each finding with its rule id, severity, business term and numbers,
// fatal first.
func TestConformancePanel(t *testing.T) {
	warning := einvoice.Finding{Code: "due_before_issue", Severity: einvoice.SeverityWarning, Field: "due_date", Message: "due before issued"}
	cases := []struct {
		name, says string
		doc        intake.Document
		codes      []string
	}{
		{"valid", "Valid EN 16931 (XRechnung profile)", filedDocument("ubl", "xrechnung", ""), nil},
		{"valid core", "Valid EN 16931 (core profile)", filedDocument("cii", "en16931", "", warning), []string{"due_before_issue"}},
		{"invalid", "Invalid e-invoice: 1 violation", filedDocument("ubl", "en16931", intake.FlagInvalidEInvoice, warning, brokenTotal), []string{"BR-CO-16", "due_before_issue"}},
		{"not applicable", "EN 16931 rules do not apply to this profile (Factur-X BASIC WL)", filedDocument("facturx", "basic_wl", "",
			einvoice.Finding{Code: einvoice.CodeRulesNotApplicable, Severity: einvoice.SeverityInfo, Field: "profile", Message: "no lines"}), []string{einvoice.CodeRulesNotApplicable}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := render(t, views.ConformancePanel(review.VerdictOf(tc.doc)))
			panel := d.Find(`#conformance[data-testid=conformance]`)
			if got := strings.Join(strings.Fields(panel.Find(`[data-testid=conformance-verdict]`).Text()), " "); got != tc.says {
				t.Fatalf("the panel says %q, want %q", got, tc.says)
			}
			var codes []string
			panel.Find(`[data-testid=finding]`).Each(func(_ int, s *goquery.Selection) { codes = append(codes, s.AttrOr("data-code", "")) })
			if strings.Join(codes, ",") != strings.Join(tc.codes, ",") {
				t.Fatalf("findings %v, want %v", codes, tc.codes)
			}
			if tc.name == "invalid" {
				first := panel.Find(`[data-testid=finding]`).First()
				if first.Find(`[data-testid=finding-term]`).Text() != "BT-115" || first.Find(`[data-testid=finding-term]`).AttrOr("href", "") != "#bt-115" || first.Find(`[data-testid=finding-severity]`).Text() != "fatal" ||
					!strings.Contains(first.Find(`[data-testid=finding-message]`).Text(), "amount due 24331.00 ≠ total with VAT 24321.07") {
					html, _ := first.Html()
					t.Fatalf("the violation: %s", html)
				}
			}
		})
	}
}

// An invalid e-invoice's decision panel offers approval only with the
// acknowledgement (and its reason), and a rejection reason for the
// supplier; a valid one the plain approve button and an empty reason.
func TestTheDecisionPanelOfAnInvalidEInvoice(t *testing.T) {
	doc := filedDocument("ubl", "en16931", intake.FlagInvalidEInvoice, brokenTotal)
	d := render(t, views.DecisionPanel(views.DecisionView{Doc: doc, Verdict: review.VerdictOf(doc)}))
	form := d.Find(`[data-testid=acknowledge-form]`)
	if form.Find(`input[type=checkbox][name=acknowledge_invalid][value=true]`).Length() != 1 || form.Find(`textarea[name=reason]`).Length() != 1 ||
		form.Find(`[data-testid=approve]`).Length() != 1 || form.AttrOr("hx-post", "") != "/intake/7/approve" || form.AttrOr("hx-sync", "") != "#decision:replace" {
		html, _ := d.Html()
		t.Fatalf("no acknowledgement form: %s", html)
	}
	if reason := d.Find(`[data-testid=reject-form] #reject-reason`).Text(); !strings.HasPrefix(reason, "Your invoice INV-1 cannot be accepted: it breaks EN 16931 rule BR-CO-16 (BT-115)") {
		t.Fatalf("the rejection reason: %q", reason)
	}

	valid := filedDocument("ubl", "en16931", "")
	d = render(t, views.DecisionPanel(views.DecisionView{Doc: valid, Verdict: review.VerdictOf(valid)}))
	if d.Find(`[data-testid=acknowledge-form]`).Length() != 0 || d.Find(`button[data-testid=approve][hx-post]`).Length() != 1 ||
		d.Find(`input#reject-reason`).AttrOr("value", "") != "" {
		html, _ := d.Html()
		t.Fatalf("a valid document's panel: %s", html)
	}
}
