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

// codingOfSQL reads the coding rows of the documents $2 (ids) of org $1,
// each document's in order (a listing's page in one statement).
const codingOfSQL = `SELECT c.intake_id, c.line, a.code, c.dimensions, c.amount::text, c.source
	FROM intake_coding c JOIN accounts a ON a.id = c.account_id
	WHERE c.org_id = $1 AND c.intake_id = ANY ($2::bigint[]) ORDER BY c.intake_id, c.row_no`

// The suggestions of a document's coding. suggestedRowsSQL computes them for
// the targets $3 (lines, NULL for the document-level remainder), $4 (their
// descriptions) and $5 (their nets) of a document of org $1 whose supplier
// is $2 (source_ref up to its first "/", as the bookkeeper keys suppliers;
// empty when the document names none), in one statement for all of them:
//
//   - history: the best match among the coded lines of the supplier's last 20
//     approved (active or posted) documents, by trigram similarity of the
//     descriptions (pg_trgm's similarity, at least 0.4; the newest document
//     breaks a tie), or for the remainder the newest such document's
//     remainder; its rows, with the same accounts and dimensions, split the
//     new net in the same proportions to the cent (each row takes the
//     rounded cumulative share less the rows before it, so the rows sum to
//     the net exactly). A learned line whose account or a value has been
//     deactivated since teaches nothing.
//   - supplier_rule: the account remembered for the supplier (a
//     bookkeeper's answer with remember), when active, for the whole net.
//   - default: the org's default expense account, when active.
//
// A target none applies to has no row. Only approved documents teach, and
// approval writes nothing for it but an index entry: the lookup is an ordered scan of
// intake_approved_supplier_idx within the supplier, bounded by those 20,
// and of their coding rows by its primary key; no trigram index is needed
// because descriptions are compared only within that bounded set.
const suggestionsCTE = `WITH t AS (
	SELECT t.ord, t.line, coalesce(t.descr, '') AS descr, t.net
	FROM unnest($3::int[], $4::text[], $5::numeric[]) WITH ORDINALITY AS t(line, descr, net, ord)
), prior AS (
	SELECT d.id, d.fields FROM intake_documents d
	WHERE d.org_id = $1 AND $2::text <> '' AND d.source_ref IS NOT NULL AND split_part(d.source_ref, '/', 1) = $2::text
	  AND d.status IN ('active', 'posted')
	ORDER BY d.id DESC LIMIT 20
), learned AS (
	SELECT p.id AS doc, c.line, c.row_no, c.account_id, c.dimensions, c.amount,
	       coalesce(p.fields -> 'lines' -> (c.line - 1) ->> 'description', '') AS descr,
	       bool_and(a.active AND NOT EXISTS (
	           SELECT 1 FROM jsonb_each_text(c.dimensions) e
	           WHERE NOT EXISTS (SELECT 1 FROM dimensions dm JOIN dimension_values v ON v.dimension_id = dm.id
	                             WHERE dm.org_id = $1 AND dm.name = e.key AND v.code = e.value AND v.active)))
	           OVER (PARTITION BY p.id, c.line) AS usable,
	       sum(c.amount) OVER (PARTITION BY p.id, c.line) AS whole
	FROM prior p JOIN intake_coding c ON c.intake_id = p.id JOIN accounts a ON a.id = c.account_id
), pick AS (
	SELECT DISTINCT ON (t.ord) t.ord, l.doc, l.line
	FROM t JOIN learned l ON l.usable AND l.whole <> 0 AND CASE
	    WHEN t.line IS NULL THEN l.line IS NULL
	    ELSE l.line IS NOT NULL AND t.descr <> '' AND similarity(l.descr, t.descr) >= 0.4 END
	ORDER BY t.ord, CASE WHEN t.line IS NULL THEN 1 ELSE similarity(l.descr, t.descr) END DESC, l.doc DESC, l.line
), hist AS (
	SELECT t.ord, t.line, l.row_no, l.account_id, l.dimensions, t.net, l.whole,
	       sum(l.amount) OVER (PARTITION BY t.ord ORDER BY l.row_no ROWS UNBOUNDED PRECEDING) AS upto, l.amount
	FROM t JOIN pick k ON k.ord = t.ord
	JOIN learned l ON l.doc = k.doc AND l.line IS NOT DISTINCT FROM k.line
), rule AS (
	SELECT s.account_id FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
	WHERE s.org_id = $1 AND s.supplier_key = $2::text AND a.active
), dflt AS (
	SELECT a.id AS account_id FROM orgs o JOIN accounts a ON a.id = o.default_expense_account_id AND a.active WHERE o.id = $1
), suggested AS (
	SELECT ord, row_no AS sub, line, account_id, dimensions, 'history' AS source,
	       CASE WHEN upto = whole THEN net ELSE round(net * upto / whole, 2) END
	       - CASE WHEN upto - amount = whole THEN net ELSE round(net * (upto - amount) / whole, 2) END AS amount
	FROM hist
	UNION ALL
	SELECT t.ord, 0, t.line, coalesce(r.account_id, d.account_id), '{}'::jsonb,
	       CASE WHEN r.account_id IS NOT NULL THEN 'supplier_rule' ELSE 'default' END, t.net
	FROM t LEFT JOIN rule r ON true LEFT JOIN dflt d ON true
	WHERE coalesce(r.account_id, d.account_id) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pick k WHERE k.ord = t.ord)
)`

const (
	// insertSuggestionsSQL writes the suggestions (see suggestionsCTE) into
	// the coding of document $6, after its rows, for each target that has
	// no row yet: a suggestion never overwrites a reviewer's row.
	insertSuggestionsSQL = suggestionsCTE + `
	INSERT INTO intake_coding (intake_id, org_id, row_no, line, account_id, dimensions, amount, source)
	SELECT $6, $1, coalesce((SELECT max(c.row_no) + 1 FROM intake_coding c WHERE c.intake_id = $6), 0)
	              + row_number() OVER (ORDER BY s.ord, s.sub) - 1,
	       s.line, s.account_id, s.dimensions, s.amount, s.source
	FROM suggested s
	WHERE NOT EXISTS (SELECT 1 FROM intake_coding c WHERE c.intake_id = $6 AND c.line IS NOT DISTINCT FROM s.line)`

	// unfitCodingSQL deletes the rows of document $1 other than a
	// reviewer's rows of the lines $2 (0: the remainder).
	unfitCodingSQL = `DELETE FROM intake_coding WHERE intake_id = $1 AND (source <> 'reviewer' OR coalesce(line, 0) <> ALL($2::int[]))`
)

// valuesSQL lists the org's dimensions with their values (name, code,
// value name, active), a dimension without values as one row of NULLs,
// for a coding form's choices.
const valuesSQL = `SELECT d.name, v.code, v.name, v.active
	FROM dimensions d LEFT JOIN dimension_values v ON v.dimension_id = d.id
	WHERE d.org_id = $1 ORDER BY d.name, v.code`
