package events

// The feed's SQL: its two statements, sent through a database.Executor.

// readSQL returns the org's feed rows after a position: only of
// transactions that every transaction still running started after
// (xact < xmin of the statement's snapshot), which have all finished, so
// no row of a transaction still open can ever sort before what it
// returns. Without that condition a row of a transaction open now (an id
// drawn earlier, committed later) would appear behind the reader's
// cursor and be skipped.
//
// The transaction id is selected as text (pgx has no xid8 type) under its
// own name: ORDER BY resolves a bare name to an output column first, and
// ordering by the text would put 10000 before 9999.
const readSQL = `SELECT xact::text AS xact_text, id, action, coalesce(subject_type, ''), coalesce(subject_id, 0),
	coalesce(from_status, ''), coalesce(to_status, ''), actor, detail, created_at
FROM audit_events
WHERE org_id = $1 AND (xact, id) > ($2::text::xid8, $3::bigint)
  AND xact < pg_snapshot_xmin(pg_current_snapshot())
  AND action = ANY($4)
ORDER BY xact, id
LIMIT $5`

// headSQL is readSQL's last row: the same rows, read backwards (the index
// on (org_id, xact, id) serves both directions).
const headSQL = `SELECT xact::text AS xact_text, id FROM audit_events
WHERE org_id = $1 AND xact < pg_snapshot_xmin(pg_current_snapshot()) AND action = ANY($2)
ORDER BY xact DESC, id DESC
LIMIT 1`
