package payments

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/database"
)

// DueInvoice is a posted invoice still to pay: in no live item (in a run,
// sent or paid).
type DueInvoice struct {
	IntakeID int64
	Number   string
	Supplier string
	// DueDate is the invoice's due date, "" when it states none (or none
	// that is a date).
	DueDate  string
	Currency string
	Amount   decimal.Decimal
}

// Overdue reports whether the invoice was due before today.
func (d DueInvoice) Overdue(today time.Time) bool {
	return d.DueDate != "" && d.DueDate < today.Format(time.DateOnly)
}

// dueSQL reads the org's posted invoices with something to pay that are in
// no live item and due on or before $2, or without a due date (a proposal
// due until $2 would take them too), the earliest due first and those
// without a date last.
const dueSQL = `
	WITH d AS (
		SELECT d.id, coalesce(d.fields ->> 'number', '') AS number, coalesce(d.fields #>> '{seller,name}', '') AS supplier,
		       CASE WHEN d.fields ->> 'due_date' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN d.fields ->> 'due_date' ELSE '' END AS due_date,
		       coalesce(d.fields ->> 'currency', '') AS currency, d.payable
		FROM intake_documents d
		WHERE d.org_id = $1 AND d.status = 'posted' AND d.result_entry_id IS NOT NULL AND d.doc_type = 'invoice'
		  AND NOT EXISTS (SELECT 1 FROM payment_items i WHERE i.intake_id = d.id AND i.status IN ('in_run', 'sent', 'paid')))
	SELECT id, number, supplier, due_date, currency, payable FROM d
	WHERE (due_date = '' OR due_date <= $2) AND payable > 0
	ORDER BY due_date = '', due_date, id
	LIMIT $3`

// Due returns at most limit of the org's posted invoices still to pay that
// are due on or before until (overdue ones too), or that state no due date.
func Due(ctx context.Context, q database.Executor, orgID int64, until time.Time, limit int) ([]DueInvoice, error) {
	rows, err := q.Query(ctx, dueSQL, orgID, until.Format(time.DateOnly), limit)
	if err != nil {
		return nil, fmt.Errorf("payments: the invoices due: %w", err)
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DueInvoice, error) {
		var d DueInvoice
		err := r.Scan(&d.IntakeID, &d.Number, &d.Supplier, &d.DueDate, &d.Currency, &d.Amount)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("payments: the invoices due: %w", err)
	}
	return due, nil
}
