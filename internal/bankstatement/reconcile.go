package bankstatement

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/events"
	"greatbook/internal/failpoint"
	"greatbook/internal/ledger"
)

// FailpointAfterBatch is after each batch of lines committed, before the
// next: a crash there leaves an import half reconciled, which the next
// upload of the same bytes (or the resume at startup) finishes.
const FailpointAfterBatch = "bankstatement/after-batch"

// FailpointItemsLocked is inside a batch, right after it took the row
// locks of the items its lines name, before it books any: where two imports
// of overlapping statements meet.
const FailpointItemsLocked = "bankstatement/batch/items-locked"

// DefaultBatchSize is how many lines one transaction reconciles. Each
// payment it books takes a ledger source-key lock, held to the commit: a
// whole statement in one transaction would take one per payment and could
// overflow the server's lock table (max_locks_per_transaction).
const DefaultBatchSize = 200

// BankAccount is the default chart's bank account, which a payment credits
// and a return debits.
const BankAccount = "1000"

// The ledger's source of a payment's entries: source_type payment, the
// item's id as source_id, EntrySetPaid for the payment and EntrySetReturned
// for the money given back.
const (
	SourceType       = ledger.SourceTypePayment
	EntrySetPaid     = "main"
	EntrySetReturned = "return"
)

// The outcomes of a line.
const (
	OutcomeMatched         = "matched"
	OutcomeReturned        = "returned"
	OutcomeAlreadyPaid     = "already_paid"
	OutcomeAlreadyReturned = "already_returned"
	OutcomeUnmatched       = "unmatched"
)

// Why a line is unmatched (docs/api.md, "Bank statements").
const (
	ReasonNotBooked         = "not_booked"
	ReasonNotAPayment       = "not_a_payment"
	ReasonUnsplit           = "batch_not_split"
	ReasonNoEndToEndID      = "no_end_to_end_id"
	ReasonUnknownEndToEndID = "unknown_end_to_end_id"
	ReasonCurrencyDiffers   = "currency_differs"
	ReasonAmountDiffers     = "amount_differs"
	ReasonNotBaseCurrency   = "not_base_currency"
	ReasonItemNotSent       = "item_not_sent"
	ReasonItemNotPaid       = "item_not_paid"
	ReasonLedgerRefused     = "ledger_refused"
)

// The audit actions of an import and of the items it pays or gives back
// (the event feed shows the items' as payment.paid and payment.returned).
const (
	ActionImported      = "bank_statement_reconciled"
	ActionPaymentPaid   = events.ActionPaymentPaid
	ActionPaymentReturn = events.ActionPaymentReturned
)

// Service imports an org's bank statements and reconciles them with its
// payment items.
type Service struct {
	// Pool is concrete: an import runs transactions of its own, one for
	// the statement and one for each batch of lines.
	Pool *pgxpool.Pool
	// Failpoints act at FailpointAfterBatch and FailpointItemsLocked (nil:
	// failpoint.Env).
	Failpoints failpoint.Injector
	// BatchSize is how many lines one transaction reconciles (0:
	// DefaultBatchSize).
	BatchSize int
}

func (s *Service) inject(ctx context.Context, name string) error {
	return failpoint.At(ctx, s.Failpoints, name)
}

// Import is what an import found: how many lines, how many matched a
// payment (paid, returned, or one an earlier statement had shown), and how
// many are left for a person.
type Import struct {
	ID        int64 `json:"id"`
	Entries   int   `json:"entries"`
	Matched   int   `json:"matched"`
	Unmatched int   `json:"unmatched"`
}

// Import reads a statement and reconciles it: a booked debit naming a sent
// item's EndToEndId pays it, a booked return gives a paid item's money
// back, anything else is stored unmatched. The same bytes again return the
// first import's answer (created false) and change nothing, after finishing
// that import if a crash interrupted it. However often a payment appears in
// statements, its entry is posted once: the item's row lock and the
// ledger's source key decide, not the statement.
func (s *Service) Import(ctx context.Context, orgID int64, content []byte, actor audit.Actor) (Import, bool, error) {
	st, err := Parse(content)
	if err != nil {
		return Import{}, false, err
	}
	sum := sha256.Sum256(content)
	id, created, err := s.store(ctx, orgID, hex.EncodeToString(sum[:]), st, actor)
	if err != nil {
		return Import{}, false, err
	}
	imp, err := s.finish(ctx, orgID, id, actor)
	return imp, created, err
}

// store records the statement and its lines in one transaction, or finds
// the import of the same bytes.
func (s *Service) store(ctx context.Context, orgID int64, hash string, st Statement, actor audit.Actor) (id int64, created bool, err error) {
	err = database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, insertStatementSQL, orgID, hash, st.MessageType, st.ID, len(st.Entries), actor.Label).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			// Stored before (or by an upload that committed while this
			// one waited on the unique key).
			return tx.QueryRow(ctx, statementByHashSQL, orgID, hash).Scan(&id)
		}
		if err != nil {
			return err
		}
		created = true
		n := len(st.Entries)
		lines := make([]int32, n)
		amounts, currencies, directions, statuses, dates, refs, e2es, reasons := make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		unsplit := make([]bool, n)
		for i, e := range st.Entries {
			lines[i] = int32(i + 1)
			amounts[i], currencies[i], directions[i], statuses[i] = e.Amount.String(), e.Currency, e.Direction, e.Status
			dates[i], refs[i], e2es[i], reasons[i], unsplit[i] = e.BookingDate, e.AcctSvcrRef, e.EndToEndID, e.ReturnReason, e.Unsplit
		}
		_, err = tx.Exec(ctx, insertEntriesSQL, id, orgID, lines, amounts, currencies, directions, statuses, dates, refs, e2es, reasons, unsplit)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("bankstatement: store statement: %w", err)
	}
	return id, created, nil
}

// finish reconciles the import's lines left, a batch per transaction, then
// closes it with its counts and returns them.
func (s *Service) finish(ctx context.Context, orgID, id int64, actor audit.Actor) (Import, error) {
	size := s.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	for {
		n, err := database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (int, error) {
			return s.reconcileBatch(ctx, tx, orgID, id, size, actor)
		})
		if err != nil {
			return Import{}, err
		}
		if n == 0 {
			break
		}
		if err := s.inject(ctx, FailpointAfterBatch); err != nil {
			return Import{}, err
		}
	}
	err := database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		var imp Import
		var org int64
		err := tx.QueryRow(ctx, completeSQL, id).Scan(&org, &imp.Entries, &imp.Matched, &imp.Unmatched)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // closed by an import of the same bytes running at once
		}
		if err != nil {
			return fmt.Errorf("bankstatement: close import %d: %w", id, err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: org, Actor: actor, Action: ActionImported, SubjectType: "bank_statement",
			SubjectID: id, Detail: map[string]any{"entries": imp.Entries, "matched": imp.Matched, "unmatched": imp.Unmatched}})
	})
	if err != nil {
		return Import{}, err
	}
	r, err := s.Get(ctx, orgID, id)
	if err != nil {
		return Import{}, err
	}
	return r.Import, nil
}

// line is a stored line not yet reconciled.
type line struct {
	no                                int32
	amount                            decimal.Decimal
	currency, direction, status, date string
	endToEndID, returnReason          string
	unsplit                           bool
}

func (l line) booked() bool   { return l.status == "BOOK" }
func (l line) isReturn() bool { return l.direction == Credit && l.returnReason != "" }

// item is a payment item as reconciliation reads it, under its row lock.
type item struct {
	id, runID, intakeID    int64
	status                 string
	amount                 decimal.Decimal
	currency, endToEndID   string
	creditor               string
	entryID, returnEntryID int64
}

// outcome is what reconciling a line found.
type outcome struct {
	line                    int32
	outcome, reason, detail string
	itemID, entryID         int64
}

// reconcileBatch reconciles the next batch of the import's lines in tx and
// returns how many it did (0: none was left).
func (s *Service) reconcileBatch(ctx context.Context, tx pgx.Tx, orgID, id int64, size int, actor audit.Actor) (int, error) {
	// Lock order: the import's lines, then the items they name in id
	// order, then (in ledger.PostTx) each payment's source key. Every
	// import takes items in the one order, so two imports of overlapping
	// statements wait for each other and never deadlock.
	rows, err := tx.Query(ctx, pendingSQL, id, size)
	if err != nil {
		return 0, fmt.Errorf("bankstatement: read lines of import %d: %w", id, err)
	}
	lines, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (line, error) {
		var l line
		var amount string
		err := r.Scan(&l.no, &amount, &l.currency, &l.direction, &l.status, &l.date, &l.endToEndID, &l.returnReason, &l.unsplit)
		if err == nil {
			l.amount, err = decimal.NewFromString(amount)
		}
		return l, err
	})
	if err != nil || len(lines) == 0 {
		if err != nil {
			err = fmt.Errorf("bankstatement: read lines of import %d: %w", id, err)
		}
		return 0, err
	}
	var base string
	if err := tx.QueryRow(ctx, baseCurrencySQL, orgID).Scan(&base); err != nil {
		return 0, fmt.Errorf("bankstatement: read the org's base currency: %w", err)
	}
	items, err := lockItems(ctx, tx, orgID, lines)
	if err != nil {
		return 0, err
	}
	if err := s.inject(ctx, FailpointItemsLocked); err != nil {
		return 0, err
	}
	out := make([]outcome, 0, len(lines))
	for _, l := range lines {
		o, err := s.reconcileLine(ctx, tx, orgID, id, l, items[l.endToEndID], base, actor)
		if err != nil {
			return 0, err
		}
		out = append(out, o)
	}
	n := len(out)
	nos, outcomes, reasons, details, itemIDs, entryIDs := make([]int32, n), make([]string, n), make([]string, n), make([]string, n),
		make([]int64, n), make([]int64, n)
	for i, o := range out {
		nos[i], outcomes[i], reasons[i], details[i], itemIDs[i], entryIDs[i] = o.line, o.outcome, o.reason, o.detail, o.itemID, o.entryID
	}
	if _, err := tx.Exec(ctx, recordOutcomesSQL, id, nos, outcomes, reasons, details, itemIDs, entryIDs); err != nil {
		return 0, fmt.Errorf("bankstatement: record outcomes of import %d: %w", id, err)
	}
	return n, nil
}

// lockItems takes the row locks of the items the lines name, by
// EndToEndId.
func lockItems(ctx context.Context, tx pgx.Tx, orgID int64, lines []line) (map[string]*item, error) {
	var names []string
	for _, l := range lines {
		if l.endToEndID != "" {
			names = append(names, l.endToEndID)
		}
	}
	items := map[string]*item{}
	if len(names) == 0 {
		return items, nil
	}
	rows, err := tx.Query(ctx, lockItemsSQL, orgID, names)
	if err != nil {
		return nil, fmt.Errorf("bankstatement: lock items: %w", err)
	}
	var it item
	var amount string
	_, err = pgx.ForEachRow(rows, []any{&it.id, &it.runID, &it.intakeID, &it.status, &amount, &it.currency, &it.endToEndID,
		&it.creditor, &it.entryID, &it.returnEntryID}, func() error {
		a, err := decimal.NewFromString(amount)
		c := it
		c.amount = a
		items[it.endToEndID] = &c
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bankstatement: lock items: %w", err)
	}
	return items, nil
}

// reconcileLine decides one line and, for a payment or a return it
// recognises, books it: the entry, the item's new status and its audit
// event, in tx. it is the item the line names, nil for none.
func (s *Service) reconcileLine(ctx context.Context, tx pgx.Tx, orgID, importID int64, l line, it *item, base string, actor audit.Actor) (outcome, error) {
	o := outcome{line: l.no, outcome: OutcomeUnmatched}
	unmatched := func(reason string) (outcome, error) { o.reason = reason; return o, nil }
	switch {
	case l.unsplit:
		return unmatched(ReasonUnsplit)
	case !l.booked():
		return unmatched(ReasonNotBooked)
	case l.direction == Credit && !l.isReturn():
		return unmatched(ReasonNotAPayment)
	case l.endToEndID == "":
		return unmatched(ReasonNoEndToEndID)
	case it == nil:
		return unmatched(ReasonUnknownEndToEndID)
	}
	o.itemID = it.id
	switch {
	case l.currency != it.currency:
		return unmatched(ReasonCurrencyDiffers)
	case !l.amount.Equal(it.amount):
		return unmatched(ReasonAmountDiffers)
	}
	if l.isReturn() {
		switch {
		case it.status == "returned":
			o.outcome, o.entryID = OutcomeAlreadyReturned, it.returnEntryID
			return o, nil
		case it.status != "paid":
			return unmatched(ReasonItemNotPaid)
		}
	} else {
		switch {
		case it.entryID != 0:
			o.outcome, o.entryID = OutcomeAlreadyPaid, it.entryID
			return o, nil
		case it.status != "sent":
			return unmatched(ReasonItemNotSent)
		}
	}
	if it.currency != base {
		// Booking it would need a rate to the base currency that nothing
		// here knows: a person books it.
		return unmatched(ReasonNotBaseCurrency)
	}
	req := entryRequest(orgID, l, it, actor)
	res, err := ledger.PostTx(ctx, tx, req)
	if code := apperr.CodeOf(err); code == apperr.Invalid || code == apperr.SourceReplayConflict {
		if e, ok := apperr.As(err); ok {
			o.detail = e.Message
		}
		return unmatched(ReasonLedgerRefused)
	}
	if err != nil {
		return o, fmt.Errorf("bankstatement: post the entry of item %d: %w", it.id, err)
	}
	if err := ledger.ObserveTx(ctx, tx, req, res); err != nil { // a replay only: a new entry is its own record
		return o, fmt.Errorf("bankstatement: observe the entry of item %d: %w", it.id, err)
	}
	o.entryID = res.Entry.ID
	detail := map[string]any{"item_id": it.id, "run_id": it.runID, "intake_id": it.intakeID, "entry_id": res.Entry.ID,
		"amount": it.amount.StringFixed(2), "currency": it.currency, "end_to_end_id": it.endToEndID,
		"bank_statement_id": importID, "booking_date": l.date}
	ev := audit.Event{OrgID: orgID, Actor: actor, SubjectType: "payment_item", SubjectID: it.id, Detail: detail}
	if l.isReturn() {
		if err := markItem(ctx, tx, markReturnedSQL, it.id, res.Entry.ID); err != nil {
			return o, err
		}
		o.outcome = OutcomeReturned
		it.status, it.returnEntryID = "returned", res.Entry.ID
		detail["return_reason"] = l.returnReason
		ev.Action, ev.FromStatus, ev.ToStatus = ActionPaymentReturn, "paid", "returned"
	} else {
		if err := markItem(ctx, tx, markPaidSQL, it.id, res.Entry.ID); err != nil {
			return o, err
		}
		o.outcome = OutcomeMatched
		it.status, it.entryID = "paid", res.Entry.ID
		ev.Action, ev.FromStatus, ev.ToStatus = ActionPaymentPaid, "sent", "paid"
	}
	return o, audit.Record(ctx, tx, ev)
}

// markItem moves a locked item on (markPaidSQL, markReturnedSQL). The
// item's row lock keeps its status as reconciliation read it; an update
// that finds it changed all the same fails the batch rather than record a
// payment twice.
func markItem(ctx context.Context, tx pgx.Tx, query string, itemID, entryID int64) error {
	tag, err := tx.Exec(ctx, query, itemID, entryID)
	if err == nil && tag.RowsAffected() != 1 {
		err = errors.New("its status changed under the batch")
	}
	if err != nil {
		return fmt.Errorf("bankstatement: move item %d on: %w", itemID, err)
	}
	return nil
}

// entryRequest is the journal entry of a line's payment (accounts payable
// to the bank) or return (the bank back to accounts payable), dated the
// day the bank booked it.
func entryRequest(orgID int64, l line, it *item, actor audit.Actor) ledger.Request {
	req := ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: orgID, SourceType: SourceType, SourceID: strconv.FormatInt(it.id, 10), EntrySet: EntrySetPaid},
		Date:      l.date, Currency: it.currency, Actor: actor.Label,
		Description: fmt.Sprintf("Payment %s to %s", it.endToEndID, it.creditor),
		Lines:       []ledger.Line{{Account: ledger.AccountsPayable, Debit: it.amount}, {Account: BankAccount, Credit: it.amount}},
	}
	if l.isReturn() {
		req.EntrySet = EntrySetReturned
		req.Description = fmt.Sprintf("Return of payment %s to %s (%s)", it.endToEndID, it.creditor, l.returnReason)
		req.Lines = []ledger.Line{{Account: BankAccount, Debit: it.amount}, {Account: ledger.AccountsPayable, Credit: it.amount}}
	}
	return req
}

// Report is an import as the API shows it, with its lines left for a
// person.
type Report struct {
	Import
	MessageType string     `json:"message_type"`
	StatementID string     `json:"statement_id"`
	Complete    bool       `json:"complete"`
	ImportedBy  string     `json:"imported_by"`
	ImportedAt  time.Time  `json:"imported_at"`
	CompletedAt *time.Time `json:"completed_at"`
	// UnmatchedEntries are the lines no payment matched, and why.
	UnmatchedEntries []Line `json:"unmatched_entries"`
}

// Line is a statement's line as the API shows it.
type Line struct {
	Line         int32   `json:"line"`
	Amount       string  `json:"amount"`
	Currency     string  `json:"currency"`
	Direction    string  `json:"direction"`
	Status       string  `json:"status"`
	BookingDate  *string `json:"booking_date"`
	Reference    string  `json:"reference"`
	EndToEndID   string  `json:"end_to_end_id"`
	ReturnReason string  `json:"return_reason"`
	Reason       string  `json:"reason"`
	Detail       string  `json:"detail"`
	ItemID       *int64  `json:"item_id"`
}

func scanStatement(row pgx.Row) (Report, error) {
	var st Report
	err := row.Scan(&st.ID, &st.MessageType, &st.StatementID, &st.Entries, &st.Matched, &st.Unmatched, &st.ImportedBy, &st.ImportedAt,
		&st.CompletedAt)
	st.Complete = st.CompletedAt != nil
	st.UnmatchedEntries = []Line{}
	return st, err
}

// Get returns an import of the org with its unmatched lines. The counts
// of an import not yet complete are zero.
func (s *Service) Get(ctx context.Context, orgID, id int64) (Report, error) {
	st, err := scanStatement(s.Pool.QueryRow(ctx, statementSQL, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Report{}, apperr.New(apperr.NotFound, "bank statement %d not found", id)
	}
	if err != nil {
		return Report{}, fmt.Errorf("bankstatement: read import %d: %w", id, err)
	}
	rows, err := s.Pool.Query(ctx, unmatchedSQL, id)
	if err != nil {
		return Report{}, fmt.Errorf("bankstatement: read unmatched lines of import %d: %w", id, err)
	}
	st.UnmatchedEntries, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Line, error) {
		var l Line
		var amount, date string
		err := r.Scan(&l.Line, &amount, &l.Currency, &l.Direction, &l.Status, &date, &l.Reference, &l.EndToEndID, &l.ReturnReason,
			&l.Reason, &l.Detail, &l.ItemID)
		l.Amount = decimalString(amount)
		if date != "" {
			l.BookingDate = &date
		}
		return l, err
	})
	if err != nil {
		return Report{}, fmt.Errorf("bankstatement: read unmatched lines of import %d: %w", id, err)
	}
	return st, nil
}

// List returns the org's latest imports, newest first, without their lines.
func (s *Service) List(ctx context.Context, orgID int64, limit int) ([]Report, error) {
	rows, err := s.Pool.Query(ctx, listStatementsSQL, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("bankstatement: list imports: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Report, error) { return scanStatement(r) })
	if err != nil {
		return nil, fmt.Errorf("bankstatement: list imports: %w", err)
	}
	return list, nil
}

// Resume finishes every import a crash left incomplete, as the system, and
// returns how many it finished. An upload of the same bytes meanwhile
// waits for the lines it is reconciling, so each line is reconciled once.
func (s *Service) Resume(ctx context.Context) (int, error) {
	rows, err := s.Pool.Query(ctx, incompleteSQL)
	if err != nil {
		return 0, fmt.Errorf("bankstatement: list incomplete imports: %w", err)
	}
	type pending struct{ id, orgID int64 }
	var list []pending
	var p pending
	if _, err := pgx.ForEachRow(rows, []any{&p.id, &p.orgID}, func() error { list = append(list, p); return nil }); err != nil {
		return 0, fmt.Errorf("bankstatement: list incomplete imports: %w", err)
	}
	for i, p := range list {
		if _, err := s.finish(ctx, p.orgID, p.id, audit.System("bankstatement")); err != nil {
			return i, err
		}
	}
	return len(list), nil
}

// decimalString writes a stored amount with two decimals, or as many as
// it has beyond them.
func decimalString(stored string) string {
	a, err := decimal.NewFromString(stored)
	if err != nil {
		return stored
	}
	places := 2
	if _, frac, ok := strings.Cut(a.String(), "."); ok {
		places = max(places, len(frac))
	}
	return a.StringFixed(int32(places))
}
