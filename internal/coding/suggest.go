package coding

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
)

// Suggestions are learned, not stored apart: a document's approved coding
// (its rows once it is active or posted) is what the next document of the
// same supplier is suggested, found by query when that document is filed
// (see suggestionsCTE). Approving writes nothing more for it.

// SupplierKey is the supplier part of a document's source_ref (up to its
// first "/"), as the bookkeeper keys its supplier rules.
func SupplierKey(sourceRef string) string {
	key, _, _ := strings.Cut(sourceRef, "/")
	return key
}

// suggestionArgs are the targets of d as the suggestion statements' arrays.
func suggestionArgs(d einvoice.Document, targets []Target) (lines []*int32, descriptions []string, nets []string) {
	for _, t := range targets {
		var line *int32
		description := ""
		if t.Line != nil {
			l := int32(*t.Line)
			line, description = &l, d.Lines[*t.Line-1].Description
		}
		lines, descriptions, nets = append(lines, line), append(descriptions, description), append(nets, t.Net.String())
	}
	return lines, descriptions, nets
}

// QueueSuggestions queues on b the statement that writes the suggested
// coding of document id of the org, filed with facts d and source_ref
// sourceRef, for all of its targets at once: for each, history, the
// supplier's rule or the org's default, or no row. A target that has rows
// already keeps them.
func QueueSuggestions(b *pgx.Batch, orgID, id int64, sourceRef string, d einvoice.Document) {
	queueSuggestions(b, orgID, id, sourceRef, d, Targets(d))
}

// queueSuggestions queues the suggestions of targets of document id.
func queueSuggestions(b *pgx.Batch, orgID, id int64, sourceRef string, d einvoice.Document, targets []Target) {
	lines, descriptions, nets := suggestionArgs(d, targets)
	b.Queue(insertSuggestionsSQL, orgID, SupplierKey(sourceRef), lines, descriptions, nets, id).Fn = func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("coding: suggest document %d: %w", id, err)
		}
		return nil
	}
}

// RefitTx fits the coding of document id to its new facts d (typed in by a
// person) in the caller's transaction: a reviewer's rows of a target that
// still has the net they sum to stay as they were; every other row goes
// (earlier suggestions, and a reviewer's rows of lines that changed or are
// gone), and each target left without rows is suggested afresh, after the
// rows that stay.
func RefitTx(ctx context.Context, tx pgx.Tx, orgID, id int64, sourceRef string, d einvoice.Document) error {
	old, err := Read(ctx, tx, orgID, id)
	if err != nil {
		return err
	}
	sums := map[int]decimal.Decimal{} // a reviewer's rows by line; 0: the remainder
	for _, r := range old {
		if r.Source == Reviewer {
			sums[lineKey(r.Line)] = sums[lineKey(r.Line)].Add(r.Amount)
		}
	}
	keep := []int32{}
	var open []Target
	for _, t := range Targets(d) {
		if sum, ok := sums[lineKey(t.Line)]; ok && sum.Equal(t.Net) {
			keep = append(keep, int32(lineKey(t.Line)))
			continue
		}
		open = append(open, t)
	}
	if _, err := tx.Exec(ctx, unfitCodingSQL, id, keep); err != nil {
		return fmt.Errorf("coding: refit document %d: %w", id, err)
	}
	if len(open) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	queueSuggestions(b, orgID, id, sourceRef, d, open)
	return tx.SendBatch(ctx, b).Close()
}

func lineKey(line *int) int {
	if line == nil {
		return 0
	}
	return *line
}
