package jobs

import (
	"context"

	"greatbook/internal/database"
	"greatbook/internal/org"
)

// The dead-letter page's and the stranded-work check's statements, for the
// tests of their plans.
var (
	DeadLettersQuery   = deadLettersQuery
	FindSupplierNames  = findSupplierNames
	CountMatchingQuery = countMatchingUpToQuery
	StrandedChecks     = []string{strandedOutOfAttemptsSQL, strandedLaunchedSQL, strandedApprovedSQL, strandedReceivedSQL, strandedRunSQL}
)

// DeadLettersAll lists the ids of every dead letter a filter matches, in
// the page's order: what the pages together must list.
func DeadLettersAll(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter) ([]int64, error) {
	list, _, err := deadLetters(ctx, q, scope, f, DeadLetterCursor{}, 0)
	ids := make([]int64, len(list))
	for i, d := range list {
		ids[i] = d.ID
	}
	return ids, err
}
