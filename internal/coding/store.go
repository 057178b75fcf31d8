package coding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/review"
)

// ActionCoded is the audit action of a reviewer's change of a coding.
const ActionCoded = "coded"

// Read returns the coding of document id of the org, in order (empty when
// nothing is coded or suggested yet).
func Read(ctx context.Context, q database.Executor, orgID, id int64) ([]Row, error) {
	rows, err := q.Query(ctx, codingSQL, orgID, id)
	if err != nil {
		return nil, fmt.Errorf("coding: read document %d: %w", id, err)
	}
	out, err := pgx.CollectRows(rows, scanRow)
	if err != nil {
		return nil, fmt.Errorf("coding: read document %d: %w", id, err)
	}
	return out, nil
}

func scanRow(r pgx.CollectableRow) (Row, error) {
	var row Row
	var amount string
	var source string
	if err := r.Scan(&row.Line, &row.Account, &row.Dimensions, &amount, &source); err != nil {
		return Row{}, err
	}
	a, err := decimal.NewFromString(amount)
	if err != nil {
		return Row{}, err
	}
	row.Amount, row.Source = a, Source(source)
	if row.Dimensions == nil {
		row.Dimensions = map[string]string{}
	}
	return row, nil
}

// ReadOf returns the coding of the org's documents ids, by document, in one
// statement (a listing's page); a document without rows has none in the map.
func ReadOf(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64][]Row, error) {
	rows, err := q.Query(ctx, codingOfSQL, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("coding: read documents: %w", err)
	}
	defer rows.Close()
	out := map[int64][]Row{}
	for rows.Next() {
		var id int64
		var row Row
		var amount, source string
		if err := rows.Scan(&id, &row.Line, &row.Account, &row.Dimensions, &amount, &source); err != nil {
			return nil, fmt.Errorf("coding: read documents: %w", err)
		}
		if row.Amount, err = decimal.NewFromString(amount); err != nil {
			return nil, fmt.Errorf("coding: read documents: %w", err)
		}
		row.Source = Source(source)
		if row.Dimensions == nil {
			row.Dimensions = map[string]string{}
		}
		out[id] = append(out[id], row)
	}
	return out, rows.Err()
}

// ChartOf reads the accounts and dimension values of the org.
func ChartOf(ctx context.Context, q database.Executor, orgID int64) (Chart, error) {
	rows, err := q.Query(ctx, chartSQL, orgID)
	if err != nil {
		return Chart{}, fmt.Errorf("coding: chart of org %d: %w", orgID, err)
	}
	defer rows.Close()
	c := Chart{Accounts: map[string]bool{}, Values: map[string]map[string]bool{}}
	for rows.Next() {
		var kind, dim, code string
		var active bool
		if err := rows.Scan(&kind, &dim, &code, &active); err != nil {
			return Chart{}, fmt.Errorf("coding: chart of org %d: %w", orgID, err)
		}
		if kind == "a" {
			c.Accounts[code] = active
			continue
		}
		if c.Values[dim] == nil {
			c.Values[dim] = map[string]bool{}
		}
		c.Values[dim][code] = active
	}
	return c, rows.Err()
}

// Replace sets the whole coding of document id, by actor (source reviewer),
// in one transaction: it locks the document's row, refuses a document that
// is not open to review (invalid_state: active, posted, rejected, or not
// read yet), checks the rows (invalid, naming them), writes them, forgets
// the document's approvals (what was approved is not what it now says), and
// audits the change.
func Replace(ctx context.Context, db database.Executor, orgID, id int64, rows []Row, actor audit.Actor) ([]Row, error) {
	return database.WithTxV(ctx, db, func(tx pgx.Tx) ([]Row, error) {
		var status intake.Status
		var fields []byte
		err := tx.QueryRow(ctx, lockDocumentSQL, orgID, id).Scan(&status, &fields)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, apperr.New(apperr.NotFound, "no document %d", id)
		}
		if err != nil {
			return nil, fmt.Errorf("coding: lock document %d: %w", id, err)
		}
		if status != intake.Pending && status != intake.Flagged {
			return nil, apperr.New(apperr.InvalidState, "document %d is %s: its coding is settled", id, status).With("status", status)
		}
		var d einvoice.Document
		if len(fields) == 0 || json.Unmarshal(fields, &d) != nil {
			return nil, apperr.New(apperr.InvalidState, "document %d has no facts read yet to code", id)
		}
		chart, err := ChartOf(ctx, tx, orgID)
		if err != nil {
			return nil, err
		}
		if err := Check(d, rows, chart); err != nil {
			return nil, err
		}
		out := make([]Row, len(rows))
		for i, r := range rows {
			r.Source = Reviewer
			if r.Dimensions == nil {
				r.Dimensions = map[string]string{}
			}
			out[i] = r
		}
		if err := WriteTx(ctx, tx, orgID, id, out, actor.Label); err != nil {
			return nil, err
		}
		if err := review.ClearApprovals(ctx, tx, id); err != nil {
			return nil, err
		}
		return out, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: ActionCoded, SubjectType: "intake",
			SubjectID: id, FromStatus: string(status), ToStatus: string(status), Detail: map[string]any{"rows": len(out)}})
	})
}

// WriteTx replaces the coding rows of document id inside the caller's
// transaction, each with its own source, as by; it checks nothing (Replace
// checks a reviewer's rows; a suggestion names what the chart has).
func WriteTx(ctx context.Context, tx pgx.Tx, orgID, id int64, rows []Row, by string) error {
	if _, err := tx.Exec(ctx, deleteCodingSQL, id); err != nil {
		return fmt.Errorf("coding: clear document %d: %w", id, err)
	}
	if len(rows) == 0 {
		return nil
	}
	lines := make([]*int32, len(rows))
	codes := make([]string, len(rows))
	dims := make([][]byte, len(rows))
	amounts := make([]string, len(rows))
	sources := make([]string, len(rows))
	for i, r := range rows {
		if r.Line != nil {
			l := int32(*r.Line)
			lines[i] = &l
		}
		d := r.Dimensions
		if d == nil {
			d = map[string]string{}
		}
		b, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("coding: encode dimensions: %w", err)
		}
		codes[i], dims[i], amounts[i], sources[i] = r.Account, b, r.Amount.String(), string(r.Source)
	}
	tag, err := tx.Exec(ctx, insertCodingSQL, id, orgID, lines, codes, dims, amounts, sources, by)
	if err != nil {
		return fmt.Errorf("coding: write document %d: %w", id, err)
	}
	if n := tag.RowsAffected(); n != int64(len(rows)) {
		return fmt.Errorf("coding: document %d: wrote %d of %d rows (an account is not the org's)", id, n, len(rows))
	}
	return nil
}
