// Package org manages organisations: the tenants of greatbook. Every user,
// document and journal entry belongs to exactly one org.
package org

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// Org is a tenant with its base currency and its identity as a buyer.
type Org struct {
	ID           int64
	Slug         string
	Name         string
	BaseCurrency string
	Identity     Identity
	// DefaultExpenseAccount is the code of the account a supplier's costs go
	// to when no rule and nobody says otherwise ("" when not set).
	DefaultExpenseAccount string
	// BankIBAN and BankBIC are the org's own bank account, the debtor of its
	// payment files: the IBAN in its electronic form (upper case, no
	// spaces) and the bank's BIC, "" when not set.
	BankIBAN string
	BankBIC  string
}

// Identity is how the org appears as the buyer on its suppliers' invoices,
// and how old an invoice may be before the desk warns. An empty LegalName
// and VATID mean "not set": the buyer check then says nothing.
type Identity struct {
	LegalName string
	VATID     string
	// MaxIssueAgeMonths is the age past which an issue date is far in the past.
	MaxIssueAgeMonths int
	// Address is the org's postal address as a buyer (all empty: not set).
	Address Address
}

// Limits of an org's identity (the database checks them too).
const (
	MaxLegalName         = 200
	MaxVATID             = 40
	DefaultMaxIssueAge   = 18
	MaxIssueAgeMonthsCap = 120
)

func scanOrg(row pgx.Row, o *Org) error {
	a := &o.Identity.Address
	return row.Scan(&o.ID, &o.Slug, &o.Name, &o.BaseCurrency, &o.Identity.LegalName, &o.Identity.VATID, &o.Identity.MaxIssueAgeMonths,
		&a.Lines, &a.City, &a.Postcode, &a.Country, &o.DefaultExpenseAccount, &o.BankIBAN, &o.BankBIC)
}

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// Seeder prepares what a new org needs beyond its row (the chart of
// accounts), inside the transaction that creates the org.
type Seeder func(ctx context.Context, tx pgx.Tx, o Org) error

// Create adds an org, or returns the existing one when an org with the same
// slug, name and currency exists already (so that scripts may re-run).
func Create(ctx context.Context, db database.Executor, slug, name, currency string, seeders ...Seeder) (Org, bool, error) {
	slug = strings.TrimSpace(slug)
	name = strings.TrimSpace(name)
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if !slugPattern.MatchString(slug) {
		return Org{}, false, apperr.New(apperr.Invalid, "org slug %q must be lower-case letters, digits and dashes", slug)
	}
	if name == "" {
		return Org{}, false, apperr.New(apperr.Invalid, "org name is required")
	}
	if len(currency) != 3 || strings.Trim(currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return Org{}, false, apperr.New(apperr.Invalid, "base currency %q must be an ISO 4217 code", currency)
	}
	type result struct {
		org     Org
		created bool
	}
	r, err := database.WithTxV(ctx, db, func(tx pgx.Tx) (result, error) {
		var o Org
		err := scanOrg(tx.QueryRow(ctx, createOrgSQL, slug, name, currency), &o)
		if errors.Is(err, pgx.ErrNoRows) {
			existing, err := BySlug(ctx, tx, slug)
			if err != nil {
				return result{}, err
			}
			if existing.Name != name || existing.BaseCurrency != currency {
				return result{}, apperr.New(apperr.InvalidState, "org %q exists already with name %q and currency %s", slug, existing.Name, existing.BaseCurrency)
			}
			return result{org: existing}, nil
		}
		if err != nil {
			return result{}, fmt.Errorf("org: create: %w", err)
		}
		for _, seed := range seeders {
			if err := seed(ctx, tx, o); err != nil {
				return result{}, err
			}
		}
		return result{org: o, created: true}, nil
	})
	return r.org, r.created, err
}

// BySlug returns the org with the given slug.
func BySlug(ctx context.Context, q database.Executor, slug string) (Org, error) {
	var o Org
	err := scanOrg(q.QueryRow(ctx, orgBySlugSQL, slug), &o)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.New(apperr.NotFound, "no org %q", slug)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org: load %s: %w", slug, err)
	}
	return o, nil
}

// ByID returns the org with the given id.
func ByID(ctx context.Context, q database.Executor, id int64) (Org, error) {
	var o Org
	err := scanOrg(q.QueryRow(ctx, orgByIDSQL, id), &o)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.New(apperr.NotFound, "no org %d", id)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org: load %d: %w", id, err)
	}
	return o, nil
}

// SetIdentity sets how the org appears as the buyer on its suppliers'
// invoices (legal name, VAT id, postal address) and the age past which an
// issue date is far in the past; empty values unset them. Audited as
// org.identity_set with the identity before and after.
func SetIdentity(ctx context.Context, db database.Executor, orgID int64, id Identity, by audit.Actor) (Org, error) {
	id.LegalName = strings.Join(strings.Fields(id.LegalName), " ")
	id.VATID = strings.TrimSpace(id.VATID)
	switch {
	case !utf8.ValidString(id.LegalName) || strings.ContainsRune(id.LegalName, 0) || len(id.LegalName) > MaxLegalName:
		return Org{}, apperr.New(apperr.Invalid, "the legal name must be text of at most %d bytes", MaxLegalName)
	case !utf8.ValidString(id.VATID) || strings.ContainsRune(id.VATID, 0) || len(id.VATID) > MaxVATID:
		return Org{}, apperr.New(apperr.Invalid, "the VAT id must be text of at most %d bytes", MaxVATID)
	case id.MaxIssueAgeMonths == 0:
		id.MaxIssueAgeMonths = DefaultMaxIssueAge
	case id.MaxIssueAgeMonths < 1 || id.MaxIssueAgeMonths > MaxIssueAgeMonthsCap:
		return Org{}, apperr.New(apperr.Invalid, "the age of an old invoice must be between 1 and %d months", MaxIssueAgeMonthsCap)
	}
	address, err := cleanAddress(id.Address)
	if err != nil {
		return Org{}, err
	}
	id.Address = address
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (Org, error) {
		before, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return Org{}, err
		}
		var o Org
		a := id.Address
		err = scanOrg(tx.QueryRow(ctx, setIdentitySQL,
			orgID, id.LegalName, id.VATID, id.MaxIssueAgeMonths, a.Lines, a.City, a.Postcode, a.Country), &o)
		if err != nil {
			return Org{}, fmt.Errorf("org: set identity of %d: %w", orgID, err)
		}
		return o, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "org.identity_set",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{"before": identityDetail(before.Identity), "after": identityDetail(o.Identity),
				// The values as they are now, at the top level, as before addresses existed.
				"legal_name": o.Identity.LegalName, "vat_id": o.Identity.VATID, "max_issue_age_months": o.Identity.MaxIssueAgeMonths}})
	})
}

func identityDetail(id Identity) map[string]any {
	return map[string]any{"legal_name": id.LegalName, "vat_id": id.VATID, "max_issue_age_months": id.MaxIssueAgeMonths,
		"address_lines": id.Address.Lines, "city": id.Address.City, "postcode": id.Address.Postcode, "country": id.Address.Country}
}

// lockOrg reads the org and locks its row for the rest of tx: a settings
// change reads what it replaces, and two changes never interleave.
func lockOrg(ctx context.Context, tx pgx.Tx, orgID int64) (Org, error) {
	var o Org
	err := scanOrg(tx.QueryRow(ctx, lockOrgSQL, orgID), &o)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.New(apperr.NotFound, "no org %d", orgID)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org: lock %d: %w", orgID, err)
	}
	return o, nil
}
