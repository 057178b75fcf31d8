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

// The trial balance, of every date or up to one.
const (
	// trialBalanceSQL sums every line: without a date the lines alone say
	// it (an entry's date is only needed to leave later entries out).
	trialBalanceSQL = `SELECT a.id, a.code, a.name, a.type, a.active, coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	WHERE a.org_id = $1
	GROUP BY a.id ORDER BY a.code`

	trialBalanceAsOfSQL = `SELECT a.id, a.code, a.name, a.type, a.active, coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	JOIN journal_entries e ON e.id = l.entry_id
	WHERE a.org_id = $1 AND e.entry_date <= $2::date
	GROUP BY a.id ORDER BY a.code`

	// trialBalanceByDimensionSQL sums every account's lines per value of
	// dimension $2 ('' for lines without it), up to date $3 (every date
	// when NULL), of value $4 only unless it is ''. The lines of an org's
	// accounts are read through their account index either way: no index
	// on the dimensions would narrow them further.
	trialBalanceByDimensionSQL = `SELECT a.id, a.code, a.name, a.type, a.active, coalesce(l.dimensions ->> $2::text, ''),
		coalesce(sum(l.base_debit), 0)::text, coalesce(sum(l.base_credit), 0)::text
	FROM accounts a
	JOIN journal_lines l ON l.account_id = a.id
	JOIN journal_entries e ON e.id = l.entry_id
	WHERE a.org_id = $1 AND ($3::date IS NULL OR e.entry_date <= $3::date)
		AND ($4::text = '' OR l.dimensions @> jsonb_build_object($2::text, $4::text))
	GROUP BY a.id, 6 ORDER BY a.code, 6`
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
