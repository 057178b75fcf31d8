package bench

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
)

// StatementsEnv, set to any value, loads pg_stat_statements into the
// bench's cluster and prints, after the figures that call
// Env.PrintStatements, the server's time per unit (a document, say) of
// each statement the figure sent: where the server's share of a figure
// goes. It slows every figure a little, so it is off by default.
const StatementsEnv = "GREATBOOK_BENCH_STATEMENTS"

func statementsWanted() bool { return os.Getenv(StatementsEnv) != "" }

// statementSettings are the server settings StatementsEnv adds.
var statementSettings = map[string]string{
	"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all",
	"pg_stat_statements.track_planning": "on",
}

// sentStatementsSQL selects, in pg_stat_statements, the statements sent to
// the bench's database, without those run inside others (their time and
// buffers are already their caller's) and the count's own.
const sentStatementsSQL = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND toplevel AND query NOT LIKE '%pg_stat_statements%'`

// ResetStatements starts a figure's count of statements (a no-op unless
// StatementsEnv is set).
func (e *Env) ResetStatements(ctx context.Context) error {
	if !statementsWanted() {
		return nil
	}
	if _, err := e.Pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return err
	}
	_, err := e.Pool.Exec(ctx, `SELECT pg_stat_statements_reset()`)
	return err
}

// PrintStatements prints every statement sent to e's database since
// ResetStatements that took at least 1% of the server's time: its calls
// and its planning and execution time per unit (units of the figure,
// a document say), and the total per unit. Statements called fewer than
// once per hundred units (seeding, ANALYZE) are left out, and so are
// statements run inside others (triggers' statements, foreign-key checks):
// their time is already inside the statement that fired them. Commits'
// waits for the disk are not counted at all.
func (e *Env) PrintStatements(ctx context.Context, label, unit string, units int) error {
	if !statementsWanted() || units <= 0 {
		return nil
	}
	rows, err := e.Pool.Query(ctx, `SELECT calls, total_exec_time + total_plan_time, query FROM pg_stat_statements
		WHERE `+sentStatementsSQL+` AND calls * 100 >= $1
		ORDER BY total_exec_time + total_plan_time DESC`, units)
	if err != nil {
		return err
	}
	type statement struct {
		calls int64
		ms    float64
		query string
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (statement, error) {
		var s statement
		return s, r.Scan(&s.calls, &s.ms, &s.query)
	})
	if err != nil {
		return err
	}
	var total float64
	for _, s := range all {
		total += s.ms
	}
	t := &Table{Title: fmt.Sprintf("%s: the server's time per %s by statement (pg_stat_statements, %s=1)", label, unit, StatementsEnv),
		Columns: []string{"calls/" + unit, "ms/" + unit, "share", "statement"}}
	for _, s := range all {
		if s.ms < total/100 {
			break
		}
		q := strings.Join(strings.Fields(s.query), " ")
		if len(q) > 110 {
			q = q[:110] + "…"
		}
		t.Add(fmt.Sprintf("%.1f", float64(s.calls)/float64(units)), fmt.Sprintf("%.3f", s.ms/float64(units)),
			fmt.Sprintf("%.0f%%", 100*s.ms/total), q)
	}
	t.Add("", fmt.Sprintf("%.3f", total/float64(units)), "100%", "all statements")
	t.Print(e.Out)
	return nil
}

// Buffers is the shared buffers the statements sent since ResetStatements
// found in PostgreSQL's cache (hit) and had to read from the kernel or the
// disk (read), totalled over every statement; both are 0 unless
// StatementsEnv is set.
func (e *Env) Buffers(ctx context.Context) (hit, read int64, err error) {
	if !statementsWanted() {
		return 0, 0, nil
	}
	err = e.Pool.QueryRow(ctx, `SELECT coalesce(sum(shared_blks_hit), 0)::bigint, coalesce(sum(shared_blks_read), 0)::bigint
		FROM pg_stat_statements WHERE `+sentStatementsSQL).Scan(&hit, &read)
	return hit, read, err
}
