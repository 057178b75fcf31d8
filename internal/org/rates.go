package org

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/storable"
)

// ExchangeRate is a rate the bookkeeper remembered (someone answered it):
// one unit of Currency is Rate units of the org's base currency on Date.
type ExchangeRate struct {
	Currency string
	Date     string // YYYY-MM-DD
	Rate     string
	SetBy    string
	SetAt    time.Time
}

// MaxExchangeRatesShown caps the settings page's list of remembered rates
// (newest first).
const MaxExchangeRatesShown = 500

// ExchangeRates lists the org's remembered exchange rates, newest date first.
func ExchangeRates(ctx context.Context, q database.Executor, orgID int64) ([]ExchangeRate, error) {
	rows, err := q.Query(ctx, listExchangeRatesSQL, orgID, MaxExchangeRatesShown)
	if err != nil {
		return nil, fmt.Errorf("org: exchange rates of %d: %w", orgID, err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (ExchangeRate, error) {
		var x ExchangeRate
		err := r.Scan(&x.Currency, &x.Date, &x.Rate, &x.SetBy, &x.SetAt)
		x.Rate = trimRate(x.Rate)
		return x, err
	})
}

// trimRate drops the trailing zeros numeric(20, 10) pads a rate with.
func trimRate(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func rateKey(currency, date string) (string, string, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	date = strings.TrimSpace(date)
	if len(currency) != 3 || strings.Trim(currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", "", apperr.New(apperr.Invalid, "the currency %q must be an ISO 4217 code", clip(currency))
	}
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return "", "", apperr.New(apperr.Invalid, "the date %q must be YYYY-MM-DD", clip(date))
	}
	if problem := storable.DateProblem(date); problem != "" {
		return "", "", apperr.New(apperr.Invalid, "the date %s", problem)
	}
	return currency, date, nil
}

// ChangeExchangeRate changes a remembered rate: the bookkeeper uses the new
// one for bills of that currency and date posted from now on (entries
// posted already keep theirs). Audited as exchange_rate_changed with the
// rate before and after.
func ChangeExchangeRate(ctx context.Context, db database.Executor, orgID int64, currency, date, rate string, by audit.Actor) error {
	currency, date, err := rateKey(currency, date)
	if err != nil {
		return err
	}
	r, err := decimal.NewFromString(strings.TrimSpace(rate))
	// numeric(20, 10): ten digits before the point and ten after.
	if err != nil || !r.IsPositive() || !r.Round(10).Equal(r) || !r.LessThan(decimal.New(1, 10)) {
		return apperr.New(apperr.Invalid, "the rate %q must be a positive number with at most 10 digits before and after the point", clip(rate))
	}
	return database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var before string
		err := tx.QueryRow(ctx, lockExchangeRateSQL, orgID, currency, date).Scan(&before)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "no remembered rate for %s on %s", currency, date)
		}
		if err != nil {
			return fmt.Errorf("org: change exchange rate: %w", err)
		}
		if _, err := tx.Exec(ctx, changeExchangeRateSQL, orgID, currency, date, r.String(), by.Label); err != nil {
			return fmt.Errorf("org: change exchange rate: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "exchange_rate_changed", SubjectType: "exchange_rate",
			Detail: map[string]any{"currency": currency, "date": date, "before": trimRate(before), "after": r.String()}})
	})
}

// ForgetExchangeRate forgets a remembered rate: the bookkeeper asks again
// for the next bill of that currency and date. Audited as
// exchange_rate_forgotten with the rate it was.
func ForgetExchangeRate(ctx context.Context, db database.Executor, orgID int64, currency, date string, by audit.Actor) error {
	currency, date, err := rateKey(currency, date)
	if err != nil {
		return err
	}
	return database.WithTx(ctx, db, func(tx pgx.Tx) error {
		var before string
		err := tx.QueryRow(ctx, forgetExchangeRateSQL, orgID, currency, date).Scan(&before)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.NotFound, "no remembered rate for %s on %s", currency, date)
		}
		if err != nil {
			return fmt.Errorf("org: forget exchange rate: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "exchange_rate_forgotten", SubjectType: "exchange_rate",
			Detail: map[string]any{"currency": currency, "date": date, "before": trimRate(before)}})
	})
}
