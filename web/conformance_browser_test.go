package web_test

import (
	"regexp"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The reviewer sees an invalid e-invoice as such: the conformance panel
// names the rule, its business term and the numbers; rejecting it offers a
// reason the supplier can act on, naming the rule.
func TestBrowserConformancePanelAndTheRejectionForTheSupplier(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	p := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleReviewer))

	uploadAndOpen(t, p, "broken.xml", webtest.BrokenCopy(t, "NK-BROKEN-1"), "flagged")
	webtest.Must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("invalid e-invoice"))
	panel := p.GetByTestId("conformance")
	webtest.Must(t, expect.Locator(panel.GetByTestId("conformance-verdict")).ToHaveText("Invalid e-invoice: 1 violation"))
	violation := panel.Locator(`[data-testid=finding][data-severity=fatal]`)
	webtest.Must(t, expect.Locator(violation).ToHaveCount(1))
	webtest.Must(t, expect.Locator(violation.GetByTestId("finding-code")).ToHaveText("BR-CO-16"))
	webtest.Must(t, expect.Locator(violation.GetByTestId("finding-term")).ToHaveText("BT-115"))
	// The business term leads to its field on the page.
	webtest.Must(t, violation.GetByTestId("finding-term").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`#bt-115$`)))
	webtest.Must(t, expect.Locator(p.Locator("#bt-115")).ToContainText("24,331.00 SEK"))
	webtest.Must(t, expect.Locator(violation.GetByTestId("finding-message")).ToContainText("amount due (BT-115) 24331.00 is not total with VAT 24321.07 − paid 0.00 + rounding -0.07 = 24321.00"))
	// The findings are listed once, in the panel.
	webtest.Must(t, expect.Locator(p.GetByTestId("findings")).ToHaveCount(1))

	reason := p.Locator("#reject-reason")
	webtest.Must(t, expect.Locator(reason).ToHaveValue(regexp.MustCompile(
		`^Your invoice NK-BROKEN-1 cannot be accepted: it breaks EN 16931 rule BR-CO-16 \(BT-115\): .*\(amount due \(BT-115\) 24331\.00 is not total with VAT 24321\.07 − paid 0\.00 \+ rounding -0\.07 = 24321\.00\)\. Please send a corrected invoice\.$`)))
	webtest.Must(t, p.GetByTestId("reject").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("it breaks EN 16931 rule BR-CO-16"))
}

// Approving an invalid e-invoice in the browser takes the acknowledgement:
// without it the approval is refused inline, saying so; with the box ticked
// and a reason it is approved and the bookkeeping launched.
func TestBrowserAcknowledgedApprovalOfAnInvalidEInvoice(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedInPage(t, a, u)

	url := uploadAndOpen(t, p, "broken.xml", webtest.BrokenCopy(t, "NK-BROKEN-2"), "flagged")
	id := url[strings.LastIndex(url, "/")+1:]
	ack := p.GetByTestId("acknowledge-form")
	webtest.Must(t, ack.GetByTestId("approve").Click())
	outcome := p.GetByTestId("outcome")
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "invalid"))
	webtest.Must(t, expect.Locator(outcome).ToContainText("is an invalid e-invoice (BR-CO-16); approving it needs an acknowledgement with a reason"))
	webtest.Must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", "flagged"))

	// Ticked without a reason: refused inline too.
	webtest.Must(t, ack.GetByTestId("acknowledge-invalid").Check())
	webtest.Must(t, ack.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(outcome).ToContainText("a reason is required"))

	webtest.Must(t, ack.GetByTestId("acknowledge-invalid").Check())
	webtest.Must(t, ack.GetByTestId("acknowledge-reason").Fill("supplier confirmed 24331.00 in writing"))
	webtest.Must(t, ack.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "launched"))
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'approve' AND subject_id = $1::bigint AND actor = $2
		AND detail->>'acknowledged_invalid' = 'true' AND detail->>'reason' = 'supplier confirmed 24331.00 in writing'`, id, u.Email); n != 1 {
		t.Fatalf("%d audited acknowledgements", n)
	}
}

// A refused acknowledgement keeps what was typed: the reason and the tick
// come back with the refusal. In a box of several lines Enter makes a new
// line and Ctrl+Enter submits its form, as the keyboard help says.
func TestBrowserARefusedAcknowledgementKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := webtest.Filed(t, c, webtest.BrokenCopy(t, "NK-BROKEN-3"), "flagged")
	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, p.WaitForLoadState())
	ack := p.GetByTestId("acknowledge-form")
	tick, reason := ack.GetByTestId("acknowledge-invalid"), ack.GetByTestId("acknowledge-reason")
	outcome := p.GetByTestId("outcome")

	// A reason without the tick: refused, the reason kept.
	webtest.Must(t, reason.Fill("supplier confirmed the amount"))
	webtest.Must(t, ack.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "invalid"))
	webtest.Must(t, expect.Locator(reason).ToHaveValue("supplier confirmed the amount"))
	webtest.Must(t, expect.Locator(tick).Not().ToBeChecked())

	// The tick without a reason, sent with Ctrl+Enter from the reason's box:
	// refused, the tick kept.
	webtest.Must(t, tick.Check())
	webtest.Must(t, reason.Fill(""))
	webtest.Must(t, reason.Focus())
	webtest.Must(t, p.Keyboard().Press("Control+Enter"))
	webtest.Must(t, expect.Locator(outcome).ToContainText("a reason is required"))
	webtest.Must(t, expect.Locator(tick).ToBeChecked())

	// The help says how to send a reason of several lines.
	kb := p.Keyboard()
	webtest.Must(t, p.Locator("main").Focus())
	webtest.Must(t, kb.Press("?"))
	help := p.GetByTestId("keys-help")
	webtest.Must(t, expect.Locator(help).ToContainText("type the reason, then Enter; in a box of several lines, Ctrl+Enter (⌘+Enter on a Mac)"))
	webtest.Must(t, p.GetByTestId("keys-close").Click())

	// r goes to the reject reason (several lines: the notice for the
	// supplier); Enter makes a new line there, Ctrl+Enter rejects.
	webtest.Must(t, kb.Press("r"))
	notice := p.Locator("#reject-reason")
	webtest.Must(t, expect.Locator(notice).ToBeFocused())
	webtest.Must(t, kb.Press("Control+End"))
	webtest.Must(t, kb.Type(" Thanks."))
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, kb.Type("Ann"))
	webtest.Must(t, expect.Locator(notice).ToHaveValue(regexp.MustCompile(`Thanks\.\nAnn$`)))
	webtest.Must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", "flagged"))
	webtest.Must(t, kb.Press("Control+Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("Thanks."))
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'reject' AND subject_id = $1`, id); n != 1 {
		t.Fatalf("%d rejections", n)
	}
}
