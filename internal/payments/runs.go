package payments

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/apchecks"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/failpoint"
)

// FailpointAfterSent is after the transaction that marked a run sent
// committed, before its file is handed back: a crash there must leave the
// next download the same bytes, and nothing done twice.
const FailpointAfterSent = "payments/export/after-sent"

// FailpointBeforeItems is inside a proposal, after it read what is payable
// and before it puts the invoices in its run: where two proposals race.
const FailpointBeforeItems = "payments/propose/before-items"

// Service proposes, approves, cancels and exports an org's pay runs.
type Service struct {
	Pool *pgxpool.Pool
	// Failpoints act at FailpointBeforeItems and FailpointAfterSent (nil:
	// failpoint.Env).
	Failpoints failpoint.Injector
}

func (s *Service) inject(ctx context.Context, name string) error {
	if s.Failpoints == nil {
		return failpoint.Env{}.Inject(ctx, name)
	}
	return s.Failpoints.Inject(ctx, name)
}

// Debtor is the org's account a run pays from.
type Debtor struct {
	Name string `json:"name"`
	IBAN string `json:"iban"`
	BIC  string `json:"bic"`
}

// Item is one invoice in a run.
type Item struct {
	ID            int64    `json:"id"`
	IntakeID      int64    `json:"intake_id"`
	Status        string   `json:"status"`
	Amount        string   `json:"amount"`
	Currency      string   `json:"currency"`
	Creditor      Creditor `json:"creditor"`
	EndToEndID    string   `json:"end_to_end_id"`
	InvoiceNumber string   `json:"invoice_number"`
	// CreditNoteID is the credit note netted against the invoice, and
	// Credited its amount, already taken off Amount.
	CreditNoteID     *int64 `json:"credit_note_id,omitempty"`
	Credited         string `json:"credited,omitempty"`
	CreditNoteNumber string `json:"-"`
}

// Run is a pay run as the API shows it.
type Run struct {
	ID            int64      `json:"id"`
	Status        string     `json:"status"`
	ExecutionDate string     `json:"execution_date"`
	DueUntil      string     `json:"due_until"`
	Currency      string     `json:"currency"`
	Total         string     `json:"total"`
	Debtor        Debtor     `json:"debtor"`
	ProposedBy    string     `json:"proposed_by"`
	ProposedAt    time.Time  `json:"proposed_at"`
	ApprovedBy    *string    `json:"approved_by"`
	ApprovedAt    *time.Time `json:"approved_at"`
	SentAt        *time.Time `json:"sent_at"`
	CancelledBy   *string    `json:"cancelled_by"`
	CancelledAt   *time.Time `json:"cancelled_at"`
	// ItemCount is how many items the run holds (the listing leaves Items
	// out).
	ItemCount int    `json:"item_count"`
	Items     []Item `json:"items"`
	// Blocked are the posted documents a proposal due until DueUntil would
	// not take, and why: as the proposal found them, and for a run still
	// proposed as they stand now (an IBAN confirmed since unblocks).
	Blocked []Blocked `json:"blocked"`

	orgID int64
}

// Proposal is what an admin asks a run to pay.
type Proposal struct {
	ExecutionDate string `json:"execution_date"`
	DueUntil      string `json:"due_until"`
}

func invalid(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return apperr.New(apperr.Invalid, "%s %s", field, msg).With("reasons", []map[string]string{{"field": field, "message": msg}})
}

func (p Proposal) dates() (exec, due time.Time, err error) {
	if !validDate(p.ExecutionDate) {
		return exec, due, invalid("execution_date", "must be a date (YYYY-MM-DD)")
	}
	if p.DueUntil == "" {
		p.DueUntil = p.ExecutionDate
	}
	if !validDate(p.DueUntil) {
		return exec, due, invalid("due_until", "must be a date (YYYY-MM-DD)")
	}
	exec, _ = time.Parse(time.DateOnly, p.ExecutionDate)
	due, _ = time.Parse(time.DateOnly, p.DueUntil)
	return exec, due, nil
}

// Propose creates a run of every payable posted EUR invoice due until the
// proposal's date that is in no live item, from the org's bank account, and
// lists what it blocked. It refuses when the org has no bank account.
func (s *Service) Propose(ctx context.Context, orgID int64, p Proposal, actor audit.Actor) (Run, error) {
	exec, due, err := p.dates()
	if err != nil {
		return Run{}, err
	}
	return database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (Run, error) {
		var d Debtor
		if err := tx.QueryRow(ctx, debtorSQL, orgID).Scan(&d.Name, &d.IBAN, &d.BIC); err != nil {
			return Run{}, fmt.Errorf("payments: read the org's account: %w", err)
		}
		if d.IBAN == "" {
			return Run{}, apperr.New(apperr.Invalid, "the org has no bank account to pay from: set its IBAN in the org settings first").
				With("reasons", []map[string]string{{"field": "bank_iban", "message": "the org has no bank account"}})
		}
		var id int64
		if err := tx.QueryRow(ctx, insertRunSQL, orgID, exec, due, d.Name, d.IBAN, d.BIC, actor.Label).Scan(&id); err != nil {
			return Run{}, fmt.Errorf("payments: create run: %w", err)
		}
		pay, blocked, err := payables(ctx, tx, orgID, due)
		if err != nil {
			return Run{}, err
		}
		if err := s.inject(ctx, FailpointBeforeItems); err != nil {
			return Run{}, err
		}
		if len(pay) > 0 {
			var ids, notes []int64
			var amounts, names, ibans, bics, credited []string
			for _, p := range pay {
				ids = append(ids, p.intakeID)
				amounts = append(amounts, p.amount.String())
				names = append(names, creditorName(p))
				ibans = append(ibans, p.iban)
				bics = append(bics, p.bic)
				notes = append(notes, p.creditNote)
				credited = append(credited, p.credited.String())
			}
			if _, err := tx.Exec(ctx, insertItemsSQL, id, orgID, ids, amounts, names, ibans, bics, notes, credited); err != nil {
				return Run{}, fmt.Errorf("payments: put items in run %d: %w", id, err)
			}
		}
		run, err := readRun(ctx, tx, runSQL, orgID, id)
		if err != nil {
			return Run{}, err
		}
		if blocked != nil {
			run.Blocked = blocked
		}
		if err := record(ctx, tx, run, actor, ActionRunProposed, "", map[string]any{"blocked": len(blocked)}); err != nil {
			return Run{}, err
		}
		return run, nil
	})
}

// creditorName is the name the file gives the creditor (at most 70
// characters, as SEPA allows).
func creditorName(p payable) string {
	name := strings.TrimSpace(p.name)
	if name == "" {
		name = p.supplierKey
	}
	if r := []rune(name); len(r) > 70 {
		name = string(r[:70])
	}
	return name
}

// payables reads the org's posted documents not in a live item and splits
// them into what a run due until due pays and what it blocks.
func payables(ctx context.Context, q database.Executor, orgID int64, due time.Time) ([]payable, []Blocked, error) {
	rows, err := q.Query(ctx, payablesSQL, orgID)
	if err != nil {
		return nil, nil, fmt.Errorf("payments: read payables: %w", err)
	}
	docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (payable, error) {
		var p payable
		var sourceRef, amount string
		err := r.Scan(&p.intakeID, &p.docType, &sourceRef, &p.number, &p.name, &p.currency, &amount, &p.dueDate, &p.iban, &p.bic,
			&p.billingRef)
		p.supplierKey = supplierKey(sourceRef)
		p.iban = apchecks.NormalizeIBAN(p.iban)
		p.bic = strings.ToUpper(strings.TrimSpace(p.bic))
		if !bicPattern.MatchString(p.bic) {
			p.bic = ""
		}
		p.amount, _ = decimal.NewFromString(amount)
		return p, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("payments: read payables: %w", err)
	}
	acc := accounts{lastPaid: map[string]string{}, confirmed: map[string]bool{}, corrections: map[string]string{}}
	if err := pairs(ctx, q, lastPaidSQL, orgID, func(k, v string) { acc.lastPaid[k] = v }); err != nil {
		return nil, nil, err
	}
	rows, err = q.Query(ctx, confirmedSQL, orgID)
	if err != nil {
		return nil, nil, fmt.Errorf("payments: read confirmed accounts: %w", err)
	}
	var supplier, iban, replaces string
	_, err = pgx.ForEachRow(rows, []any{&supplier, &iban, &replaces}, func() error {
		acc.confirmed[supplier+" "+iban] = true
		if replaces != "" {
			acc.corrections[supplier+" "+replaces] = iban
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("payments: read confirmed accounts: %w", err)
	}
	pay, blocked := classify(docs, due, acc)
	return pay, blocked, nil
}

func pairs(ctx context.Context, q database.Executor, query string, orgID int64, add func(k, v string)) error {
	rows, err := q.Query(ctx, query, orgID)
	if err != nil {
		return fmt.Errorf("payments: read suppliers' accounts: %w", err)
	}
	var k, v string
	_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error { add(k, v); return nil })
	if err != nil {
		return fmt.Errorf("payments: read suppliers' accounts: %w", err)
	}
	return nil
}

// Get returns a run with its items; a proposed run also with what is
// blocked now.
func (s *Service) Get(ctx context.Context, orgID, id int64) (Run, error) {
	run, err := readRun(ctx, s.Pool, runSQL, orgID, id)
	if err != nil || run.Status != RunProposed {
		return run, err
	}
	due, _ := time.Parse(time.DateOnly, run.DueUntil)
	_, run.Blocked, err = payables(ctx, s.Pool, orgID, due)
	if run.Blocked == nil {
		run.Blocked = []Blocked{}
	}
	return run, err
}

// List returns the org's latest runs, newest first, without their items.
func (s *Service) List(ctx context.Context, orgID int64, limit int) ([]Run, error) {
	rows, err := s.Pool.Query(ctx, listRunsSQL, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("payments: list runs: %w", err)
	}
	runs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Run, error) { return scanRun(r) })
	if err != nil {
		return nil, fmt.Errorf("payments: list runs: %w", err)
	}
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	rows, err = s.Pool.Query(ctx, runTotalsSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("payments: list runs: %w", err)
	}
	var id int64
	var count int
	var total decimal.Decimal
	_, err = pgx.ForEachRow(rows, []any{&id, &count, &total}, func() error {
		i := slices.Index(ids, id)
		runs[i].ItemCount, runs[i].Total = count, total.StringFixed(2)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("payments: list runs: %w", err)
	}
	return runs, nil
}

func scanRun(row pgx.Row) (Run, error) {
	r := Run{Items: []Item{}, Blocked: []Blocked{}, Total: "0.00"}
	err := row.Scan(&r.ID, &r.orgID, &r.Status, &r.ExecutionDate, &r.DueUntil, &r.Currency, &r.Debtor.Name, &r.Debtor.IBAN,
		&r.Debtor.BIC, &r.ProposedBy, &r.ProposedAt, &r.ApprovedBy, &r.ApprovedAt, &r.SentAt, &r.CancelledBy, &r.CancelledAt)
	return r, err
}

// readRun reads run id of the org and its items with query (runSQL, or
// lockRunSQL inside a transaction).
func readRun(ctx context.Context, q database.Executor, query string, orgID, id int64) (Run, error) {
	r, err := scanRun(q.QueryRow(ctx, query, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Run{}, apperr.New(apperr.NotFound, "pay run %d not found", id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("payments: read run %d: %w", id, err)
	}
	rows, err := q.Query(ctx, itemsSQL, id)
	if err != nil {
		return Run{}, fmt.Errorf("payments: read items of run %d: %w", id, err)
	}
	total := decimal.Zero
	r.Items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Item, error) {
		var it Item
		var credited string
		err := row.Scan(&it.ID, &it.IntakeID, &it.Status, &it.Amount, &it.Currency, &it.Creditor.Name, &it.Creditor.IBAN,
			&it.Creditor.BIC, &it.EndToEndID, &it.InvoiceNumber, &it.CreditNoteID, &credited, &it.CreditNoteNumber)
		if c, err := decimal.NewFromString(credited); err == nil {
			it.Credited = c.StringFixed(2)
		}
		amount, _ := decimal.NewFromString(it.Amount)
		total = total.Add(amount)
		it.Amount = amount.StringFixed(2)
		return it, err
	})
	if err != nil {
		return Run{}, fmt.Errorf("payments: read items of run %d: %w", id, err)
	}
	r.Total, r.ItemCount = total.StringFixed(2), len(r.Items)
	return r, nil
}

// change runs fn on run id with the run's row lock held, and reads the run
// back after it.
func (s *Service) change(ctx context.Context, orgID, id int64, fn func(tx pgx.Tx, r Run) error) (Run, error) {
	return database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (Run, error) {
		// The run's row lock first: every change of a run and its export
		// take it, so they happen one after the other.
		r, err := readRun(ctx, tx, lockRunSQL, orgID, id)
		if err != nil {
			return Run{}, err
		}
		if err := fn(tx, r); err != nil {
			return Run{}, err
		}
		return readRun(ctx, tx, runSQL, orgID, id)
	})
}

func wrongState(r Run, what string, allowed ...string) error {
	if slices.Contains(allowed, r.Status) {
		return nil
	}
	return apperr.New(apperr.InvalidState, "pay run %d is %s: only a run %s can be %s", r.ID, r.Status, strings.Join(allowed, " or "), what)
}

// Approve approves a proposed run that has items.
func (s *Service) Approve(ctx context.Context, orgID, id int64, actor audit.Actor) (Run, error) {
	return s.change(ctx, orgID, id, func(tx pgx.Tx, r Run) error {
		if err := wrongState(r, "approved", RunProposed); err != nil {
			return err
		}
		if len(r.Items) == 0 {
			return apperr.New(apperr.InvalidState, "pay run %d has no items to pay", id)
		}
		if _, err := tx.Exec(ctx, approveRunSQL, id, actor.Label); err != nil {
			return fmt.Errorf("payments: approve run %d: %w", id, err)
		}
		return record(ctx, tx, r, actor, ActionRunApproved, RunApproved, nil)
	})
}

// Cancel cancels a run whose file was not downloaded, and releases its
// items: their invoices may be paid in another run.
func (s *Service) Cancel(ctx context.Context, orgID, id int64, actor audit.Actor) (Run, error) {
	return s.change(ctx, orgID, id, func(tx pgx.Tx, r Run) error {
		if err := wrongState(r, "cancelled", RunProposed, RunApproved); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, cancelRunSQL, id, actor.Label); err != nil {
			return fmt.Errorf("payments: cancel run %d: %w", id, err)
		}
		if _, err := tx.Exec(ctx, cancelItemsSQL, id); err != nil {
			return fmt.Errorf("payments: release items of run %d: %w", id, err)
		}
		return record(ctx, tx, r, actor, ActionRunCancelled, RunCancelled, nil)
	})
}

// RemoveItem takes an item out of a proposed run: its invoice may be paid
// in another run.
func (s *Service) RemoveItem(ctx context.Context, orgID, runID, itemID int64, actor audit.Actor) (Run, error) {
	return s.change(ctx, orgID, runID, func(tx pgx.Tx, r Run) error {
		if err := wrongState(r, "changed", RunProposed); err != nil {
			return err
		}
		var intakeID int64
		err := tx.QueryRow(ctx, removeItemSQL, runID, itemID).Scan(&intakeID)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "pay run %d has no item %d", runID, itemID)
		}
		if err != nil {
			return fmt.Errorf("payments: remove item %d: %w", itemID, err)
		}
		return record(ctx, tx, r, actor, ActionItemRemoved, "", map[string]any{"item_id": itemID, "intake_id": intakeID})
	})
}

func record(ctx context.Context, tx pgx.Tx, r Run, actor audit.Actor, action, to string, detail map[string]any) error {
	if detail == nil {
		detail = map[string]any{}
	}
	detail["run_id"] = r.ID
	if action == ActionRunProposed {
		detail["items"] = len(r.Items)
		detail["total"] = r.Total
		detail["execution_date"] = r.ExecutionDate
	}
	from := r.Status
	if action == ActionRunProposed {
		from, to = "", RunProposed
	}
	return audit.Record(ctx, tx, audit.Event{OrgID: r.orgID, Actor: actor, Action: action, SubjectType: "payment_run", SubjectID: r.ID,
		FromStatus: from, ToStatus: to, Detail: detail})
}

// Export returns the run's pain.001.001.09 file. The first download of an
// approved run marks it and its items sent, in one transaction with its
// audit event; every download, the first and the later ones, builds the file
// from the stored run alone, so it is the same bytes each time.
func (s *Service) Export(ctx context.Context, orgID, id int64, actor audit.Actor) ([]byte, error) {
	var file []byte
	_, err := s.change(ctx, orgID, id, func(tx pgx.Tx, r Run) error {
		if err := wrongState(r, "downloaded", RunApproved, RunSent); err != nil {
			return err
		}
		if r.Status == RunApproved {
			if _, err := tx.Exec(ctx, markSentSQL, id); err != nil {
				return fmt.Errorf("payments: mark run %d sent: %w", id, err)
			}
			if _, err := tx.Exec(ctx, markItemsSentSQL, id); err != nil {
				return fmt.Errorf("payments: mark items of run %d sent: %w", id, err)
			}
			if err := record(ctx, tx, r, actor, ActionRunSent, RunSent, map[string]any{"items": len(r.Items), "total": r.Total}); err != nil {
				return err
			}
		}
		var err error
		file, err = pain001(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.inject(ctx, FailpointAfterSent); err != nil {
		return nil, err
	}
	return file, nil
}

// Confirmation is a supplier's bank account an admin confirmed.
type Confirmation struct {
	IntakeID    int64  `json:"intake_id"`
	SupplierKey string `json:"supplier_key"`
	IBAN        string `json:"iban"`
	// Replaces is the IBAN the invoice states, when the admin confirmed
	// another account in its place ("" when they confirmed the stated one).
	Replaces    string    `json:"replaces,omitempty"`
	ConfirmedBy string    `json:"confirmed_by"`
	ConfirmedAt time.Time `json:"confirmed_at"`
}

// ConfirmIBAN confirms a posted invoice's creditor account as its
// supplier's: the IBAN the invoice states when corrected is "", else the
// corrected IBAN in its place (an invoice stating an invalid IBAN can only
// be paid that way); the supplier's invoices stating the same IBAN are then
// paid to the corrected one. Four eyes: the admin who confirms must not be
// one who approved the invoice. Confirming again is a no-op; a stated IBAN
// corrected once cannot be corrected to another account (a conflict).
func (s *Service) ConfirmIBAN(ctx context.Context, orgID, intakeID int64, corrected string, actor audit.Actor) (Confirmation, error) {
	return database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (Confirmation, error) {
		var status, docType, sourceRef, iban, decidedBy string
		var approvers []string
		var approverIDs []int64
		err := tx.QueryRow(ctx, documentAccountSQL, orgID, intakeID).Scan(&status, &docType, &sourceRef, &iban, &decidedBy, &approvers, &approverIDs)
		if errors.Is(err, pgx.ErrNoRows) {
			return Confirmation{}, apperr.New(apperr.NotFound, "document %d not found", intakeID)
		}
		if err != nil {
			return Confirmation{}, fmt.Errorf("payments: read document %d: %w", intakeID, err)
		}
		stated := apchecks.NormalizeIBAN(iban)
		c := Confirmation{IntakeID: intakeID, SupplierKey: supplierKey(sourceRef), IBAN: stated}
		if corrected != "" {
			if c.IBAN, err = apchecks.ValidIBAN(corrected); err != nil {
				e, _ := apperr.As(err)
				return c, invalid("iban", "%s", e.Message)
			}
			if c.IBAN != stated {
				c.Replaces = stated
			}
		}
		switch {
		case status != "posted" || docType != "invoice":
			return c, apperr.New(apperr.InvalidState, "document %d is not a posted invoice", intakeID)
		case stated == "":
			return c, invalid("intake_id", "names a document without an IBAN")
		case !validIBAN(c.IBAN):
			return c, invalid("iban", "the invoice's IBAN %s is not a valid one: confirm the corrected IBAN in its place", apchecks.MaskIBAN(stated))
		case c.SupplierKey == "":
			return c, invalid("intake_id", "names a document without a supplier")
		}
		if decidedBy == actor.Label || slices.Contains(approvers, actor.Label) || (actor.UserID != 0 && slices.Contains(approverIDs, actor.UserID)) {
			return c, apperr.New(apperr.Forbidden, "an admin who approved document %d cannot confirm its IBAN: another admin must", intakeID).
				With("reason", "separation_of_duties")
		}
		tag, err := tx.Exec(ctx, confirmAccountSQL, orgID, c.SupplierKey, c.IBAN, c.Replaces, actor.Label)
		if err != nil {
			return c, fmt.Errorf("payments: confirm account: %w", err)
		}
		var confirmed string
		if err := tx.QueryRow(ctx, accountSQL, orgID, c.SupplierKey, c.Replaces, c.IBAN).Scan(&confirmed, &c.ConfirmedBy, &c.ConfirmedAt); err != nil {
			return c, fmt.Errorf("payments: read confirmation: %w", err)
		}
		if confirmed != c.IBAN {
			return c, apperr.New(apperr.InvalidState, "the IBAN document %d states was corrected to %s before", intakeID, apchecks.MaskIBAN(confirmed))
		}
		if tag.RowsAffected() == 0 {
			return c, nil
		}
		detail := map[string]any{"supplier_key": c.SupplierKey, "iban": apchecks.MaskIBAN(c.IBAN)}
		if c.Replaces != "" {
			detail["replaces"] = apchecks.MaskIBAN(c.Replaces)
		}
		return c, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: ActionIBANConfirmed, SubjectType: "intake",
			SubjectID: intakeID, Detail: detail})
	})
}
