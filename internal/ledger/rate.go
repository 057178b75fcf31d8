package ledger

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/database"
)

// RateUsed is the exchange rate a foreign-currency entry was posted at: one
// unit of the entry's currency is Rate units of the base currency, as of
// Date, and Source says where the rate came from.
type RateUsed struct {
	Currency, BaseCurrency string
	Rate                   decimal.Decimal
	Date                   string
	Source                 string
}

// RateDisplayScale is how many decimals a rate derived from an entry's
// amounts is shown with.
const RateDisplayScale = 6

var digits = regexp.MustCompile(`^[0-9]{1,18}$`)

// RateOf says at which rate a foreign-currency entry was posted; found is
// false for an entry in the base currency. An entry the bookkeeper posted
// for an intake document has the rate the bookkeeper's run recorded (the
// stored rate of a day, or one a person answered), with that day; any other
// (posted through the API with prepared base amounts) shows the rate its
// amounts imply: total base debits over total debits, on the entry's date.
func RateOf(ctx context.Context, q database.Executor, e Entry) (r RateUsed, found bool, err error) {
	if e.Currency == e.BaseCurrency {
		return RateUsed{}, false, nil
	}
	r = RateUsed{Currency: e.Currency, BaseCurrency: e.BaseCurrency, Date: e.Date}
	if e.SourceType == "intake" && digits.MatchString(e.SourceID) {
		var rate, date, source string
		err := q.QueryRow(ctx, rateOfSQL, e.OrgID, e.SourceID, e.Currency).Scan(&rate, &date, &source)
		switch {
		case err == nil:
			if d, perr := decimal.NewFromString(rate); perr == nil && d.IsPositive() {
				r.Rate, r.Source = d, source
				if date != "" {
					r.Date = date
				}
				if r.Source == "" {
					r.Source = "the bookkeeper's"
				}
				return r, true, nil
			}
		case !errors.Is(err, pgx.ErrNoRows):
			return RateUsed{}, false, fmt.Errorf("ledger: rate of entry %d: %w", e.ID, err)
		}
	}
	var amount, base decimal.Decimal
	for _, l := range e.Lines {
		amount = amount.Add(l.Debit)
		base = base.Add(l.BaseDebit)
	}
	if !amount.IsPositive() {
		return RateUsed{}, false, nil
	}
	r.Rate = base.DivRound(amount, RateDisplayScale)
	r.Source = "implied by the entry's base amounts"
	return r, true, nil
}
