package einvoice

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"greatbook/internal/en16931"
)

// CodeRulesNotRun is the finding of a document the EN 16931 rules could not judge (over their own
// reading limits): a warning, since nothing was found wrong, but the reviewer should know.
const CodeRulesNotRun = "en16931_not_run"

// CodeRulesNotApplicable is the info finding of a document whose profile is not an EN 16931 invoice.
const CodeRulesNotApplicable = "en16931_not_applicable"

// CodeRulesAdvisory is the info finding of a document whose syntax predates EN 16931 and never claims
// it (ZUGFeRD 1.0): the standard's rules are shown for it as warnings (Advisory).
const CodeRulesAdvisory = "en16931_advisory"

// ruleID matches the identifier of a published rule (BR-16, BR-CO-16, BR-CL-04, PEPPOL-EN16931-R001,
// BR-DE-1), as opposed to the product's own snake_case codes.
var ruleID = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// Advisory returns the findings of a document that does not claim EN 16931 (its conformance is
// CodeRulesAdvisory) as they count for it: every fatal finding under a published rule's id is a
// warning, since the document never promised to keep the rule, but what the ledger cannot post or
// hold (Unpostable: no currency, an unknown one, no issue date...) stays fatal, whatever its code.
func Advisory(fs []Finding) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		if f.Fatal() && ruleID.MatchString(f.Code) && !Unpostable(f.Code) {
			f.Severity = SeverityWarning
		}
		out[i] = f
	}
	return out
}

// Conformance judges the UBL or CII a document was read from by CEN's validator of that syntax
// (internal/en16931) and returns the violations as findings: the official rule id as the code, the
// rule's flag as the severity, the business term as the field; judged says the rules ran, so that their
// verdict replaces the product's own checks of the same rules (an empty verdict is a valid invoice).
//
// MINIMUM and BASIC WL are not EN 16931 invoices by definition (no lines; MINIMUM not even a VAT
// breakdown): the rules do not apply to them, and an info finding says so.
func Conformance(profile Profile, syntax string, data []byte) (findings []Finding, judged bool) {
	if profile == ProfileMinimum || profile == ProfileBasicWL {
		return []Finding{{Code: CodeRulesNotApplicable, Severity: SeverityInfo, Field: "profile",
			Message: fmt.Sprintf("the %s profile is a subset of EN 16931 without lines; the standard's rules do not apply to it", profile)}}, false
	}
	violations, err := en16931.Validate(syntax, data)
	if err != nil {
		if errors.Is(err, en16931.ErrTooLarge) {
			return []Finding{{Code: CodeRulesNotRun, Severity: SeverityWarning, Field: "document",
				Message: "the EN 16931 rules were not run: " + err.Error()}}, false
		}
		// The document was read; a syntax the rules' binding cannot follow leaves them silent.
		return nil, false
	}
	out := make([]Finding, 0, len(violations))
	for _, v := range violations {
		f := Finding{Code: v.Rule, Severity: SeverityFatal, Field: v.BusinessTerm, Message: v.Message}
		if !v.Fatal() {
			f.Severity = SeverityWarning
		}
		if f.Field == "" {
			f.Field = v.Field
		} else if v.Field != "" {
			f.Message = fmt.Sprintf("%s: %s", v.Field, v.Message)
		}
		out = append(out, f)
	}
	return out, true
}

// Judged returns the product's own findings of a document the official rules judged (judged), as they
// count beside that verdict: a finding under a published rule's id is the product's reading of that rule
// and gives way to the official verdict, found or not, unless the ledger depends on it (Unpostable). The
// product's own codes stay.
func Judged(own []Finding, judged bool) []Finding {
	if !judged {
		return own
	}
	return slices.DeleteFunc(slices.Clone(own), func(f Finding) bool { return ruleID.MatchString(f.Code) && !Unpostable(f.Code) })
}

// Explained returns the official verdict with the product's own reading of the same rules beside it: a
// finding of the official rules whose rule the product also checks, and finds broken, gets the product's
// message (with the numbers involved) after the official text.
func Explained(conformance, own []Finding) []Finding {
	out := slices.Clone(conformance)
	for i, f := range out {
		for _, o := range own {
			if o.Code == f.Code && o.Fatal() && ruleID.MatchString(o.Code) {
				out[i].Message = f.Message + " (" + o.Message + ")"
				break
			}
		}
	}
	return out
}
