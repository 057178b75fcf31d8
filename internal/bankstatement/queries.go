package bankstatement

// The reconciliation's SQL, sent through the import's transactions.

// insertStatementSQL stores a statement, once per content in an org: for
// bytes stored before it returns no row.
const insertStatementSQL = `
	INSERT INTO bank_statements (org_id, content_hash, message_type, statement_id, entries, imported_by)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (org_id, content_hash) DO NOTHING
	RETURNING id`

const statementByHashSQL = `SELECT id FROM bank_statements WHERE org_id = $1 AND content_hash = $2`

// insertEntriesSQL stores a statement's lines, not yet reconciled.
const insertEntriesSQL = `
	INSERT INTO bank_statement_entries (statement_id, line, org_id, amount, currency, direction, status, booking_date, reference,
		end_to_end_id, return_reason, unsplit)
	SELECT $1, u.line, $2, u.amount::numeric, u.currency, u.direction, u.status, nullif(u.booking_date, '')::date, u.reference,
	       u.end_to_end_id, u.return_reason, u.unsplit
	FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bool[])
	     AS u (line, amount, currency, direction, status, booking_date, reference, end_to_end_id, return_reason, unsplit)`

// pendingSQL takes the next lines of a statement not yet reconciled, with
// their row locks: an import of the same statement running at once waits,
// and then skips what this one reconciled.
const pendingSQL = `
	SELECT line, amount::text, currency, direction, status, coalesce(booking_date::text, ''), end_to_end_id, return_reason, unsplit
	FROM bank_statement_entries
	WHERE statement_id = $1 AND outcome IS NULL
	ORDER BY line
	LIMIT $2
	FOR UPDATE`

const baseCurrencySQL = `SELECT base_currency FROM orgs WHERE id = $1`

// lockItemsSQL takes the row locks of the org's items named by
// EndToEndId, in id order: every import takes them in that one order.
const lockItemsSQL = `
	SELECT id, run_id, intake_id, status, amount::text, currency, end_to_end_id, creditor_name,
	       coalesce(entry_id, 0), coalesce(return_entry_id, 0)
	FROM payment_items
	WHERE org_id = $1 AND end_to_end_id = ANY($2::text[])
	ORDER BY id
	FOR UPDATE`

const markPaidSQL = `UPDATE payment_items SET status = 'paid', entry_id = $2, paid_at = now() WHERE id = $1 AND status = 'sent'`

const markReturnedSQL = `
	UPDATE payment_items SET status = 'returned', return_entry_id = $2, returned_at = now() WHERE id = $1 AND status = 'paid'`

// recordOutcomesSQL writes what reconciling a batch of lines found.
const recordOutcomesSQL = `
	UPDATE bank_statement_entries e
	SET outcome = u.outcome, reason = nullif(u.reason, ''), detail = nullif(u.detail, ''),
	    item_id = nullif(u.item_id, 0), entry_id = nullif(u.entry_id, 0), reconciled_at = now()
	FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
	     AS u (line, outcome, reason, detail, item_id, entry_id)
	WHERE e.statement_id = $1 AND e.line = u.line`

// completeSQL closes an import whose lines are all reconciled, with its
// counts; no row when some line is left or it was closed before.
const completeSQL = `
	UPDATE bank_statements s
	SET matched = c.matched, unmatched = c.unmatched, completed_at = now()
	FROM (SELECT count(*) FILTER (WHERE outcome <> 'unmatched') AS matched,
	             count(*) FILTER (WHERE outcome = 'unmatched') AS unmatched
	      FROM bank_statement_entries WHERE statement_id = $1) c
	WHERE s.id = $1 AND s.completed_at IS NULL
	  AND NOT EXISTS (SELECT 1 FROM bank_statement_entries WHERE statement_id = $1 AND outcome IS NULL)
	RETURNING s.org_id, s.entries, s.matched, s.unmatched`

const statementColumns = `id, message_type, statement_id, entries, matched, unmatched, imported_by, imported_at, completed_at`

const statementSQL = `SELECT ` + statementColumns + ` FROM bank_statements WHERE org_id = $1 AND id = $2`

const listStatementsSQL = `SELECT ` + statementColumns + ` FROM bank_statements WHERE org_id = $1 ORDER BY id DESC LIMIT $2`

// unmatchedSQL lists an import's lines left for a person.
const unmatchedSQL = `
	SELECT line, amount::text, currency, direction, status, coalesce(booking_date::text, ''), reference, end_to_end_id,
	       return_reason, reason, coalesce(detail, ''), item_id
	FROM bank_statement_entries
	WHERE statement_id = $1 AND outcome = 'unmatched'
	ORDER BY line`

// incompleteSQL lists the imports a crash left unfinished.
const incompleteSQL = `SELECT id, org_id FROM bank_statements WHERE completed_at IS NULL ORDER BY id`
