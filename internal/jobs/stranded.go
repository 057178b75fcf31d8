package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/org"
)

// Stranded is work that is not finished and that no sweep or resume pass
// will pick up by itself: an operator must look.
type Stranded struct {
	Kind    string
	Subject string
	Link    string
	Since   time.Time
	Why     string
	// Error is the last error of the job or run, when there is one.
	Error string
	// RunID is the pipeline run an operator may retry or abandon from the
	// runs page, when the item is one.
	RunID string
}

// SweepState says when the sweep last ran and what it did.
type SweepState struct {
	LastPassAt *time.Time
	Launched   int
	Failed     int
}

// StrandedWork lists an org's stranded work, and the sweep's last pass.
// A running run that a live worker holds is never stranded, even after
// failing a node again and again: it is waiting out its backoff, and the
// retry policy fails it when its attempts are used up (then the job checks
// see it). The runs page counts such runs as in backoff (runs.Counts).
func StrandedWork(ctx context.Context, q database.Executor, orgID int64, leaseGrace time.Duration) ([]Stranded, SweepState, error) {
	return StrandedWorkIn(ctx, q, org.Only(orgID), leaseGrace)
}

// StrandedWorkIn is StrandedWork over a scope (an operator's: every org's).
func StrandedWorkIn(ctx context.Context, q database.Executor, scope org.Scope, leaseGrace time.Duration) ([]Stranded, SweepState, error) {
	var st SweepState
	err := q.QueryRow(ctx, sweepStateSQL).Scan(&st.LastPassAt, &st.Launched, &st.Failed)
	if err != nil && err != pgx.ErrNoRows {
		return nil, st, fmt.Errorf("jobs: sweep state: %w", err)
	}
	checks := []struct {
		kind, why, sql string
	}{
		{"job", "out of attempts but not abandoned: the sweep skips it and nothing marks it dead", strandedOutOfAttemptsSQL},
		{"job", "launched, but its run is gone or finished without finishing the job", strandedLaunchedSQL},
		{"document", "approved, but it has no bookkeeping job", strandedApprovedSQL},
		{"document", "received, but its pipeline run is gone or finished without filing it", strandedReceivedSQL},
		{"run", "running, but no worker has held it for a while: is a greatbook serve running?", strandedRunSQL},
	}
	var out []Stranded
	for _, c := range checks {
		args := []any{scope.OrgID()}
		if scope.All() {
			// Every org: the org condition of each check, "x.org_id = $1",
			// becomes always true (the SQL keeps its other numbering).
			for _, alias := range []string{"j", "d", "r"} {
				c.sql = strings.Replace(c.sql, alias+".org_id = $1", "$1::bigint = 0", 1)
			}
		}
		if c.kind == "run" {
			args = append(args, leaseGrace.Seconds())
		}
		rows, err := q.Query(ctx, c.sql+strandedLimitSQL, args...)
		if err != nil {
			return nil, st, fmt.Errorf("jobs: stranded work: %w", err)
		}
		found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Stranded, error) {
			s := Stranded{Kind: c.kind, Why: c.why}
			var since *time.Time
			err := r.Scan(&s.Subject, &s.Link, &since, &s.Error, &s.RunID)
			if since != nil {
				s.Since = *since
			}
			return s, err
		})
		if err != nil {
			return nil, st, fmt.Errorf("jobs: stranded work: %w", err)
		}
		out = append(out, found...)
	}
	return out, st, nil
}
