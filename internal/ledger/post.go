package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/money"
)

// Post writes the entry req asks for, or returns the entry that exists
// under req's source key, as PostTx does, in a transaction of its own on a
// connection of the pool's. The transaction costs two round trips where
// pgx.Tx would take six: it begins with the lock, the lookup and the
// accounts, and commits with the insert (or alone, for a replay). Profiles
// of new posts at 4 clients showed the Go side spending its time in the
// syscalls and wake-ups of each round trip, not in its own work. A caller
// with a transaction of its own posts in it with PostTx.
func Post(ctx context.Context, pool *pgxpool.Pool, req Request) (Result, error) {
	p := posting{req: req}
	err := database.WithPipelinedTx(ctx, pool, func(tx pgx.Tx) (*pgx.Batch, error) {
		return p.prepare(ctx, tx, lockSourceKey)
	})
	if err != nil {
		return Result{}, commitError(err)
	}
	// The transaction has committed: a lookup after a lost race sees what
	// the winner committed.
	return p.result(ctx, pool)
}

// PostTx posts within the caller's transaction (the bookkeeper marks its
// document posted in the same one): a replay or a new entry, which
// commits or rolls back with the caller's transaction. It costs two round
// trips for a new entry and one for a replay.
//
// Its first act is a transaction-scoped advisory lock on the source key, so
// posts of one key run one at a time; then it looks the key up. An exact
// replay returns the existing entry and writes nothing. The same key with
// different facts is a source_replay_conflict listing each difference.
// Otherwise it writes the entry with its fingerprint. A writer that raced
// past the lock (another process without it, a raw insert) is caught by the
// unique index on the source key, and resolves the same way.
//
// tx must be the transaction itself, not a savepoint in it: the
// journal_lines trigger takes an entry written in a savepoint for one of an
// earlier transaction, and refuses its lines.
func PostTx(ctx context.Context, tx pgx.Tx, req Request) (Result, error) {
	return postTx(ctx, tx, req, lockSourceKey)
}

// postTx is PostTx with the first statement given.
func postTx(ctx context.Context, tx pgx.Tx, req Request, first firstStatement) (Result, error) {
	p := posting{req: req}
	b, err := p.prepare(ctx, tx, first)
	if err == nil && b != nil {
		err = tx.SendBatch(ctx, b).Close()
	}
	if err != nil {
		return Result{}, err
	}
	return p.result(ctx, tx)
}

// firstStatement is a post's first statement, as SQL and arguments to
// queue: it reads the org's base currency and the key-lookup settings. The
// product's, lockSourceKey, also takes the source key's lock; only a test
// (export_test.go) sends one without it, to prove the unique index a
// backstop.
type firstStatement func(req Request) (string, []any)

// lockSourceKey sends lockSQL.
func lockSourceKey(req Request) (string, []any) {
	return lockSQL, []any{req.OrgID, database.LockLedgerSourceKey, req.SourceType, req.SourceID, req.EntrySet}
}

// posting is one post on its way. prepare sends the lock, the lookup and
// the accounts in one batch and decides: a replay (or a conflict), or a new
// entry, whose insert it queues in the batch it returns, for the caller to
// send (Post with the commit). result then reads what the insert did.
type posting struct {
	req       Request
	requested facts
	replayed  Result // a replay, decided by prepare
	queued    bool   // the insert was queued
	inserted  bool   // the insert wrote the entry
	entry     Entry  // the entry as written
}

func (p *posting) prepare(ctx context.Context, tx pgx.Tx, first firstStatement) (*pgx.Batch, error) {
	req := p.req
	if rs := validateShape(req); len(rs) > 0 {
		return nil, invalid(rs)
	}
	// The lock and the lookup are separate statements on purpose: a
	// statement's snapshot is taken when it starts, so a lookup in the same
	// statement as the lock wait would miss an entry committed meanwhile.
	// Pipelined, the server still starts the lookup only once the lock is
	// held.
	b := &pgx.Batch{}
	firstSQL, firstArgs := first(req)
	b.Queue(firstSQL, firstArgs...)
	b.Queue(lookupSQL, req.OrgID, req.SourceType, req.SourceID, req.EntrySet)
	b.Queue(accountsSQL, req.OrgID, accountCodes(req))
	baseCurrency, existing, found, stored, err := readFirstBatch(tx.SendBatch(ctx, b), req)
	if err != nil {
		return nil, err
	}
	p.requested = requestFacts(req, baseCurrency)
	if found {
		p.replayed, err = replay(existing, p.requested)
		return nil, err
	}

	if rs := validateBase(req, baseCurrency); len(rs) > 0 {
		return nil, invalid(rs)
	}
	accounts, err := checkAccounts(req, stored)
	if err != nil {
		return nil, err
	}
	p.queued = true
	return p.queueInsert(baseCurrency, accounts), nil
}

// result is the post's outcome once the insert prepare queued has been
// sent; q reads the entry that won when the unique index refused ours.
func (p *posting) result(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) (Result, error) {
	if !p.queued {
		return p.replayed, nil
	}
	if p.inserted {
		return Result{Entry: p.entry}, nil
	}
	// The unique index decided: someone wrote this key after our lookup.
	existing, found, err := lookup(ctx, q, p.req.SourceKey)
	if err != nil {
		return Result{}, err
	}
	if !found {
		return Result{}, fmt.Errorf("ledger: source key %s conflicted but no entry is visible", p.req.SourceKey)
	}
	return replay(existing, p.requested)
}

// readFirstBatch reads the results of a post's first batch: the org's base
// currency, the entry under the source key if any, and the accounts the
// request names as stored.
func readFirstBatch(br pgx.BatchResults, req Request) (baseCurrency string, existing Entry, found bool, stored map[string]account, err error) {
	defer func() {
		if cerr := br.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("ledger: post: %w", cerr)
		}
	}()
	var base *string
	err = br.QueryRow().Scan(&base, nil)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && base == nil {
		return "", Entry{}, false, nil, apperr.New(apperr.NotFound, "no org %d", req.OrgID)
	}
	if err != nil {
		return "", Entry{}, false, nil, fmt.Errorf("ledger: lock source key: %w", err)
	}
	existing, err = scanEntry(br.QueryRow())
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return "", Entry{}, false, nil, fmt.Errorf("ledger: look up %s: %w", req.SourceKey, err)
	default:
		found = true
	}
	rows, err := br.Query()
	if err != nil {
		return "", Entry{}, false, nil, fmt.Errorf("ledger: accounts: %w", err)
	}
	stored = map[string]account{}
	for rows.Next() {
		var code string
		var a account
		if err := rows.Scan(&code, &a.id, &a.name, &a.active); err != nil {
			rows.Close()
			return "", Entry{}, false, nil, fmt.Errorf("ledger: accounts: %w", err)
		}
		stored[code] = a
	}
	if err := rows.Err(); err != nil {
		return "", Entry{}, false, nil, fmt.Errorf("ledger: accounts: %w", err)
	}
	return *base, existing, found, stored, nil
}

// replay decides between an exact replay and a conflict. A stored
// fingerprint equal to the request's settles it at once; otherwise (a
// historical entry without one, or a real difference) the stored entry is
// reduced to the same facts and compared field by field.
func replay(existing Entry, requested facts) (Result, error) {
	if existing.Fingerprint != nil && bytes.Equal(existing.Fingerprint, requested.fingerprint()) {
		return Result{Entry: existing, Replayed: true}, nil
	}
	ds := differences(entryFacts(existing), requested)
	if len(ds) == 0 {
		if existing.Fingerprint == nil {
			return Result{Entry: existing, Replayed: true}, nil
		}
		// Same facts, different fingerprint: the stored checksum is not ours
		// to reinterpret, so this is reported, not papered over.
		ds = []Difference{{Field: "fingerprint", Stored: fmt.Sprintf("%x", existing.Fingerprint), Requested: fmt.Sprintf("%x", requested.fingerprint())}}
	}
	return Result{}, apperr.New(apperr.SourceReplayConflict,
		"source key %s/%s/%s already has entry %d with different facts", existing.SourceType, existing.SourceID, existing.EntrySet, existing.ID).
		With("differences", ds).With("entry_id", existing.ID)
}

// validateBase checks the base amounts now that the org's base currency is known.
func validateBase(req Request, baseCurrency string) []Reason {
	var rs []Reason
	base, _ := money.Lookup(baseCurrency)
	var bd, bc decimal.Decimal
	for i, l := range req.Lines {
		f := fmt.Sprintf("lines[%d]", i)
		if req.Currency == baseCurrency {
			if l.BaseDebit != nil && !l.BaseDebit.Equal(l.Debit) || l.BaseCredit != nil && !l.BaseCredit.Equal(l.Credit) {
				rs = append(rs, Reason{f, "in the base currency the base amount must equal the amount"})
			}
			continue
		}
		if l.Debit.IsPositive() && l.BaseDebit == nil || l.Credit.IsPositive() && l.BaseCredit == nil {
			rs = append(rs, Reason{f, fmt.Sprintf("a %s entry needs the prepared base amount in %s", req.Currency, baseCurrency)})
			continue
		}
		for side, v := range map[string]*decimal.Decimal{"base_debit": l.BaseDebit, "base_credit": l.BaseCredit} {
			if v != nil && scale(*v) > base.MinorUnits {
				rs = append(rs, Reason{f + "." + side, fmt.Sprintf("%s has more decimals than %s allows (%d)", v.String(), base.Code, base.MinorUnits)})
			}
		}
		if l.BaseDebit != nil {
			bd = bd.Add(*l.BaseDebit)
		}
		if l.BaseCredit != nil {
			bc = bc.Add(*l.BaseCredit)
		}
	}
	if req.Currency != baseCurrency && len(rs) == 0 && !bd.Equal(bc) {
		rs = append(rs, Reason{"lines", fmt.Sprintf("base debits %s do not equal base credits %s", money.Canonical(bd), money.Canonical(bc))})
	}
	return rs
}

// account is an account a post uses.
type account struct {
	id     int64
	name   string
	active bool
}

// accountCodes lists the account codes the request's lines name.
func accountCodes(req Request) []string {
	codes := make([]string, 0, len(req.Lines))
	for _, l := range req.Lines {
		codes = append(codes, l.Account)
	}
	return codes
}

// checkAccounts maps account codes to the accounts found: each must exist
// in the org and be active.
func checkAccounts(req Request, found map[string]account) (map[string]account, error) {
	ids := map[string]account{}
	var rs []Reason
	for i, l := range req.Lines {
		a, ok := found[l.Account]
		switch {
		case !ok:
			rs = append(rs, Reason{fmt.Sprintf("lines[%d].account", i), fmt.Sprintf("no account %q in this org", l.Account)})
		case !a.active:
			rs = append(rs, Reason{fmt.Sprintf("lines[%d].account", i), fmt.Sprintf("account %q is inactive", l.Account)})
		default:
			ids[l.Account] = a
		}
	}
	if len(rs) > 0 {
		return nil, invalid(rs)
	}
	return ids, nil
}

// queueInsert queues the insert of the entry and its lines, one statement
// that returns the entry as written. Its callback records whether it wrote
// (the source key may exist already: the unique index decided).
func (p *posting) queueInsert(baseCurrency string, accounts map[string]account) *pgx.Batch {
	req, f := p.req, p.requested
	fp := f.fingerprint()
	n := len(f.lines)
	lineNo := make([]int32, n)
	accountIDs := make([]int64, n)
	debit, credit, baseDebit, baseCredit, dims := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, l := range f.lines {
		lineNo[i] = int32(i)
		accountIDs[i] = accounts[l.account].id
		debit[i], credit[i] = money.Canonical(l.debit), money.Canonical(l.credit)
		baseDebit[i], baseCredit[i] = money.Canonical(l.baseDebit), money.Canonical(l.baseCredit)
		dims[i] = canonicalDimensions(l.dimensions)
	}
	e := Entry{SourceKey: req.SourceKey, Date: req.Date, Currency: req.Currency, BaseCurrency: baseCurrency,
		Description: req.Description, Fingerprint: fp, ReversesID: req.ReversesID, CreatedBy: req.Actor}
	for _, l := range f.lines {
		dims := l.dimensions
		if dims == nil {
			dims = map[string]string{}
		}
		e.Lines = append(e.Lines, EntryLine{Account: l.account, AccountName: accounts[l.account].name,
			Debit: l.debit, Credit: l.credit, BaseDebit: l.baseDebit, BaseCredit: l.baseCredit, Dimensions: dims})
	}
	b := &pgx.Batch{}
	b.Queue(insertSQL, req.OrgID, req.SourceType, req.SourceID, req.EntrySet, req.Date, req.Currency,
		baseCurrency, req.Description, fp, req.ReversesID, req.Actor,
		lineNo, accountIDs, debit, credit, baseDebit, baseCredit, dims).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&e.ID, &e.CreatedAt)
		switch {
		case err == nil:
			p.inserted, p.entry = true, e
			return nil
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23503" && pgErr.ConstraintName == "journal_entries_reverses_fkey" {
			return invalid([]Reason{{"reverses_id", fmt.Sprintf("no entry %d in this org", req.ReversesID)}})
		}
		return fmt.Errorf("ledger: insert entry: %w", err)
	})
	return b
}

// Statements are the SQL a post sends, in order, with their parameters
// numbered as PostTx numbers them: for benchmarks that run the very same
// statements through pgbench. Post pipelines them in two round trips:
// the transaction's begin, Lock, Lookup and Accounts; then Insert and the
// commit (the commit alone for a replay).
var Statements = struct{ Lock, Lookup, Accounts, Insert string }{
	Lock:     lockSQL,
	Lookup:   lookupSQL,
	Accounts: accountsSQL,
	Insert:   insertSQL,
}

// lookup reads the entry stored under a source key.
func lookup(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, k SourceKey) (Entry, bool, error) {
	e, err := scanEntry(q.QueryRow(ctx, lookupSQL, k.OrgID, k.SourceType, k.SourceID, k.EntrySet))
	if errors.Is(err, pgx.ErrNoRows) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("ledger: look up %s: %w", k, err)
	}
	return e, true, nil
}

type storedLine struct {
	Account    string            `json:"account"`
	Name       string            `json:"name"`
	Debit      string            `json:"debit"`
	Credit     string            `json:"credit"`
	BaseDebit  string            `json:"base_debit"`
	BaseCredit string            `json:"base_credit"`
	Dimensions map[string]string `json:"dimensions"`
}

func scanEntry(row pgx.Row) (Entry, error) {
	var e Entry
	var lines []byte
	if err := row.Scan(&e.ID, &e.OrgID, &e.SourceType, &e.SourceID, &e.EntrySet, &e.Date, &e.Currency, &e.BaseCurrency,
		&e.Description, &e.Fingerprint, &e.ReversesID, &e.CreatedBy, &e.CreatedAt, &lines); err != nil {
		return Entry{}, err
	}
	if len(lines) > 0 {
		var sl []storedLine
		if err := json.Unmarshal(lines, &sl); err != nil {
			return Entry{}, fmt.Errorf("ledger: decode lines of entry %d: %w", e.ID, err)
		}
		for _, l := range sl {
			el := EntryLine{Account: l.Account, AccountName: l.Name, Dimensions: l.Dimensions}
			for _, p := range []struct {
				dst *decimal.Decimal
				src string
			}{{&el.Debit, l.Debit}, {&el.Credit, l.Credit}, {&el.BaseDebit, l.BaseDebit}, {&el.BaseCredit, l.BaseCredit}} {
				d, err := decimal.NewFromString(p.src)
				if err != nil {
					return Entry{}, fmt.Errorf("ledger: decode amount %q of entry %d: %w", p.src, e.ID, err)
				}
				*p.dst = d
			}
			if el.Dimensions == nil {
				el.Dimensions = map[string]string{}
			}
			e.Lines = append(e.Lines, el)
		}
	}
	return e, nil
}

// commitError maps errors the database raises at commit (the deferred
// balance trigger) to the invalid code; they mean a request slipped past
// the checks in Go.
func commitError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "23514" || pgErr.Code == "23001") {
		return apperr.Wrap(err, apperr.Invalid, "the journal entry is not valid: %s", pgErr.Message).
			With("reasons", []Reason{{Field: "entry", Message: pgErr.Message}})
	}
	return err
}
