package intake

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
)

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

// Member is a document of a duplicate group, as the group's rule and its
// pages see it.
type Member struct {
	ID              int64      `json:"id"`
	Status          Status     `json:"status"`
	DuplicateOf     int64      `json:"-"`
	DuplicateReason string     `json:"-"`
	ResultEntryID   int64      `json:"-"`
	DecidedBy       string     `json:"-"`
	DecidedAt       *time.Time `json:"-"`
	SourceRef       string     `json:"-"`
	Filename        string     `json:"-"`
	DocType         string     `json:"-"`
	FlagReason      string     `json:"-"`
	HasFields       bool       `json:"-"`
	// NothingToPost: every amount the bookkeeper would post is zero.
	NothingToPost bool `json:"-"`
	// Findings are the pipeline's findings as filed (JSON), read where a
	// decision depends on them: approving an invalid e-invoice.
	Findings []byte `json:"-"`
}

// Accepted reports whether a member has entered, or is entering, the
// ledger: active, posted, or holding a journal entry.
func (m Member) Accepted() bool {
	return m.Status == Active || m.Status == Posted || m.ResultEntryID != 0
}

const memberColumns = `d.id, d.status, coalesce(d.duplicate_of, 0), coalesce(d.duplicate_reason, ''), coalesce(d.result_entry_id, 0),
	coalesce(d.decided_by, ''), d.decided_at, coalesce(d.source_ref, ''), d.filename, coalesce(d.doc_type, ''),
	coalesce(d.flag_reason, ''), d.fields IS NOT NULL, ` + nothingToPostSQL + `, d.findings`

// nothingToPostSQL is true for a document with fields every amount of which
// the bookkeeper would post (net, tax, each subtotal's tax, rounding,
// prepaid, payable) is zero.
const nothingToPostSQL = `(d.fields IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM jsonb_each(coalesce(d.fields -> 'totals', '{}')) t
	                WHERE t.key IN ('net', 'tax', 'rounding', 'prepaid', 'payable') AND t.value #>> '{}' !~ '^-?0*(\.0*)?$')
	AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(d.fields -> 'tax_subtotals') WHEN 'array' THEN d.fields -> 'tax_subtotals' ELSE '[]' END) s
	                WHERE s ->> 'tax' !~ '^-?0*(\.0*)?$'))`

func scanMember(r pgx.CollectableRow) (Member, error) {
	var m Member
	err := r.Scan(&m.ID, &m.Status, &m.DuplicateOf, &m.DuplicateReason, &m.ResultEntryID, &m.DecidedBy, &m.DecidedAt, &m.SourceRef,
		&m.Filename, &m.DocType, &m.FlagReason, &m.HasFields, &m.NothingToPost, &m.Findings)
	return m, err
}

// Group returns the duplicate group of a document (itself included), by id.
// A document that is not the org's has no group: not_found, so that no
// caller answers for another org's id as if it were an empty group.
func Group(ctx context.Context, q database.Executor, orgID, id int64) ([]Member, error) {
	rows, err := q.Query(ctx, `SELECT `+memberColumns+` FROM intake_documents d
		WHERE `+groupMembersWhere+` ORDER BY d.id`, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("intake: group of %d: %w", id, err)
	}
	members, err := pgx.CollectRows(rows, scanMember)
	if err != nil {
		return nil, fmt.Errorf("intake: group of %d: %w", id, err)
	}
	if len(members) == 0 {
		return nil, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return members, nil
}

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

// Groups are the duplicate groups of ids (each by id, itself included), as
// Group reads one.
func Groups(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64][]Member, error) {
	rows, err := q.Query(ctx, groupsSQL, ids, orgID)
	if err != nil {
		return nil, fmt.Errorf("intake: groups: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]Member, len(ids))
	for rows.Next() {
		var seed int64
		var m Member
		if err := rows.Scan(&seed, &m.ID, &m.Status, &m.DuplicateOf, &m.DuplicateReason, &m.ResultEntryID, &m.DecidedBy, &m.DecidedAt,
			&m.SourceRef, &m.Filename, &m.DocType, &m.FlagReason, &m.HasFields, &m.NothingToPost, &m.Findings); err != nil {
			return nil, fmt.Errorf("intake: groups: %w", err)
		}
		out[seed] = append(out[seed], m)
	}
	return out, rows.Err()
}

// GroupSummarySQL is a LEFT JOIN LATERAL g (members, accepted) that
// summarises the duplicate group of the outer row d, its members looked up
// by id (see groupMembersWhere): the desk's queue shows it on each row.
var GroupSummarySQL = `LEFT JOIN LATERAL (
    ` + groupCTE("d.id") + `    SELECT count(*) AS members,
           coalesce(bool_or(m.id <> d.id AND (m.status IN ('active', 'posted') OR m.result_entry_id IS NOT NULL)), false) AS accepted
    FROM intake_documents m WHERE m.id = ANY (ARRAY(SELECT id FROM grp))
) g ON true`
