package intake

// The statements of the document store. Each runs through a
// database.Executor, or in the filing's transaction (the store's own,
// opened with database.WithTxV, or its caller's).

// DocumentColumns is the select list ScanDocument reads, for table alias d.
const DocumentColumns = `d.id, d.org_id, d.content_hash, d.media_type, d.filename, d.size_bytes, d.received_via, d.received_by,
	coalesce(d.pipeline_run_id::text, ''), d.status, coalesce(d.doc_type, ''), coalesce(d.source_ref, ''), coalesce(d.content_key, ''),
	coalesce(d.format, ''), coalesce(d.profile, ''), d.fields, d.findings, coalesce(d.flag_reason, ''), coalesce(d.duplicate_of, 0),
	coalesce(d.duplicate_reason, ''), coalesce(d.distinct_from, 0), coalesce(d.result_entry_id, 0),
	coalesce(d.typewriter_version_id, 0), coalesce(d.version_group, 0), d.received_at, d.queued_at,
	coalesce(d.decided_by, ''), d.decided_at, coalesce(d.decision_reason, ''), d.updated_at`

// Reading documents.
const (
	getDocumentSQL = `SELECT ` + DocumentColumns + ` FROM intake_documents d WHERE d.id = $1 AND d.org_id = $2`
	originalSQL    = `SELECT o.content FROM intake_originals o JOIN intake_documents d ON d.id = o.document_id
		WHERE d.id = $1 AND d.org_id = $2`
	// arrivedBeforeSQL finds the row bytes of hash $1 arrived as in org $2.
	arrivedBeforeSQL = `SELECT ` + DocumentColumns + ` FROM intake_documents d
		WHERE d.content_hash = $1 AND d.org_id = $2`
)

// receivedAuditSQL records a new row's arrival in the audit trail (the
// event feed's document.received), in the statement that writes the row.
const receivedAuditSQL = `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id, to_status, detail)
	SELECT d.org_id, d.received_by, 'received', 'intake', d.id, d.status,
	       jsonb_build_object('media_type', d.media_type, 'filename', d.filename, 'size_bytes', d.size_bytes, 'via', d.received_via)
	FROM d`

// ingestSQL writes an arrival's row at received, its bytes and its audit
// row in one statement, which returns the row; nothing when the org has the
// same bytes already.
const ingestSQL = `
		WITH d AS (
			INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by, pipeline_run_id,
			                              typewriter_version_id, version_group)
			VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, '')::uuid, NULLIF($9, 0), NULLIF($10, 0))
			ON CONFLICT ON CONSTRAINT intake_documents_content_key DO NOTHING
			RETURNING *),
		original AS (INSERT INTO intake_originals (document_id, content) SELECT id, $11 FROM d),
		received AS (` + receivedAuditSQL + `)
		SELECT ` + DocumentColumns + ` FROM d`

// filedAuditSQL records a filing in the audit trail (the event feed's
// document.filed), in the statement that files the row: its status, flag
// and duplicate edge as filed. $13 is the status it was filed from.
const filedAuditSQL = `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id, from_status, to_status, detail)
	SELECT d.org_id, 'system:pipeline', 'filed', 'intake', d.id, $13, d.status,
	       jsonb_strip_nulls(jsonb_build_object('flag_reason', d.flag_reason, 'duplicate_of', d.duplicate_of,
	                                            'duplicate_reason', d.duplicate_reason, 'doc_type', d.doc_type,
	                                            'source_ref', d.source_ref, 'format', d.format))
	FROM d`

// A filing and its audit row in one statement: fileSQLHead, the condition
// on the row's state, fileSQLTail. Queue files a received row; Refile a row
// flagged for want of fields.
const (
	fileSQLHead = `
		WITH d AS (UPDATE intake_documents d SET status = $2, doc_type = NULLIF($3, ''), source_ref = NULLIF($4, ''),
		       content_key = NULLIF($5, ''), format = NULLIF($6, ''), fields = $7, findings = $8,
		       flag_reason = NULLIF($9, ''), duplicate_of = NULLIF($10, 0), duplicate_reason = NULLIF($11, ''),
		       profile = NULLIF($12, ''), queued_at = now(), updated_at = now()
		WHERE id = $1 AND `
	fileSQLTail = `
		RETURNING d.*),
		filed AS (` + filedAuditSQL + `)
		SELECT ` + DocumentColumns + ` FROM d`
	queueSQL  = fileSQLHead + `status = 'received'` + fileSQLTail
	refileSQL = fileSQLHead + `status = 'flagged' AND flag_reason IN ('needs_manual_extraction', 'extraction_failed', 'invalid_einvoice', 'uncertain_reading')` + fileSQLTail
)

// naturalKeyIncumbentSQL finds the live row that holds the natural key
// (row $1's org, doc type $2, source ref $3) the unique index refused.
const naturalKeyIncumbentSQL = `SELECT d.id FROM intake_documents d JOIN intake_documents me ON me.id = $1
			WHERE d.org_id = me.org_id AND d.doc_type = $2 AND d.source_ref = $3 AND d.duplicate_of IS NULL
			  AND d.distinct_from IS NULL AND d.status <> 'rejected'`

// guardSectionSQL takes or releases (the function, the first %s) a guard's
// namespaced advisory lock ($1) on its key (the second and third %s) for
// row $2.
const guardSectionSQL = `SELECT %s($1, hashtext(%s)) FROM intake_documents d WHERE d.id = $2 AND %s IS NOT NULL`

// The guards' keys, hashed as the strings they always were: the version
// group's id, and the org's id, a slash and the content key ($3).
const (
	versionGroupKeySQL = `d.version_group::text`
	contentKeySQL      = `d.org_id::text || '/' || $3`
)

// versionIncumbentSQL finds the live row filed by any version of the version
// group of row $1: not rejected, filed (not received), preferring one
// accepted, then one not filed as a duplicate, then the oldest. It is stated
// over the group, never over the supersedes edge.
const versionIncumbentSQL = `SELECT d.id FROM intake_documents d
WHERE d.version_group = (SELECT version_group FROM intake_documents WHERE id = $1) AND d.id <> $1
  AND d.status NOT IN ('rejected', 'received')
ORDER BY (d.status IN ('active', 'posted') OR d.result_entry_id IS NOT NULL) DESC, (d.duplicate_of IS NULL) DESC, d.id
LIMIT 1`

// contentIncumbentSQL finds the live row other than $1 that holds content
// key $2 in row $1's org under another reference than $3.
const contentIncumbentSQL = `SELECT d.id FROM intake_documents d
WHERE d.org_id = (SELECT org_id FROM intake_documents WHERE id = $1) AND d.content_key = $2 AND d.id <> $1
  AND d.duplicate_of IS NULL AND d.distinct_from IS NULL AND d.status NOT IN ('rejected', 'received')
  AND d.source_ref IS DISTINCT FROM $3
ORDER BY d.id LIMIT 1`
