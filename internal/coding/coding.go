// Package coding is where each line of a supplier document goes in the
// books: its account and dimension values (cost centre, project, ...), by
// net amount, split across rows where a line is shared. A document's coding
// is suggested when it is filed, set by a reviewer before approval, and
// posted by the bookkeeper as one debit line per row.
package coding

import (
	"fmt"
	"maps"
	"slices"

	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

// Source is where a coding row came from.
type Source string

// The sources of a coding row: a reviewer set it, or it was suggested from
// how the org coded this supplier's lines before (history), from the
// account remembered for the supplier (supplier_rule), or from the org's
// default expense account (default).
const (
	Reviewer     Source = "reviewer"
	History      Source = "history"
	SupplierRule Source = "supplier_rule"
	Default      Source = "default"
)

// Row is one coding row: Amount of the net of document line Line (1-based,
// as in the document's lines; nil for the document-level remainder) goes to
// Account with Dimensions.
type Row struct {
	Line       *int              `json:"line"`
	Account    string            `json:"account"`
	Dimensions map[string]string `json:"dimensions"`
	Amount     decimal.Decimal   `json:"amount"`
	Source     Source            `json:"source,omitempty"`
}

// MaxRows bounds a document's coding: a few rows for each line of the
// largest document the intake reads.
const MaxRows = 5000

// Target is one amount a coding covers: the net of a line, or (Line nil)
// the document-level remainder.
type Target struct {
	Line *int
	Net  decimal.Decimal
}

// Targets are the amounts a document's coding covers, in order: the net of
// each line (BT-131), then the document-level remainder, the total without
// VAT (BT-109) less the lines' nets: the document's allowances and charges
// (BT-107, BT-108). A document without lines (Factur-X BASIC WL, MINIMUM,
// totals only) is coded at document level as a whole. A remainder of zero
// is no target.
func Targets(d einvoice.Document) []Target {
	out := make([]Target, 0, len(d.Lines)+1)
	sum := decimal.Zero
	for i, l := range d.Lines {
		out = append(out, Target{Line: new(i + 1), Net: l.Net})
		sum = sum.Add(l.Net)
	}
	if rest := d.Totals.Net.Sub(sum); !rest.IsZero() || len(d.Lines) == 0 {
		out = append(out, Target{Net: rest})
	}
	return out
}

// Chart is what a coding may name: the org's accounts (code: active) and
// its dimensions' values (name: code: active).
type Chart struct {
	Accounts map[string]bool
	Values   map[string]map[string]bool
}

// Fault is one fault of a coding, as the error's "reasons" list it: field
// names the row ("coding[2].account").
type Fault struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Check validates a coding of document d against the chart: every row names
// an active account and active values of the org's dimensions, a line the
// document has (or none, for the remainder), and an amount the ledger can
// hold; every target is covered, and the rows of each sum to its net to the
// cent. Refused with invalid, every fault named in "reasons".
func Check(d einvoice.Document, rows []Row, chart Chart) error {
	var faults []Fault
	fault := func(field, format string, args ...any) {
		faults = append(faults, Fault{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if len(rows) > MaxRows {
		return apperr.New(apperr.Invalid, "a coding has at most %d rows", MaxRows)
	}
	targets := Targets(d)
	sums := make(map[int]decimal.Decimal, len(targets)) // by line; 0: the remainder
	first := map[int]int{}                              // the first row of each target
	for i, r := range rows {
		field := fmt.Sprintf("coding[%d]", i)
		line := 0
		if r.Line != nil {
			line = *r.Line
			if line < 1 || line > len(d.Lines) {
				fault(field+".line", "document has no line %d (it has %d)", line, len(d.Lines))
				continue
			}
		} else if !slices.ContainsFunc(targets, func(t Target) bool { return t.Line == nil }) {
			fault(field+".line", "every amount of the document is on its lines: name the line this row codes")
			continue
		}
		switch active, ok := chart.Accounts[r.Account]; {
		case !ok:
			fault(field+".account", "no account %q in the chart of accounts", clip(r.Account))
		case !active:
			fault(field+".account", "account %s is inactive", r.Account)
		}
		for _, name := range slices.Sorted(maps.Keys(r.Dimensions)) {
			code := r.Dimensions[name]
			values, ok := chart.Values[name]
			if !ok {
				fault(field+".dimensions."+clip(name), "no dimension %q", clip(name))
				continue
			}
			switch active, ok := values[code]; {
			case !ok:
				fault(field+".dimensions."+name, "%s has no value %q", name, clip(code))
			case !active:
				fault(field+".dimensions."+name, "value %s of %s is inactive", code, name)
			}
		}
		if !money.Ledger.Fits(r.Amount) || !r.Amount.Equal(r.Amount.Round(money.Ledger.Scale)) {
			fault(field+".amount", "%s is beyond what the ledger holds (%s)", r.Amount, money.Ledger.Describe())
			continue
		}
		if _, seen := first[line]; !seen {
			first[line] = i
		}
		sums[line] = sums[line].Add(r.Amount)
	}
	for _, t := range targets {
		line, what := 0, "the document-level amount (its allowances and charges, or its total without VAT)"
		if t.Line != nil {
			line, what = *t.Line, fmt.Sprintf("line %d", *t.Line)
		}
		i, covered := first[line]
		switch {
		case !covered:
			fault("coding", "%s (net %s) has no row", what, t.Net)
		case !sums[line].Equal(t.Net):
			fault(fmt.Sprintf("coding[%d].amount", i), "the rows of %s sum to %s, its net is %s", what, sums[line], t.Net)
		}
	}
	if len(faults) > 0 {
		return apperr.New(apperr.Invalid, "the coding is not valid: %s %s", faults[0].Field, faults[0].Message).With("reasons", faults)
	}
	return nil
}

// Covers reports whether rows cover every target of d, each to its net
// (what posting by the coding needs; Check says what is wrong).
func Covers(d einvoice.Document, rows []Row) bool {
	sums := map[int]decimal.Decimal{}
	seen := map[int]bool{}
	for _, r := range rows {
		line := 0
		if r.Line != nil {
			line = *r.Line
		}
		sums[line], seen[line] = sums[line].Add(r.Amount), true
	}
	for _, t := range Targets(d) {
		line := 0
		if t.Line != nil {
			line = *t.Line
		}
		if !seen[line] || !sums[line].Equal(t.Net) {
			return false
		}
	}
	return len(rows) > 0
}

// clip shortens what a fault quotes back.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
