// Package en16931 judges e-invoices by the European standard EN 16931 as its publisher does: the rules
// are CEN's own compiled validators (cen/, EUPL 1.2), evaluated by this package's XPath (xpath/), for UBL
// and CII each by its own binding. Germany's XRechnung rules (BR-DE-*), which CEN's files do not hold, are
// judged over the semantic model (model.go) for documents that claim XRechnung.
package en16931

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Violation is one broken rule: its official id and flag, the business term it concerns, where in the
// invoice, and the official text.
type Violation struct {
	Rule         string // official id, e.g. "BR-CO-16"
	Flag         string // "fatal" or "warning", as the official validator flags the rule
	BusinessTerm string // e.g. "BT-115"
	Field        string // where in the invoice, e.g. "line 3", "TaxTotal/TaxSubtotal"
	Message      string
}

// Fatal reports whether the violation makes the invoice invalid.
func (v Violation) Fatal() bool { return v.Flag == "fatal" }

// Rule is one rule the product judges: an official rule of CEN's validators (in one syntax or both), or an
// XRechnung rule of KoSIT's.
type Rule struct {
	ID           string
	BusinessTerm string
	Context      string
	Syntaxes     []string // "ubl", "cii": the validators that hold the rule
	flag         string
	text         string
	check        func(inv *Invoice, fail func(field, detail string)) // XRechnung rules only
	xrechnung    bool
}

// Flag is the rule's flag in this product: the official one, "warning" for XRechnung's rules.
func (r Rule) Flag() string {
	if r.xrechnung {
		return "warning"
	}
	return r.flag
}

// OfficialFlag is the flag the rule's publisher gives it (CEN, or KoSIT for XRechnung's BR-DE rules).
func (r Rule) OfficialFlag() string {
	if r.xrechnung {
		return xrechnungRules[r.ID].Official
	}
	return r.flag
}

// XRechnung reports whether the rule is one of XRechnung's (BR-DE-*), judged only when BT-24 says XRechnung.
func (r Rule) XRechnung() bool { return r.xrechnung }

// Message is the rule's official text.
func (r Rule) Message() string {
	if r.xrechnung {
		return xrechnungRules[r.ID].Message
	}
	return r.text
}

// xrechnungSet is KoSIT's rules this package implements; xrechnung.go adds them at init.
var xrechnungSet []Rule

// Rules lists every rule the product judges: CEN's, from both validators, then XRechnung's, each once, by id.
func Rules() ([]Rule, error) {
	sets, err := cenRuleSets()
	if err != nil {
		return nil, err
	}
	byID := map[string]*Rule{}
	var out []*Rule
	for _, syntax := range []string{"ubl", "cii"} {
		for id, text := range sets[syntax].texts {
			r, ok := byID[id]
			if !ok {
				r = &Rule{ID: id, BusinessTerm: businessTerm(text), flag: sets[syntax].flags[id], text: text}
				byID[id] = r
				out = append(out, r)
			}
			r.Syntaxes = append(r.Syntaxes, syntax)
		}
	}
	rules := make([]Rule, 0, len(out)+len(xrechnungSet))
	for _, r := range out {
		rules = append(rules, *r)
	}
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return append(rules, xrechnungSet...), nil
}

// Check judges the invoice by XRechnung's rules when it claims XRechnung (BT-24).
func Check(inv *Invoice) []Violation {
	if inv == nil || !inv.IsXRechnung() {
		return nil
	}
	var out []Violation
	for _, r := range xrechnungSet {
		r.check(inv, func(field, detail string) {
			msg := r.Message()
			if detail != "" {
				msg += " (" + detail + ")"
			}
			out = append(out, Violation{Rule: r.ID, Flag: r.Flag(), BusinessTerm: r.BusinessTerm, Field: field, Message: msg})
		})
	}
	return out
}

// Validate judges a document of the given syntax ("ubl" or "cii") by CEN's validator of that syntax and,
// when it claims XRechnung, by XRechnung's rules. ErrTooLarge says the document is beyond what the rules
// may read or compute.
func Validate(format string, data []byte) ([]Violation, error) {
	if format != "ubl" && format != "cii" {
		return nil, fmt.Errorf("en16931: unknown syntax %q", format)
	}
	out, err := validateCEN(format, data)
	if err != nil {
		return nil, err
	}
	if !mayClaimXRechnung(data) {
		return out, nil
	}
	var inv *Invoice
	if format == "ubl" {
		inv, err = FromUBL(data)
	} else {
		inv, err = FromCII(data)
	}
	if err != nil {
		return out, nil // CEN's rules have judged it; the model reads what XRechnung's need or nothing
	}
	return append(out, Check(inv)...), nil
}

// mayClaimXRechnung reports whether the document could state an XRechnung identifier (BT-24), so that
// only those are read into the model XRechnung's rules need.
func mayClaimXRechnung(data []byte) bool {
	return bytes.Contains(data, []byte("xrechnung")) || bytes.Contains(data, []byte("XRechnung")) || bytes.Contains(data, []byte("xoev-de"))
}
