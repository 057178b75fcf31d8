package web_test

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// answerDeskQuestionByKeyboard answers the desk question that has focus in
// its account select with account, keyboard only: ArrowDown walks the list
// to the option, Tab reaches the row's Answer button, Enter sends it. The
// row becomes its outcome. The lead's full keyboard-only review pass calls
// this.
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

// Two of the bookkeeper's questions answered in a row on the desk with the
// keyboard only: Enter without a chosen account is refused by the browser
// (nothing preselected), each answer replaces its row with its outcome and
// moves focus to the next question, and focus moves on after the last.
func TestBrowserKeyboardAnswersQuestionsOnTheDesk(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.OrgWith(t, a.db, "keyboard-questions", "SEK") // no default expense account: the bookkeeper asks
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	first := approvedBill(t, a, o, u, "K-1", 1)
	second := approvedBill(t, a, o, u, "K-2", 2)
	q1, q2 := openQuestion(t, a, o, first), openQuestion(t, a, o, second)

	p := a.signedIn(t, u)
	must(t, expect.Locator(p.GetByTestId("desk-question")).ToHaveCount(2))
	kb := p.Keyboard()
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

	for id, account := range map[int64]string{first: "6200", second: "6300"} {
		d := waitPosted(t, a, o, id)
		if c := testkit.Count(t, a.db, `SELECT count(*) FROM journal_lines WHERE entry_id = $1 AND account_id = (SELECT id FROM accounts WHERE org_id = $2 AND code = $3)`,
			d.ResultEntryID, o.ID, account); c == 0 {
			t.Errorf("document %d: not booked to %s", id, account)
		}
	}
}
