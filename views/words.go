package views

import (
	"strconv"
	"strings"
	"unicode"

	"greatbook/internal/apchecks"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// statusLabel is a status as a person reads it: a document's in the
// desk's words (intake.StatusWords); a job's or a run's is a word already.
func statusLabel(s string) string { return intake.StatusWords(intake.Status(s)) }

// flagLabel is why a document was flagged, in words.
func flagLabel(reason string) string { return intake.FlagWords(reason) }

// findingWords name the product's own finding codes (docs/api.md, "A
// document as the API shows it"); a rule of EN 16931 or of a CIUS keeps its
// identifier (BR-CO-10), which is how a reader looks it up.
var findingWords = map[string]string{
	apchecks.CodeBuyerNotThisOrg:     "Not addressed to this organisation",
	apchecks.CodeIssueDateOld:        "Issue date far in the past",
	apchecks.CodeIssueDateFuture:     "Issue date in the future",
	apchecks.CodeDueAtArrival:        "Due date passed at arrival",
	apchecks.CodeSupplierIBANDiff:    "Bank account changed",
	einvoice.CodeInvalidType:         "Not an invoice or a credit note",
	einvoice.CodeTypeCode:            "Unknown type code",
	einvoice.CodeInvalidDate:         "Invalid date",
	einvoice.CodeDueBeforeIssue:      "Due before it was issued",
	einvoice.CodeIssueDateOutOfRange: "Issue date out of range",
	einvoice.CodeLineNet:             "Line net does not add up",
	einvoice.CodeSubtotalTax:         "VAT subtotal does not add up",
	einvoice.CodeTaxRateOutOfRange:   "VAT rate out of range",
	einvoice.CodeNothingToPost:       "Nothing to post",
	einvoice.CodeRulesAdvisory:       "EN 16931 as warnings only",
	einvoice.CodeNotAnInvoice:        "Not an invoice",
	einvoice.CodeUnstorableText:      "Text that cannot be stored",
	einvoice.CodeTextTooLong:         "Text too long",
	einvoice.CodeAmountOutOfRange:    "Amount out of range",
	einvoice.CodeUnsupportedCharset:  "Unsupported character set",
	einvoice.CodeInputCap:            "Too large to read",
	"pipeline_failed":                "Reading failed",
	"pipeline_abandoned":             "Reading given up",
}

// isRuleID reports whether a finding's code is a rule's identifier (upper
// case, digits and dashes: BR-CO-10, PEPPOL-EN16931-R001), shown as it is.
func isRuleID(code string) bool {
	return code != "" && strings.IndexFunc(code, unicode.IsLower) < 0
}

// findingLabel is a finding's code as a person reads it: a rule's
// identifier as it is, the product's own codes in words.
func findingLabel(code string) string {
	if isRuleID(code) {
		return code
	}
	if w, ok := findingWords[code]; ok {
		return w
	}
	w := strings.ReplaceAll(code, "_", " ")
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// docTypeWords is a document type (BT-3's meaning) in words.
func docTypeWords(t einvoice.DocType) string {
	switch t {
	case einvoice.TypeInvoice:
		return "Invoice"
	case einvoice.TypeCreditNote:
		return "Credit note"
	}
	return string(t)
}

// countOf is n with its noun in the singular or the plural: "1 attempt",
// "2 attempts".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// pluralVerb is one or many as n asks, for words that follow a count shown
// on its own: "<strong>1</strong> dead letter matches".
func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// kindLabel is a run's kind (pipeline, bookkeeper, bulk_retry) in words.
func kindLabel(kind string) string { return strings.ReplaceAll(kind, "_", " ") }
