package reading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/textfields"
)

// Layout is a supplier's learned layout.
type Layout struct {
	ID           int64             `json:"id"`
	OrgID        int64             `json:"-"`
	SupplierKey  string            `json:"supplier_key"`
	SupplierName string            `json:"supplier_name"`
	Layout       textfields.Layout `json:"-"`
	LearnedFrom  int64             `json:"learned_from,omitempty"`
	LearnedBy    string            `json:"learned_by"`
	LearnedAt    time.Time         `json:"learned_at"`
	Uses         int               `json:"uses"`
}

// FieldNames are the fields the layout places, sorted.
func (l Layout) FieldNames() []string {
	names := make([]string, 0, len(l.Layout.Fields))
	for name := range l.Layout.Fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func scanLayout(row pgx.Row) (Layout, error) {
	var l Layout
	var raw []byte
	if err := row.Scan(&l.ID, &l.OrgID, &l.SupplierKey, &l.SupplierName, &raw, &l.LearnedFrom, &l.LearnedBy, &l.LearnedAt, &l.Uses); err != nil {
		return Layout{}, err
	}
	if err := json.Unmarshal(raw, &l.Layout); err != nil {
		return Layout{}, fmt.Errorf("reading: decode layout %d: %w", l.ID, err)
	}
	return l, nil
}

// LayoutFor returns the layout learned for a supplier of the org, if any,
// looked up by each of its keys in turn (SupplierKeysOf).
func LayoutFor(ctx context.Context, db database.Executor, orgID int64, supplierKeys ...string) (Layout, bool, error) {
	for _, key := range supplierKeys {
		if key == "" {
			continue
		}
		l, err := scanLayout(db.QueryRow(ctx, layoutForSQL, orgID, key))
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return Layout{}, false, fmt.Errorf("reading: layout of %s: %w", key, err)
		}
		return l, true, nil
	}
	return Layout{}, false, nil
}

// GetLayout returns layout id of the org.
func GetLayout(ctx context.Context, db database.Executor, orgID, id int64) (Layout, error) {
	l, err := scanLayout(db.QueryRow(ctx, layoutSQL, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Layout{}, apperr.New(apperr.NotFound, "layout %d not found", id)
	}
	if err != nil {
		return Layout{}, fmt.Errorf("reading: layout %d: %w", id, err)
	}
	return l, nil
}

// ListLayouts lists the org's layouts, newest learned first.
func ListLayouts(ctx context.Context, db database.Executor, orgID int64) ([]Layout, error) {
	rows, err := db.Query(ctx, listLayoutsSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("reading: list layouts: %w", err)
	}
	out := []Layout{}
	for rows.Next() {
		l, err := scanLayout(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LearnTx learns the layout of document id's supplier from its reading's
// words and the facts d a person confirmed or typed, in the caller's
// transaction. It is kept under the supplier's key by d, and also under the
// key its first reading found when that differs (a person who adds the VAT
// id the reading missed still has the next invoice, read like this one,
// find the layout). A document not read from its text, or whose facts name
// no supplier or place no field on its pages, teaches nothing (false).
func LearnTx(ctx context.Context, tx pgx.Tx, orgID, id int64, d einvoice.Document, actor audit.Actor) (bool, error) {
	t, ok, err := Words(ctx, tx, orgID, id)
	if err != nil || !ok {
		return false, err
	}
	key := SupplierKeyOf(d)
	if key == "" {
		return false, nil
	}
	l := textfields.Learn(t, d)
	if len(l.Fields) == 0 {
		return false, nil
	}
	raw, err := json.Marshal(l)
	if err != nil {
		return false, fmt.Errorf("reading: encode layout: %w", err)
	}
	keys := []string{key}
	var read string
	if err := tx.QueryRow(ctx, readingKeySQL, id, orgID).Scan(&read); err != nil {
		return false, fmt.Errorf("reading: document %d's supplier key: %w", id, err)
	}
	if read != "" && read != key {
		keys = append(keys, read)
	}
	names := Layout{Layout: l}.FieldNames()
	for _, k := range keys {
		var layoutID int64
		if err := tx.QueryRow(ctx, upsertLayoutSQL, orgID, k, d.Seller.Name, raw, id, actor.Label).Scan(&layoutID); err != nil {
			return false, fmt.Errorf("reading: keep layout of %s: %w", k, err)
		}
		if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "layout_learned",
			SubjectType: "layout", SubjectID: layoutID, Detail: map[string]any{"supplier_key": k, "from_document": id, "fields": names}}); err != nil {
			return false, err
		}
	}
	return true, nil
}

// LearnFiledTx learns the layout of document id's supplier from its
// reading and the facts it was filed with, which a person confirmed by
// approving them.
func LearnFiledTx(ctx context.Context, tx pgx.Tx, orgID, id int64, actor audit.Actor) (bool, error) {
	doc, err := intake.GetDocument(ctx, tx, orgID, id)
	if err != nil {
		return false, err
	}
	var d einvoice.Document
	if len(doc.Fields) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(doc.Fields, &d); err != nil {
		return false, fmt.Errorf("reading: decode document %d's fields: %w", id, err)
	}
	return LearnTx(ctx, tx, orgID, id, d, actor)
}

// DeleteLayout forgets one layout: the supplier's next invoice is read at
// first sight again.
func DeleteLayout(ctx context.Context, db database.Executor, orgID, id int64, actor audit.Actor) error {
	return database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var key string
		err := tx.QueryRow(ctx, deleteLayoutSQL, orgID, id).Scan(&key)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "layout %d not found", id)
		}
		if err != nil {
			return fmt.Errorf("reading: delete layout %d: %w", id, err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "layout_forgotten",
			SubjectType: "layout", SubjectID: id, Detail: map[string]any{"supplier_key": key}})
	})
}

// ResetLayouts forgets every layout of the org and says how many.
func ResetLayouts(ctx context.Context, db database.Executor, orgID int64, actor audit.Actor) (int64, error) {
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (int64, error) {
		tag, err := tx.Exec(ctx, deleteLayoutsSQL, orgID)
		if err != nil {
			return 0, fmt.Errorf("reading: reset layouts: %w", err)
		}
		n := tag.RowsAffected()
		return n, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "layouts_reset",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{"forgotten": n}})
	})
}
