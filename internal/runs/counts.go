package runs

import (
	"context"
	"fmt"

	"greatbook/internal/database"
	"greatbook/internal/org"
)

// StateCounts is how many of an org's runs are in each state. A running run
// whose last checkpoint is a retry and whose worker still holds it is
// waiting out its backoff: counted as InBackoff, not as Running, and not
// stranded (the worker runs the node again when the wait is over).
type StateCounts struct {
	Running   int
	InBackoff int
	Paused    int
	Done      int
	Failed    int
}

// Total is the number of runs counted.
func (c StateCounts) Total() int { return c.Running + c.InBackoff + c.Paused + c.Done + c.Failed }

// Counts counts an org's runs per state, in one statement.
func Counts(ctx context.Context, q database.Executor, orgID int64) (StateCounts, error) {
	return CountsIn(ctx, q, org.Only(orgID))
}

// CountsIn counts the runs of a scope (an operator's: every org's) per
// state, in one statement.
func CountsIn(ctx context.Context, q database.Executor, scope org.Scope) (StateCounts, error) {
	var c StateCounts
	var args []any
	err := q.QueryRow(ctx, fmt.Sprintf(countsSQL, scope.Where("r.org_id", &args)), args...).Scan(&c.Running, &c.InBackoff, &c.Paused, &c.Done, &c.Failed)
	if err != nil {
		return c, fmt.Errorf("runs: counts: %w", err)
	}
	return c, nil
}
