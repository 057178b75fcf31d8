package apchecks

import (
	"context"
	"fmt"
	"strings"

	"greatbook/internal/database"
)

// MaxPreviousInvoices caps how many of a supplier's latest posted documents
// the bank-account check reads: enough to know its accounts, bounded however
// long the supplier's history.
const MaxPreviousInvoices = 200

// PreviousAccounts returns the bank accounts the supplier of sourceRef was
// paid to on its posted documents filed before documentID, each with the
// documents that carried it, newest first.
func PreviousAccounts(ctx context.Context, q database.Executor, orgID, documentID int64, sourceRef string) ([]PreviousAccount, error) {
	supplier, _, ok := strings.Cut(sourceRef, "/")
	if !ok || supplier == "" {
		return nil, nil
	}
	rows, err := q.Query(ctx, previousAccountsSQL, orgID, documentID, supplier, MaxPreviousInvoices)
	if err != nil {
		return nil, fmt.Errorf("apchecks: previous accounts of %s: %w", supplier, err)
	}
	defer rows.Close()
	var out []PreviousAccount
	index := map[string]int{}
	for rows.Next() {
		var id int64
		var iban string
		if err := rows.Scan(&id, &iban); err != nil {
			return nil, fmt.Errorf("apchecks: previous accounts of %s: %w", supplier, err)
		}
		iban = NormalizeIBAN(iban)
		i, seen := index[iban]
		if !seen {
			i = len(out)
			index[iban] = i
			out = append(out, PreviousAccount{IBAN: iban})
		}
		out[i].Documents = append(out[i].Documents, id)
	}
	return out, rows.Err()
}
