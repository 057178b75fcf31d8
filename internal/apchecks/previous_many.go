package apchecks

import (
	"context"
	"fmt"
	"strings"

	"greatbook/internal/database"
)

// PreviousAccountsMany is PreviousAccounts for many documents of an org
// (document id → its source_ref) in one query, by document id; a listing
// checks a whole page this way.
func PreviousAccountsMany(ctx context.Context, q database.Executor, orgID int64, sourceRefs map[int64]string) (map[int64][]PreviousAccount, error) {
	var docs []int64
	var suppliers []string
	for id, ref := range sourceRefs {
		if supplier, _, ok := strings.Cut(ref, "/"); ok && supplier != "" {
			docs, suppliers = append(docs, id), append(suppliers, supplier)
		}
	}
	out := make(map[int64][]PreviousAccount, len(docs))
	if len(docs) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, previousAccountsManySQL, orgID, docs, suppliers, MaxPreviousInvoices)
	if err != nil {
		return nil, fmt.Errorf("apchecks: previous accounts: %w", err)
	}
	defer rows.Close()
	index := map[int64]map[string]int{}
	for rows.Next() {
		var doc, id int64
		var iban string
		if err := rows.Scan(&doc, &id, &iban); err != nil {
			return nil, fmt.Errorf("apchecks: previous accounts: %w", err)
		}
		iban = NormalizeIBAN(iban)
		if index[doc] == nil {
			index[doc] = map[string]int{}
		}
		i, seen := index[doc][iban]
		if !seen {
			i = len(out[doc])
			index[doc][iban] = i
			out[doc] = append(out[doc], PreviousAccount{IBAN: iban})
		}
		out[doc][i].Documents = append(out[doc][i].Documents, id)
	}
	return out, rows.Err()
}
