// Package ledger is the general ledger: per-org charts of accounts and
// immutable journal entries, each identified by a source key and posted
// idempotently. Every writer (the API, the bookkeeper, reversals) posts
// through Post, so its guarantees hold for all of them.
package ledger

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/money"
	"greatbook/internal/storable"
)

// SourceKey identifies what asked for an entry: an org, the kind of source
// ("intake", "payroll"), the source's own id, and which of its entries this
// is ("bill", "main", "main/reversal"). One key, at most one entry.
type SourceKey struct {
	OrgID      int64
	SourceType string
	SourceID   string
	EntrySet   string
}

func (k SourceKey) String() string {
	return fmt.Sprintf("%d/%s/%s/%s", k.OrgID, k.SourceType, k.SourceID, k.EntrySet)
}

// Line is one requested journal line. Exactly one of Debit and Credit is
// positive. Base amounts are the prepared amounts in the org's base
// currency: required for a foreign-currency entry, implied otherwise.
type Line struct {
	Account    string
	Debit      decimal.Decimal
	Credit     decimal.Decimal
	BaseDebit  *decimal.Decimal
	BaseCredit *decimal.Decimal
	Dimensions map[string]string
}

// Request asks for a journal entry.
type Request struct {
	SourceKey
	Date        string // YYYY-MM-DD
	Currency    string
	Description string
	ReversesID  int64 // the entry this one reverses, or 0
	Lines       []Line
	// Actor is recorded as created_by (a user's email, "system:bookkeeper").
	Actor string
}

// EntryLine is a stored journal line.
type EntryLine struct {
	Account     string
	AccountName string
	Debit       decimal.Decimal
	Credit      decimal.Decimal
	BaseDebit   decimal.Decimal
	BaseCredit  decimal.Decimal
	Dimensions  map[string]string
}

// Entry is a stored journal entry.
type Entry struct {
	ID int64
	SourceKey
	Date         string
	Currency     string
	BaseCurrency string
	Description  string
	// Fingerprint is nil for historical entries imported before fingerprints.
	Fingerprint  []byte
	ReversesID   int64
	ReversedByID int64 // the reversal of this entry, if one exists (filled by Get)
	CreatedBy    string
	CreatedAt    time.Time
	Lines        []EntryLine

	// ReversalReason is why a reversal was posted, from the audit trail
	// (filled by Get for a reversal; not one of the entry's facts).
	ReversalReason string
}

// Result is the outcome of a post: the entry, and whether it existed already.
type Result struct {
	Entry    Entry
	Replayed bool
}

// Reason says why a request is not a valid entry.
type Reason struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Difference is one fact on which a request differs from the entry stored
// under the same source key.
type Difference struct {
	Field     string `json:"field"`
	Stored    string `json:"stored"`
	Requested string `json:"requested"`
}

// The dates an entry may carry (storable.DateProblem says why).
const (
	EarliestYear = storable.EarliestYear
	LatestYear   = storable.LatestYear
)

// Bounds of an entry's texts, in bytes: the source id and entry set as
// 00002_ledger.sql checks them, dimension values like them, the rest
// generous.
const (
	MaxKeyText        = storable.MaxKey
	MaxDescription    = 2000
	MaxAccountCode    = 32
	MaxDimensionValue = storable.MaxKey
)

var (
	sourceTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`)
	dimensionPattern  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// invalid returns the typed error for a request that is not a valid entry.
func invalid(reasons []Reason) error {
	msgs := make([]string, 0, len(reasons))
	for _, r := range reasons {
		msgs = append(msgs, r.Field+": "+r.Message)
	}
	return apperr.New(apperr.Invalid, "the journal entry is not valid: %s", strings.Join(msgs, "; ")).With("reasons", reasons)
}

// validateShape checks everything that needs no database: the key, the
// date, the currency, each line, and that debits equal credits.
func validateShape(r Request) []Reason {
	var rs reasonList
	if !sourceTypePattern.MatchString(r.SourceType) {
		rs.add("source_type", "must be lower-case letters, digits, '_', '.' or '-', starting with a letter (at most 64)")
	}
	rs.checkText("source_id", r.SourceID, MaxKeyText, true)
	rs.checkText("entry_set", r.EntrySet, MaxKeyText, true)
	rs.checkText("description", r.Description, MaxDescription, false)
	if problem := storable.DateProblem(r.Date); problem != "" {
		rs.add("date", "%s", problem)
	}
	cur, ok := money.Lookup(r.Currency)
	if !ok {
		rs.add("currency", "%q is not an ISO 4217 currency", r.Currency)
	}
	if len(r.Lines) < 2 {
		rs.add("lines", "an entry needs at least two lines, has %d", len(r.Lines))
	}
	var debits, credits decimal.Decimal
	for i, l := range r.Lines {
		rs.checkLine(i, l, cur, ok)
		debits = debits.Add(l.Debit)
		credits = credits.Add(l.Credit)
	}
	if len(r.Lines) >= 2 && !debits.Equal(credits) {
		rs.add("lines", "debits %s do not equal credits %s", money.Canonical(debits), money.Canonical(credits))
	}
	return rs
}

// reasonList collects what validateShape finds wrong.
type reasonList []Reason

func (rs *reasonList) add(field, format string, args ...any) {
	*rs = append(*rs, Reason{Field: field, Message: fmt.Sprintf(format, args...)})
}

// checkText checks a text against what the database can hold (no NUL, valid UTF-8, bounded), so none
// reaches a write that refuses it; required texts must not be blank.
func (rs *reasonList) checkText(field, v string, max int, required bool) {
	if p := textProblem(v, max, required); p != "" {
		rs.add(field, "%s", p)
	}
}

// textProblem says what checkText finds wrong with v, or "".
func textProblem(v string, max int, required bool) string {
	if p := storable.Problem(v, max); p != "" {
		return p
	}
	if required && strings.TrimSpace(v) == "" {
		return fmt.Sprintf("must be non-empty text of at most %d bytes", max)
	}
	return ""
}

// checkLine checks line i, l: its account, its amounts (in the entry's currency cur when known says it
// is one) and base amounts, and its dimensions. A field's name is spelled only when it is reported:
// this runs for every line of every post.
func (rs *reasonList) checkLine(i int, l Line, cur money.Currency, known bool) {
	f := func(suffix string) string { return "lines[" + strconv.Itoa(i) + "]" + suffix }
	if p := textProblem(l.Account, MaxAccountCode, true); p != "" {
		rs.add(f(".account"), "%s", p)
	}
	if l.Debit.IsNegative() || l.Credit.IsNegative() {
		rs.add(f(""), "amounts must not be negative")
	}
	if l.Debit.IsPositive() == l.Credit.IsPositive() {
		rs.add(f(""), "exactly one of debit and credit must be positive")
	}
	for _, a := range []struct {
		side string
		v    *decimal.Decimal
	}{{"debit", &l.Debit}, {"credit", &l.Credit}, {"base_debit", l.BaseDebit}, {"base_credit", l.BaseCredit}} {
		if a.v == nil || a.v.IsZero() { // zero fits and has no decimals: the other side of every line
			continue
		}
		if !money.Ledger.Fits(*a.v) {
			rs.add(f("."+a.side), "%s is beyond what the ledger holds (%s)", clip(money.Canonical(*a.v)), money.Ledger.Describe())
		} else if known && (a.side == "debit" || a.side == "credit") && scale(*a.v) > cur.MinorUnits {
			rs.add(f("."+a.side), "%s has more decimals than %s allows (%d)", a.v.String(), cur.Code, cur.MinorUnits)
		}
	}
	if l.BaseDebit != nil && l.BaseDebit.IsNegative() || l.BaseCredit != nil && l.BaseCredit.IsNegative() {
		rs.add(f(""), "base amounts must not be negative")
	}
	if l.Debit.IsPositive() && l.BaseCredit != nil && !l.BaseCredit.IsZero() ||
		l.Credit.IsPositive() && l.BaseDebit != nil && !l.BaseDebit.IsZero() {
		rs.add(f(""), "the base amount must be on the same side as the amount")
	}
	if len(l.Dimensions) == 0 {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(l.Dimensions)) {
		if !dimensionPattern.MatchString(k) {
			rs.add(f(".dimensions"), "%q is not a dimension name (lower-case letters, digits, '_')", clip(storable.Clean(k, 0)))
			continue
		}
		rs.checkText(f(".dimensions."+k), l.Dimensions[k], MaxDimensionValue, true)
	}
}

// clip keeps a value quoted in a reason short.
func clip(s string) string {
	if len(s) > 40 {
		return storable.Clean(s[:40], 0) + "..."
	}
	return s
}

// scale returns the number of decimals of v once trailing zeros are dropped.
func scale(v decimal.Decimal) int32 {
	s := money.Canonical(v)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return int32(len(s) - i - 1)
	}
	return 0
}
