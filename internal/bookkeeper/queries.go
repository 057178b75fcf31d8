package bookkeeper

// The bookkeeper's SQL, one named statement for each thing it does, sent
// through its pool, a caller's database.Executor, or the transaction of a
// run's step (in the batch a step commits with).

// A run's nodes.
const (
	// loadSQL reads in one statement what a run needs before it posts: the
	// document, the org's base currency, the accounts a supplier rule and
	// the org's default would give (when active), and the document's
	// coding rows in order (codingRowsSQL).
	loadSQL = `SELECT d.status, coalesce(d.result_entry_id, 0), coalesce(d.source_ref, ''), d.fields, o.base_currency,
	       r.code, r.created_by, r.created_at, dflt.code, ` + codingRowsSQL + `
	FROM intake_documents d
	JOIN orgs o ON o.id = d.org_id
	LEFT JOIN LATERAL (SELECT a.code, s.created_by, s.created_at FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
	                   WHERE s.org_id = d.org_id AND s.supplier_key = split_part(coalesce(d.source_ref, ''), '/', 1) AND a.active) r ON true
	LEFT JOIN accounts dflt ON dflt.id = o.default_expense_account_id AND dflt.active
	WHERE d.org_id = $1 AND d.id = $2`

	// lookupAccountsSQL is loadSQL's account lookups alone, for a run
	// resumed after load: a supplier's rule and the org's default (when
	// active).
	lookupAccountsSQL = `SELECT r.code, r.created_by, r.created_at, dflt.code
	FROM orgs o
	LEFT JOIN LATERAL (SELECT a.code, s.created_by, s.created_at FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
	                   WHERE s.org_id = o.id AND s.supplier_key = $2 AND a.active) r ON true
	LEFT JOIN accounts dflt ON dflt.id = o.default_expense_account_id AND dflt.active
	WHERE o.id = $1`

	// codingRowsSQL is the coding of document d as one JSON array of
	// coding.Row, in order ([] when it has none).
	codingRowsSQL = `(SELECT coalesce(jsonb_agg(jsonb_build_object('line', c.line, 'account', a.code, 'dimensions', c.dimensions,
	                         'amount', c.amount::text, 'source', c.source) ORDER BY c.row_no), '[]')
	        FROM intake_coding c JOIN accounts a ON a.id = c.account_id WHERE c.intake_id = d.id AND c.org_id = d.org_id)`

	accountActiveSQL = `SELECT active FROM accounts WHERE org_id = $1 AND code = $2`

	// rememberAccountSQL sets a supplier's rule to an account of the org, by code.
	rememberAccountSQL = `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
	SELECT $1, $2, id, $4 FROM accounts WHERE org_id = $1 AND code = $3
	ON CONFLICT (org_id, supplier_key) DO UPDATE SET account_id = EXCLUDED.account_id, created_by = EXCLUDED.created_by, created_at = now()`

	// rememberRateSQL remembers (or replaces) an org's rate of a currency on a day.
	rememberRateSQL = `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by) VALUES ($1, $2, $3::date, $4::numeric, $5)
	ON CONFLICT (org_id, currency, rate_date) DO UPDATE SET rate = EXCLUDED.rate, created_by = EXCLUDED.created_by, created_at = now()`

	// storedRateSQL is the org's latest remembered rate of a currency in
	// the week up to a day.
	storedRateSQL = `SELECT rate::text, rate_date::text FROM exchange_rates
	WHERE org_id = $1 AND currency = $2 AND rate_date <= $3::date AND rate_date > $3::date - 7
	ORDER BY rate_date DESC LIMIT 1`

	// markPostedSQL marks an active document posted and, when it did,
	// records so in the audit trail (as audit.Record would, in the same
	// statement).
	markPostedSQL = `WITH doc AS (UPDATE intake_documents SET status = 'posted', result_entry_id = $2, updated_at = now()
		WHERE id = $1 AND status = 'active' RETURNING id)
	INSERT INTO audit_events (org_id, actor_user_id, actor, action, subject_type, subject_id, from_status, to_status, detail)
	SELECT $3, NULL, $4, 'posted', 'intake', doc.id, 'active', 'posted', $5 FROM doc`

	// finishJobSQL marks a job done.
	finishJobSQL = `UPDATE jobs SET status = 'done', last_error = NULL, error_class = NULL, updated_at = now() WHERE id = $1`
)

// Open questions: an org's paused bookkeeper runs, oldest first.
const (
	questionsSQL = `SELECT id::text AS run_id, subject_id, question, updated_at FROM runs
	WHERE org_id = $1 AND kind = $2 AND state = 'paused' ORDER BY updated_at, id`

	// A page of them (QuestionPage): questionsPageSQL, then
	// questionsPageAfter for a page after a position ($4, $5), then
	// questionsPageOrder ($3 the limit).
	questionsPageSQL = `SELECT id::text AS run_id, subject_id, question, updated_at FROM runs
	WHERE org_id = $1 AND kind = $2 AND state = 'paused'`
	questionsPageAfter = ` AND (updated_at, id) > ($4, $5::uuid)`
	questionsPageOrder = ` ORDER BY updated_at, id LIMIT $3`
)

// How an account was chosen, and supplier rules.
const (
	choiceColumns = `intake_id, entry_id, supplier_key, account_code, chosen_by, set_by, set_at, remembered`

	choiceForDocumentSQL = `SELECT ` + choiceColumns + ` FROM account_choices WHERE org_id = $1 AND intake_id = $2`

	choiceForEntrySQL = `SELECT ` + choiceColumns + ` FROM account_choices WHERE org_id = $1 AND entry_id = $2`

	// recordChoiceSQL records how a bill's account was chosen; a replayed
	// post finds the row there and keeps it.
	recordChoiceSQL = `INSERT INTO account_choices (org_id, intake_id, entry_id, supplier_key, account_code, chosen_by, set_by, set_at, remembered)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (org_id, intake_id) DO NOTHING`

	// suggestAccountSQL is the active expense account of a supplier's
	// latest recorded choice.
	suggestAccountSQL = `SELECT a.id, a.code, a.name, a.type, a.active FROM account_choices c
	JOIN accounts a ON a.org_id = c.org_id AND a.code = c.account_code
	WHERE c.org_id = $1 AND c.supplier_key = $2 AND a.active AND a.type = 'expense'
	ORDER BY c.created_at DESC LIMIT 1`

	// supplierRulesSQL lists an org's supplier rules by supplier name. The
	// name is the latest document's of the supplier, as the bookkeeper
	// keys suppliers (the seller part of source_ref): one step of the
	// index intake_supplier_listing_idx per rule.
	supplierRulesSQL = `SELECT s.supplier_key, coalesce(n.supplier_name, ''), a.id, a.code, a.name, a.type, a.active, s.created_by, s.created_at
	FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
	LEFT JOIN LATERAL (SELECT d.supplier_name FROM intake_documents d
	                   WHERE d.org_id = s.org_id AND d.source_ref IS NOT NULL AND split_part(d.source_ref, '/', 1) = s.supplier_key
	                     AND d.supplier_name <> ''
	                   ORDER BY d.id DESC LIMIT 1) n ON true
	WHERE s.org_id = $1 ORDER BY lower(coalesce(n.supplier_name, s.supplier_key)), s.supplier_key LIMIT $2`

	// lockSupplierRuleSQL reads a supplier rule's account, its row locked.
	lockSupplierRuleSQL = `SELECT a.code FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
	WHERE s.org_id = $1 AND s.supplier_key = $2 FOR UPDATE OF s`

	changeSupplierRuleSQL = `UPDATE supplier_accounts s SET account_id = a.id, created_by = $4, created_at = now()
	FROM accounts a WHERE s.org_id = $1 AND s.supplier_key = $2 AND a.org_id = $1 AND a.code = $3`

	// forgetSupplierRuleSQL deletes a supplier's rule and returns its account.
	forgetSupplierRuleSQL = `DELETE FROM supplier_accounts s USING accounts a
	WHERE s.org_id = $1 AND s.supplier_key = $2 AND a.id = s.account_id RETURNING a.code`
)

// Statements are the SQL a bookkeeper run sends for a document posted on
// a supplier's rule, in order, for the benchmark that runs a document's
// whole sequence through pgbench: load's read, then, in the posting's
// transaction after the ledger's statements, the record of the account's
// choice, the document marked posted and the job's end.
var Statements = struct {
	Load, RecordChoice, MarkPosted, FinishJob string
}{loadSQL, recordChoiceSQL, markPostedSQL, finishJobSQL}
