package auth

// The SQL of users, sign-in, sessions and API tokens, one named statement
// for each thing the package does, sent through the Service's or the
// SessionStore's database.Executor (or the transaction of CreateUser).

// Users.
const (
	userColumns = `u.id, coalesce(u.org_id, 0), coalesce(o.slug, ''), coalesce(o.name, ''), u.email, u.role`

	// usersFrom joins a user to their org, if they have one (an operator has none).
	usersFrom = `users u LEFT JOIN orgs o ON o.id = u.org_id`

	// lockUserByEmailSQL reads the user of an address, locked for the
	// rest of CreateUser.
	lockUserByEmailSQL = `SELECT id, coalesce(org_id, 0), role FROM users WHERE lower(email) = lower($1) FOR UPDATE`

	insertUserSQL = `INSERT INTO users (org_id, email, role, password_hash) VALUES (NULLIF($1::bigint, 0), $2, $3, $4) RETURNING id`

	setPasswordSQL = `UPDATE users SET password_hash = $2 WHERE id = $1`

	userByIDSQL = `SELECT ` + userColumns + ` FROM ` + usersFrom + ` WHERE u.id = $1`

	userInOrgSQL = `SELECT ` + userColumns + ` FROM ` + usersFrom + ` WHERE u.id = $1 AND u.org_id = $2`

	userByEmailSQL = `SELECT ` + userColumns + ` FROM ` + usersFrom + ` WHERE lower(u.email) = lower($1)`

	// signinUserSQL is userByEmailSQL with the password hash.
	signinUserSQL = `SELECT ` + userColumns + `, u.password_hash
	FROM ` + usersFrom + ` WHERE lower(u.email) = lower($1)`
)

// The sign-in throttle.
const (
	// addressKey is the SQL for the throttle's key of the address $1: the
	// same normalisation (lower) as the unique index on users' addresses.
	addressKey = `sha256(convert_to(lower($1::text), 'UTF8'))`

	// claimSQL counts one attempt against an address and decides, in the
	// same statement, whether its password may be checked: not while the
	// address is blocked (the attempt is counted and refused); otherwise
	// the check is claimed, and the claim that reaches FreeFailures checks
	// blocks the address at once for a delay that doubles with each
	// further check, capped at MaxBlock. Parallel attempts queue on the
	// row, so each sees the others' claims: no more than FreeFailures
	// passwords are checked, however many arrive at once. ($2 now, $3
	// FreeFailures, $4 MaxBlock in seconds.)
	claimSQL = `
INSERT INTO signin_throttle AS t (address_key, failures, checks, blocked_until, last_refused, updated_at)
VALUES (` + addressKey + `, 1, 1,
        CASE WHEN 1 >= $3::int THEN $2::timestamptz + make_interval(secs => least(1, $4::float8)) END, false, $2)
ON CONFLICT (address_key) DO UPDATE SET
    failures      = t.failures + 1,
    checks        = CASE WHEN t.blocked_until > $2 THEN t.checks ELSE t.checks + 1 END,
    blocked_until = CASE WHEN t.blocked_until > $2 THEN t.blocked_until
                         WHEN t.checks + 1 >= $3::int
                         THEN $2::timestamptz + make_interval(secs => least(power(2, least(t.checks + 1 - $3::int, 20)), $4::float8))
                         END,
    last_refused  = coalesce(t.blocked_until > $2, false),
    updated_at    = $2
RETURNING failures, blocked_until, last_refused`

	// clearThrottleSQL forgets an address's attempts (a success, a new password).
	clearThrottleSQL = `DELETE FROM signin_throttle WHERE address_key = ` + addressKey

	// pruneThrottleSQL deletes the throttle rows that block nothing at $2
	// (now) and were last counted before $1. It reads them through
	// signin_throttle_updated_at_idx, not the whole table.
	pruneThrottleSQL = `DELETE FROM signin_throttle
WHERE updated_at < $1 AND (blocked_until IS NULL OR blocked_until <= $2)`
)

// Browser sessions, by the hash of their token.
const (
	loadSessionSQL = `SELECT data, last_seen_at, expires_at FROM web_sessions WHERE token_hash = $1`

	deleteSessionSQL = `DELETE FROM web_sessions WHERE token_hash = $1`

	touchSessionSQL = `UPDATE web_sessions SET last_seen_at = $2 WHERE token_hash = $1`

	// insertSessionSQL starts a session, last seen when created ($4).
	insertSessionSQL = `INSERT INTO web_sessions (token_hash, user_id, data, created_at, last_seen_at, expires_at)
	VALUES ($1, $2, $3, $4, $4, $5)`

	saveSessionSQL = `UPDATE web_sessions SET data = $2, user_id = $3, last_seen_at = $4 WHERE token_hash = $1`

	// deleteExpiredSessionsSQL deletes the sessions past their absolute
	// timeout ($1 now) or idle since $2.
	deleteExpiredSessionsSQL = `DELETE FROM web_sessions WHERE expires_at < $1 OR last_seen_at < $2`
)

// API tokens, by the hash of the token.
const (
	insertAPITokenSQL = `INSERT INTO api_tokens (user_id, token_hash) VALUES ($1, $2)`

	// userForAPITokenSQL is the token's id and its user.
	userForAPITokenSQL = `
	SELECT t.id, ` + userColumns + `
	FROM api_tokens t JOIN users u ON u.id = t.user_id
	-- An inner join: the API is an org's, and an operator (no org) has no token that works.
	JOIN orgs o ON o.id = u.org_id
	WHERE t.token_hash = $1 AND t.revoked_at IS NULL`

	// touchAPITokenSQL records a token's use, at most once a minute.
	touchAPITokenSQL = `UPDATE api_tokens SET last_used_at = now()
	WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`
)
