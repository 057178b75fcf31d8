package intake

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
	err := q.QueryRow(ctx, `SELECT last_pass_at, launched, failed FROM sweep_passes WHERE id = 1`).Scan(&st.LastPassAt, &st.Launched, &st.Failed)
	if err != nil && err != pgx.ErrNoRows {
		return nil, st, fmt.Errorf("intake: sweep state: %w", err)
	}
	checks := []struct {
		kind, why, sql string
	}{
		{"job", "out of attempts but not abandoned: the sweep skips it and nothing marks it dead",
			`SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(j.last_error, ''), '' FROM jobs j
			 WHERE j.org_id = $1 AND j.status IN ('pending', 'failed') AND j.attempts >= j.max_attempts`},
		{"job", "launched, but its run is gone or finished without finishing the job",
			`SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(r.last_error, j.last_error, ''), '' FROM jobs j LEFT JOIN runs r ON r.id = j.run_id
			 WHERE j.org_id = $1 AND j.status = 'launched' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`},
		{"document", "approved, but it has no bookkeeping job",
			`SELECT 'document ' || d.id, '/intake/' || d.id, d.decided_at, '', '' FROM intake_documents d
			 WHERE d.org_id = $1 AND d.status = 'active' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = d.id)`},
		{"document", "received, but its pipeline run is gone or finished without filing it",
			`SELECT 'document ' || d.id, '/intake/' || d.id, d.received_at, coalesce(r.last_error, ''), coalesce(r.id::text, '') FROM intake_documents d
			 LEFT JOIN runs r ON r.id = d.pipeline_run_id
			 WHERE d.org_id = $1 AND d.status = 'received' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`},
		{"run", "running, but no worker has held it for a while: is a greatbook serve running?",
			`SELECT r.kind || ' run ' || r.id, '/admin/runs/' || r.id, coalesce(r.lease_expires_at, r.updated_at), coalesce(r.last_error, ''),
			        CASE r.kind WHEN 'pipeline' THEN r.id::text ELSE '' END FROM runs r
			 WHERE r.org_id = $1 AND r.state = 'running'
			   AND coalesce(r.lease_expires_at, r.updated_at) < now() - make_interval(secs => $2)`},
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
		rows, err := q.Query(ctx, c.sql+` LIMIT 200`, args...)
		if err != nil {
			return nil, st, fmt.Errorf("intake: stranded work: %w", err)
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
			return nil, st, fmt.Errorf("intake: stranded work: %w", err)
		}
		out = append(out, found...)
	}
	return out, st, nil
}
