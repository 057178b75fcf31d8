package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// filedAs uploads a document of any media type through the API and waits
// for the clerk to file it with status.
func filedAs(t *testing.T, c *apiClient, mediaType string, content []byte, status string) int64 {
	t.Helper()
	code, body := c.do("POST", "/api/v1/documents", mediaType, content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.waitStatus(id, status)
	return int64(id)
}

// numbered is the sample invoice under another invoice number and issue
// date, so that each copy is a document of its own (pending: neither the
// same reference nor the same content as another).
func numbered(t *testing.T, n int) []byte {
	t.Helper()
	invoice := string(sample(t, "ubl-invoice-multirate.xml"))
	invoice = strings.Replace(invoice, "<cbc:ID>NK-2026-0042</cbc:ID>", fmt.Sprintf("<cbc:ID>REVIEW-%03d</cbc:ID>", n), 1)
	invoice = strings.Replace(invoice, "<cbc:IssueDate>2026-11-20</cbc:IssueDate>", fmt.Sprintf("<cbc:IssueDate>2026-11-%02d</cbc:IssueDate>", n), 1)
	return []byte(invoice)
}

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
	must(t, err)
	return fmt.Sprint(v)
}

// tabPast presses Tab from where focus is until it has passed the element
// selector names, at most limit times, and fails when focus stays in it.
func tabPast(t *testing.T, p playwright.Page, selector string, limit int) {
	t.Helper()
	var where []string
	for range limit {
		must(t, p.Keyboard().Press("Tab"))
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
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	id := filedAs(t, c, "application/pdf", sample(t, "facturx-invoice.pdf"), "pending")
	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(id))
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("original-pdf")).ToBeVisible())
	must(t, p.GetByTestId("original-link").Focus())
	tabPast(t, p, "[data-testid=original-pdf]", 3)
	// Backwards too: Shift+Tab from after the frame lands before it.
	must(t, p.GetByTestId("after-original").Focus())
	must(t, p.Keyboard().Press("Shift+Tab"))
	if w := focusWhere(t, p, "[data-testid=original-pdf]"); !strings.HasPrefix(w, "before") {
		t.Fatalf("Shift+Tab from after the PDF: focus %s", w)
	}
	// The skip link passes the frame in one step.
	must(t, p.GetByTestId("skip-original").Focus())
	must(t, p.Keyboard().Press("Enter"))
	must(t, expect.Locator(p.GetByTestId("after-original")).ToBeFocused())
}

// atURL waits for the page to reach url and to finish loading, so that
// its script listens for keys before the test presses any.
func atURL(t *testing.T, p playwright.Page, url *regexp.Regexp) {
	t.Helper()
	must(t, expect.Page(p).ToHaveURL(url))
	must(t, p.WaitForLoadState())
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
			must(t, p.Keyboard().Press(key))
		}
		v, err := p.Evaluate(`(sel) => {
			const a = document.activeElement;
			if (a && a.tagName === "IFRAME") return "frame";
			return a && a.matches(sel) ? "there" : "";
		}`, selector)
		must(t, err)
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
	must(t, p.Keyboard().Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(next)+`\?`))
	must(t, expect.Locator(p.Locator("#flash .flash")).ToContainText("Document "+itoa(id)+": Approved"))
	must(t, expect.Locator(p.Locator("#flash .flash")).ToBeFocused())
}

// keyboardRejectAndNext rejects the open document with a reason and
// "Reject and next", keyboard only.
func keyboardRejectAndNext(t *testing.T, p playwright.Page, id, next int64, reason string) {
	t.Helper()
	kb := p.Keyboard()
	must(t, kb.Press("r")) // the reason field
	must(t, expect.Locator(p.Locator("#reject-reason")).ToBeFocused())
	must(t, kb.Type(reason))
	tabTo(t, p, "[data-testid=reject-next]", 5)
	must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(next)+`\?`))
	must(t, expect.Locator(p.Locator("#flash .flash")).ToContainText("Document "+itoa(id)+": Rejected"))
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
	a := newApp(t)
	o := testkit.OrgWith(t, a.db, "keyboard-pass", "SEK") // no default expense account: the bookkeeper asks
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	first := filed(t, c, numbered(t, 1), "pending")
	second := filed(t, c, numbered(t, 2), "pending")
	third := filed(t, c, numbered(t, 3), "pending")
	other := filed(t, c, sample(t, "cii-invoice.xml"), "pending") // newest, but not in the search
	p := a.signedIn(t, u)
	kb := p.Keyboard()

	// The queue: Needs review, searched for one supplier, newest first.
	_, err := p.Goto("/desk?tab=review&q=nordisk")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(3))
	must(t, p.WaitForLoadState())
	must(t, kb.Press("j"))
	must(t, kb.Press("o"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(third)+`\?q=nordisk&tab=review$`))

	// Back on the desk (g d), the row it came from is selected and focused;
	// j goes on from there.
	must(t, kb.Press("g"))
	must(t, kb.Press("d"))
	atURL(t, p, regexp.MustCompile(`/desk\?q=nordisk&tab=review&at=`+itoa(third)+`$`))
	selected := p.Locator("tr.selected")
	must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", itoa(third)))
	must(t, expect.Locator(selected).ToBeFocused())
	must(t, kb.Press("j"))
	must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", itoa(second)))
	must(t, kb.Press("k"))
	must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(third)+`\?q=nordisk&tab=review$`))

	keyboardApproveAndNext(t, p, third, second)
	screenshot(t, p, "review-and-next.png")
	// j and k move through the same queue; the document just approved has
	// left it, so nothing is before the second now.
	must(t, expect.Locator(p.GetByTestId("queue-previous")).ToHaveCount(0))
	must(t, kb.Press("j"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(first)+`\?`))
	must(t, expect.Locator(p.GetByTestId("queue-last")).ToBeVisible())
	must(t, kb.Press("k"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(second)+`\?`))

	keyboardRejectAndNext(t, p, second, first, "not our order")

	// Approve in place: the bookkeeper asks, and focus moves to its question.
	tabTo(t, p, "[data-testid=approve]", 80)
	must(t, kb.Press("Enter"))
	must(t, expect.Locator(p.GetByTestId("answer-account")).ToBeFocused())

	// To the desk by its link in the navigation, and answer there both
	// questions the approvals raised.
	q1, q2 := openQuestion(t, a, o, third), openQuestion(t, a, o, first)
	tabBackTo(t, p, `nav a[href="/desk"]`, 120)
	must(t, kb.Press("Enter"))
	atURL(t, p, regexp.MustCompile(`/desk$`))
	must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(2))
	tabTo(t, p, `[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer-account]`, 60)
	screenshot(t, p, "desk-questions.png")

	// Nothing is preselected: Enter on Answer is refused by the browser,
	// which puts focus back on the empty account list.
	tabTo(t, p, `[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer]`, 60)
	must(t, kb.Press("Enter"))
	must(t, expect.Locator(p.Locator(`[data-run-id="`+q1.RunID+`"] [data-testid=desk-answer-account]`)).ToBeFocused())
	must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(2))
	if invalid, err := p.Evaluate(`() => document.activeElement.matches(":invalid")`); err != nil || invalid != true {
		t.Fatalf("the empty account list is not invalid: %v %v", invalid, err)
	}

	answerDeskQuestionByKeyboard(t, p, q1.RunID, "6200")
	// Focus went to the next question's first control by itself.
	answerDeskQuestionByKeyboard(t, p, q2.RunID, "6300")
	must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(0))
	// With none left, focus is on the last outcome, and Tab moves on from it.
	must(t, expect.Locator(p.Locator("#question-"+q2.RunID)).ToBeFocused())
	must(t, kb.Press("Tab"))
	if still, err := p.Evaluate(`id => document.activeElement === document.getElementById(id)`, "question-"+q2.RunID); err != nil || still != false {
		t.Fatalf("focus stayed on the last outcome: %v %v", still, err)
	}
	screenshot(t, p, "desk-questions-answered.png")

	// Every decision is in the database as made: the approved ones posted
	// to the accounts chosen on the desk, the rejected one with its reason.
	for id, account := range map[int64]string{third: "6200", first: "6300"} {
		d := waitPosted(t, a, o, id)
		if n := testkit.Count(t, a.db, `SELECT count(*) FROM journal_lines WHERE entry_id = $1 AND account_id = (SELECT id FROM accounts WHERE org_id = $2 AND code = $3)`,
			d.ResultEntryID, o.ID, account); n == 0 {
			t.Errorf("document %d: not booked to %s", id, account)
		}
	}
	for id, want := range map[int64]string{second: "rejected", other: "pending"} {
		var got, reason string
		must(t, a.db.Pool.QueryRow(t.Context(), `SELECT status, coalesce(decision_reason, '') FROM intake_documents WHERE id = $1`, id).Scan(&got, &reason))
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
	must(t, expect.Locator(row.GetByTestId("desk-answer-account")).ToBeFocused())
	index, err := p.Evaluate(`code => Array.from(document.activeElement.options).findIndex(o => o.value === code)`, account)
	must(t, err)
	n, _ := index.(int)
	if n <= 0 {
		t.Fatalf("account %s is not offered (%v)", account, index)
	}
	for range n {
		must(t, p.Keyboard().Press("ArrowDown"))
	}
	must(t, expect.Locator(row.GetByTestId("desk-answer-account")).ToHaveValue(account))
	tabTo(t, p, `[data-run-id="`+runID+`"] [data-testid=desk-answer]`, 60)
	must(t, p.Keyboard().Press("Enter"))
	must(t, expect.Locator(p.Locator("#question-"+runID)).ToHaveAttribute("data-testid", "desk-question-answered"))
	must(t, expect.Locator(p.Locator("#question-"+runID)).ToContainText("answered with account "+account))
}

// A flagged duplicate is rejected in one click with a reason that names
// what it duplicates; its side-by-side view marks the changed characters.
func TestBrowserRejectAsDuplicateInOneClick(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	first, _ := twoCopies(t, c)
	invoice := sample(t, "ubl-invoice-multirate.xml")
	later := filed(t, c, []byte(strings.Replace(string(invoice), "<cbc:DueDate>2026-12-20", "<cbc:DueDate>2027-01-15", 1)), "flagged")
	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(later))
	must(t, err)

	// Side by side with the first: the due date's changed characters are marked.
	changed := p.Locator(`[data-testid=compare-row][data-same=false]`)
	must(t, expect.Locator(changed).ToHaveCount(1))
	must(t, expect.Locator(changed.GetByTestId("compare-change")).ToHaveText([]string{"7-01-15", "6-12-20"}))

	want := "Duplicate of #" + itoa(first) + " (same supplier reference: Nordisk Konsult Aktiebolag NK-2026-0042)."
	must(t, expect.Locator(p.GetByTestId("reject-duplicate-reason")).ToHaveText(want))
	must(t, expect.Locator(p.GetByTestId("reject-duplicate")).ToHaveText("Reject as duplicate of #"+itoa(first)))
	must(t, p.GetByTestId("reject-duplicate").Click())
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText(want))
	must(t, expect.Locator(p.Locator("#decision:focus-within")).ToHaveCount(1))
	var reason string
	must(t, a.db.Pool.QueryRow(t.Context(), `SELECT decision_reason FROM intake_documents WHERE id = $1 AND status = 'rejected'`, later).Scan(&reason))
	if reason != want {
		t.Fatalf("stored reason %q, want %q", reason, want)
	}
}

// Back from a document with the browser's Back key, the desk selects the
// row the reviewer opened, so j and k go on from there.
func TestBrowserTheDeskKeepsThePositionOnBack(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	first := filed(t, c, numbered(t, 1), "pending")
	second := filed(t, c, numbered(t, 2), "pending")
	filed(t, c, numbered(t, 3), "pending")
	p := a.signedIn(t, u)
	kb := p.Keyboard()
	must(t, expect.Locator(p.GetByTestId("queue-row")).ToHaveCount(3))
	must(t, p.WaitForLoadState())
	must(t, kb.Press("j"))
	must(t, kb.Press("j"))
	must(t, kb.Press("o"))
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(second)+`\?`))
	_, err := p.GoBack() // the browser's Back
	must(t, err)
	atURL(t, p, regexp.MustCompile(`/desk$`))
	selected := p.Locator("tr.selected")
	must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", itoa(second)))
	must(t, expect.Locator(selected).ToBeFocused())
	must(t, kb.Press("j"))
	must(t, expect.Locator(selected).ToHaveAttribute("data-document-id", itoa(first)))
}

// "Approve and next" whose launch fails stays on the document: the alert
// says what happened and has focus, instead of a flash on the next page.
func TestBrowserApproveAndNextStaysWhenTheLaunchFails(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	breakLaunches(a, "bookkeeper pool refused the run (injected)")
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	filed(t, c, numbered(t, 1), "pending")
	id := filed(t, c, numbered(t, 2), "pending")
	p := a.signedIn(t, u)
	_, err := p.Goto("/intake/" + itoa(id) + "?tab=review")
	must(t, err)
	must(t, p.GetByTestId("approve-next").Focus())
	must(t, p.Keyboard().Press("Enter"))
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launch_failed"))
	must(t, expect.Locator(p.GetByTestId("outcome")).ToBeFocused())
	atURL(t, p, regexp.MustCompile(`/intake/`+itoa(id)+`\?tab=review$`))
}
