package bookkeeper

import (
	"context"

	"greatbook/internal/ledger"
)

// OpenQuestion is the open question about one document, if any, with the
// accounts a person may answer it with: the active expense accounts, for a
// question about the expense account; none for any other.
func (b *Bookkeeper) OpenQuestion(ctx context.Context, orgID, intakeID int64) (*Question, []ledger.Account, error) {
	question, err := b.QuestionFor(ctx, orgID, intakeID)
	if err != nil || question == nil || question.Kind != AskExpenseAccount {
		return question, nil, err
	}
	all, err := ledger.Accounts(ctx, b.pool, orgID)
	if err != nil {
		return question, nil, err
	}
	var choices []ledger.Account
	for _, a := range all {
		if a.Active && a.Type == ledger.Expense {
			choices = append(choices, a)
		}
	}
	return question, choices, nil
}
