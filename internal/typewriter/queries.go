package typewriter

// The typewriter's SQL, one named statement for each thing it does, sent
// through the Service's database.Executor or the transaction of
// database.WithTxV.

// Composing and revising.
const (
	insertDocumentSQL = `INSERT INTO typewriter_documents (org_id, created_by) VALUES ($1, $2) RETURNING id`

	// lockDocumentSQL locks a document of an org: one revision at a time.
	lockDocumentSQL = `SELECT id FROM typewriter_documents WHERE id = $1 AND org_id = $2 FOR UPDATE`

	newestVersionSQL = `SELECT id, number FROM typewriter_versions WHERE document_id = $1 ORDER BY number DESC LIMIT 1`

	insertVersionSQL = `INSERT INTO typewriter_versions (document_id, org_id, number, supersedes_id, body, pdf, pdf_sha256, created_by)
	VALUES ($1, $2, $3, NULLIF($4, 0), $5, $6, $7, $8) RETURNING id`
)

// Reading documents and versions.
const (
	// versionColumns are a version's columns with its newest intake row's, as
	// scanVersion reads them.
	versionColumns = `v.id, v.document_id, v.number, coalesce(v.supersedes_id, 0), v.body, v.pdf_sha256, v.created_by, v.created_at,
	i.id, i.status, coalesce(i.duplicate_of, 0), coalesce(i.duplicate_reason, ''), coalesce(i.flag_reason, '')`

	// versionFrom joins a version to the newest intake row filed from it (a
	// version submitted again is the same bytes, the same row).
	versionFrom = ` FROM typewriter_versions v LEFT JOIN LATERAL (
	SELECT * FROM intake_documents d WHERE d.typewriter_version_id = v.id ORDER BY d.id DESC LIMIT 1) i ON true`

	versionSQL = `SELECT ` + versionColumns + versionFrom + ` WHERE v.id = $1 AND v.org_id = $2`

	versionsOfDocumentSQL = `SELECT ` + versionColumns + versionFrom + ` WHERE v.document_id = $1 ORDER BY v.number`

	versionPDFSQL = `SELECT pdf FROM typewriter_versions WHERE id = $1 AND org_id = $2`

	documentSQL = `SELECT id, created_by, created_at FROM typewriter_documents WHERE id = $1 AND org_id = $2`

	// listDocumentsSQL lists an org's newest 200 documents.
	listDocumentsSQL = `SELECT id FROM typewriter_documents WHERE org_id = $1 ORDER BY id DESC LIMIT 200`
)
