package bookkeeper

import (
	"context"
	"fmt"

	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
	"greatbook/internal/runs"
)

// OpenQuestion is the open question about one document, if any, with the
// accounts a person may answer it with: the active expense accounts, for a
// question about the expense account; none for any other. An expense
// account question carries the account used for the supplier before.
func (b *Bookkeeper) OpenQuestion(ctx context.Context, orgID, intakeID int64) (*Question, []ledger.Account, error) {
	question, err := b.QuestionFor(ctx, orgID, intakeID)
	if err != nil || question == nil || question.Kind != AskExpenseAccount {
		return question, nil, err
	}
	choices, err := expenseAccounts(ctx, b.pool, orgID)
	if err != nil {
		return question, nil, err
	}
	question.Suggested, err = suggest(ctx, b.pool, orgID, supplierOf(*question))
	return question, choices, err
}

// DeskQuestions lists an org's open questions, oldest first, each with what
// the desk needs to answer it in place: the accounts to choose from and the
// account used for the supplier before.
func (b *Bookkeeper) DeskQuestions(ctx context.Context, orgID int64) ([]Question, error) {
	qs, err := b.Questions(ctx, orgID)
	if err != nil || len(qs) == 0 {
		return qs, err
	}
	qs = qs[:min(len(qs), MaxDeskQuestions)]
	choices, err := expenseAccounts(ctx, b.pool, orgID)
	if err != nil {
		return nil, err
	}
	for i := range qs {
		if qs[i].Kind != AskExpenseAccount {
			continue
		}
		qs[i].Choices = choices
		if qs[i].Suggested, err = suggest(ctx, b.pool, orgID, supplierOf(qs[i])); err != nil {
			return nil, err
		}
	}
	return qs, nil
}

// supplierOf is the supplier key an expense account question is about.
func supplierOf(q Question) string {
	s, _ := q.Data["supplier"].(string)
	return s
}

// expenseAccounts are the accounts an expense account may be: the active expense accounts.
func expenseAccounts(ctx context.Context, q database.Executor, orgID int64) ([]ledger.Account, error) {
	all, err := ledger.Accounts(ctx, q, orgID)
	if err != nil {
		return nil, fmt.Errorf("bookkeeper: accounts to choose from: %w", err)
	}
	var choices []ledger.Account
	for _, a := range all {
		if a.Active && a.Type == ledger.Expense {
			choices = append(choices, a)
		}
	}
	return choices, nil
}

// MaxDeskQuestions caps how many open questions the desk shows at once
// (oldest first); the rest follow as these are answered.
const MaxDeskQuestions = 50

// DeskAnswer answers one open question from the desk, and returns the
// question as it was asked, with what the desk needs to show it again when
// the answer is refused. The question is nil when there is none to answer
// (unknown, or answered already).
func (b *Bookkeeper) DeskAnswer(ctx context.Context, orgID int64, runID string, answer map[string]string, remember bool, actor audit.Actor) (*Question, error) {
	info, err := runs.Get(ctx, b.pool, orgID, runID)
	if err != nil || info.Kind != Kind || info.Status != runs.Paused || info.Question == nil {
		// Answer says which: no such question, or answered already.
		return nil, b.Answer(ctx, orgID, runID, answer, remember, actor)
	}
	q := &Question{RunID: info.ID, IntakeID: info.SubjectID, Question: *info.Question, AskedAt: info.UpdatedAt}
	if q.Kind == AskExpenseAccount {
		if q.Choices, err = expenseAccounts(ctx, b.pool, orgID); err != nil {
			return nil, err
		}
		if q.Suggested, err = suggest(ctx, b.pool, orgID, supplierOf(*q)); err != nil {
			return nil, err
		}
	}
	return q, b.Answer(ctx, orgID, runID, answer, remember, actor)
}
