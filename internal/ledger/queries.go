package ledger

import "greatbook/internal/database"

// The ledger's SQL, one named statement for each thing it does. Functions
// send them through a database.Executor, a caller's pgx.Tx or
// database.WithPipelinedTx; nothing else in the package writes SQL.

// The chart of accounts.
const (
	// seedChartSQL inserts the default chart's accounts an org lacks.
	seedChartSQL = `
INSERT INTO accounts (org_id, code, name, type)
SELECT $1, c, n, t FROM unnest($2::text[], $3::text[], $4::text[]) AS u (c, n, t)
ON CONFLICT (org_id, code) DO NOTHING`

	listAccountsSQL = `SELECT id, code, name, type, active FROM accounts WHERE org_id = $1 ORDER BY code`

	setAccountActiveSQL = `UPDATE accounts SET active = $3 WHERE org_id = $1 AND code = $2`
)

// A post, in the order it sends them (Statements).
const (
	// lockSQL takes the source key's advisory lock, namespaced, on the hash
	// of "org/source_type/source_id/entry_set" (SourceKey.String), and reads
	// the org's base currency. It builds the key in SQL so that pgbench can
	// send the very same statement (make bench).
	lockSQL = `SELECT (SELECT base_currency FROM orgs WHERE id = $1::bigint), ` + database.KeyLookupSettings + `
FROM pg_advisory_xact_lock($2, hashtext($1::bigint::text || '/' || $3::text || '/' || $4::text || '/' || $5::text))`

	// lookupSQL reads the entry stored under a source key.
	lookupSQL = entrySelect + `
WHERE e.org_id = $1 AND e.source_type = $2 AND e.source_id = $3 AND e.entry_set = $4`

	// accountsSQL reads the accounts a post's lines name.
	accountsSQL = `SELECT code, id, name, active FROM accounts WHERE org_id = $1 AND code = ANY($2)`

	// insertSQL writes an entry and its lines in one statement, and returns
	// the entry; nothing when the source key exists already.
	insertSQL = `
WITH e AS (
    INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency,
                                 description, fingerprint, reverses_id, created_by)
    VALUES ($1, $2, $3, $4, $5::date, $6, $7, $8, $9, NULLIF($10::bigint, 0), $11)
    ON CONFLICT ON CONSTRAINT journal_entries_source_key DO NOTHING
    RETURNING id, created_at
), l AS (
    INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit, dimensions)
    SELECT e.id, $1, u.line_no, u.account_id, u.debit::numeric, u.credit::numeric, u.base_debit::numeric,
           u.base_credit::numeric, u.dimensions::jsonb
    FROM e, unnest($12::int[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[])
         AS u (line_no, account_id, debit, credit, base_debit, base_credit, dimensions)
)
SELECT id, created_at FROM e`
)

// Reading entries.
const (
	// entrySelect reads entries with their lines (scanEntry); the statements
	// below add which.
	entrySelect = `
SELECT e.id, e.org_id, e.source_type, e.source_id, e.entry_set, e.entry_date::text, e.currency, e.base_currency,
       e.description, e.fingerprint, coalesce(e.reverses_id, 0), e.created_by, e.created_at,
       (SELECT json_agg(json_build_object('account', a.code, 'name', a.name, 'debit', l.debit::text,
               'credit', l.credit::text, 'base_debit', l.base_debit::text, 'base_credit', l.base_credit::text,
               'dimensions', l.dimensions) ORDER BY l.line_no)
        FROM journal_lines l JOIN accounts a ON a.id = l.account_id
        WHERE l.entry_id = e.id)
FROM journal_entries e`

	getEntrySQL = entrySelect + ` WHERE e.org_id = $1 AND e.id = $2`

	// reversedBySQL is the id of the entry that reversed one; 0 while it stands.
	reversedBySQL = `SELECT coalesce(min(id), 0) FROM journal_entries WHERE org_id = $1 AND reverses_id = $2`

	// reversedByManySQL is reversedBySQL for a list of entries: each
	// reversed entry's id with its reversal's.
	reversedByManySQL = `SELECT reverses_id, min(id) FROM journal_entries WHERE org_id = $1 AND reverses_id = ANY($2::bigint[])
	GROUP BY reverses_id`

	// reversalReasonSQL is the reason the audit trail recorded for a reversal.
	reversalReasonSQL = `SELECT coalesce(detail->>'reason', '') FROM audit_events
	WHERE org_id = $1 AND action = $2 AND subject_type = 'journal_entry' AND subject_id = $3 ORDER BY id LIMIT 1`

	// rateOfSQL is the rate the bookkeeper's finished run recorded for the
	// entry of an intake document.
	rateOfSQL = `SELECT data->>'rate', coalesce(data->>'issue_date', ''), coalesce(data->>'rate_from', '')
	FROM runs WHERE org_id = $1 AND kind = 'bookkeeper' AND subject_id = $2::bigint AND state = 'done'
	  AND data->>'currency' = $3 AND data->>'rate' IS NOT NULL
	ORDER BY finished_at DESC NULLS LAST LIMIT 1`
)

// The list of entries (List): entrySelect, then " WHERE " and the
// conditions a filter asks for joined by " AND ", then the order. Each %s
// is the placeholder of a bound value.
const (
	listEntriesWhere      = entrySelect + " WHERE "
	listEntriesOfOrg      = "e.org_id = $1"
	listEntriesSourceType = "e.source_type = %s"
	listEntriesSourceID   = "e.source_id = %s"
	listEntriesAccount    = "EXISTS (SELECT 1 FROM journal_lines l JOIN accounts a ON a.id = l.account_id WHERE l.entry_id = e.id AND a.code = %s)"
	listEntriesFrom       = "e.entry_date >= %s::date"
	// An entry with a line that carries the dimension (any value), or the
	// dimension's value.
	listEntriesDimension      = "EXISTS (SELECT 1 FROM journal_lines l WHERE l.entry_id = e.id AND l.dimensions ? %s)"
	listEntriesDimensionValue = "EXISTS (SELECT 1 FROM journal_lines l WHERE l.entry_id = e.id AND l.dimensions @> jsonb_build_object(%s::text, %s::text))"
	listEntriesTo             = "e.entry_date <= %s::date"
	listEntriesBefore         = "(e.entry_date, e.id) < (%s::date, %s)"
	listEntriesOrderLimits    = " ORDER BY e.entry_date DESC, e.id DESC LIMIT %s OFFSET %s"
)

// The trial balance, of every date or up to one, read from ledger_balances
// (kept by the journal_lines_update_balances trigger of migration 00034):
// a row per account, month and slot, and, up to a date, the lines of that
// date's month until it.
const (
	// trialBalanceSQL sums every account's balances.
	trialBalanceSQL = `SELECT a.id, a.code, a.name, a.type, a.active, sum(b.debit)::text, sum(b.credit)::text
	FROM ledger_balances b
	JOIN accounts a ON a.id = b.account_id
	WHERE b.org_id = $1 AND b.dimension = ''
	GROUP BY a.id ORDER BY a.code`

	// trialBalanceAsOfSQL sums every account's balances of the months
	// before $2's and the lines of $2's month up to $2. Those lines are
	// found through journal_entries_date_idx, a month of entries.
	trialBalanceAsOfSQL = `SELECT a.id, a.code, a.name, a.type, a.active, sum(s.debit)::text, sum(s.credit)::text
	FROM (
		SELECT b.account_id, b.debit, b.credit FROM ledger_balances b
		WHERE b.org_id = $1 AND b.dimension = '' AND b.period < date_trunc('month', $2::date::timestamp)::date
		UNION ALL
		SELECT l.account_id, l.base_debit, l.base_credit FROM journal_entries e
		JOIN journal_lines l ON l.entry_id = e.id
		WHERE e.org_id = $1 AND e.entry_date >= date_trunc('month', $2::date::timestamp)::date AND e.entry_date <= $2::date
	) s
	JOIN accounts a ON a.id = s.account_id
	GROUP BY a.id ORDER BY a.code`

	// trialBalanceByDimensionSQL is every account's balance per value of
	// dimension $2, up to date $3 (every date when NULL), of value $4 only
	// unless it is ''. The sums of the account's lines (dimension '') and
	// of its values come from the balances (and the lines of $3's month up
	// to $3); the lines without the dimension (value '') are the account's
	// total less its values, a row when any such line exists.
	trialBalanceByDimensionSQL = `WITH s AS (
		SELECT b.account_id, b.dimension, b.value, b.debit, b.credit, b.lines FROM ledger_balances b
		WHERE b.org_id = $1 AND b.dimension IN ('', $2::text)
			AND ($3::date IS NULL OR b.period < date_trunc('month', $3::date::timestamp)::date)
		UNION ALL
		SELECT l.account_id, d.dimension, d.value, l.base_debit, l.base_credit, 1 FROM journal_entries e
		JOIN journal_lines l ON l.entry_id = e.id
		CROSS JOIN LATERAL (SELECT '', '' UNION ALL
			SELECT $2::text, l.dimensions ->> $2::text WHERE l.dimensions ->> $2::text <> '') AS d (dimension, value)
		WHERE $3::date IS NOT NULL AND e.org_id = $1
			AND e.entry_date >= date_trunc('month', $3::date::timestamp)::date AND e.entry_date <= $3::date
	), sums AS (
		SELECT account_id, dimension, value, sum(debit) AS debit, sum(credit) AS credit, sum(lines) AS lines
		FROM s GROUP BY account_id, dimension, value
	), valued AS (
		SELECT account_id, sum(debit) AS debit, sum(credit) AS credit, sum(lines) AS lines
		FROM sums WHERE dimension <> '' GROUP BY account_id
	), r AS (
		SELECT account_id, value, debit, credit FROM sums WHERE dimension <> '' AND ($4::text = '' OR value = $4::text)
		UNION ALL
		SELECT t.account_id, '', t.debit - coalesce(v.debit, 0), t.credit - coalesce(v.credit, 0)
		FROM sums t LEFT JOIN valued v ON v.account_id = t.account_id
		WHERE t.dimension = '' AND $4::text = '' AND t.lines > coalesce(v.lines, 0)
	)
	SELECT a.id, a.code, a.name, a.type, a.active, r.value, r.debit::text, r.credit::text
	FROM r JOIN accounts a ON a.id = r.account_id
	ORDER BY a.code, r.value`
)

// The balances' invariant: they are the sums of the lines.
const (
	// lineSumsSQL groups the lines as journal_lines_update_balances does,
	// without the slots, for the orgs $1 names (every org when 0).
	lineSumsSQL = `SELECT l.org_id, d.dimension, d.value, l.account_id, date_trunc('month', e.entry_date::timestamp)::date AS period,
		sum(l.base_debit) AS debit, sum(l.base_credit) AS credit, count(*) AS lines
	FROM journal_lines l
	JOIN journal_entries e ON e.id = l.entry_id
	CROSS JOIN LATERAL (SELECT '', '' UNION ALL
		SELECT key, value FROM jsonb_each_text(l.dimensions) WHERE value <> '') AS d (dimension, value)
	WHERE $1::bigint = 0 OR l.org_id = $1::bigint
	GROUP BY 1, 2, 3, 4, 5`

	// checkBalancesSQL lists every org, account, month, dimension and
	// value whose balances differ from the sum of the lines.
	checkBalancesSQL = `WITH kept AS (
		SELECT org_id, dimension, value, account_id, period, sum(debit) AS debit, sum(credit) AS credit, sum(lines) AS lines
		FROM ledger_balances WHERE $1::bigint = 0 OR org_id = $1::bigint
		GROUP BY 1, 2, 3, 4, 5
	), summed AS (` + lineSumsSQL + `)
	SELECT coalesce(k.org_id, s.org_id), coalesce(k.account_id, s.account_id), coalesce(k.period, s.period)::text,
		coalesce(k.dimension, s.dimension), coalesce(k.value, s.value),
		coalesce(k.debit, 0)::text, coalesce(k.credit, 0)::text, coalesce(k.lines, 0),
		coalesce(s.debit, 0)::text, coalesce(s.credit, 0)::text, coalesce(s.lines, 0)
	FROM kept k FULL JOIN summed s USING (org_id, dimension, value, account_id, period)
	WHERE k.debit IS DISTINCT FROM s.debit OR k.credit IS DISTINCT FROM s.credit OR k.lines IS DISTINCT FROM s.lines
	ORDER BY 1, 2, 3, 4, 5
	LIMIT 1000`

	// lockLinesSQL keeps postings out while the balances are rebuilt: new
	// lines wait for the rebuild's commit, reads go on.
	lockLinesSQL = `LOCK TABLE journal_lines IN SHARE MODE`

	// deleteBalancesSQL and rebuildBalancesSQL recompute the balances of
	// the orgs $1 names (every org when 0) from their lines.
	deleteBalancesSQL = `DELETE FROM ledger_balances WHERE $1::bigint = 0 OR org_id = $1::bigint`

	rebuildBalancesSQL = `INSERT INTO ledger_balances (org_id, dimension, value, account_id, period, slot, debit, credit, lines)
	SELECT org_id, dimension, value, account_id, period, 0, debit, credit, lines FROM (` + lineSumsSQL + `) s`
)

// What writers saw under a source key (the source-key explorer).
const (
	// asyncCommitSQL lets an observation's transaction commit without
	// waiting for the WAL flush.
	asyncCommitSQL = `SET LOCAL synchronous_commit = off`

	insertObservationSQL = `INSERT INTO ledger_observations (org_id, source_type, source_id, entry_set, outcome, entry_id, fingerprint, detail, actor)
	VALUES ($1, $2, $3, $4, $5, NULLIF($6, 0), $7, $8, $9)`

	listObservationsSQL = `SELECT id, outcome, coalesce(entry_id, 0), fingerprint, detail, actor, created_at FROM ledger_observations
	WHERE org_id = $1 AND source_type = $2 AND source_id = $3 AND entry_set = $4 ORDER BY id LIMIT 1000`
)
