package apchecks

import (
	"context"
	"fmt"
	"strings"

	"greatbook/internal/database"
)

// previousAccountsManySQL is previousAccountsSQL for many documents at once,
// each with its supplier: one index scan per document, one round trip.
const previousAccountsManySQL = `
	SELECT p.doc, x.id, x.iban
	FROM unnest($2::bigint[], $3::text[]) AS p (doc, supplier)
	CROSS JOIN LATERAL (
		SELECT id, fields ->> 'payee_iban' AS iban
		FROM intake_documents
		WHERE org_id = $1 AND status = 'posted' AND doc_type = 'invoice' AND id < p.doc
		  AND split_part(source_ref, '/', 1) = p.supplier
		  AND coalesce(fields ->> 'payee_iban', '') <> ''
		ORDER BY id DESC
		LIMIT $4) x
	ORDER BY p.doc, x.id DESC`

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
