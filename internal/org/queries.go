package org

// The SQL of orgs, their settings and their remembered exchange rates, one
// named statement for each thing the package does, sent through a
// database.Executor or the transaction of database.WithTx.

// Orgs.
const (
	// orgColumns are an org's columns with its identity and default
	// account, as scanOrg reads them (also after RETURNING).
	orgColumns = `id, slug, name, base_currency, legal_name, vat_id, max_issue_age_months,
	address_lines, city, postcode, country,
	COALESCE((SELECT a.code FROM accounts a WHERE a.id = orgs.default_expense_account_id), ''),
	bank_iban, bank_bic`

	// selectOrg reads an org with its identity; the statements below add which.
	selectOrg = `SELECT ` + orgColumns + ` FROM orgs`

	orgBySlugSQL = selectOrg + ` WHERE slug = $1`

	orgByIDSQL = selectOrg + ` WHERE id = $1`

	// lockOrgSQL reads an org and locks its row for the rest of the transaction.
	lockOrgSQL = selectOrg + ` WHERE id = $1 FOR UPDATE`

	// createOrgSQL inserts an org and returns it; nothing when the slug is taken.
	createOrgSQL = `
	INSERT INTO orgs (slug, name, base_currency) VALUES ($1, $2, $3)
	ON CONFLICT (slug) DO NOTHING
	RETURNING ` + orgColumns

	setIdentitySQL = `UPDATE orgs SET legal_name = $2, vat_id = $3, max_issue_age_months = $4,
	address_lines = $5, city = $6, postcode = $7, country = $8 WHERE id = $1
	RETURNING ` + orgColumns

	setBaseCurrencySQL = `UPDATE orgs SET base_currency = $2 WHERE id = $1 RETURNING ` + orgColumns

	setDefaultExpenseAccountSQL = `UPDATE orgs SET default_expense_account_id = $2 WHERE id = $1 RETURNING ` + orgColumns

	setBankAccountSQL = `UPDATE orgs SET bank_iban = $2, bank_bic = $3 WHERE id = $1 RETURNING ` + orgColumns

	orgSlugsSQL = `SELECT id, slug FROM orgs`
)

// Scope.Where's conditions: every org, or the org bound as the next
// argument (the column's name, then the placeholder's number).
const (
	scopeEveryOrg = "true"
	scopeOneOrg   = "%s = $%d"
)

// Settings.
const (
	// baseCurrencyUsesSQL counts what ties an org to its base currency:
	// entries, remembered rates, and jobs not done.
	baseCurrencyUsesSQL = `SELECT (SELECT count(*) FROM journal_entries WHERE org_id = $1),
	(SELECT count(*) FROM exchange_rates WHERE org_id = $1),
	(SELECT count(*) FROM jobs WHERE org_id = $1 AND status <> 'done')`

	// shareAccountSQL reads an account FOR SHARE: it cannot be deactivated
	// until the transaction commits.
	shareAccountSQL = `SELECT id, type, active FROM accounts WHERE org_id = $1 AND code = $2 FOR SHARE`

	expenseAccountsSQL = `SELECT code, name FROM accounts WHERE org_id = $1 AND type = 'expense' AND active ORDER BY code`
)

// Remembered exchange rates, by org, currency and date.
const (
	listExchangeRatesSQL = `SELECT currency, rate_date::text, rate::text, created_by, created_at FROM exchange_rates
	WHERE org_id = $1 ORDER BY rate_date DESC, currency LIMIT $2`

	lockExchangeRateSQL = `SELECT rate::text FROM exchange_rates WHERE org_id = $1 AND currency = $2 AND rate_date = $3::date FOR UPDATE`

	changeExchangeRateSQL = `UPDATE exchange_rates SET rate = $4::numeric, created_by = $5, created_at = now()
	WHERE org_id = $1 AND currency = $2 AND rate_date = $3::date`

	// forgetExchangeRateSQL deletes a rate and returns what it was.
	forgetExchangeRateSQL = `DELETE FROM exchange_rates WHERE org_id = $1 AND currency = $2 AND rate_date = $3::date RETURNING rate::text`
)

// The approval policy: one row per org that set one (none: the default).
const (
	approvalPolicySQL = `SELECT separate_submitter, rules FROM approval_policies WHERE org_id = $1`

	setApprovalPolicySQL = `INSERT INTO approval_policies (org_id, separate_submitter, rules, updated_by) VALUES ($1, $2, $3, $4)
	ON CONFLICT (org_id) DO UPDATE SET separate_submitter = EXCLUDED.separate_submitter, rules = EXCLUDED.rules,
		updated_by = EXCLUDED.updated_by, updated_at = now()`
)
