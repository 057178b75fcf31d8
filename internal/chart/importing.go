package chart

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
)

// Imported is what an import did: the rows the file had, and how many of
// them added or changed something (the rest were as the file says already).
type Imported struct {
	Rows    int `json:"rows"`
	Added   int `json:"added"`
	Changed int `json:"changed"`
}

// ImportAccounts reads a chart of accounts file (ParseAccounts) and applies
// it whole or not at all: missing accounts are added, existing ones renamed
// and, where the file's active column says, deactivated or reactivated. An
// account's type never changes: a row naming an existing code with another
// type is a fault of its line. Importing the same file again changes
// nothing. Audited, file naming the upload.
func ImportAccounts(ctx context.Context, db database.Executor, orgID int64, data []byte, file string, actor audit.Actor) (Imported, error) {
	rows, err := ParseAccounts(data)
	if err != nil {
		return Imported{}, err
	}
	codes := make([]string, len(rows))
	for i, r := range rows {
		codes[i] = r.Code
	}
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (Imported, error) {
		have, err := lockAccounts(ctx, tx, orgID, codes)
		if err != nil {
			return Imported{}, err
		}
		res := Imported{Rows: len(rows)}
		var faults []Fault
		var wcodes, wnames, wtypes []string
		var wactive []bool
		for _, r := range rows {
			a := ledger.Account{Code: r.Code, Name: r.Name, Type: r.Type, Active: true}
			if old, ok := have[r.Code]; ok {
				if old.Type != r.Type {
					faults = append(faults, Fault{Field: fmt.Sprintf("line %d", r.Line),
						Message: fmt.Sprintf("account %s exists as %s; an account's type does not change", r.Code, old.Type)})
					continue
				}
				a.Active = old.Active
				if r.Active != nil {
					a.Active = *r.Active
				}
				if a == old {
					continue
				}
				res.Changed++
			} else {
				if r.Active != nil {
					a.Active = *r.Active
				}
				res.Added++
			}
			wcodes, wnames, wtypes, wactive = append(wcodes, a.Code), append(wnames, a.Name), append(wtypes, string(a.Type)), append(wactive, a.Active)
		}
		if len(faults) > 0 {
			return Imported{}, invalid("the file is not valid", faults)
		}
		if len(wcodes) == 0 {
			return res, nil
		}
		if _, err := tx.Exec(ctx, upsertAccountsSQL, orgID, wcodes, wnames, wtypes, wactive); err != nil {
			return Imported{}, fmt.Errorf("chart: import accounts: %w", err)
		}
		return res, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "accounts_imported", SubjectType: "account",
			Detail: map[string]any{"file": file, "rows": res.Rows, "added": res.Added, "changed": res.Changed, "codes": firstCodes(wcodes)}})
	})
}

// ImportValues reads a dimension values file (ParseValues) and sets its
// values on dimension name, created if the org lacks it, as PutValues
// does: whole or not at all; values the file does not list keep their
// state. Importing the same file again changes nothing.
func ImportValues(ctx context.Context, db database.Executor, orgID int64, name string, data []byte, file string, actor audit.Actor) (Imported, error) {
	if err := CheckDimensionName(name); err != nil {
		return Imported{}, err
	}
	rows, err := ParseValues(data)
	if err != nil {
		return Imported{}, err
	}
	values := make([]ValueChange, len(rows))
	for i, r := range rows {
		values[i] = r.ValueChange
	}
	_, n, err := putValues(ctx, db, orgID, name, values, actor, file)
	n.Rows = len(rows)
	return n, err
}

// lockAccounts reads and locks the org's accounts of codes, by code.
func lockAccounts(ctx context.Context, tx pgx.Tx, orgID int64, codes []string) (map[string]ledger.Account, error) {
	rows, err := tx.Query(ctx, accountsByCodeSQL, orgID, codes)
	if err != nil {
		return nil, fmt.Errorf("chart: accounts: %w", err)
	}
	have := make(map[string]ledger.Account, len(codes))
	var a ledger.Account
	_, err = pgx.ForEachRow(rows, []any{&a.Code, &a.Name, &a.Type, &a.Active}, func() error {
		have[a.Code] = a
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chart: accounts: %w", err)
	}
	return have, nil
}
