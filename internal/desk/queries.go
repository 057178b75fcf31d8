package desk

import (
	"greatbook/internal/intake"
	"greatbook/internal/review"
)

// The statements of the desk's read side. Fixed statements are constants;
// a statement built from a filter is a format here, filled with fmt.Sprintf
// by the function that builds it from its conditions (each a column, an
// operator and a placeholder).

// reversedSQL holds for a document d whose journal entry was reversed: the
// ledger links a reversal to the entry it reverses (journal_entries_reverses_idx),
// and intake keeps no status of its own for it.
const reversedSQL = `EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_id = d.result_entry_id)`

// sortColumn is the SQL a key orders by; each has an index per status
// (org_id, status, column, id), so a tab's first page is an ordered scan.
// The amount is payable_base, the amount payable converted to the org's
// base currency as the bookkeeper converts it (migration 00024): NULL
// while no rate is known, and such rows sort last in either direction
// (its descending index is NULLS LAST).
var sortColumn = map[SortKey]string{
	SortIssued: "(d.fields->>'issue_date')",
	SortDue:    "(d.fields->>'due_date')",
	SortAmount: "d.payable_base",
}

// The queue's pages: the rows of one status (or of every status) under the
// conditions, in an order, up to a limit; the branches of several statuses
// merged (each in parentheses, joined by UNION ALL) in the same order; and
// the desk's columns of the rows a page selected.
const (
	// queuePageSQL: conditions, order, limit.
	queuePageSQL = `SELECT * FROM intake_documents d WHERE %s ORDER BY %s LIMIT %s`
	// queueIDsPageSQL is queuePageSQL for conditions on (org_id, status,
	// id) alone: it finds the page's ids in intake_desk_idx without reading
	// a row (an index-only scan), then reads those rows. Asked for the
	// rows themselves, the planner may walk the primary key backwards and
	// filter, guessing that a status is spread evenly over the ids; at a
	// million documents that walk passed 300,000 newer rows of other
	// statuses (the duplicates filed last) to fill a page of pending ones.
	queueIDsPageSQL = `SELECT d.* FROM (SELECT d.id FROM intake_documents d WHERE %s ORDER BY %s LIMIT %s) i
		JOIN intake_documents d ON d.id = i.id`
	// queueMergeSQL: branches, order, limit.
	queueMergeSQL = `SELECT * FROM (%s) d ORDER BY %s LIMIT %s`
	// queueMergeOffsetSQL: branches, order, offset, limit.
	queueMergeOffsetSQL = `SELECT * FROM (%s) d ORDER BY %s OFFSET %s LIMIT %s`
)

// The reads of a search whose text few supplier names contain: a page in
// the default order (searchPage) merges the newest rows of each name found
// (searchSupplierSQL: the names' keys, then the conditions with the order
// and limit) and those of each other term (searchTermSQL: conditions), each
// row once (searchMergeSQL: branches, order, limit); a sorted page reads
// every row of each term (searchTermSQL) and sorts them (searchSortedSQL:
// branches, order, offset, limit). supplierNamesSQL finds the names: the
// org $1's lower-cased supplier names matching the LIKE pattern $2, up to
// $3, as their keys.
const (
	searchSupplierSQL = `SELECT d.* FROM unnest(%s::uuid[]) s(key) CROSS JOIN LATERAL (
		SELECT * FROM intake_documents d
		WHERE d.supplier_name IS NOT NULL AND md5(lower(d.supplier_name))::uuid = s.key AND %s) d`
	searchTermSQL    = `SELECT * FROM intake_documents d WHERE %s`
	searchMergeSQL   = `SELECT DISTINCT ON (d.id) * FROM (%s) d ORDER BY %s LIMIT %s`
	searchSortedSQL  = `SELECT * FROM (SELECT DISTINCT ON (d.id) * FROM (%s) d) d ORDER BY %s OFFSET %s LIMIT %s`
	supplierNamesSQL = `SELECT md5(name)::uuid::text FROM supplier_names WHERE org_id = $1 AND name LIKE lower($2) LIMIT $3`
)

// queueRowsSQL selects the desk's columns of the rows a page (the first
// %s) gives, in an order (the second). An undecided row carries its count
// of approvals (a lookup of intake_approvals' key) and the org's policy
// (NULLs: the default), which says how many it needs.
var queueRowsSQL = `SELECT d.id, d.status, coalesce(d.doc_type, ''), coalesce(d.supplier_name, ''), coalesce(d.doc_number, ''),
	        coalesce(d.source_ref, ''), d.payable::text, coalesce(d.currency, ''), d.payable_base::text, o.base_currency, coalesce(d.flag_reason, ''),
	        coalesce(d.duplicate_of, 0), d.received_at, coalesce(d.fields->>'issue_date', ''), coalesce(d.fields->>'due_date', ''),
	        g.members, g.accepted, coalesce(v.number, 0),
	        coalesce((SELECT count(*) FROM typewriter_versions w WHERE w.document_id = d.version_group), 0),
	        d.status = 'posted' AND ` + reversedSQL + `,
	        CASE WHEN d.status IN ('pending', 'flagged') THEN (SELECT count(*) FROM intake_approvals a WHERE a.intake_id = d.id) ELSE 0 END,
	        p.separate_submitter, p.rules
	FROM (%s) d
	JOIN orgs o ON o.id = d.org_id
	LEFT JOIN approval_policies p ON p.org_id = d.org_id
	` + review.GroupSummarySQL + `
	LEFT JOIN typewriter_versions v ON v.id = d.typewriter_version_id
	ORDER BY %s`

// sortedPositionSQL finds the rows just before and after a document in a
// sorted order: conditions, order, the document's placeholder.
const sortedPositionSQL = `SELECT coalesce(prev, 0), coalesce(next, 0) FROM (
		SELECT d.id, lag(d.id) OVER w AS prev, lead(d.id) OVER w AS next FROM intake_documents d
		WHERE %s
		WINDOW w AS (ORDER BY %s)) x WHERE x.id = %s`

// The tabs' counts (tabCounts), in one statement of rows (key, count):
// each status's rows up to a cap $2 (an index-only scan of at most that
// many entries each) for the statuses $3; the posted documents whose entry
// was reversed (countReversed), found from the reversals (few, in the
// partial index journal_entries_reverses_idx) by their source key; and
// those approver $4 may approve (countMine) among the first $2 rows of each
// status $5, read through (org_id, status, id): mayApproveSQL's rules, the
// org's policy read once, so that a document's row is read only under a
// policy that separates submitters (the ids and the approvals are in
// indexes).
const (
	countReversed = "reversed"
	countMine     = "mine"
)

var tabCountsSQL = `SELECT s, (SELECT count(*) FROM (SELECT 1 FROM intake_documents
		WHERE org_id = $1 AND status = s LIMIT $2) x) FROM unnest($3::text[]) s
	UNION ALL
	SELECT '` + countReversed + `', (SELECT count(*) FROM (SELECT 1 FROM journal_entries r
		JOIN intake_documents rd ON rd.org_id = r.org_id AND rd.status = 'posted' AND rd.result_entry_id = r.reverses_id
		     AND rd.id = CASE WHEN r.source_id ~ '^[0-9]{1,18}$' THEN r.source_id::bigint END
		WHERE r.reverses_id IS NOT NULL AND r.org_id = $1 AND r.source_type = 'intake' LIMIT $2) x)
	UNION ALL
	SELECT '` + countMine + `', (SELECT count(*) FROM unnest($5::text[]) s CROSS JOIN LATERAL (
		SELECT x.id FROM intake_documents x WHERE x.org_id = $1 AND x.status = s ORDER BY x.id DESC LIMIT $2) i
		WHERE NOT EXISTS (SELECT 1 FROM intake_approvals a WHERE a.intake_id = i.id AND a.approver = $4::text)
		AND (NOT coalesce((SELECT p.separate_submitter FROM approval_policies p WHERE p.org_id = $1), false)
		     OR NOT EXISTS (SELECT 1 FROM intake_documents d WHERE d.id = i.id AND $4::text = ANY (` + review.SubmittersSQL + `))))`

// mayApproveSQL holds for a document d the approver (the placeholder of
// their label) may approve now, by approve's rules: they have not approved
// it already, and they did not submit it when the org's policy separates
// submitters (review.SubmittersSQL, approve's own definition). The
// approval is a lookup of intake_approvals' key; the submitters are read
// only under a separating policy.
func mayApproveSQL(approver string) string {
	return `NOT EXISTS (SELECT 1 FROM intake_approvals a WHERE a.intake_id = d.id AND a.approver = ` + approver + `::text)
		AND NOT (coalesce((SELECT p.separate_submitter FROM approval_policies p WHERE p.org_id = d.org_id), false)
		         AND ` + approver + `::text = ANY (` + review.SubmittersSQL + `))`
}

// listSQL reads a page of the API's listing, newest first: conditions,
// limit. Without a status, a supplier or a search to bound it, the page is a merge
// (listMergeSQL: branches, limit) of one branch per status (listPageSQL:
// conditions, limit).
const (
	listSQL      = `SELECT ` + intake.DocumentColumns + ` FROM intake_documents d WHERE %s ORDER BY d.id DESC LIMIT %s`
	listPageSQL  = `SELECT * FROM intake_documents d WHERE %s ORDER BY d.id DESC LIMIT %s`
	listMergeSQL = `SELECT ` + intake.DocumentColumns + ` FROM (%s) d ORDER BY d.id DESC LIMIT %s`
)
