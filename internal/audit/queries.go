package audit

// The audit trail's SQL, sent through a database.Executor (normally the
// caller's transaction).

// InsertSQL appends one event (exported for the benchmark and the
// statement tests, which send and expect the very same statement).
const InsertSQL = `INSERT INTO audit_events (org_id, actor_user_id, actor, action, subject_type, subject_id, from_status, to_status, detail) VALUES ($1, NULLIF($2::bigint, 0), $3, $4, NULLIF($5, ''), NULLIF($6, 0), NULLIF($7, ''), NULLIF($8, ''), $9)`

// eventsForSubjectSQL lists the events about one object, oldest first.
const eventsForSubjectSQL = `
	SELECT id, coalesce(org_id, 0), coalesce(actor_user_id, 0), actor, action, coalesce(subject_type, ''),
	       coalesce(subject_id, 0), coalesce(from_status, ''), coalesce(to_status, ''), detail, created_at
	FROM audit_events
	WHERE org_id = $1 AND subject_type = $2 AND subject_id = $3
	ORDER BY id`
