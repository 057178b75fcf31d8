// Package org manages organisations: the tenants of greatbook. Every user,
// document and journal entry belongs to exactly one org.
package org

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
)

// Org is a tenant with its base currency.
type Org struct {
	ID           int64
	Slug         string
	Name         string
	BaseCurrency string
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
		err := tx.QueryRow(ctx, `
			INSERT INTO orgs (slug, name, base_currency) VALUES ($1, $2, $3)
			ON CONFLICT (slug) DO NOTHING
			RETURNING id, slug, name, base_currency`, slug, name, currency).Scan(&o.ID, &o.Slug, &o.Name, &o.BaseCurrency)
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
	err := q.QueryRow(ctx, `SELECT id, slug, name, base_currency FROM orgs WHERE slug = $1`, slug).
		Scan(&o.ID, &o.Slug, &o.Name, &o.BaseCurrency)
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
	err := q.QueryRow(ctx, `SELECT id, slug, name, base_currency FROM orgs WHERE id = $1`, id).
		Scan(&o.ID, &o.Slug, &o.Name, &o.BaseCurrency)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.New(apperr.NotFound, "no org %d", id)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org: load %d: %w", id, err)
	}
	return o, nil
}
