// Package chart is what an org's documents are coded to, as its admin
// manages it: the chart of accounts and the dimensions (cost_center,
// project, ...) with their values. Nothing here is ever deleted: an account
// or a value in use (journal lines, coding rows, supplier rules, the org's
// default expense account) is deactivated instead, which keeps it on what
// already names it and refuses it for anything new.
package chart

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"greatbook/internal/apperr"
	"greatbook/internal/ledger"
)

// Fault is one fault of a request or an import, as the error's "reasons"
// list it: field names the item ("values[2].code", "line 7").
type Fault struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// invalid is the error of a request or a file with faults: every fault
// named in "reasons", the first in the message.
func invalid(what string, faults []Fault) error {
	return apperr.New(apperr.Invalid, "%s: %s: %s", what, faults[0].Field, faults[0].Message).With("reasons", faults)
}

// The shapes the migrations' CHECKs hold codes and names to, checked here
// first so that a refusal names what is wrong.
var (
	codePattern      = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$`)
	dimensionPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// MaxNameLength bounds the name of an account or a dimension value.
const MaxNameLength = 200

// reservedDimensions are the dimensions the bookkeeper writes on journal
// lines itself; an org's dimension of the same name would be confused with
// them.
var reservedDimensions = map[string]string{
	"supplier": "the bookkeeper writes the supplier of every line itself",
	"vat_rate": "the bookkeeper writes the VAT rate of every line itself",
	"kind":     "the bookkeeper writes the kind of every line (expense, tax, payable) itself",
}

// checkCode says what is wrong with an account or value code, or "".
func checkCode(code string) string {
	switch {
	case code == "":
		return "a code is required"
	case !codePattern.MatchString(code):
		return fmt.Sprintf("code %q is not 1 to 32 letters, digits, '.', '_' or '-' starting with a letter or digit", clip(code))
	}
	return ""
}

// checkName says what is wrong with an account or value name, or "".
func checkName(name string) string {
	switch {
	case name == "":
		return "a name is required"
	case utf8.RuneCountInString(name) > MaxNameLength:
		return fmt.Sprintf("a name has at most %d characters", MaxNameLength)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "a name has no control characters"
	}
	return ""
}

// checkType says what is wrong with an account type, or "".
func checkType(t ledger.AccountType) string {
	switch t {
	case ledger.Asset, ledger.Liability, ledger.Equity, ledger.Income, ledger.Expense:
		return ""
	case "":
		return "a type is required (asset, liability, equity, income or expense)"
	}
	return fmt.Sprintf("type %q is not asset, liability, equity, income or expense", clip(string(t)))
}

// CheckDimensionName refuses a name an org cannot give a dimension: not
// lower-case letters, digits and '_' starting with a letter, or one the
// bookkeeper reserves for its own line dimensions.
func CheckDimensionName(name string) error {
	if why, ok := reservedDimensions[name]; ok {
		return apperr.New(apperr.Invalid, "dimension name %q is reserved: %s", name, why).
			With("reasons", []Fault{{Field: "name", Message: "reserved: " + why}})
	}
	if !dimensionPattern.MatchString(name) {
		msg := fmt.Sprintf("dimension name %q is not 1 to 64 lower-case letters, digits and '_' starting with a letter", clip(name))
		return apperr.New(apperr.Invalid, "%s", msg).With("reasons", []Fault{{Field: "name", Message: msg}})
	}
	return nil
}

// clip shortens what a fault quotes back.
func clip(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

// sortFaults orders faults by field, so that a refusal reads the same every
// time.
func sortFaults(faults []Fault) {
	slices.SortFunc(faults, func(a, b Fault) int { return strings.Compare(a.Field, b.Field) })
}
