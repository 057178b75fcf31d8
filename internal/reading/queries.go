package reading

// The readings' and layouts' SQL.
const (
	insertReadingSQL = `INSERT INTO intake_readings (intake_id, org_id, source, fields, uncertain, supplier_key, layout_id, words, pages)
	VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, 0), $8, $9)
	ON CONFLICT (intake_id) DO NOTHING`

	countLayoutUseSQL = `UPDATE supplier_layouts SET uses = uses + 1 WHERE id = $1 AND org_id = $2`

	readingColumns = `intake_id, org_id, source, fields, uncertain, supplier_key, coalesce(layout_id, 0), pages, read_at`

	readingSQL = `SELECT ` + readingColumns + ` FROM intake_readings WHERE intake_id = $1 AND org_id = $2`

	readingKeySQL = `SELECT supplier_key FROM intake_readings WHERE intake_id = $1 AND org_id = $2`

	wordsSQL = `SELECT words FROM intake_readings WHERE intake_id = $1 AND org_id = $2`

	layoutColumns = `id, org_id, supplier_key, supplier_name, layout, coalesce(learned_from, 0), learned_by, learned_at, uses`

	layoutForSQL = `SELECT ` + layoutColumns + ` FROM supplier_layouts WHERE org_id = $1 AND supplier_key = $2`

	layoutSQL = `SELECT ` + layoutColumns + ` FROM supplier_layouts WHERE org_id = $1 AND id = $2`

	// listLayoutsSQL lists an org's layouts, newest learned first, at most 500.
	listLayoutsSQL = `SELECT ` + layoutColumns + ` FROM supplier_layouts WHERE org_id = $1 ORDER BY learned_at DESC, id DESC LIMIT 500`

	// upsertLayoutSQL keeps one layout per supplier: the last one learned.
	upsertLayoutSQL = `INSERT INTO supplier_layouts (org_id, supplier_key, supplier_name, layout, learned_from, learned_by)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (org_id, supplier_key) DO UPDATE SET supplier_name = EXCLUDED.supplier_name, layout = EXCLUDED.layout,
	learned_from = EXCLUDED.learned_from, learned_by = EXCLUDED.learned_by, learned_at = now()
	RETURNING id`

	deleteLayoutSQL = `DELETE FROM supplier_layouts WHERE org_id = $1 AND id = $2 RETURNING supplier_key`

	deleteLayoutsSQL = `DELETE FROM supplier_layouts WHERE org_id = $1`
)
