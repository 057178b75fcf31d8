package webhooks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/org"
	"greatbook/internal/queue"
	"greatbook/internal/storable"
)

// DeadLetterPage is how many dead deliveries the page lists.
const DeadLetterPage = 500

// DeadLetterFilter selects dead deliveries. Empty fields do not filter.
type DeadLetterFilter struct {
	Endpoint  string // an endpoint id
	EventType string // exact
	From, To  string // YYYY-MM-DD, the delivery's last attempt
}

// DeadLetter is a delivery whose attempts are spent.
type DeadLetter struct {
	ID, EndpointID int64
	URL            string
	EventID        string
	EventType      string
	Attempts       int
	Revivals       int
	LastStatus     *int
	LastError      string
	UpdatedAt      time.Time
}

func (f DeadLetterFilter) where(orgID int64) (string, []any, error) {
	where := []string{deliveriesOfOrgSQL, deadDeliverySQL}
	args := []any{orgID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if err := storable.CheckParameters(storable.Param{Name: "event_type", Value: f.EventType, Max: 100},
		storable.Param{Name: "endpoint", Value: f.Endpoint, Max: 20}); err != nil {
		return "", nil, err
	}
	if s := strings.TrimSpace(f.Endpoint); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return "", nil, apperr.New(apperr.Invalid, "endpoint must be an endpoint's number")
		}
		where = append(where, "d.endpoint_id = "+arg(id))
	}
	if s := strings.TrimSpace(f.EventType); s != "" {
		where = append(where, "d.event_type = "+arg(s))
	}
	days, err := database.DayRange("d.updated_at", f.From, f.To, arg)
	if err != nil {
		return "", nil, err
	}
	where = append(where, days...)
	return strings.Join(where, " AND "), args, nil
}

// DeadLetters lists an org's dead deliveries, the most recently failed
// first, at most DeadLetterPage; CountDeadLetters says how many in all.
func DeadLetters(ctx context.Context, q database.Executor, orgID int64, f DeadLetterFilter) ([]DeadLetter, error) {
	where, args, err := f.where(orgID)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, deadLettersSQL+where+fmt.Sprintf(deadLettersPageSQL, DeadLetterPage), args...)
	if err != nil {
		return nil, fmt.Errorf("webhooks: dead letters: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (DeadLetter, error) {
		var d DeadLetter
		err := r.Scan(&d.ID, &d.EndpointID, &d.URL, &d.EventID, &d.EventType, &d.Attempts, &d.Revivals, &d.LastStatus, &d.LastError, &d.UpdatedAt)
		return d, err
	})
}

// CountDeadLetters counts the dead deliveries a filter matches.
func CountDeadLetters(ctx context.Context, q database.Executor, orgID int64, f DeadLetterFilter) (int, error) {
	where, args, err := f.where(orgID)
	if err != nil {
		return 0, err
	}
	var n int
	if err := q.QueryRow(ctx, countDeadLettersSQL+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("webhooks: count dead letters: %w", err)
	}
	return n, nil
}

// DryRun is what a bulk retry would revive: how many dead deliveries a
// filter matches and a digest of which; the confirmation brings both back.
type DryRun = queue.DryRun

// BulkRetry is the outcome of a bulk retry.
type BulkRetry struct {
	Matched int
	Revived int
}

// DryRunRetry is the dry run of RetryMatching.
func DryRunRetry(ctx context.Context, q database.Executor, orgID int64, f DeadLetterFilter) (DryRun, error) {
	where, args, err := f.where(orgID)
	if err != nil {
		return DryRun{}, err
	}
	dry, err := deliveries.Matching(ctx, q, where, args)
	if err != nil {
		return DryRun{}, fmt.Errorf("webhooks: %w", err)
	}
	return dry, nil
}

// RetryMatching revives every dead delivery a filter matches, with a
// reason, provided they are still the very set the admin saw in the dry
// run: in one transaction that locks them, checks the set, revives them
// (pending, due now, a fresh round of attempts) and audits the retry.
func (s *Service) RetryMatching(ctx context.Context, orgID int64, f DeadLetterFilter, reason string, confirmed DryRun, actor audit.Actor) (BulkRetry, error) {
	if err := needReason(reason); err != nil {
		return BulkRetry{}, err
	}
	where, args, err := f.where(orgID)
	if err != nil {
		return BulkRetry{}, err
	}
	ctx = context.WithoutCancel(ctx)
	res, err := database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (BulkRetry, error) {
		matched, revived, err := deliveries.ReviveMatching(ctx, tx, where, args, confirmed)
		res := BulkRetry{Matched: matched, Revived: revived}
		if err != nil {
			return res, err
		}
		return res, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor,
			Action: "webhook_bulk_retry", Detail: map[string]any{"reason": reason, "matched": matched, "filter": f}})
	})
	if err == nil && res.Revived > 0 {
		s.nudge()
	}
	return res, err
}

// Retry revives one dead delivery of an org, with a reason.
func (s *Service) Retry(ctx context.Context, orgID, deliveryID int64, reason string, actor audit.Actor) error {
	if err := needReason(reason); err != nil {
		return err
	}
	err := database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		if err := deliveries.Revive(ctx, tx, org.Only(orgID), deliveryID); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "webhook_retry",
			SubjectType: "webhook_delivery", SubjectID: deliveryID, FromStatus: "dead", ToStatus: "pending", Detail: map[string]any{"reason": reason}})
	})
	if err == nil {
		s.nudge()
	}
	return err
}

// needReason refuses an operator's retry without a reason.
func needReason(reason string) error {
	if strings.TrimSpace(reason) == "" {
		return apperr.New(apperr.Invalid, "say why you retry (a reason is required)").
			With("reasons", []map[string]string{{"field": "reason", "message": "is required"}})
	}
	return nil
}
