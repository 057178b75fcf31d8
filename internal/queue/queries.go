package queue

// The queue's SQL, written once for every table: New renders each statement
// for a Table, filling in its names ({table}, {status}, ...; {alias} is the
// table's alias, lane the lanes' alias). A %s is the caller's part, filled in
// when the statement is sent: a select list, a RETURNING list, a filter.

// The conditions statements share.
const (
	// dueNowSQL is true of an item a worker may claim now: ready, due, with
	// attempts left.
	dueNowSQL = `{alias}.{status} IN ({ready}) AND {alias}.{due} <= now() AND {alias}.{attempts} < {max}`
	// spentSQL is true of a spent item: ready but out of attempts, so that
	// no claim takes it.
	spentSQL = `{alias}.{status} IN ({ready}) AND {alias}.{attempts} >= {max}`
	// laneFreeSQL adds that no attempt holds the item's lane, nor does it
	// rest.
	laneFreeSQL = ` AND NOT EXISTS (SELECT 1 FROM {lanes} lane WHERE lane.{lane_key} = {alias}.{lane_ref} AND lane.{lane_until} >= now())`
	// freeSQL is true of an item no lease holds: never taken, released, or
	// lapsed. heldSQL is its opposite: a live lease holds it.
	freeSQL = `({alias}.{holder} IS NULL OR {alias}.{until} < now())`
	heldSQL = `({alias}.{holder} IS NOT NULL AND {alias}.{until} >= now())`
)

// The claim.
const (
	// claimSQL takes the oldest due item no other worker is claiming
	// (SKIP LOCKED: neither waits), counts an attempt of it and pushes its
	// due time past the lease ($1 seconds), which is how long the claim
	// holds it: a worker that dies leaves it due again when the lease ends.
	claimSQL = `UPDATE {table} SET {attempts} = {attempts} + 1, {due} = now() + make_interval(secs => $1), {updated} = now()
WHERE {key} = (SELECT {alias}.{key} FROM {table} {alias} WHERE {due_now}
	ORDER BY {alias}.{due}, {alias}.{key} LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING {key}, {attempts}{payload}`

	// claimLaneSQL takes the open lane with a due item that was claimed
	// least recently and that no attempt holds (nor rests), and holds it for
	// a lease ($1 seconds): one item at a time per lane, across processes (a
	// second claimer skips the locked row, and after the commit sees it
	// held).
	claimLaneSQL = `UPDATE {lanes} SET {lane_until} = now() + make_interval(secs => $1), {lane_turn} = now()
WHERE {lane_key} = (
	SELECT lane.{lane_key} FROM {lanes} lane
	WHERE lane.{lane_open} AND (lane.{lane_until} IS NULL OR lane.{lane_until} < now())
	  AND EXISTS (SELECT 1 FROM {table} {alias} WHERE {alias}.{lane_ref} = lane.{lane_key} AND {due_now})
	ORDER BY lane.{lane_turn} NULLS FIRST, lane.{lane_key} LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING {lane_key}{lane_payload}`

	// claimInLaneSQL counts an attempt of the oldest due item of the lane
	// $1 the claim holds (its lock serialises the lane's claims).
	claimInLaneSQL = `UPDATE {table} SET {attempts} = {attempts} + 1, {updated} = now()
WHERE {key} = (SELECT {alias}.{key} FROM {table} {alias} WHERE {alias}.{lane_ref} = $1 AND {due_now}
	ORDER BY {alias}.{due}, {alias}.{key} LIMIT 1 FOR UPDATE)
RETURNING {key}, {attempts}{payload}`

	// holdLaneSQL names the attempt $2 that holds lane $1: only it releases
	// the lane (releaseLaneSQL).
	holdLaneSQL = `UPDATE {lanes} SET {lane_holder} = $2 WHERE {lane_key} = $1`
)

// An attempt's outcome. A success is recorded whoever made the attempt
// (the work was done); a failure only by the claim that made the attempt
// ($2): a worker whose lease ended and was overtaken does not push the
// item back. The outcome columns follow the statement's own parameters.
const (
	// succeedSQL makes item $1 done; its error goes back to the column's
	// default ('' or NULL).
	succeedSQL = `UPDATE {table} SET {status} = {done}, {done_at}{updated} = now(), {error} = DEFAULT{outcome}
WHERE {key} = $1{keycast} AND {status} IN ({ready})`
	// backoffSQL makes item $1 due again after the backoff ($3 seconds), with
	// its error $4.
	backoffSQL = `UPDATE {table} SET {due} = now() + make_interval(secs => $3), {updated} = now(), {error} = $4{outcome}
WHERE {key} = $1{keycast} AND {attempts} = $2 AND {status} IN ({ready})`
	// buryAttemptSQL makes item $1 a dead letter, with its error $3.
	buryAttemptSQL = `UPDATE {table} SET {status} = {dead}, {updated} = now(), {error} = $3{outcome}
WHERE {key} = $1{keycast} AND {attempts} = $2 AND {status} IN ({ready})`
	// releaseLaneSQL frees lane $1 if attempt $2 still holds it: at once, or
	// after a rest of $3 seconds.
	releaseLaneSQL = `UPDATE {lanes} SET {lane_until} = CASE WHEN $3::float8 > 0 THEN now() + make_interval(secs => $3) END, {lane_holder} = ''
WHERE {lane_key} = $1 AND {lane_holder} = $2`
)

// The sweep.
const (
	// dueSQL lists up to $1 items due now, the longest due first.
	dueSQL = `SELECT {alias}.{key} FROM {table} {alias} WHERE {due_now} ORDER BY {alias}.{due}, {alias}.{key} LIMIT $1`
	// burySpentSQL makes every spent item that no attempt is still making
	// (its lease is over, its lane free) a dead letter, with the error $1.
	burySpentSQL = `UPDATE {table} SET {status} = {dead}, {error} = $1, {updated} = now()
WHERE {key} IN (SELECT {alias}.{key} FROM {table} {alias}
	WHERE {spent} AND {alias}.{due} <= now(){lane_free}{item_free} FOR UPDATE SKIP LOCKED)`
	// spentBoundSQL is spentSQL with the caller's bound (%s) when the table
	// has none of its own.
	spentBoundSQL = `{alias}.{status} IN ({ready}) AND {alias}.{attempts} >= {bound}`
	// lapsedSQL is true of a ready item whose lease lapsed (or that none
	// ever held) more than %s seconds ago: no worker runs it.
	lapsedSQL = `{alias}.{status} IN ({ready}) AND coalesce({alias}.{until}, {alias}.{updated}) < now() - make_interval(secs => %s)`
)

// Locks by key, in the caller's transaction: the caller's select list.
const (
	lockSQL     = `SELECT %s FROM {table} {alias} WHERE {alias}.{key} = $1{keycast} FOR UPDATE`
	lockSkipSQL = lockSQL + ` SKIP LOCKED`
)

// An operator's revival.
const (
	// reviveLockSQL locks item $1 of the scope (%s) and reads its status.
	reviveLockSQL = `SELECT {alias}.{status} FROM {table} {alias} WHERE {alias}.{key} = $1{keycast} AND %s FOR UPDATE`
	// reviveSQL makes item $1 ready and due now, for a fresh round of
	// attempts, and counts the revival.
	reviveSQL = `UPDATE {table} SET {status} = {ready_first}, {attempts} = 0, {revivals} = {revivals} + 1, {due} = now(), {updated} = now()
WHERE {key} = $1{keycast}`
	// matchingSQL lists the dead letters a filter (%s) matches, in key
	// order, with their rounds; matchingLockedSQL locks them too.
	matchingSQL       = `SELECT {alias}.{key}, {alias}.{round} FROM {table} {alias} WHERE {alias}.{status} = {dead} AND (%s) ORDER BY {alias}.{key}`
	matchingLockedSQL = matchingSQL + ` FOR UPDATE`
	// reviveMatchingSQL revives every dead letter a filter (%s) matches.
	reviveMatchingSQL = `UPDATE {table} {alias} SET {status} = {ready_first}, {attempts} = 0, {revivals} = {revivals} + 1, {due} = now(), {updated} = now()
WHERE {alias}.{status} = {dead} AND (%s)`
)

// A lease kept on the item: $1 the item, $2 the holder, $3 the lease in
// seconds. The caller appends what it returns (%s).
const (
	// takeSQL takes the lease of a ready item no one holds (or the holder
	// does already).
	takeSQL = `UPDATE {table} SET {holder} = $2, {until} = now() + make_interval(secs => $3), {updated} = now()
	WHERE {key} = $1{keycast} AND {status} IN ({ready}) AND ({holder} IS NULL OR {holder} = $2)%s`
	// takeOverSQL takes it also when the lease lapsed, or when its holder
	// is $4 (one known dead).
	takeOverSQL = `UPDATE {table} SET {holder} = $2, {until} = now() + make_interval(secs => $3), {updated} = now()
	WHERE {key} = $1{keycast} AND {status} IN ({ready})
	  AND ({holder} IS NULL OR {holder} = $2 OR {until} < now() OR {holder} = $4)%s`
	// renewSQL lengthens the holder's lease.
	renewSQL = `UPDATE {table} SET {until} = now() + make_interval(secs => $3) WHERE {key} = $1{keycast} AND {holder} = $2`
	// releaseSQL gives the holder's lease up.
	releaseSQL = `UPDATE {table} SET {holder} = NULL, {until} = NULL WHERE {key} = $1{keycast} AND {holder} = $2`
	// unheldSQL lists the ready items holder $1 does not hold under a live
	// lease, with their holder and whether the lease lapsed: the resume
	// pass's candidates (a holder's death may free the others).
	unheldSQL = `SELECT {alias}.{key}::text, coalesce({alias}.{holder}, ''), {alias}.{until} < now() FROM {table} {alias}
	WHERE {alias}.{status} IN ({ready}) AND ({alias}.{holder} IS NULL OR {alias}.{until} < now() OR {alias}.{holder} <> $1)
	ORDER BY {alias}.{order}`
)

// template is a statement and where its outcome parameters start.
type template struct {
	sql         string
	outcomeFrom int
}

// statements are what New renders, by name.
var statements = map[string]template{
	"claim": {sql: claimSQL}, "claim_lane": {sql: claimLaneSQL}, "claim_in_lane": {sql: claimInLaneSQL}, "hold_lane": {sql: holdLaneSQL},
	"succeed": {succeedSQL, 2}, "backoff": {backoffSQL, 5}, "bury_attempt": {buryAttemptSQL, 4}, "release_lane": {sql: releaseLaneSQL},
	"due": {sql: dueSQL}, "bury_spent": {sql: burySpentSQL}, "spent": {sql: spentBoundSQL}, "lapsed": {sql: lapsedSQL},
	"lock": {sql: lockSQL}, "lock_skip": {sql: lockSkipSQL},
	"revive_lock": {sql: reviveLockSQL}, "revive": {sql: reviveSQL}, "matching": {sql: matchingSQL},
	"matching_locked": {sql: matchingLockedSQL}, "revive_matching": {sql: reviveMatchingSQL},
	"take": {sql: takeSQL}, "take_over": {sql: takeOverSQL}, "renew": {sql: renewSQL}, "release": {sql: releaseSQL},
	"unheld": {sql: unheldSQL}, "free": {sql: freeSQL}, "held": {sql: heldSQL},
}
