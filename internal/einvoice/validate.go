package einvoice

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// Finding is one rule a document breaks. Every finding is an error: a document with findings is flagged
// for a person to look at. Field is the JSON path of the value at fault ("lines[2].net", "totals.payable").
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Field    string   `json:"field"`
	Message  string   `json:"message"`
}

// Severity says what a finding does to a document (API.md): a fatal one flags it, a warning or an info
// is shown to the reviewer and changes nothing.
type Severity string

// The severities of a finding.
const (
	SeverityFatal   Severity = "fatal"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Fatal reports whether f flags its document. Findings stored before severities existed have none and
// were all fatal.
func (f Finding) Fatal() bool { return f.Severity == SeverityFatal || f.Severity == "" }

// Finding codes, stable for the pipeline and the repair loop to match on.
const (
	CodeRequired            = "required"
	CodeInvalidType         = "invalid_type"
	CodeTypeCode            = "invalid_type_code"
	CodeInvalidCurrency     = "invalid_currency"
	CodeInvalidDate         = "invalid_date"
	CodeDueBeforeIssue      = "due_before_issue"
	CodeIssueDateOutOfRange = "issue_date_out_of_range"
	CodeLineNet             = "line_net_mismatch"
	CodeLineTotal           = "line_total_mismatch"
	CodeNetTotal            = "net_total_mismatch"
	CodeTaxTotal            = "tax_total_mismatch"
	CodeSubtotalTax         = "subtotal_tax_mismatch"
	CodeGrossTotal          = "gross_total_mismatch"
	CodePayable             = "payable_mismatch"
	CodeTaxRateOutOfRange   = "tax_rate_out_of_range"
	CodeNothingToPost       = "nothing_to_post"
)

// Tax rates outside [MinTaxRate, MaxTaxRate] percent are a finding: no VAT
// system charges a negative rate or more than the whole price.
var (
	MinTaxRate = decimal.Zero
	MaxTaxRate = decimal.NewFromInt(100)
)

// earliestIssueDate is the first issue date accepted; anything older is a typo or a wrong field.
var earliestIssueDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Validate checks d against the clock; see ValidateAt.
func Validate(d Document) []Finding {
	return ValidateAt(d, time.Now())
}

// ValidateAt checks d's required fields and arithmetic, taking now as the current time, and returns nil
// when it finds nothing wrong.
//
// Required: type, number, issue date, currency (ISO 4217), a seller name or identifier, one line or more
// (none in the profiles without lines: Document.LinesRequired; the sums below skip what a profile does
// not carry: LineAmountsRequired, BreakdownRequired).
// Dates are YYYY-MM-DD; the due date is not before the issue date; the issue date is not before 2000 nor
// more than a year after now. Amounts must add up the way EN 16931 defines them, compared after rounding
// to the currency's minor units:
//   - each line's net is quantity × unit price ÷ price base quantity (within half a minor unit). Published
//     CII examples put the price in BasisQuantity, so a net that matches quantity × unit price with the
//     base quantity ignored is accepted too;
//   - the sum of line nets is the line total; line total − allowances + charges is net;
//   - the subtotals' tax adds up to tax, and each subtotal's tax is taxable × rate ÷ 100 within one minor
//     unit; net + tax is gross; gross − prepaid + rounding is payable.
//
// A line that carries line-level allowances or charges is exempt from the line net rule. EN 16931's own
// validation artefacts do not enforce that calculation, and the EN 16931 example ubl-tc434-example2.xml,
// which must ingest cleanly, states on such a line a net (1273.00) that is not 2 × 1273.00 ± 12.00 − 12.00.
// The sum rules above still hold such lines to the document totals.
//
// Beyond the standard: every text must be storable and every number within the ledger's precision
// (StorageFindings), also quantity × unit price; tax rates lie between 0 and 100 percent; and a document
// whose amounts are all zero is a finding (nothing_to_post), because approving it could post nothing.
//
// Signs are not checked: invoices may carry negative lines (returns), and credit notes state positive
// amounts as the standard has them, or negative ones when they reverse a credit; either way the
// arithmetic must hold.
func ValidateAt(d Document, now time.Time) []Finding {
	v := &validator{minor: minorUnitsOf(d.Currency)}
	v.required(d)
	v.dates(d, now)
	v.lines(d)
	v.totals(d)
	v.rates(d)
	v.somethingToPost(d)
	v.findings = append(v.findings, StorageFindings(d)...)
	return v.findings
}

type validator struct {
	minor    int32
	findings []Finding
}

func (v *validator) add(code, field, format string, args ...any) {
	v.findings = append(v.findings, Finding{Code: code, Severity: SeverityFatal, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) required(d Document) {
	switch d.Type {
	case TypeInvoice, TypeCreditNote:
	case "":
		v.add(CodeRequired, "type", "the document type is missing")
	default:
		v.add(CodeInvalidType, "type", "type %q is neither invoice nor credit_note", d.Type)
	}
	if d.TypeCode != "" {
		// UNTDID 1001: three digits, and a credit-note code exactly when the
		// document is a credit note.
		if len(d.TypeCode) != 3 || strings.Trim(d.TypeCode, "0123456789") != "" {
			v.add(CodeTypeCode, "type_code", "%q is not a UNTDID 1001 document type code", d.TypeCode)
		} else if docTypeFor(d.TypeCode) != d.Type && (d.Type == TypeInvoice || d.Type == TypeCreditNote) {
			v.add(CodeTypeCode, "type_code", "type code %s does not describe a %s", d.TypeCode, strings.ReplaceAll(string(d.Type), "_", " "))
		}
	}
	if strings.TrimSpace(d.Number) == "" {
		v.add(CodeRequired, "number", "the document number is missing")
	}
	switch {
	case d.Currency == "":
		v.add(CodeRequired, "currency", "the currency is missing")
	default:
		if _, ok := money.Lookup(d.Currency); !ok {
			v.add(CodeInvalidCurrency, "currency", "%q is not an active ISO 4217 currency code", d.Currency)
		}
	}
	s := d.Seller
	if strings.TrimSpace(s.Name+s.VATID+s.EndpointID+s.LegalID) == "" {
		v.add(CodeRequired, "seller", "the seller has neither a name nor an identifier")
	}
	if len(d.Lines) == 0 && d.LinesRequired() {
		v.add(CodeRequired, "lines", "the document has no lines")
	}
}

func (v *validator) dates(d Document, now time.Time) {
	if d.IssueDate == "" {
		v.add(CodeRequired, "issue_date", "the issue date is missing")
	}
	issue, issueOK := v.date("issue_date", d.IssueDate)
	if issueOK {
		latest := now.UTC().AddDate(1, 0, 0)
		if issue.Before(earliestIssueDate) || issue.After(latest) {
			v.add(CodeIssueDateOutOfRange, "issue_date", "issue date %s is before 2000-01-01 or after %s", d.IssueDate, latest.Format(time.DateOnly))
		}
	}
	due, dueOK := v.date("due_date", d.DueDate)
	if issueOK && dueOK && due.Before(issue) {
		v.add(CodeDueBeforeIssue, "due_date", "due date %s is before issue date %s", d.DueDate, d.IssueDate)
	}
}

// date parses a YYYY-MM-DD value, reporting one that is present but not a calendar date.
func (v *validator) date(field, value string) (time.Time, bool) {
	if value == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, value)
	if err != nil {
		v.add(CodeInvalidDate, field, "%q is not a date in the form YYYY-MM-DD", clipText(value))
		return time.Time{}, false
	}
	return t, true
}

func (v *validator) lines(d Document) {
	half := decimal.New(5, -v.minor-1)
	for i, l := range d.Lines {
		if !l.Allowances.IsZero() || !l.Charges.IsZero() {
			continue // see ValidateAt
		}
		withBase := l.expectedNet(true)
		if !money.Ledger.Fits(withBase) {
			if !money.Ledger.Fits(l.Net) {
				continue // StorageFindings names the net itself
			}
			v.add(CodeAmountOutOfRange, fmt.Sprintf("lines[%d].net", i), "quantity %s × unit price %s is beyond what the ledger holds (%s)",
				clipText(money.Canonical(l.Quantity)), clipText(money.Canonical(l.UnitPrice)), money.Ledger.Describe())
			continue
		}
		if l.Net.Sub(withBase).Abs().LessThanOrEqual(half) {
			continue
		}
		if !l.PriceBaseQuantity.IsZero() && l.Net.Sub(l.expectedNet(false)).Abs().LessThanOrEqual(half) {
			continue
		}
		v.add(CodeLineNet, fmt.Sprintf("lines[%d].net", i),
			"line net %s is not quantity %s × unit price %s%s = %s",
			v.fmt(l.Net), money.Canonical(l.Quantity), money.Canonical(l.UnitPrice), baseText(l), v.fmt(withBase))
	}
}

// rates checks that every tax rate is a percentage a VAT system could charge.
func (v *validator) rates(d Document) {
	check := func(field string, r decimal.Decimal) {
		if r.LessThan(MinTaxRate) || r.GreaterThan(MaxTaxRate) {
			v.add(CodeTaxRateOutOfRange, field, "tax rate %s%% is outside %s%%..%s%%", clipText(money.Canonical(r)), MinTaxRate, MaxTaxRate)
		}
	}
	for i, l := range d.Lines {
		check(fmt.Sprintf("lines[%d].tax_rate", i), l.TaxRate)
	}
	for i, s := range d.TaxSubtotals {
		check(fmt.Sprintf("tax_subtotals[%d].rate", i), s.Rate)
	}
}

// somethingToPost reports a document every amount of which the bookkeeper
// would post rounds to zero: its journal entry would have no lines.
func (v *validator) somethingToPost(d Document) {
	t := d.Totals
	amounts := []decimal.Decimal{t.Net, t.Tax, t.Rounding, t.Prepaid, t.Payable}
	for _, s := range d.TaxSubtotals {
		amounts = append(amounts, s.Tax)
	}
	for _, a := range amounts {
		if !a.Round(v.minor).IsZero() {
			return
		}
	}
	v.add(CodeNothingToPost, "totals.payable", "every amount of the document is zero: approving it would post nothing")
}

func baseText(l Line) string {
	if l.PriceBaseQuantity.IsZero() || l.PriceBaseQuantity.Equal(one) {
		return ""
	}
	return " ÷ base quantity " + money.Canonical(l.PriceBaseQuantity)
}

func (v *validator) totals(d Document) {
	t := d.Totals
	if sum := sumLineNets(d.Lines); d.LineAmountsRequired() && !v.same(sum, t.LineTotal) {
		v.add(CodeLineTotal, "totals.line_total", "line total %s is not the sum of the line nets, %s", v.fmt(t.LineTotal), v.fmt(sum))
	}
	if net := t.LineTotal.Sub(t.AllowanceTotal).Add(t.ChargeTotal); d.BreakdownRequired() && !v.same(net, t.Net) {
		v.add(CodeNetTotal, "totals.net", "net %s is not line total %s − allowances %s + charges %s = %s",
			v.fmt(t.Net), v.fmt(t.LineTotal), v.fmt(t.AllowanceTotal), v.fmt(t.ChargeTotal), v.fmt(net))
	}
	if sum := sumSubtotalTax(d.TaxSubtotals); d.BreakdownRequired() && !v.same(sum, t.Tax) {
		v.add(CodeTaxTotal, "totals.tax", "tax %s is not the sum of the tax subtotals, %s", v.fmt(t.Tax), v.fmt(sum))
	}
	oneUnit := decimal.New(1, -v.minor)
	for i, s := range d.TaxSubtotals {
		want := taxOf(s.Taxable, s.Rate, v.minor)
		if s.Tax.Sub(want).Abs().GreaterThan(oneUnit) {
			v.add(CodeSubtotalTax, fmt.Sprintf("tax_subtotals[%d].tax", i), "tax %s is not %s × %s%% = %s",
				v.fmt(s.Tax), v.fmt(s.Taxable), money.Canonical(s.Rate), v.fmt(want))
		}
	}
	if gross := t.Net.Add(t.Tax); !v.same(gross, t.Gross) {
		v.add(CodeGrossTotal, "totals.gross", "gross %s is not net %s + tax %s = %s", v.fmt(t.Gross), v.fmt(t.Net), v.fmt(t.Tax), v.fmt(gross))
	}
	if payable := t.Gross.Sub(t.Prepaid).Add(t.Rounding); !v.same(payable, t.Payable) {
		v.add(CodePayable, "totals.payable", "payable %s is not gross %s − prepaid %s + rounding %s = %s",
			v.fmt(t.Payable), v.fmt(t.Gross), v.fmt(t.Prepaid), v.fmt(t.Rounding), v.fmt(payable))
	}
}

// same compares two amounts to the currency's minor unit.
func (v *validator) same(a, b decimal.Decimal) bool {
	return a.Round(v.minor).Equal(b.Round(v.minor))
}

func (v *validator) fmt(d decimal.Decimal) string {
	return money.Format(d, v.minor)
}
