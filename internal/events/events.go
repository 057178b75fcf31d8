// Package events is the event feed of an org: every change of a document or
// a bookkeeping job, as a typed projection of the audit trail, in commit
// order and replayable from any cursor (docs/api.md: GET /api/v1/events and
// "The event feed").
//
// The audit trail is the durable record: every change writes its audit row
// in its own transaction, so an event exists exactly when its change
// commits. The feed's order is the order of the writing transactions' ids
// among committed transactions, then the rows' ids within one transaction;
// a reader only returns rows of transactions older than every transaction
// still running, so a row can never later appear before a cursor already
// handed out (no gaps), and a cursor is a position in that order (no
// duplicates when a consumer resumes from it).
package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
)

// The event types of the feed (docs/api.md, "The event feed").
const (
	DocumentReceived = "document.received"
	DocumentFiled    = "document.filed"
	DocumentTypedIn  = "document.typed_in"
	DocumentApproved = "document.approved"
	// DocumentApprovalRecorded is an approval short of the count the org's
	// approval policy asks: the status stays, nothing is launched.
	DocumentApprovalRecorded = "document.approval_recorded"
	DocumentRejected         = "document.rejected"
	DocumentMarkedDistinct   = "document.marked_distinct"
	DocumentPosted           = "document.posted"
	JobLaunched              = "job.launched"
	JobRetried               = "job.retried"
	JobFailed                = "job.failed"
	JobAbandoned             = "job.abandoned"
	// A pay run's changes: proposed, approved, its file first downloaded
	// (sent), cancelled.
	PaymentRunProposed  = "payment.run_proposed"
	PaymentRunApproved  = "payment.run_approved"
	PaymentRunSent      = "payment.run_sent"
	PaymentRunCancelled = "payment.run_cancelled"
	// A bank statement showed a payment booked (paid), or given back
	// (returned).
	PaymentPaid     = "payment.paid"
	PaymentReturned = "payment.returned"
)

// Types are every event type the feed shows, in the order above.
var Types = []string{DocumentReceived, DocumentFiled, DocumentTypedIn, DocumentApprovalRecorded, DocumentApproved, DocumentRejected,
	DocumentMarkedDistinct, DocumentPosted, JobLaunched, JobRetried, JobFailed, JobAbandoned,
	PaymentRunProposed, PaymentRunApproved, PaymentRunSent, PaymentRunCancelled, PaymentPaid, PaymentReturned}

// The audit actions the feed projects; every other audit row (sign-ins,
// settings, typewriter versions) is not a change of a document or job.
const (
	ActionReceived         = "received"
	ActionFiled            = "filed"
	ActionTypedIn          = "typed_in"
	ActionApprove          = "approve"
	ActionApprovalRecorded = "approval_recorded"
	ActionReject           = "reject"
	ActionNotADuplicate    = "not_a_duplicate"
	ActionPosted           = "posted"
	ActionJobLaunched      = "job_launched"
	ActionLaunchFailed     = "launch_failed"
	ActionRunFailed        = "run_failed"
	// The pay runs' actions (internal/payments).
	ActionPaymentRunProposed  = "payment_run_proposed"
	ActionPaymentRunApproved  = "payment_run_approved"
	ActionPaymentRunSent      = "payment_run_sent"
	ActionPaymentRunCancelled = "payment_run_cancelled"
	// A payment item's changes a bank statement makes (internal/bankstatement).
	ActionPaymentPaid     = "payment_paid"
	ActionPaymentReturned = "payment_returned"
)

// RetryTriggerPrefix starts the trigger of a launch an operator asked for
// (intake's Outbox.Retry): such a launch is a job.retried.
const RetryTriggerPrefix = "operator: "

// Limits of one read of the feed.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// An event id is two fixed-width hex numbers, so ids sort as strings.
const (
	idDigits     = 16
	cursorLength = 2 * idDigits
)

// feedActions are the audit actions Read returns, in no order.
var feedActions = []string{ActionReceived, ActionFiled, ActionTypedIn, ActionApprovalRecorded, ActionApprove, ActionReject, ActionNotADuplicate,
	ActionPosted, ActionJobLaunched, ActionLaunchFailed, ActionRunFailed,
	ActionPaymentRunProposed, ActionPaymentRunApproved, ActionPaymentRunSent, ActionPaymentRunCancelled,
	ActionPaymentPaid, ActionPaymentReturned}

// Event is one change, as the API shows it.
type Event struct {
	// ID is opaque and ordered: ids compare as strings in feed order, and
	// an event's id is the cursor that resumes the feed after it.
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	OccurredAt time.Time      `json:"occurred_at"`
	IntakeID   *int64         `json:"intake_id"`
	JobID      *int64         `json:"job_id"`
	EntryID    *int64         `json:"entry_id"`
	Actor      string         `json:"actor"`
	Data       map[string]any `json:"data"`
}

// position is a place in the feed: after the row id of transaction xact.
type position struct{ xact, id uint64 }

func (p position) String() string { return fmt.Sprintf("%0*x%0*x", idDigits, p.xact, idDigits, p.id) }

// parseCursor reads a cursor Read handed out ("" is the beginning).
func parseCursor(s string) (position, error) {
	if s == "" {
		return position{}, nil
	}
	bad := func() error {
		msg := "is not a cursor this feed gave (an event's id or a next_cursor)"
		return apperr.New(apperr.Invalid, "after %s", msg).With("reasons", []map[string]string{{"field": "after", "message": msg}})
	}
	if len(s) != cursorLength || strings.ToLower(s) != s {
		return position{}, bad()
	}
	xact, err1 := strconv.ParseUint(s[:idDigits], 16, 64)
	id, err2 := strconv.ParseUint(s[idDigits:], 16, 64)
	if err1 != nil || err2 != nil {
		return position{}, bad()
	}
	return position{xact: xact, id: id}, nil
}

// Read returns up to limit events of org orgID after cursor after ("" is
// the beginning), oldest first, and the cursor that continues after them
// (after itself when there are none yet). limit 0 means DefaultLimit.
func Read(ctx context.Context, q database.Executor, orgID int64, after string, limit int) (events []Event, next string, err error) {
	return read(ctx, q, readSQL, orgID, after, limit)
}

// read is Read with its query: readSQL (the mutation tests pass one without
// the horizon to prove the concurrency tests catch the gap).
func read(ctx context.Context, q database.Executor, query string, orgID int64, after string, limit int) (events []Event, next string, err error) {
	from, err := parseCursor(after)
	if err != nil {
		return nil, after, err
	}
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		msg := fmt.Sprintf("must be between 1 and %d", MaxLimit)
		return nil, after, apperr.New(apperr.Invalid, "limit %s", msg).With("reasons", []map[string]string{{"field": "limit", "message": msg}})
	}
	rows, err := q.Query(ctx, query, orgID, strconv.FormatUint(from.xact, 10), int64(from.id), feedActions, limit)
	if err != nil {
		return nil, after, fmt.Errorf("events: read feed: %w", err)
	}
	defer rows.Close()
	next = after
	events = []Event{}
	for rows.Next() {
		var r row
		var xact string
		if err := rows.Scan(&xact, &r.id, &r.action, &r.subjectType, &r.subjectID, &r.fromStatus, &r.toStatus,
			&r.actor, &r.detail, &r.createdAt); err != nil {
			return nil, after, fmt.Errorf("events: read feed: %w", err)
		}
		x, err := strconv.ParseUint(xact, 10, 64)
		if err != nil {
			return nil, after, fmt.Errorf("events: read feed: transaction id %q: %w", xact, err)
		}
		r.pos = position{xact: x, id: uint64(r.id)}
		e := r.event()
		events = append(events, e)
		next = e.ID
	}
	if err := rows.Err(); err != nil {
		return nil, after, fmt.Errorf("events: read feed: %w", err)
	}
	return events, next, nil
}

// Head returns the cursor after the org's last event the feed shows now
// ("" when there is none): where a consumer starts that wants only what
// happens from now on. One statement, whatever the org's history.
func Head(ctx context.Context, q database.Executor, orgID int64) (string, error) {
	var xact string
	var id int64
	err := q.QueryRow(ctx, headSQL, orgID, feedActions).Scan(&xact, &id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("events: the feed's head: %w", err)
	}
	x, err := strconv.ParseUint(xact, 10, 64)
	if err != nil {
		return "", fmt.Errorf("events: the feed's head: transaction id %q: %w", xact, err)
	}
	return position{xact: x, id: uint64(id)}.String(), nil
}

// row is one audit row of the feed.
type row struct {
	pos                         position
	id                          int64
	action, subjectType         string
	subjectID                   int64
	fromStatus, toStatus, actor string
	detail                      map[string]any
	createdAt                   time.Time
}

// event projects an audit row onto the feed.
func (r row) event() Event {
	e := Event{ID: r.pos.String(), OccurredAt: r.createdAt.UTC(), Actor: r.actor, Data: map[string]any{}}
	if r.subjectType == "intake" && r.subjectID != 0 {
		e.IntakeID = ptr(r.subjectID)
	}
	if id, ok := number(r.detail["job_id"]); ok {
		e.JobID = ptr(id)
	}
	if id, ok := number(r.detail["entry_id"]); ok {
		e.EntryID = ptr(id)
	}
	copyData := func(keys ...string) {
		for _, k := range keys {
			if v, ok := r.detail[k]; ok {
				e.Data[k] = v
			}
		}
	}
	status := func() {
		e.Data["from_status"] = orNull(r.fromStatus)
		e.Data["status"] = orNull(r.toStatus)
	}
	switch r.action {
	case ActionReceived:
		e.Type = DocumentReceived
		copyData("media_type", "filename", "size_bytes", "via")
	case ActionFiled:
		e.Type = DocumentFiled
		status()
		e.Data["flag_reason"] = nil
		copyData("flag_reason", "duplicate_of", "doc_type", "source_ref")
	case ActionTypedIn:
		e.Type = DocumentTypedIn
		status()
		copyData("number", "duplicate_of")
	case ActionApprovalRecorded:
		e.Type = DocumentApprovalRecorded
		status()
		copyData("approvals", "approvals_required")
	case ActionApprove:
		e.Type = DocumentApproved
		status()
		copyData("acknowledged_invalid", "reason", "approvals", "approvals_required")
	case ActionReject:
		e.Type = DocumentRejected
		status()
		copyData("reason")
	case ActionNotADuplicate:
		e.Type = DocumentMarkedDistinct
		status()
		copyData("reason", "was_duplicate_of", "duplicate_reason")
	case ActionPosted:
		e.Type = DocumentPosted
		status()
		copyData("replayed", "account")
	case ActionJobLaunched:
		e.Type = JobLaunched
		trigger, _ := r.detail["trigger"].(string)
		if reason, ok := strings.CutPrefix(trigger, RetryTriggerPrefix); ok {
			e.Type = JobRetried
			e.Data["reason"] = reason
		}
		e.Data["from_status"] = orNull(r.fromStatus)
		e.Data["status"] = orNull(r.toStatus)
		copyData("attempt", "run_id", "trigger")
	case ActionLaunchFailed, ActionRunFailed:
		e.Type = JobFailed
		if r.toStatus == "abandoned" {
			e.Type = JobAbandoned
		}
		e.Data["stage"] = "launch"
		if r.action == ActionRunFailed {
			e.Data["stage"] = "run"
		}
		e.Data["status"] = orNull(r.toStatus)
		copyData("attempt", "run_id", "error", "error_class", "trigger")
	case ActionPaymentRunProposed, ActionPaymentRunApproved, ActionPaymentRunSent, ActionPaymentRunCancelled:
		e.Type = "payment.run_" + strings.TrimPrefix(r.action, "payment_run_")
		status()
		copyData("run_id", "items", "total", "execution_date", "blocked")
	case ActionPaymentPaid, ActionPaymentReturned:
		e.Type = PaymentPaid
		if r.action == ActionPaymentReturned {
			e.Type = PaymentReturned
		}
		if id, ok := number(r.detail["intake_id"]); ok {
			e.IntakeID = ptr(id)
		}
		status()
		copyData("item_id", "run_id", "amount", "currency", "end_to_end_id", "bank_statement_id", "booking_date", "return_reason")
	default:
		e.Type = r.action
	}
	return e
}

func ptr(v int64) *int64 { return &v }

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// number reads a JSON number (decoded as float64) or integer of a detail.
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		return int64(n), n != 0
	case int64:
		return n, n != 0
	case int:
		return int64(n), n != 0
	}
	return 0, false
}
