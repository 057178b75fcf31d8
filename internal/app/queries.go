package app

// The metrics' SQL, read at scrape time through a database.Executor. Each
// %s is the condition of the collector's org scope (org.Scope.Where on
// org_id).
const (
	jobsByStatusSQL = `SELECT status, count(*) FROM jobs WHERE %s GROUP BY status`

	// runsByNodeSQL counts runs by kind, state and the node they are at.
	runsByNodeSQL = `SELECT kind, state, coalesce(next_node, ''), count(*) FROM runs WHERE %s GROUP BY 1, 2, 3`
)
