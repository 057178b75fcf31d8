package bookkeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
)

// How a posted bill's expense account was chosen (account_choices.chosen_by).
const (
	ChosenByRule    = "rule"
	ChosenByAnswer  = "answer"
	ChosenByDefault = "default"
)

// SupplierRule is a remembered expense account for a supplier: the
// bookkeeper books that supplier's costs there without asking.
type SupplierRule struct {
	SupplierKey string
	// SupplierName is the seller's name on the supplier's latest document;
	// empty when no document of the org names it.
	SupplierName string
	Account      ledger.Account
	SetBy        string
	SetAt        time.Time
}

// AccountChoice says which rule chose a posted bill's expense account.
type AccountChoice struct {
	IntakeID    int64
	EntryID     int64
	SupplierKey string
	Account     string
	ChosenBy    string // rule, answer or default
	SetBy       string
	SetAt       *time.Time
	Remembered  bool // an answer that became the supplier's rule
}

// Suggestion is the account used for a supplier before, offered (never
// preselected) when the bookkeeper asks for the expense account.
type Suggestion struct {
	Account ledger.Account
	Why     string
}

// DescribeSupplier says a supplier key in words: "VAT id DE123456789".
func DescribeSupplier(key string) string {
	kind, value, ok := strings.Cut(key, ":")
	if !ok {
		return key
	}
	switch kind {
	case "vat":
		return "VAT id " + value
	case "endpoint":
		return "endpoint " + value
	case "legal":
		return "legal id " + value
	case "name":
		return "name " + value
	}
	return key
}

// Describe says in words which rule chose the account.
func (c AccountChoice) Describe() string {
	at := ""
	if c.SetAt != nil {
		at = " on " + c.SetAt.UTC().Format("2006-01-02")
	}
	switch c.ChosenBy {
	case ChosenByRule:
		return fmt.Sprintf("Account %s: remembered for %s, set by %s%s.", c.Account, DescribeSupplier(c.SupplierKey), c.SetBy, at)
	case ChosenByAnswer:
		s := fmt.Sprintf("Account %s: answered by %s%s", c.Account, c.SetBy, at)
		if c.Remember() {
			s += ", and remembered for " + DescribeSupplier(c.SupplierKey)
		}
		return s + "."
	case ChosenByDefault:
		return fmt.Sprintf("Account %s: the org's default expense account.", c.Account)
	}
	return "Account " + c.Account + "."
}

// Remember reports whether the choice was an answer remembered as the supplier's rule.
func (c AccountChoice) Remember() bool { return c.Remembered }

func scanChoice(row pgx.Row) (*AccountChoice, error) {
	var c AccountChoice
	err := row.Scan(&c.IntakeID, &c.EntryID, &c.SupplierKey, &c.Account, &c.ChosenBy, &c.SetBy, &c.SetAt, &c.Remembered)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bookkeeper: account choice: %w", err)
	}
	return &c, nil
}

// ChoiceForDocument is how the expense account of a posted document was
// chosen, or nil when it is not known (not posted, or posted before
// choices were recorded).
func ChoiceForDocument(ctx context.Context, q database.Executor, orgID, intakeID int64) (*AccountChoice, error) {
	return scanChoice(q.QueryRow(ctx, choiceForDocumentSQL, orgID, intakeID))
}

// ChoiceForEntry is how the expense account of a journal entry was chosen,
// or nil when no bookkeeper choice is recorded for it.
func ChoiceForEntry(ctx context.Context, q database.Executor, orgID, entryID int64) (*AccountChoice, error) {
	return scanChoice(q.QueryRow(ctx, choiceForEntrySQL, orgID, entryID))
}

// queueChoice queues in b the record of how the account of the bill just
// posted as entryID was chosen. A replayed post finds the row there and
// keeps it.
func queueChoice(b *pgx.Batch, orgID, entryID int64, s State) {
	b.Queue(recordChoiceSQL, orgID, s.IntakeID, entryID, s.Supplier, s.Account, s.chosenBy(), s.AccountSetBy, s.AccountSetAt, s.Remembered)
}

// chosenBy is how the state's account was chosen; runs checkpointed before
// ChosenBy existed say it only in AccountFrom.
func (s State) chosenBy() string {
	switch {
	case s.ChosenBy != "":
		return s.ChosenBy
	case s.AccountFrom == "supplier":
		return ChosenByRule
	case s.AccountFrom == "default":
		return ChosenByDefault
	}
	return ChosenByAnswer
}

// suggest is the account used for supplier before: its rule if the account
// is still active, else the account of its last posted bill.
func suggest(ctx context.Context, q database.Executor, orgID int64, supplier string) (*Suggestion, error) {
	if supplier == "" {
		return nil, nil
	}
	var s Suggestion
	err := q.QueryRow(ctx, suggestAccountSQL, orgID, supplier).Scan(&s.Account.ID, &s.Account.Code, &s.Account.Name, &s.Account.Type, &s.Account.Active)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bookkeeper: suggest an account: %w", err)
	}
	s.Why = "used for this supplier before"
	return &s, nil
}

// MaxSupplierRulesShown caps the admin page's list of supplier rules.
const MaxSupplierRulesShown = 1000

// SupplierRules lists an org's remembered supplier rules, by supplier key.
func SupplierRules(ctx context.Context, q database.Executor, orgID int64) ([]SupplierRule, error) {
	rows, err := q.Query(ctx, supplierRulesSQL, orgID, MaxSupplierRulesShown)
	if err != nil {
		return nil, fmt.Errorf("bookkeeper: supplier rules: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (SupplierRule, error) {
		var x SupplierRule
		err := r.Scan(&x.SupplierKey, &x.SupplierName, &x.Account.ID, &x.Account.Code, &x.Account.Name, &x.Account.Type, &x.Account.Active, &x.SetBy, &x.SetAt)
		return x, err
	})
}

// ChangeSupplierRule books a supplier's future costs to another expense
// account; audited with the account it replaces.
func ChangeSupplierRule(ctx context.Context, db database.Executor, orgID int64, supplier, code string, actor audit.Actor) error {
	code = strings.TrimSpace(code)
	if code == "" {
		return apperr.New(apperr.Invalid, "choose an account")
	}
	return database.WithTx(ctx, db, func(tx pgx.Tx) error {
		if err := checkExpenseAccount(ctx, tx, orgID, code); err != nil {
			return err
		}
		var from string
		err := tx.QueryRow(ctx, lockSupplierRuleSQL, orgID, supplier).Scan(&from)
		if err == nil {
			_, err = tx.Exec(ctx, changeSupplierRuleSQL, orgID, supplier, code, actor.Label)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "no rule for %s", clip(DescribeSupplier(supplier)))
		}
		if err != nil {
			return fmt.Errorf("bookkeeper: change supplier rule: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "supplier_rule_changed", SubjectType: "supplier_rule",
			Detail: map[string]any{"supplier_key": supplier, "from_account": from, "to_account": code}})
	})
}

// ForgetSupplierRule forgets a supplier's rule: the bookkeeper asks again
// (or uses the org's default) for its next bill; audited.
func ForgetSupplierRule(ctx context.Context, db database.Executor, orgID int64, supplier string, actor audit.Actor) error {
	return database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var from string
		err := tx.QueryRow(ctx, forgetSupplierRuleSQL, orgID, supplier).Scan(&from)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "no rule for %s", clip(DescribeSupplier(supplier)))
		}
		if err != nil {
			return fmt.Errorf("bookkeeper: forget supplier rule: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "supplier_rule_forgotten", SubjectType: "supplier_rule",
			Detail: map[string]any{"supplier_key": supplier, "account": from}})
	})
}

// SupplierRulesPage is what the admin's page of supplier rules shows: the
// rules, and the active expense accounts a rule may be changed to.
type SupplierRulesPage struct {
	Rules    []SupplierRule
	Accounts []ledger.Account
}

// ReadSupplierRules reads the admin's page of supplier rules.
func ReadSupplierRules(ctx context.Context, q database.Executor, orgID int64) (SupplierRulesPage, error) {
	rules, err := SupplierRules(ctx, q, orgID)
	if err != nil {
		return SupplierRulesPage{}, err
	}
	accounts, err := expenseAccounts(ctx, q, orgID)
	return SupplierRulesPage{Rules: rules, Accounts: accounts}, err
}
