package runs

import (
	"context"
	"fmt"

	"greatbook/internal/database"
	"greatbook/internal/org"
)

// CountCap is where the counts of finished runs stop: an org's done runs
// grow with its history, and counting them all on each view of the runs
// page would cost more than the page.
const CountCap = 1000

// StateCounts is how many of an org's runs are in each state. A running run
// whose last checkpoint is a retry and whose worker still holds it is
// waiting out its backoff: counted as InBackoff, not as Running, and not
// stranded (the worker runs the node again when the wait is over). Done and
// Failed stop at CountCap; DoneMore and FailedMore say there are more.
type StateCounts struct {
	Running    int
	InBackoff  int
	Paused     int
	Done       int
	Failed     int
	DoneMore   bool
	FailedMore bool
}

// Total is the number of runs counted.
func (c StateCounts) Total() int { return c.Running + c.InBackoff + c.Paused + c.Done + c.Failed }

// TotalMore says that Total stopped short: there are more runs than it.
func (c StateCounts) TotalMore() bool { return c.DoneMore || c.FailedMore }

// Counts counts an org's runs per state, in one statement.
func Counts(ctx context.Context, q database.Executor, orgID int64) (StateCounts, error) {
	return CountsIn(ctx, q, org.Only(orgID))
}

// CountsIn counts the runs of a scope (an operator's: every org's) per
// state, in one statement.
func CountsIn(ctx context.Context, q database.Executor, scope org.Scope) (StateCounts, error) {
	var c StateCounts
	sql, args := countsQuery(scope)
	err := q.QueryRow(ctx, sql, args...).Scan(&c.Running, &c.InBackoff, &c.Paused, &c.Done, &c.Failed)
	if err != nil {
		return c, fmt.Errorf("runs: counts: %w", err)
	}
	c.Done, c.DoneMore = min(c.Done, CountCap), c.Done > CountCap
	c.Failed, c.FailedMore = min(c.Failed, CountCap), c.Failed > CountCap
	return c, nil
}

// countsQuery is the statement of CountsIn and its arguments.
func countsQuery(scope org.Scope) (string, []any) {
	args := []any{CountCap + 1}
	return fmt.Sprintf(countsSQL, scope.Where("r.org_id", &args), scope.Where("r.org_id", &args), scope.Where("r.org_id", &args)), args
}
