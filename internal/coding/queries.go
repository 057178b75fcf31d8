package coding

// The SQL of a document's coding and the chart it names, one named
// statement for each thing the package does.

const (
	// codingSQL reads the coding rows of document $2 of org $1, in order.
	codingSQL = `SELECT c.line, a.code, c.dimensions, c.amount::text, c.source
	FROM intake_coding c JOIN accounts a ON a.id = c.account_id
	WHERE c.org_id = $1 AND c.intake_id = $2 ORDER BY c.row_no`

	// lockDocumentSQL locks document $2 of org $1 for a change of its
	// coding (approve's group lock takes the same row, so a coding change
	// and an approval of the document come one after the other) and reads
	// what the change is checked against.
	lockDocumentSQL = `SELECT status, fields FROM intake_documents WHERE org_id = $1 AND id = $2 FOR UPDATE`

	// chartSQL reads the org's accounts and dimension values as two
	// sets of rows: kind 'a' (code, active) and 'v' (dimension, code, active).
	chartSQL = `SELECT 'a', '', code, active FROM accounts WHERE org_id = $1
	UNION ALL
	SELECT 'v', d.name, v.code, v.active FROM dimensions d JOIN dimension_values v ON v.dimension_id = d.id WHERE d.org_id = $1`

	deleteCodingSQL = `DELETE FROM intake_coding WHERE intake_id = $1`

	// insertCodingSQL writes the rows of document $1 of org $2 from arrays
	// (row_no from their order), each with its account looked up by code.
	insertCodingSQL = `INSERT INTO intake_coding (intake_id, org_id, row_no, line, account_id, dimensions, amount, source, coded_by)
	SELECT $1, $2, r.ord - 1, r.line, a.id, r.dims, r.amount, r.source, $8
	FROM unnest($3::int[], $4::text[], $5::jsonb[], $6::numeric[], $7::text[]) WITH ORDINALITY AS r(line, code, dims, amount, source, ord)
	JOIN accounts a ON a.org_id = $2 AND a.code = r.code
	ORDER BY r.ord`
)

// valuesSQL lists the org's dimensions with their values (name, code,
// value name, active), a dimension without values as one row of NULLs,
// for a coding form's choices.
const valuesSQL = `SELECT d.name, v.code, v.name, v.active
	FROM dimensions d LEFT JOIN dimension_values v ON v.dimension_id = d.id
	WHERE d.org_id = $1 ORDER BY d.name, v.code`
