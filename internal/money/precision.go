package money

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Precision is a PostgreSQL numeric(Digits, Scale) column: at most Digits
// significant digits, Scale of them after the point. A value with more
// fractional digits is rounded by the database; one with more integer
// digits is refused ("numeric field overflow", SQLSTATE 22003).
type Precision struct {
	Digits, Scale int32
}

// Ledger is the precision of every amount the ledger stores (journal lines'
// debit, credit and base amounts: numeric(20,4) in 00002_ledger.sql). Intake
// validation and the journal-entry API both check amounts against it, so an
// amount the ledger cannot hold is refused at the door, not by the posting.
var Ledger = Precision{Digits: 20, Scale: 4}

// Rate is the precision of a stored exchange rate (numeric(20,10) in
// 00005_approve.sql).
var Rate = Precision{Digits: 20, Scale: 10}

// Fits reports whether d, rounded to p.Scale decimals, has at most
// p.Digits-p.Scale integer digits.
func (p Precision) Fits(d decimal.Decimal) bool {
	limit := decimal.New(1, p.Digits-p.Scale)
	return d.Round(p.Scale).Abs().LessThan(limit)
}

// Describe says what p allows, for messages.
func (p Precision) Describe() string {
	return fmt.Sprintf("at most %d digits before the decimal point", p.Digits-p.Scale)
}
