package review

// The statements of the duplicate group and of the decisions. The group is
// found by one recursive query (groupCTE), and its members are always read
// by id (groupMembersWhere).

// groupCTE is the recursive query that finds a duplicate group: every row
// joined to seed by duplicate_of edges, in either direction, transitively,
// as the CTE grp (id). UNION (not UNION ALL) makes cycles terminate.
func groupCTE(seed string) string {
	return `WITH RECURSIVE grp (id) AS (
    SELECT ` + seed + `
    UNION
    SELECT n.id FROM grp g CROSS JOIN LATERAL (
        SELECT x.id FROM intake_documents x WHERE x.duplicate_of = g.id
        UNION ALL
        SELECT x.duplicate_of FROM intake_documents x WHERE x.id = g.id AND x.duplicate_of IS NOT NULL
    ) AS n (id)
)
`
}

// groupIDsSQL lists the ids of the duplicate group of the row $1.
var groupIDsSQL = groupCTE("$1::bigint") + `SELECT id FROM grp`

// groupMembersWhere selects the rows of the duplicate group of the row $1
// in org $2 (as d), each by its primary key. Not `d.id IN (group)`: the
// planner guesses 200 rows for a recursive query, and for that many ids it
// preferred reading every document of the table once to a lookup each —
// a decision in an org of a few thousand documents read them all. An array
// built once (an InitPlan) is estimated at a handful of ids and looked up
// through the primary key.
var groupMembersWhere = `d.id = ANY (ARRAY(` + groupIDsSQL + `)) AND d.org_id = $2`

// memberColumns are the columns of a Member, in the order scanMember reads
// them.
const memberColumns = `d.id, d.status, coalesce(d.duplicate_of, 0), coalesce(d.duplicate_reason, ''), coalesce(d.result_entry_id, 0),
	coalesce(d.decided_by, ''), d.decided_at, coalesce(d.source_ref, ''), d.filename, coalesce(d.doc_type, ''),
	coalesce(d.flag_reason, ''), d.fields IS NOT NULL, ` + nothingToPostSQL + `, d.findings, coalesce(d.format, '')`

// nothingToPostSQL is true for a document with fields every amount of which
// the bookkeeper would post (net, tax, each subtotal's tax, rounding,
// prepaid, payable) is zero.
const nothingToPostSQL = `(d.fields IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM jsonb_each(coalesce(d.fields -> 'totals', '{}')) t
	                WHERE t.key IN ('net', 'tax', 'rounding', 'prepaid', 'payable') AND t.value #>> '{}' !~ '^-?0*(\.0*)?$')
	AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(d.fields -> 'tax_subtotals') WHEN 'array' THEN d.fields -> 'tax_subtotals' ELSE '[]' END) s
	                WHERE s ->> 'tax' !~ '^-?0*(\.0*)?$'))`

// groupSQL reads the duplicate group of the row $1 in org $2 (Group).
var groupSQL = `SELECT ` + memberColumns + ` FROM intake_documents d
		WHERE ` + groupMembersWhere + ` ORDER BY d.id`

// groupsSQL finds the duplicate group of every seed at once: groupCTE with
// the seed carried along each path. The join to the table is restricted
// to the ids the groups hold (an array built once, read through the
// primary key): joined on its own, for the planner's guess at a recursive
// query's size, it read every document of the table (see groupMembersWhere).
const groupsSQL = `WITH RECURSIVE grp (seed, id) AS (
    SELECT s, s FROM unnest($1::bigint[]) s
    UNION
    SELECT g.seed, n.id FROM grp g CROSS JOIN LATERAL (
        SELECT x.id FROM intake_documents x WHERE x.duplicate_of = g.id
        UNION ALL
        SELECT x.duplicate_of FROM intake_documents x WHERE x.id = g.id AND x.duplicate_of IS NOT NULL
    ) AS n (id)
)
SELECT grp.seed, ` + memberColumns + ` FROM grp JOIN intake_documents d ON d.id = grp.id
WHERE d.id = ANY (ARRAY(SELECT id FROM grp)) AND d.org_id = $2 ORDER BY grp.seed, d.id`

// GroupSummarySQL is a LEFT JOIN LATERAL g (members, accepted) that
// summarises the duplicate group of the outer row d, its members looked up
// by id (see groupMembersWhere): the desk's queue shows it on each row.
var GroupSummarySQL = `LEFT JOIN LATERAL (
    ` + groupCTE("d.id") + `    SELECT count(*) AS members,
           coalesce(bool_or(m.id <> d.id AND (m.status IN ('active', 'posted') OR m.result_entry_id IS NOT NULL)), false) AS accepted
    FROM intake_documents m WHERE m.id = ANY (ARRAY(SELECT id FROM grp))
) g ON true`

// lockGroupSQL is the first statement of every decision: it finds the
// whole duplicate group and locks it, every member, ordered by id, in one
// statement. The same order everywhere means no two decisions deadlock.
// The members are read by id (groupMembersWhere).
var lockGroupSQL = `SELECT ` + memberColumns + ` FROM intake_documents d
WHERE ` + groupMembersWhere + `
ORDER BY d.id
FOR UPDATE`

// recheckSQL lists the ids of the group of the row $1 again, once it is
// locked: a new statement sees what committed meanwhile (lockWholeGroup).
var recheckSQL = `SELECT coalesce(array_agg(id), '{}') FROM (` + groupIDsSQL + `) g`

// activateSQL makes an approved document active, recording who decided.
const activateSQL = `UPDATE intake_documents SET status = 'active', decided_by = $2, decided_at = now(), decision_reason = NULL, updated_at = now() WHERE id = $1`

// The other decisions' updates: a rejection (also a close, with its fixed
// reason), which forgets the document's approvals, and "not a duplicate", which turns the duplicate edge into a
// distinct one and a document flagged only as a duplicate pending.
const (
	rejectSQL = `WITH cleared AS (DELETE FROM intake_approvals WHERE intake_id = $1)
		UPDATE intake_documents SET status = 'rejected', decided_by = $2, decided_at = now(),
			decision_reason = $3, updated_at = now() WHERE id = $1`
	markDistinctSQL = `UPDATE intake_documents SET distinct_from = duplicate_of, duplicate_of = NULL,
			duplicate_reason = NULL,
			status = CASE WHEN flag_reason = 'duplicate' THEN 'pending' ELSE status END,
			flag_reason = CASE WHEN flag_reason = 'duplicate' THEN NULL ELSE flag_reason END,
			updated_at = now() WHERE id = $1`
)

// Statements are the SQL of approve before its job is written
// (jobs.Statements has the rest), in order, for the benchmark that runs the
// same statements through pgbench: the very constants Approve sends
// (TestStatementsAreWhatApproveSends compares them with what reaches the
// server).
var Statements = struct {
	LockGroup, Recheck, RecordApproval, Activate string
}{lockGroupSQL, recheckSQL, recordApprovalSQL, activateSQL}

// SubmittersSQL lists who submitted the document d: who uploaded it
// (received_by, also the submitter of a typewriter version), whoever typed
// its facts in, and the author of the typewriter version it was filed from
// and of that typewriter document's first version. Approve refuses them when
// the org's policy separates submitters; the desk leaves their documents out
// of the queue of what they may approve, with the same definition.
const SubmittersSQL = `ARRAY(SELECT d.received_by
	UNION SELECT e.actor FROM audit_events e
	      WHERE e.org_id = d.org_id AND e.subject_type = 'intake' AND e.subject_id = d.id AND e.action = 'typed_in'
	UNION SELECT v.created_by FROM typewriter_versions v WHERE v.id = d.typewriter_version_id
	UNION SELECT t.created_by FROM typewriter_documents t WHERE t.id = d.version_group)`

// approvalsOfSQL are the approvals of the document d as two arrays (by,
// at), oldest first.
const approvalsOfSQL = `coalesce(ARRAY(SELECT a.approver FROM intake_approvals a WHERE a.intake_id = d.id ORDER BY a.approved_at, a.approver), '{}'),
	coalesce(ARRAY(SELECT a.approved_at FROM intake_approvals a WHERE a.intake_id = d.id ORDER BY a.approved_at, a.approver), '{}')`

// recordApprovalSQL is approve's step, after the group lock: it records
// the approval of document $1 of org $2 by $3 (user $4, 0 for none) once
// per person (a second is nothing: the last column is NULL), and returns
// the org's policy (NULLs: the default), the amount payable in the base
// currency, the submitters (when the policy separates them), and the
// approvals given before this one: the statement's snapshot does not see
// its own insert.
const recordApprovalSQL = `WITH this AS (
	INSERT INTO intake_approvals (intake_id, org_id, approver, approver_id) VALUES ($1, $2, $3, nullif($4::bigint, 0))
	ON CONFLICT DO NOTHING
	RETURNING approved_at
)
SELECT p.separate_submitter, p.rules, d.payable_base::text,
	CASE WHEN p.separate_submitter THEN ` + SubmittersSQL + ` ELSE '{}' END,
	` + approvalsOfSQL + `,
	(SELECT approved_at FROM this)
FROM intake_documents d LEFT JOIN approval_policies p ON p.org_id = d.org_id
WHERE d.id = $1 AND d.org_id = $2`

// approvalStateSQL reads the policy, the amount and the approvals of
// the documents $1 (ids) of org $2 (ApprovalsOf).
const approvalStateSQL = `SELECT d.id, p.separate_submitter, p.rules, d.payable_base::text, ` + approvalsOfSQL + `
FROM intake_documents d LEFT JOIN approval_policies p ON p.org_id = d.org_id
WHERE d.id = ANY ($1::bigint[]) AND d.org_id = $2`

// standingSQL reads approvalStateSQL's columns of document $1 of org $2,
// with whether the policy separates submitters and, when it does, the
// document's submitters (StandingOf).
const standingSQL = `SELECT p.separate_submitter, p.rules, d.payable_base::text,
	CASE WHEN p.separate_submitter THEN ` + SubmittersSQL + ` ELSE '{}' END,
	` + approvalsOfSQL + `
FROM intake_documents d LEFT JOIN approval_policies p ON p.org_id = d.org_id
WHERE d.id = $1 AND d.org_id = $2`

// clearApprovalsSQL forgets the approvals of document $1.
const clearApprovalsSQL = `DELETE FROM intake_approvals WHERE intake_id = $1`
