package chart

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
)

// NewAccount is an account an admin asks for.
type NewAccount struct {
	Code string             `json:"code"`
	Name string             `json:"name"`
	Type ledger.AccountType `json:"type"`
}

// CreateAccount adds an account to the org's chart, active. Asked again for
// the same account it answers the existing one with created false (however
// it stands now: a repeated create does not reactivate); a code that exists
// with another name or type is refused with invalid_state. Audited.
func CreateAccount(ctx context.Context, db database.Executor, orgID int64, n NewAccount, actor audit.Actor) (a ledger.Account, created bool, err error) {
	n.Code, n.Name = strings.TrimSpace(n.Code), strings.TrimSpace(n.Name)
	var faults []Fault
	for field, msg := range map[string]string{"code": checkCode(n.Code), "name": checkName(n.Name), "type": checkType(n.Type)} {
		if msg != "" {
			faults = append(faults, Fault{Field: field, Message: msg})
		}
	}
	if len(faults) > 0 {
		sortFaults(faults)
		return ledger.Account{}, false, invalid("the account is not valid", faults)
	}
	err = database.WithTx(ctx, db, func(tx pgx.Tx) error {
		err := scanAccount(tx.QueryRow(ctx, insertAccountSQL, orgID, n.Code, n.Name, n.Type), &a)
		if errors.Is(err, pgx.ErrNoRows) {
			if err := scanAccount(tx.QueryRow(ctx, accountSQL, orgID, n.Code), &a); err != nil {
				return fmt.Errorf("chart: read account %s: %w", n.Code, err)
			}
			if a.Name != n.Name || a.Type != n.Type {
				return apperr.New(apperr.InvalidState, "account %s exists as %q (%s)", a.Code, a.Name, a.Type).
					With("account", a)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("chart: create account %s: %w", n.Code, err)
		}
		created = true
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "account_created", SubjectType: "account",
			SubjectID: a.ID, Detail: map[string]any{"code": a.Code, "name": a.Name, "type": a.Type}})
	})
	return a, created, err
}

// SetAccountActive deactivates an account (active false) or reactivates
// it. A deactivated account stays on every journal line, coding row and
// supplier rule that names it; it is not offered for new coding, coding.Check
// refuses it as inactive, and the ledger refuses it on new entries, so a
// document coded to it before must be coded again (or the account
// reactivated) before it posts. Audited when the state changes.
func SetAccountActive(ctx context.Context, db database.Executor, orgID int64, code string, active bool, actor audit.Actor) (ledger.Account, error) {
	var a ledger.Account
	err := database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var was bool
		err := tx.QueryRow(ctx, setAccountActiveSQL, orgID, code, active).Scan(&a.ID, &a.Code, &a.Name, &a.Type, &a.Active, &was)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "no account %q", clip(code))
		}
		if err != nil {
			return fmt.Errorf("chart: set account %s active: %w", code, err)
		}
		if was == active {
			return nil
		}
		action := "account_deactivated"
		if active {
			action = "account_reactivated"
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: action, SubjectType: "account",
			SubjectID: a.ID, Detail: map[string]any{"code": a.Code}})
	})
	return a, err
}

func scanAccount(r pgx.Row, a *ledger.Account) error {
	return r.Scan(&a.ID, &a.Code, &a.Name, &a.Type, &a.Active)
}
