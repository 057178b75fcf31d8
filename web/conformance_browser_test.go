package web_test

import (
	"regexp"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// brokenCopy is the web tests' published UBL example under another number,
// with its amount due off by ten: it breaks BR-CO-16 and nothing else.
func brokenCopy(t *testing.T, number string) []byte {
	t.Helper()
	s := string(sample(t, "ubl-invoice-multirate.xml"))
	for _, edit := range [][2]string{
		{"<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>" + number + "</cbc:ID>"},
		{`<cbc:PayableAmount currencyID="SEK">24321.00<`, `<cbc:PayableAmount currencyID="SEK">24331.00<`},
	} {
		if !strings.Contains(s, edit[0]) {
			t.Fatalf("the sample has no %q", edit[0])
		}
		s = strings.Replace(s, edit[0], edit[1], 1)
	}
	return []byte(s)
}

// The reviewer sees an invalid e-invoice as such: the conformance panel
// names the rule, its business term and the numbers; rejecting it offers a
// reason the supplier can act on, naming the rule.
func TestBrowserConformancePanelAndTheRejectionForTheSupplier(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	p := a.signedInPage(t, testkit.User(t, a.db, o, auth.RoleReviewer))

	uploadAndOpen(t, p, "broken.xml", brokenCopy(t, "NK-BROKEN-1"), "flagged")
	must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("invalid e-invoice"))
	panel := p.GetByTestId("conformance")
	must(t, expect.Locator(panel.GetByTestId("conformance-verdict")).ToHaveText("Invalid e-invoice: 1 violation"))
	violation := panel.Locator(`[data-testid=finding][data-severity=fatal]`)
	must(t, expect.Locator(violation).ToHaveCount(1))
	must(t, expect.Locator(violation.GetByTestId("finding-code")).ToHaveText("BR-CO-16"))
	must(t, expect.Locator(violation.GetByTestId("finding-term")).ToHaveText("BT-115"))
	// The business term leads to its field on the page.
	must(t, violation.GetByTestId("finding-term").Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`#bt-115$`)))
	must(t, expect.Locator(p.Locator("#bt-115")).ToContainText("24,331.00 SEK"))
	must(t, expect.Locator(violation.GetByTestId("finding-message")).ToContainText("amount due (BT-115) 24331.00 is not total with VAT 24321.07 − paid 0.00 + rounding -0.07 = 24321.00"))
	// The findings are listed once, in the panel.
	must(t, expect.Locator(p.GetByTestId("findings")).ToHaveCount(1))

	reason := p.Locator("#reject-reason")
	must(t, expect.Locator(reason).ToHaveValue(regexp.MustCompile(
		`^Your invoice NK-BROKEN-1 cannot be accepted: it breaks EN 16931 rule BR-CO-16 \(BT-115\): .*\(amount due \(BT-115\) 24331\.00 is not total with VAT 24321\.07 − paid 0\.00 \+ rounding -0\.07 = 24321\.00\)\. Please send a corrected invoice\.$`)))
	must(t, p.GetByTestId("reject").Click())
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("it breaks EN 16931 rule BR-CO-16"))
}

// Approving an invalid e-invoice in the browser takes the acknowledgement:
// without it the approval is refused inline, saying so; with the box ticked
// and a reason it is approved and the bookkeeping launched.
func TestBrowserAcknowledgedApprovalOfAnInvalidEInvoice(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedInPage(t, u)

	url := uploadAndOpen(t, p, "broken.xml", brokenCopy(t, "NK-BROKEN-2"), "flagged")
	id := url[strings.LastIndex(url, "/")+1:]
	ack := p.GetByTestId("acknowledge-form")
	must(t, ack.GetByTestId("approve").Click())
	outcome := p.GetByTestId("outcome")
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "invalid"))
	must(t, expect.Locator(outcome).ToContainText("is an invalid e-invoice (BR-CO-16); approving it needs an acknowledgement with a reason"))
	must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", "flagged"))

	// Ticked without a reason: refused inline too.
	must(t, ack.GetByTestId("acknowledge-invalid").Check())
	must(t, ack.GetByTestId("approve").Click())
	must(t, expect.Locator(outcome).ToContainText("a reason is required"))

	must(t, ack.GetByTestId("acknowledge-invalid").Check())
	must(t, ack.GetByTestId("acknowledge-reason").Fill("supplier confirmed 24331.00 in writing"))
	must(t, ack.GetByTestId("approve").Click())
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "launched"))
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM audit_events WHERE action = 'approve' AND subject_id = $1::bigint AND actor = $2
		AND detail->>'acknowledged_invalid' = 'true' AND detail->>'reason' = 'supplier confirmed 24331.00 in writing'`, id, u.Email); n != 1 {
		t.Fatalf("%d audited acknowledgements", n)
	}
}

// A refused acknowledgement keeps what was typed: the reason and the tick
// come back with the refusal. In a box of several lines Enter makes a new
// line and Ctrl+Enter submits its form, as the keyboard help says.
func TestBrowserARefusedAcknowledgementKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filed(t, c, brokenCopy(t, "NK-BROKEN-3"), "flagged")
	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, p.WaitForLoadState())
	ack := p.GetByTestId("acknowledge-form")
	tick, reason := ack.GetByTestId("acknowledge-invalid"), ack.GetByTestId("acknowledge-reason")
	outcome := p.GetByTestId("outcome")

	// A reason without the tick: refused, the reason kept.
	must(t, reason.Fill("supplier confirmed the amount"))
	must(t, ack.GetByTestId("approve").Click())
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "invalid"))
	must(t, expect.Locator(reason).ToHaveValue("supplier confirmed the amount"))
	must(t, expect.Locator(tick).Not().ToBeChecked())

	// The tick without a reason, sent with Ctrl+Enter from the reason's box:
	// refused, the tick kept.
	must(t, tick.Check())
	must(t, reason.Fill(""))
	must(t, reason.Focus())
	must(t, p.Keyboard().Press("Control+Enter"))
	must(t, expect.Locator(outcome).ToContainText("a reason is required"))
	must(t, expect.Locator(tick).ToBeChecked())

	// The help says how to send a reason of several lines.
	kb := p.Keyboard()
	must(t, p.Locator("main").Focus())
	must(t, kb.Press("?"))
	help := p.GetByTestId("keys-help")
	must(t, expect.Locator(help).ToContainText("type the reason, then Enter; in a box of several lines, Ctrl+Enter (⌘+Enter on a Mac)"))
	must(t, p.GetByTestId("keys-close").Click())

	// r goes to the reject reason (several lines: the notice for the
	// supplier); Enter makes a new line there, Ctrl+Enter rejects.
	must(t, kb.Press("r"))
	notice := p.Locator("#reject-reason")
	must(t, expect.Locator(notice).ToBeFocused())
	must(t, kb.Press("Control+End"))
	must(t, kb.Type(" Thanks."))
	must(t, kb.Press("Enter"))
	must(t, kb.Type("Ann"))
	must(t, expect.Locator(notice).ToHaveValue(regexp.MustCompile(`Thanks\.\nAnn$`)))
	must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", "flagged"))
	must(t, kb.Press("Control+Enter"))
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("Thanks."))
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM audit_events WHERE action = 'reject' AND subject_id = $1`, id); n != 1 {
		t.Fatalf("%d rejections", n)
	}
}
