package chart

// The SQL of the chart of accounts and the dimensions, one named statement
// for each thing the package does.

const (
	// insertAccountSQL creates account ($2, $3, $4) of org $1 unless its
	// code exists; no row when it does.
	insertAccountSQL = `INSERT INTO accounts (org_id, code, name, type) VALUES ($1, $2, $3, $4)
	ON CONFLICT (org_id, code) DO NOTHING RETURNING id, code, name, type, active`

	accountSQL = `SELECT id, code, name, type, active FROM accounts WHERE org_id = $1 AND code = $2`

	// setAccountActiveSQL sets the state of account $2 of org $1; the old
	// state comes back from the row locked before the update.
	setAccountActiveSQL = `WITH old AS (SELECT id, active FROM accounts WHERE org_id = $1 AND code = $2 FOR UPDATE)
	UPDATE accounts a SET active = $3 FROM old WHERE a.id = old.id
	RETURNING a.id, a.code, a.name, a.type, a.active, old.active`

	// accountsByCodeSQL reads the accounts of org $1 a file names, locked
	// so that an import decides on what it then writes.
	accountsByCodeSQL = `SELECT code, name, type, active FROM accounts WHERE org_id = $1 AND code = ANY($2) FOR UPDATE`

	// upsertAccountsSQL writes an import's changed accounts from arrays:
	// new ones created, existing ones renamed, activated or deactivated
	// (an account's type never changes).
	upsertAccountsSQL = `INSERT INTO accounts (org_id, code, name, type, active)
	SELECT $1, u.code, u.name, u.type, u.active
	FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[]) AS u (code, name, type, active)
	ON CONFLICT (org_id, code) DO UPDATE SET name = EXCLUDED.name, active = EXCLUDED.active`

	// insertDimensionSQL creates dimension $2 of org $1 unless it exists.
	insertDimensionSQL = `INSERT INTO dimensions (org_id, name) VALUES ($1, $2) ON CONFLICT (org_id, name) DO NOTHING RETURNING id`

	// lockDimensionSQL locks dimension $2 of org $1: the changes of one
	// dimension's values come one after the other.
	lockDimensionSQL = `SELECT id FROM dimensions WHERE org_id = $1 AND name = $2 FOR UPDATE`

	valuesSQL = `SELECT code, name, active FROM dimension_values WHERE dimension_id = $1 ORDER BY code`

	// upsertValuesSQL writes values of dimension $1 from arrays.
	upsertValuesSQL = `INSERT INTO dimension_values (dimension_id, code, name, active)
	SELECT $1, u.code, u.name, u.active FROM unnest($2::text[], $3::text[], $4::boolean[]) AS u (code, name, active)
	ON CONFLICT (dimension_id, code) DO UPDATE SET name = EXCLUDED.name, active = EXCLUDED.active`

	// dimensionsSQL reads the org's dimensions with their values, one row
	// for each value (or one with NULLs for a dimension without values).
	dimensionsSQL = `SELECT d.name, v.code, v.name, v.active
	FROM dimensions d LEFT JOIN dimension_values v ON v.dimension_id = d.id
	WHERE d.org_id = $1 ORDER BY d.name, v.code`
)
