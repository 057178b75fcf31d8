package bookkeeper

import (
	"context"
	"fmt"

	"greatbook/internal/ledger"
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
	choices, err := expenseAccounts(ctx, b, orgID)
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
	choices, err := expenseAccounts(ctx, b, orgID)
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

func expenseAccounts(ctx context.Context, b *Bookkeeper, orgID int64) ([]ledger.Account, error) {
	all, err := ledger.Accounts(ctx, b.pool, orgID)
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
