package database

// Advisory lock namespaces: the first key of PostgreSQL's two-key advisory
// locks (pg_advisory_xact_lock(namespace, hashtext(key))). Each kind of lock
// has its own namespace, so a hash of one kind of thing never collides with
// a hash of another; a collision within a kind only makes two writers wait
// for each other, it never lets two through.
const (
	// LockLedgerSourceKey serialises posts of one journal source key.
	LockLedgerSourceKey int32 = 71_001
	// LockVersionGroup serialises filing the versions of one typewriter document.
	LockVersionGroup int32 = 71_002
	// LockContentKey serialises filing documents with one org's content key
	// (same seller, date, currency and total), whose duplicates are found by
	// a query rather than a unique index.
	LockContentKey int32 = 71_003
	// LockBalanceSlot gives a posting transaction one of the ledger
	// balances' slots to itself (its second key is the slot, 0 to 7). It is
	// taken by the journal_lines_update_balances trigger of migration
	// 00034, which spells the number.
	LockBalanceSlot int32 = 71_004
)

// KeyLookupSettings is a select-list item that the first statement of a hot
// transaction (a post, an approve) evaluates: it turns sequential scans off
// for the rest of that transaction only. Its lookups are all by key, and on
// a new deployment a table is empty when first analysed: a generic plan
// cached then is a sequential scan, and it would stay one while the table
// fills until autovacuum analyses it again. With sequential scans off every
// plan, custom or generic, uses the key's index. Proved by
// TestSourceKeyLookupUsesTheUniqueIndex.
const KeyLookupSettings = `set_config('enable_seqscan', 'off', true)`
