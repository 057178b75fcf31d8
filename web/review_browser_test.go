package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// focusWhere says where keyboard focus is relative to el (a selector):
// "inside" when focus is el itself (a frame holds it), "before" or "after".
func focusWhere(t *testing.T, p playwright.Page, selector string) string {
	t.Helper()
	v, err := p.Evaluate(`(sel) => {
		const el = document.querySelector(sel), a = document.activeElement;
		if (!a || a === document.body) return "body";
		if (a === el || el.contains(a)) return "inside";
		return ((el.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING) ? "after" : "before") + ":" + a.outerHTML.slice(0, 80);
	}`, selector)
	webtest.Must(t, err)
	return fmt.Sprint(v)
}

// tabPast presses Tab from where focus is until it has passed the element
// selector names, at most limit times, and fails when focus stays in it.
func tabPast(t *testing.T, p playwright.Page, selector string, limit int) {
	t.Helper()
	var where []string
	for range limit {
		webtest.Must(t, p.Keyboard().Press("Tab"))
		w := focusWhere(t, p, selector)
		where = append(where, w)
		if strings.HasPrefix(w, "after") {
			return
		}
	}
	t.Fatalf("%d Tab presses did not get focus past %s: focus was %v", limit, selector, where)
}

// The PDF viewer never keeps Tab: from the link before it, Tab goes on to
// what follows it on the page.
func TestBrowserTabIsNeverTrappedInThePDFViewer(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := filedAs(t, c, "application/pdf", webtest.Sample(t, "facturx-invoice.pdf"), "pending")
	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(id))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("original-pdf")).ToBeVisible())
	webtest.Must(t, p.GetByTestId("original-link").Focus())
	tabPast(t, p, "[data-testid=original-pdf]", 3)
	// Backwards too: Shift+Tab from after the frame lands before it.
	webtest.Must(t, p.GetByTestId("after-original").Focus())
	webtest.Must(t, p.Keyboard().Press("Shift+Tab"))
	if w := focusWhere(t, p, "[data-testid=original-pdf]"); !strings.HasPrefix(w, "before") {
		t.Fatalf("Shift+Tab from after the PDF: focus %s", w)
	}
	// The skip link passes the frame in one step.
	webtest.Must(t, p.GetByTestId("skip-original").Focus())
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("after-original")).ToBeFocused())
}

// atURL waits for the page to reach url and to finish loading, so that
// its script listens for keys before the test presses any.
func atURL(t *testing.T, p playwright.Page, url *regexp.Regexp) {
	t.Helper()
	webtest.Must(t, expect.Page(p).ToHaveURL(url))
	webtest.Must(t, p.WaitForLoadState())
}

// tabTo presses Tab until focus is on the element selector names (at once
// when it is already there), at most limit times; focus must never stay in
// a frame on the way.
func tabTo(t *testing.T, p playwright.Page, selector string, limit int) {
	t.Helper()
	tabWith(t, p, "Tab", selector, limit)
}

// tabBackTo is tabTo with Shift+Tab, for what comes before focus.
func tabBackTo(t *testing.T, p playwright.Page, selector string, limit int) {
	t.Helper()
	tabWith(t, p, "Shift+Tab", selector, limit)
}

func tabWith(t *testing.T, p playwright.Page, key, selector string, limit int) {
	t.Helper()
	for i := 0; i <= limit; i++ {
		if i > 0 {
			webtest.Must(t, p.Keyboard().Press(key))
		}
		v, err := p.Evaluate(`(sel) => {
			const a = document.activeElement;
			if (a && a.tagName === "IFRAME") return "frame";
			return a && a.matches(sel) ? "there" : "";
		}`, selector)
		webtest.Must(t, err)
		switch v {
		case "there":
			return
		case "frame":
			t.Fatalf("%s went into a frame on the way to %s", key, selector)
		}
	}
	t.Fatalf("%d %s presses did not reach %s", limit, key, selector)
}

// keyboardApproveAndNext approves the open document with "Approve and
// next", keyboard only, and checks the next page of the queue says so.
func keyboardApproveAndNext(t *testing.T, p playwright.Page, id, next int64) {
	t.Helper()
	tabTo(t, p, "[data-testid=approve-next]", 80)
	webtest.Must(t, p.Keyboard().Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(next)+`\?`))
	webtest.Must(t, expect.Locator(p.Locator("#flash .flash")).ToContainText("Document "+webtest.Itoa(id)+": Approved"))
	webtest.Must(t, expect.Locator(p.Locator("#flash .flash")).ToBeFocused())
}

// keyboardRejectAndNext rejects the open document with a reason and
// "Reject and next", keyboard only.
func keyboardRejectAndNext(t *testing.T, p playwright.Page, id, next int64, reason string) {
	t.Helper()
	kb := p.Keyboard()
	webtest.Must(t, kb.Press("r")) // the reason field
	webtest.Must(t, expect.Locator(p.Locator("#reject-reason")).ToBeFocused())
	webtest.Must(t, kb.Type(reason))
	tabTo(t, p, "[data-testid=reject-next]", 5)
	webtest.Must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(next)+`\?`))
	webtest.Must(t, expect.Locator(p.Locator("#flash .flash")).ToContainText("Document "+webtest.Itoa(id)+": Rejected"))
}

// A reviewer's whole pass through a searched queue with the keyboard alone
// (no click, no fill): open the first row, approve and next, j and k,
// reject with a reason and next, approve in place (focus moves to the
// question it raised), then to the desk by its link and answer both
// questions the approvals raised there, in place and in a row. Focus is
// never trapped: tabTo fails when it enters a frame. The org has no
// default expense account and the supplier no remembered one, so every
// approval makes the bookkeeper ask for the account.
func TestBrowserKeyboardOnlyReviewPass(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "keyboard-pass", "SEK") // no default expense account: the bookkeeper asks
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	first := webtest.Filed(t, c, webtest.Numbered(t, 1), "pending")
	second := webtest.Filed(t, c, webtest.Numbered(t, 2), "pending")
	third := webtest.Filed(t, c, webtest.Numbered(t, 3), "pending")
	other := webtest.Filed(t, c, webtest.Sample(t, "cii-invoice.xml"), "pending") // newest, but not in the search
	p := signedIn(t, a, u)
	kb := p.Keyboard()

	// The queue: Needs review, searched for one supplier, newest first.
	_, err := p.Goto("/desk?tab=review&q=nordisk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(3))
	webtest.Must(t, p.WaitForLoadState())
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, kb.Press("o"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(third)+`\?q=nordisk&tab=review$`))

	// Back on the desk (g d), the row it came from is selected and focused;
	// j goes on from there.
	webtest.Must(t, kb.Press("g"))
	webtest.Must(t, kb.Press("d"))
	atURL(t, p, regexp.MustCompile(`/desk\?q=nordisk&tab=review&at=`+webtest.Itoa(third)+`$`))
	selected := p.Locator("tr.selected")
	webtest.Must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", webtest.Itoa(third)))
	webtest.Must(t, expect.Locator(selected).ToBeFocused())
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", webtest.Itoa(second)))
	webtest.Must(t, kb.Press("k"))
	webtest.Must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(third)+`\?q=nordisk&tab=review$`))

	keyboardApproveAndNext(t, p, third, second)
	screenshot(t, p, "review-and-next.png")
	// j and k move through the same queue; the document just approved has
	// left it, so nothing is before the second now.
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-previous")).ToHaveCount(0))
	webtest.Must(t, kb.Press("j"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(first)+`\?`))
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-last")).ToBeVisible())
	webtest.Must(t, kb.Press("k"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(second)+`\?`))

	keyboardRejectAndNext(t, p, second, first, "not our order")

	// Approve in place: the bookkeeper asks, and focus moves to its question.
	tabTo(t, p, "[data-testid=approve]", 80)
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("answer-account")).ToBeFocused())

	// To the desk by its link in the navigation, and answer there both
	// questions the approvals raised.
	q1, q2 := webtest.OpenQuestion(t, a, o, third), webtest.OpenQuestion(t, a, o, first)
	tabBackTo(t, p, `nav a[href="/desk"]`, 120)
	webtest.Must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/desk$`))
	webtest.Must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(2))
	tabTo(t, p, `[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer-account]`, 60)
	screenshot(t, p, "desk-questions.png")

	// Nothing is preselected: Enter on Answer is refused by the browser,
	// which puts focus back on the empty account list.
	tabTo(t, p, `[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer]`, 60)
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.Locator(`[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer-account]`)).ToBeFocused())
	webtest.Must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(2))
	if invalid, err := p.Evaluate(`() => document.activeElement.matches(":invalid")`); err != nil || invalid != true {
		t.Fatalf("the empty account list is not invalid: %v %v", invalid, err)
	}

	answerDeskQuestionByKeyboard(t, p, q1.RunID, "6200")
	// Focus went to the next question's first control by itself.
	answerDeskQuestionByKeyboard(t, p, q2.RunID, "6300")
	webtest.Must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(0))
	// With none left, focus is on the last outcome, and Tab moves on from it.
	webtest.Must(t, expect.Locator(p.Locator("#question-"+q2.RunID)).ToBeFocused())
	webtest.Must(t, kb.Press("Tab"))
	if still, err := p.Evaluate(`id => document.activeElement === document.getElementById(id)`, "question-"+q2.RunID); err != nil || still != false {
		t.Fatalf("focus stayed on the last outcome: %v %v", still, err)
	}
	screenshot(t, p, "desk-questions-answered.png")

	// Every decision is in the database as made: the approved ones posted
	// to the accounts chosen on the desk, the rejected one with its reason.
	for id, account := range map[int64]string{third: "6200", first: "6300"} {
		d := webtest.WaitPosted(t, a, o, id)
		if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_lines WHERE entry_id = $1 AND account_id = (SELECT id FROM accounts WHERE org_id = $2 AND code = $3)`,
			d.ResultEntryID, o.ID, account); n == 0 {
			t.Errorf("document %d: not booked to %s", id, account)
		}
	}
	for id, want := range map[int64]string{second: "rejected", other: "pending"} {
		var got, reason string
		webtest.Must(t, a.DB.Pool.QueryRow(t.Context(), `SELECT status, coalesce(decision_reason, '') FROM intake_documents WHERE id = $1`, id).Scan(&got, &reason))
		if got != want {
			t.Errorf("document %d is %s, want %s", id, got, want)
		}
		if id == second && reason != "not our order" {
			t.Errorf("the rejection's reason: %q", reason)
		}
	}
}

// answerDeskQuestionByKeyboard answers the desk question that has focus in
// its account select with account, keyboard only: ArrowDown walks the list
// to the option, Tab reaches the row's Answer button, Enter sends it. The
// row becomes its outcome.
func answerDeskQuestionByKeyboard(t *testing.T, p playwright.Page, runID, account string) {
	t.Helper()
	row := p.Locator(`[data-run-id="` + runID + `"]`)
	webtest.Must(t, expect.Locator(row.GetByTestId("desk-answer-account")).ToBeFocused())
	index, err := p.Evaluate(`code => Array.from(document.activeElement.options).findIndex(o => o.value === code)`, account)
	webtest.Must(t, err)
	n, _ := index.(int)
	if n <= 0 {
		t.Fatalf("account %s is not offered (%v)", account, index)
	}
	for range n {
		webtest.Must(t, p.Keyboard().Press("ArrowDown"))
	}
	webtest.Must(t, expect.Locator(row.GetByTestId("desk-answer-account")).ToHaveValue(account))
	tabTo(t, p, `[data-run-id="`+runID+`"] [data-testid=desk-answer]`, 60)
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(p.Locator("#question-"+runID)).ToHaveAttribute("data-testid", "desk-question-answered"))
	webtest.Must(t, expect.Locator(p.Locator("#question-"+runID)).ToContainText("answered with account "+account))
}

// A flagged duplicate is rejected in one click with a reason that names
// what it duplicates; its side-by-side view marks the changed characters.
func TestBrowserRejectAsDuplicateInOneClick(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	first, _ := webtest.TwoCopies(t, c)
	invoice := webtest.Sample(t, "ubl-invoice-multirate.xml")
	later := webtest.Filed(t, c, []byte(strings.Replace(string(invoice), "<cbc:DueDate>2026-12-20", "<cbc:DueDate>2027-01-15", 1)), "flagged")
	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(later))
	webtest.Must(t, err)

	// Side by side with the first: the due date's changed characters are marked.
	changed := p.Locator(`[data-testid=compare-row][data-same=false]`)
	webtest.Must(t, expect.Locator(changed).ToHaveCount(1))
	webtest.Must(t, expect.Locator(changed.GetByTestId("compare-change")).ToHaveText([]string{"7-01-15", "6-12-20"}))

	want := "Duplicate of #" + webtest.Itoa(first) + " (same supplier reference: Nordisk Konsult Aktiebolag NK-2026-0042)."
	webtest.Must(t, expect.Locator(p.GetByTestId("reject-duplicate-reason")).ToHaveText(want))
	webtest.Must(t, expect.Locator(p.GetByTestId("reject-duplicate")).ToHaveText("Reject as duplicate of #"+webtest.Itoa(first)))
	webtest.Must(t, p.GetByTestId("reject-duplicate").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText(want))
	webtest.Must(t, expect.Locator(p.Locator("#decision:focus-within")).ToHaveCount(1))
	var reason string
	webtest.Must(t, a.DB.Pool.QueryRow(t.Context(), `SELECT decision_reason FROM intake_documents WHERE id = $1 AND status = 'rejected'`, later).Scan(&reason))
	if reason != want {
		t.Fatalf("stored reason %q, want %q", reason, want)
	}
}

// Back from a document with the browser's Back key, the desk selects the
// row the reviewer opened, so j and k go on from there.
func TestBrowserTheDeskKeepsThePositionOnBack(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	first := webtest.Filed(t, c, webtest.Numbered(t, 1), "pending")
	second := webtest.Filed(t, c, webtest.Numbered(t, 2), "pending")
	webtest.Filed(t, c, webtest.Numbered(t, 3), "pending")
	p := signedIn(t, a, u)
	kb := p.Keyboard()
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(3))
	webtest.Must(t, p.WaitForLoadState())
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, kb.Press("o"))
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(second)+`\?`))
	_, err := p.GoBack() // the browser's Back
	webtest.Must(t, err)
	atURL(t, p, regexp.MustCompile(`/desk$`))
	selected := p.Locator("tr.selected")
	webtest.Must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", webtest.Itoa(second)))
	webtest.Must(t, expect.Locator(selected).ToBeFocused())
	webtest.Must(t, kb.Press("j"))
	webtest.Must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", webtest.Itoa(first)))
}

// "Approve and next" whose launch fails stays on the document: the alert
// says what happened and has focus, instead of a flash on the next page.
func TestBrowserApproveAndNextStaysWhenTheLaunchFails(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := a.APIFor(t, u)
	webtest.Filed(t, c, webtest.Numbered(t, 1), "pending")
	id := webtest.Filed(t, c, webtest.Numbered(t, 2), "pending")
	p := signedIn(t, a, u)
	_, err := p.Goto("/intake/" + webtest.Itoa(id) + "?tab=review")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve-next").Focus())
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launch_failed"))
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToBeFocused())
	atURL(t, p, regexp.MustCompile(`/intake/`+webtest.Itoa(id)+`\?tab=review$`))
}

// filedAs uploads a document of any media type through the API and waits
// for the clerk to file it with status.
func filedAs(t *testing.T, c *webtest.APIClient, mediaType string, content []byte, status string) int64 {
	t.Helper()
	code, body := c.Do("POST", "/api/v1/documents", mediaType, content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.WaitStatus(id, status)
	return int64(id)
}
