package payments

// The pay runs' SQL, sent through a database.Executor (normally the
// caller's transaction).

// debtorSQL reads the org's own account, the debtor of its runs.
const debtorSQL = `SELECT coalesce(nullif(legal_name, ''), name), bank_iban, bank_bic FROM orgs WHERE id = $1`

// payablesSQL reads the org's posted documents not in a live item: the
// candidates of a proposal. The creditor's account is the document's
// payment.iban when it has one, else its payee_iban (BT-84).
const payablesSQL = `
	SELECT d.id, d.doc_type, coalesce(d.source_ref, ''), coalesce(d.fields ->> 'number', ''),
	       coalesce(d.fields #>> '{seller,name}', ''), coalesce(d.fields ->> 'currency', ''),
	       coalesce(d.fields #>> '{totals,payable}', '0'), coalesce(d.fields ->> 'due_date', ''),
	       coalesce(nullif(d.fields #>> '{payment,iban}', ''), d.fields ->> 'payee_iban', ''),
	       coalesce(d.fields #>> '{payment,bic}', ''), coalesce(d.fields ->> 'billing_reference', '')
	FROM intake_documents d
	WHERE d.org_id = $1 AND d.status = 'posted' AND d.result_entry_id IS NOT NULL
	  AND d.doc_type IN ('invoice', 'credit_note')
	  AND NOT EXISTS (SELECT 1 FROM payment_items i WHERE i.intake_id = d.id AND i.status IN ('in_run', 'sent', 'paid'))
	  AND NOT EXISTS (SELECT 1 FROM payment_items i WHERE i.credit_note_id = d.id AND i.status IN ('in_run', 'sent', 'paid'))
	ORDER BY d.id`

// lastPaidSQL reads the account each supplier of the org was last paid to.
const lastPaidSQL = `
	SELECT DISTINCT ON (split_part(d.source_ref, '/', 1)) split_part(d.source_ref, '/', 1), i.creditor_iban
	FROM payment_items i JOIN intake_documents d ON d.id = i.intake_id
	WHERE i.org_id = $1 AND i.status = 'paid'
	ORDER BY split_part(d.source_ref, '/', 1), i.paid_at DESC NULLS LAST, i.id DESC`

// confirmedSQL reads the accounts admins confirmed for the org's suppliers,
// and the IBAN each stands for (” for itself).
const confirmedSQL = `SELECT supplier_key, iban, replaces FROM supplier_bank_accounts WHERE org_id = $1`

const insertRunSQL = `
	INSERT INTO payment_runs (org_id, status, execution_date, due_until, currency, debtor_name, debtor_iban, debtor_bic, proposed_by)
	VALUES ($1, 'proposed', $2, $3, 'EUR', $4, $5, $6, $7)
	RETURNING id`

// insertItemsSQL puts the invoices in the run. Each item's id is drawn
// first so that its EndToEndId can name it. ON CONFLICT DO NOTHING names no
// target so that it skips any unique violation: an invoice (or a credit
// note netted against it) a concurrent proposal put in a live item first
// (payment_items_live_invoice, payment_items_live_credit_note) is left out
// of this run, after waiting for that proposal to commit or roll back.
const insertItemsSQL = `
	INSERT INTO payment_items (id, run_id, org_id, intake_id, status, amount, currency, creditor_name, creditor_iban, creditor_bic,
		end_to_end_id, credit_note_id, credited)
	OVERRIDING SYSTEM VALUE
	SELECT n.id, $1, $2::bigint, n.intake_id, 'in_run', n.amount, 'EUR', n.name, n.iban, n.bic, 'GB-' || $2::bigint || '-' || n.id,
	       nullif(n.note, 0), nullif(n.credited, 0)
	FROM (SELECT nextval(pg_get_serial_sequence('payment_items', 'id')) AS id, u.*
	      FROM unnest($3::bigint[], $4::numeric[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::numeric[])
	           AS u (intake_id, amount, name, iban, bic, note, credited)) n
	ON CONFLICT DO NOTHING`

const runColumns = `r.id, r.org_id, r.status, r.execution_date::text, r.due_until::text, r.currency, r.debtor_name, r.debtor_iban,
	r.debtor_bic, r.proposed_by, r.proposed_at, r.approved_by, r.approved_at, r.exported_at, r.cancelled_by, r.cancelled_at`

const runSQL = `SELECT ` + runColumns + ` FROM payment_runs r WHERE r.org_id = $1 AND r.id = $2`

// lockRunSQL is runSQL taking the run's row lock: every change of a run
// (approve, cancel, remove an item, export) takes it first, so that a
// download and a cancellation never both succeed.
const lockRunSQL = runSQL + ` FOR UPDATE`

// runTotalsSQL counts and sums the items of runs (but the removed ones).
const runTotalsSQL = `
	SELECT run_id, count(*), sum(amount) FROM payment_items
	WHERE run_id = ANY($1) AND status <> 'removed' GROUP BY run_id`

const listRunsSQL = `SELECT ` + runColumns + ` FROM payment_runs r WHERE r.org_id = $1 ORDER BY r.id DESC LIMIT $2`

// itemsSQL reads a run's items but the removed ones, with the invoice
// number the remittance information names.
const itemsSQL = `
	SELECT i.id, i.intake_id, i.status, i.amount::text, i.currency, i.creditor_name, i.creditor_iban, i.creditor_bic,
	       i.end_to_end_id, coalesce(d.fields ->> 'number', ''), i.credit_note_id, coalesce(i.credited::text, ''),
	       coalesce(n.fields ->> 'number', '')
	FROM payment_items i JOIN intake_documents d ON d.id = i.intake_id
	LEFT JOIN intake_documents n ON n.id = i.credit_note_id
	WHERE i.run_id = $1 AND i.status <> 'removed'
	ORDER BY i.id`

const approveRunSQL = `UPDATE payment_runs SET status = 'approved', approved_by = $2, approved_at = date_trunc('second', now()) WHERE id = $1`

const cancelRunSQL = `UPDATE payment_runs SET status = 'cancelled', cancelled_by = $2, cancelled_at = now() WHERE id = $1`

const cancelItemsSQL = `UPDATE payment_items SET status = 'cancelled' WHERE run_id = $1 AND status = 'in_run'`

const removeItemSQL = `UPDATE payment_items SET status = 'removed' WHERE run_id = $1 AND id = $2 AND status = 'in_run' RETURNING intake_id`

const markSentSQL = `UPDATE payment_runs SET status = 'sent', exported_at = now() WHERE id = $1`

const markItemsSentSQL = `UPDATE payment_items SET status = 'sent' WHERE run_id = $1 AND status = 'in_run'`

// documentAccountSQL reads what confirming a document's IBAN needs: the
// document, its account, and who approved it.
const documentAccountSQL = `
	SELECT d.status, coalesce(d.doc_type, ''), coalesce(d.source_ref, ''),
	       coalesce(nullif(d.fields #>> '{payment,iban}', ''), d.fields ->> 'payee_iban', ''),
	       coalesce(d.decided_by, ''),
	       coalesce(ARRAY(SELECT a.approver FROM intake_approvals a WHERE a.intake_id = d.id), '{}'),
	       coalesce(ARRAY(SELECT a.approver_id FROM intake_approvals a WHERE a.intake_id = d.id AND a.approver_id IS NOT NULL), '{}')
	FROM intake_documents d WHERE d.org_id = $1 AND d.id = $2`

// confirmAccountSQL confirms an account; a confirmation that exists, or
// another correction of the same stated IBAN, leaves the table as it is.
const confirmAccountSQL = `
	INSERT INTO supplier_bank_accounts (org_id, supplier_key, iban, replaces, confirmed_by) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT DO NOTHING`

// accountSQL reads the confirmation that stands for replaces.
const accountSQL = `
	SELECT iban, confirmed_by, confirmed_at FROM supplier_bank_accounts
	WHERE org_id = $1 AND supplier_key = $2 AND replaces = $3 AND (replaces <> '' OR iban = $4)`
