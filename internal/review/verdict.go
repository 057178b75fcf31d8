package review

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"greatbook/internal/audit"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// The states of a document's EN 16931 verdict (Verdict.State).
const (
	VerdictValid         = "valid"          // no fatal finding (but nothing_to_post, which is no rule of the standard)
	VerdictInvalid       = "invalid"        // at least one other fatal finding: an invalid e-invoice
	VerdictNotApplicable = "not_applicable" // a profile the rules do not apply to (MINIMUM, BASIC WL)
	VerdictNotRun        = "not_run"        // the rules could not judge it (over their reading limits)
)

// noticeMessageRunes bounds each violation's message in a supplier notice,
// which is built to fit a reason (audit.MaxReason): violations beyond what
// fits are counted, not listed.
const noticeMessageRunes = 300

// Verdict is what a reviewer is told of a filed document's conformance to
// EN 16931, and what that offers them: an acknowledged approval of an
// invalid e-invoice, and a rejection reason the supplier can act on.
type Verdict struct {
	// Applies is whether the document is in an EN 16931 syntax (UBL, CII,
	// or CII in a PDF) and an invoice or credit note: only then is there a
	// verdict to show. The project's JSON, scans, ZUGFeRD 1.0 (older than
	// the standard: its rules are warnings for it, einvoice.Advisory) and
	// an Order-X order have none.
	Applies bool
	State   string // one of the Verdict constants when Applies
	Profile einvoice.Profile
	// Findings are all of the document's findings, fatal first: the rules'
	// and the product's own, each once.
	Findings []einvoice.Finding
	// Violations counts the fatal findings but nothing_to_post: a valid
	// e-invoice may have nothing to post (it is flagged so, not invalid).
	Violations int
	// NeedsAcknowledgement is whether approving the document takes an
	// explicit acknowledgement with a reason (ApproveWith), and one can
	// succeed: it has fatal violations, none of them unpostable, and
	// otherwise could be approved.
	NeedsAcknowledgement bool
	// SupplierNotice is a rejection reason worded for the supplier, listing
	// the fatal violations; empty when there are none.
	SupplierNotice string
}

// VerdictOf reads the verdict of a filed document from its findings,
// fields, format and profile as the pipeline filed them.
func VerdictOf(doc intake.Document) Verdict {
	var findings []einvoice.Finding
	_ = json.Unmarshal(doc.Findings, &findings) // filed by the pipeline; unreadable means none to show
	v := Verdict{Profile: einvoice.Profile(doc.Profile), Findings: einvoice.BySeverity(findings)}
	var fatal []einvoice.Finding
	notAnInvoice, notApplicable, notRun, advisory, nothingToPost := false, false, false, false, false
	for _, f := range v.Findings {
		switch f.Code {
		case einvoice.CodeNothingToPost:
			// Fatal for approve (nothing would be posted), but no rule of
			// the standard: a valid e-invoice may post nothing.
			nothingToPost = true
			continue
		case einvoice.CodeNotAnInvoice:
			notAnInvoice = true
		case einvoice.CodeRulesAdvisory:
			advisory = true
		case einvoice.CodeRulesNotApplicable:
			notApplicable = true
		case einvoice.CodeRulesNotRun:
			notRun = true
		}
		if f.Fatal() {
			fatal = append(fatal, f)
		}
	}
	v.Violations = len(fatal)
	v.Applies = enSyntax(doc.Format, v.Profile) && !notAnInvoice && !advisory && doc.FlagReason != intake.FlagNotAnInvoice
	switch {
	case len(fatal) > 0:
		v.State = VerdictInvalid
	case notApplicable:
		v.State = VerdictNotApplicable
	case notRun:
		v.State = VerdictNotRun
	default:
		v.State = VerdictValid
	}
	unpostable := false
	for _, f := range fatal {
		unpostable = unpostable || einvoice.Unpostable(f.Code)
	}
	// The same conditions as approvable's, read from the document: an
	// acknowledgement is offered only where it can succeed.
	v.NeedsAcknowledgement = (doc.Status == intake.Pending || doc.Status == intake.Flagged) && !notAnInvoice && !nothingToPost &&
		doc.FlagReason != intake.FlagNotAnInvoice && (!intake.NeedsFields(doc.FlagReason) || doc.FlagReason == intake.FlagInvalidEInvoice) &&
		doc.DocType != "" && len(doc.Fields) > 0 && (len(fatal) > 0 || doc.FlagReason == intake.FlagInvalidEInvoice) && !unpostable
	if len(fatal) > 0 && !notAnInvoice {
		var fields struct {
			Type   einvoice.DocType `json:"type"`
			Number string           `json:"number"`
		}
		_ = json.Unmarshal(doc.Fields, &fields)
		v.SupplierNotice = supplierNotice(fields.Type, fields.Number, fatal)
	}
	return v
}

// enSyntax reports whether a document of format and profile is in a syntax
// the EN 16931 rules judge.
func enSyntax(format string, profile einvoice.Profile) bool {
	switch einvoice.Format(format) {
	case einvoice.FormatUBL, einvoice.FormatCII, einvoice.FormatFacturX:
	default:
		return false
	}
	switch profile {
	case einvoice.ProfileZUGFeRD1Basic, einvoice.ProfileZUGFeRD1Comfort, einvoice.ProfileZUGFeRD1Extended:
		return false
	}
	return true
}

// officialRule matches an official rule id (BR-CO-16, BR-CL-04, BR-DE-1),
// as opposed to the product's own snake_case codes.
var officialRule = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// supplierNotice words the fatal violations as a rejection the supplier
// can act on, within audit.MaxReason runes.
func supplierNotice(typ einvoice.DocType, number string, fatal []einvoice.Finding) string {
	what, closing := "invoice", "Please send a corrected invoice."
	if typ == einvoice.TypeCreditNote {
		what, closing = "credit note", "Please send a corrected credit note."
	}
	if number != "" {
		what += " " + cut(number, 100)
	}
	if len(fatal) == 1 {
		return fmt.Sprintf("Your %s cannot be accepted: it breaks %s. %s", what, violationText(fatal[0], "EN 16931 rule "), closing)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your %s cannot be accepted: it breaks these EN 16931 rules:", what)
	room := audit.MaxReason - len([]rune(b.String())) - len([]rune("\n"+closing)) - len([]rune(fmt.Sprintf("\n- and %d more", len(fatal))))
	for i, f := range fatal {
		line := "\n- " + violationText(f, "")
		if room -= len([]rune(line)); room < 0 {
			fmt.Fprintf(&b, "\n- and %d more", len(fatal)-i)
			break
		}
		b.WriteString(line)
	}
	b.WriteString("\n" + closing)
	return b.String()
}

// violationText is one violation for the supplier: the rule (after
// prefix), the business term, and the rule's text with the numbers.
func violationText(f einvoice.Finding, prefix string) string {
	msg := strings.Replace(f.Message, "["+f.Code+"]-", "", 1)
	msg = strings.TrimRight(cut(strings.TrimSpace(msg), noticeMessageRunes), ".")
	term := ""
	if f.Field != "" {
		term = " (" + cut(f.Field, 40) + ")"
	}
	if officialRule.MatchString(f.Code) {
		return fmt.Sprintf("%s%s%s: %s", prefix, f.Code, term, msg)
	}
	return msg + term
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
