package einvoice

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
	"greatbook/internal/storable"
)

// Finding is one rule a document breaks. Only a fatal finding flags its document for a person to look
// at; a warning or an info is shown and changes nothing. Field is the JSON path of the value at fault ("lines[2].net", "totals.payable").
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Field    string   `json:"field"`
	Message  string   `json:"message"`
}

// Severity says what a finding does to a document (docs/api.md, "A document as the API shows it"): a fatal one flags it, a warning or an info
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

// Finding codes, stable for the pipeline and the repair loop to match on. Where a published EN 16931
// rule applies, the code is its official id (BR-…, from CEN's EN16931-abstract-model.sch); the
// product's own checks keep a snake_case code, and only those that the ledger depends on are fatal.
const (
	CodeRequired            = "required" // the document type the ledger posts by (invoice or credit note)
	CodeInvalidType         = "invalid_type"
	CodeTypeCode            = "invalid_type_code"
	CodeNumberMissing       = "BR-02"    // an invoice shall have an invoice number (BT-1)
	CodeIssueDateMissing    = "BR-03"    // an invoice shall have an issue date (BT-2)
	CodeCurrencyMissing     = "BR-05"    // an invoice shall have a currency code (BT-5)
	CodeSellerName          = "BR-06"    // an invoice shall contain the seller name (BT-27)
	CodeNoLines             = "BR-16"    // an invoice shall have at least one line (BG-25)
	CodeTypeCodeList        = "BR-CL-01" // the type code (BT-3) is from UNTDID 1001
	CodeInvalidCurrency     = "BR-CL-04" // the currency code (BT-5) is ISO 4217 alpha-3
	CodeInvalidDate         = "invalid_date"
	CodeDateOutOfRange      = "date_out_of_range"       // the issue date, which the entry is dated by, outside the ledger's years
	CodeDueBeforeIssue      = "due_before_issue"        // warning: a prepaid invoice is due before it is issued
	CodeIssueDateOutOfRange = "issue_date_out_of_range" // warning
	CodeLineNet             = "line_net_mismatch"       // warning: EN 16931 does not enforce BT-131's calculation
	CodeLineTotal           = "BR-CO-10"
	CodeNetTotal            = "BR-CO-13"
	CodeTaxTotal            = "BR-CO-14"
	CodeGrossTotal          = "BR-CO-15"
	CodePayable             = "BR-CO-16"
	CodeVATCategoryTax      = "BR-CO-17"
	CodeSubtotalTax         = "subtotal_tax_mismatch" // warning: within BR-CO-17's tolerance, beyond one minor unit
	CodeTaxRateOutOfRange   = "tax_rate_out_of_range" // warning
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
// when it finds nothing wrong. It is never stricter than EN 16931 on a fatal outcome: a finding is fatal
// only where one of the standard's fatal rules fails (under its official id) or where the ledger could
// not post or hold the document; the product's own plausibility checks are warnings.
//
// Fatal, as the standard has them:
//   - BR-02, BR-03, BR-05, BR-06 (the seller's name), BR-16: number, issue date, currency, seller name,
//     one line or more (none in the profiles without lines: Document.LinesRequired; the sums skip what a
//     profile does not carry: LineAmountsRequired, BreakdownRequired); BR-CL-01 (a three-digit type
//     code), BR-CL-04 (an ISO 4217 currency);
//   - BR-CO-10, 13, 14, 15, 16: line total = Σ line nets; net = line total − allowances + charges;
//     tax = Σ subtotal tax; gross = net + tax; payable = gross − prepaid + rounding. A stated amount
//     agrees when it equals the computed one exactly, rounded to two decimals as the Schematron rounds
//     (half up), or rounded to the currency's minor units as the ledger does;
//   - BR-CO-17: each subtotal's tax is taxable × rate ÷ 100 rounded to two decimals, within one unit of
//     the currency either way (the Schematron's tolerance); a rate that rounds to 0 has a tax that does.
//
// Fatal, because the ledger depends on it: the document type (invoice or credit note) and a type code
// that agrees with it, dates in the form YYYY-MM-DD, an issue date (the entry's date) in the ledger's
// years (storable.EarliestYear to LatestYear), every text storable and every number within the
// ledger's precision (StorageFindings, also quantity × unit price), and something to post
// (nothing_to_post).
//
// Warnings, the product's own plausibility checks, which never change a document's status:
//   - each line's net is quantity × unit price ÷ price base quantity within half a minor unit (or, as
//     published CII examples put the price in BasisQuantity, with the base quantity ignored); a line
//     with line-level allowances or charges is not recomputed (ubl-tc434-example2.xml states such a net
//     that is not the product of its terms);
//   - each subtotal's tax within one minor unit of taxable × rate;
//   - the due date not before the issue date (a prepaid invoice may be due before it is issued); the
//     issue date not before 2000 nor more than a year after now; tax rates between 0 and 100 percent.
//
// Signs are not checked: invoices may carry negative lines (returns), and credit notes state positive
// amounts as the standard has them, or negative ones when they reverse a credit; either way the
// arithmetic must hold.
func ValidateAt(d Document, now time.Time) []Finding {
	v := &validator{minor: MinorUnitsOf(d.Currency)}
	v.required(d)
	v.dates(d, now)
	v.lines(d)
	v.totals(d)
	v.rates(d)
	v.somethingToPost(d)
	v.findings = append(v.findings, StorageFindings(d)...)
	return v.findings
}

// HasFatal reports whether any of fs flags its document.
func HasFatal(fs []Finding) bool {
	for _, f := range fs {
		if f.Fatal() {
			return true
		}
	}
	return false
}

// BySeverity returns fs for showing: fatal findings first, then warnings, then infos, each in its
// order, with a stored finding that has no severity (filed before severities existed) marked fatal.
func BySeverity(fs []Finding) []Finding {
	rank := map[Severity]int{SeverityFatal: 0, SeverityWarning: 1, SeverityInfo: 2}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		if f.Fatal() {
			f.Severity = SeverityFatal
		}
		out[i] = f
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return rank[a.Severity] - rank[b.Severity] })
	return out
}

// Unpostable reports whether a finding's code says the ledger cannot hold or post the document as it
// is: a text or an amount the database cannot store, an unknown or missing currency, a missing or
// malformed date, nothing to post, no document type. An acknowledgement cannot approve such a
// document; a person must type the fields in.
func Unpostable(code string) bool {
	switch code {
	case CodeUnstorableText, CodeTextTooLong, CodeAmountOutOfRange, CodeInvalidCurrency, CodeCurrencyMissing,
		CodeIssueDateMissing, CodeInvalidDate, CodeDateOutOfRange, CodeNothingToPost, CodeRequired, CodeInvalidType, CodeTypeCode,
		CodeTypeCodeList, CodeInputCap:
		return true
	}
	return false
}

type validator struct {
	minor    int32
	findings []Finding
}

func (v *validator) add(code, field, format string, args ...any) {
	v.findings = append(v.findings, Finding{Code: code, Severity: SeverityFatal, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) warn(code, field, format string, args ...any) {
	v.findings = append(v.findings, Finding{Code: code, Severity: SeverityWarning, Field: field, Message: fmt.Sprintf(format, args...)})
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
		// document is a credit note (the ledger posts by the type).
		if len(d.TypeCode) != 3 || strings.Trim(d.TypeCode, "0123456789") != "" {
			v.add(CodeTypeCodeList, "type_code", "%q is not a UNTDID 1001 document type code (BT-3)", d.TypeCode)
		} else if DocTypeFor(d.TypeCode) != d.Type && (d.Type == TypeInvoice || d.Type == TypeCreditNote) {
			v.add(CodeTypeCode, "type_code", "type code %s does not describe a %s", d.TypeCode, strings.ReplaceAll(string(d.Type), "_", " "))
		}
	}
	if strings.TrimSpace(d.Number) == "" {
		v.add(CodeNumberMissing, "number", "the invoice number (BT-1) is missing")
	}
	switch {
	case d.Currency == "":
		v.add(CodeCurrencyMissing, "currency", "the invoice currency code (BT-5) is missing")
	default:
		if _, ok := money.Lookup(d.Currency); !ok {
			v.add(CodeInvalidCurrency, "currency", "%q is not an active ISO 4217 alpha-3 currency code (BT-5)", d.Currency)
		}
	}
	if strings.TrimSpace(d.Seller.Name) == "" {
		v.add(CodeSellerName, "seller.name", "the seller name (BT-27) is missing")
	}
	if len(d.Lines) == 0 && d.LinesRequired() {
		v.add(CodeNoLines, "lines", "the document has no lines (BG-25)")
	}
}

func (v *validator) dates(d Document, now time.Time) {
	if d.IssueDate == "" {
		v.add(CodeIssueDateMissing, "issue_date", "the issue date (BT-2) is missing")
	}
	issue, issueOK := v.date("issue_date", d.IssueDate)
	if issueOK && storable.DateProblem(d.IssueDate) != "" {
		v.add(CodeDateOutOfRange, "issue_date", "issue date %s is outside the years %d to %d the ledger posts", d.IssueDate,
			storable.EarliestYear, storable.LatestYear)
	} else if issueOK {
		latest := now.UTC().AddDate(1, 0, 0)
		if issue.Before(earliestIssueDate) || issue.After(latest) {
			v.warn(CodeIssueDateOutOfRange, "issue_date", "issue date %s is before 2000-01-01 or after %s", d.IssueDate, latest.Format(time.DateOnly))
		}
	}
	due, dueOK := v.date("due_date", d.DueDate)
	if issueOK && dueOK && due.Before(issue) {
		v.warn(CodeDueBeforeIssue, "due_date", "due date %s is before issue date %s", d.DueDate, d.IssueDate)
	}
}

// date parses a YYYY-MM-DD value, reporting one that is present but not a calendar date.
func (v *validator) date(field, value string) (time.Time, bool) {
	if value == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, value)
	if err != nil {
		v.add(CodeInvalidDate, field, "%q is not a date in the form YYYY-MM-DD", ClipText(value))
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
				ClipText(money.Canonical(l.Quantity)), ClipText(money.Canonical(l.UnitPrice)), money.Ledger.Describe())
			continue
		}
		if l.Net.Sub(withBase).Abs().LessThanOrEqual(half) {
			continue
		}
		if !l.PriceBaseQuantity.IsZero() && l.Net.Sub(l.expectedNet(false)).Abs().LessThanOrEqual(half) {
			continue
		}
		v.warn(CodeLineNet, fmt.Sprintf("lines[%d].net", i),
			"line net %s is not quantity %s × unit price %s%s = %s",
			v.fmt(l.Net), money.Canonical(l.Quantity), money.Canonical(l.UnitPrice), baseText(l), v.fmt(withBase))
	}
}

// rates checks that every tax rate is a percentage a VAT system could charge.
func (v *validator) rates(d Document) {
	check := func(field string, r decimal.Decimal) {
		if r.LessThan(MinTaxRate) || r.GreaterThan(MaxTaxRate) {
			v.warn(CodeTaxRateOutOfRange, field, "tax rate %s%% is outside %s%%..%s%%", ClipText(money.Canonical(r)), MinTaxRate, MaxTaxRate)
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
	if sum := SumLineNets(d.Lines); len(d.Lines) > 0 && d.LineAmountsRequired() && !v.agrees(t.LineTotal, sum) {
		// Without lines BR-16 says what is wrong (and a profile without lines
		// states a line total it has no lines for).
		v.add(CodeLineTotal, "totals.line_total", "sum of line net amounts (BT-106) %s is not the sum of the line nets (BT-131), %s", v.fmt(t.LineTotal), v.fmt(sum))
	}
	if net := t.LineTotal.Sub(t.AllowanceTotal).Add(t.ChargeTotal); d.BreakdownRequired() && !v.agrees(t.Net, net) {
		v.add(CodeNetTotal, "totals.net", "total without VAT (BT-109) %s is not line total %s − allowances %s + charges %s = %s",
			v.fmt(t.Net), v.fmt(t.LineTotal), v.fmt(t.AllowanceTotal), v.fmt(t.ChargeTotal), v.fmt(net))
	}
	if sum := SumSubtotalTax(d.TaxSubtotals); len(d.TaxSubtotals) > 0 && d.BreakdownRequired() && !v.agrees(t.Tax, sum) {
		v.add(CodeTaxTotal, "totals.tax", "total VAT (BT-110) %s is not the sum of the VAT breakdown's tax (BT-117), %s", v.fmt(t.Tax), v.fmt(sum))
	}
	oneUnit := decimal.New(1, -v.minor)
	for i, s := range d.TaxSubtotals {
		field := fmt.Sprintf("tax_subtotals[%d].tax", i)
		if !vatCategoryTaxHolds(s) {
			v.add(CodeVATCategoryTax, field, "VAT category tax (BT-117) %s is not taxable %s × %s%% = %s within one unit",
				v.fmt(s.Tax), v.fmt(s.Taxable), money.Canonical(s.Rate), money.Format(schematronRound2(s.Taxable.Abs().Mul(s.Rate).Div(hundred)), 2))
			continue
		}
		if want := taxOf(s.Taxable, s.Rate, v.minor); s.Tax.Sub(want).Abs().GreaterThan(oneUnit) {
			v.warn(CodeSubtotalTax, field, "tax %s is not %s × %s%% = %s within one minor unit (EN 16931 allows up to one unit)",
				v.fmt(s.Tax), v.fmt(s.Taxable), money.Canonical(s.Rate), v.fmt(want))
		}
	}
	if gross := t.Net.Add(t.Tax); !v.agrees(t.Gross, gross) {
		v.add(CodeGrossTotal, "totals.gross", "total with VAT (BT-112) %s is not net %s + tax %s = %s", v.fmt(t.Gross), v.fmt(t.Net), v.fmt(t.Tax), v.fmt(gross))
	}
	if !v.payableHolds(t) {
		v.add(CodePayable, "totals.payable", "amount due (BT-115) %s is not total with VAT %s − paid %s + rounding %s = %s",
			v.fmt(t.Payable), v.fmt(t.Gross), v.fmt(t.Prepaid), v.fmt(t.Rounding), v.fmt(t.Gross.Sub(t.Prepaid).Add(t.Rounding)))
	}
}

// agrees reports whether a stated amount is the computed one as either the standard or the ledger
// compares them: exactly, as the Schematron rounds the computed value (two decimals, half up), or both
// rounded to the currency's minor units. Only when all three disagree is the sum rule broken: the
// product is never stricter than the standard.
func (v *validator) agrees(stated, computed decimal.Decimal) bool {
	return stated.Equal(computed) || stated.Equal(schematronRound2(computed)) || v.same(stated, computed)
}

// payableHolds is BR-CO-16, in the forms its UBL and CII bindings take: amount due = total with VAT −
// paid + rounding, exactly, or with (due − rounding) and (total − paid) each rounded to two decimals.
func (v *validator) payableHolds(t Totals) bool {
	if v.agrees(t.Payable, t.Gross.Sub(t.Prepaid).Add(t.Rounding)) {
		return true
	}
	return schematronRound2(t.Payable.Sub(t.Rounding)).Equal(schematronRound2(t.Gross.Sub(t.Prepaid)))
}

// vatCategoryTaxHolds is BR-CO-17 as CEN's Schematron tests it: a rate that rounds to zero has a tax
// that rounds to zero; otherwise |tax| lies within one unit of the currency of |taxable| × rate ÷ 100
// rounded to two decimals (the CII binding's bounds, which include the ends; UBL's exclude them).
func vatCategoryTaxHolds(s TaxSubtotal) bool {
	if schematronRound(s.Rate).IsZero() {
		return schematronRound(s.Tax).IsZero()
	}
	want := schematronRound2(s.Taxable.Abs().Mul(s.Rate).Div(hundred))
	return s.Tax.Abs().Sub(want).Abs().LessThanOrEqual(one)
}

// same compares two amounts to the currency's minor unit.
func (v *validator) same(a, b decimal.Decimal) bool {
	return a.Round(v.minor).Equal(b.Round(v.minor))
}

func (v *validator) fmt(d decimal.Decimal) string {
	return money.Format(d, v.minor)
}
