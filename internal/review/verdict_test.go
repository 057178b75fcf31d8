package review_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/review"
)

// filedAs is a document as the pipeline files it, for VerdictOf.
func filedAs(format, profile string, status intake.Status, flag string, typ einvoice.DocType, findings ...einvoice.Finding) intake.Document {
	fs, _ := json.Marshal(findings)
	fields, _ := json.Marshal(map[string]any{"type": typ, "number": "INV-1"})
	return intake.Document{ID: 1, Status: status, FlagReason: flag, DocType: string(typ), Format: format, Profile: profile,
		Fields: fields, Findings: fs}
}

var (
	payable = einvoice.Finding{Code: "BR-CO-16", Severity: einvoice.SeverityFatal, Field: "BT-115",
		Message: "totals: [BR-CO-16]-Amount due for payment (BT-115) = Invoice total amount with VAT (BT-112) -Paid amount (BT-113) +Rounding amount (BT-114). (amount due 24331.00 ≠ total with VAT 24321.07 − paid 0.00 + rounding -0.07)"}
	nothingToPost = einvoice.Finding{Code: einvoice.CodeNothingToPost, Severity: einvoice.SeverityFatal, Field: "totals.payable",
		Message: "every amount of the document is zero: approving it would post nothing"}
	dueEarly = einvoice.Finding{Code: "due_before_issue", Severity: einvoice.SeverityWarning, Field: "due_date", Message: "the due date is before the issue date"}
)

// The verdict a reviewer is shown: valid, invalid with its violations
// (fatal first), not applicable to a profile without lines, and none at
// all for what is not an EN 16931 syntax or not an invoice.
func TestVerdictOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		doc        intake.Document
		applies    bool
		state      string
		violations int
		ack        bool
	}{
		{"valid UBL", filedAs("ubl", "en16931", intake.Pending, "", einvoice.TypeInvoice), true, review.VerdictValid, 0, false},
		{"valid with a warning", filedAs("cii", "xrechnung", intake.Pending, "", einvoice.TypeInvoice, dueEarly), true, review.VerdictValid, 0, false},
		{"invalid", filedAs("ubl", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, dueEarly, payable), true, review.VerdictInvalid, 1, true},
		{"invalid filed as a duplicate", filedAs("facturx", "en16931", intake.Flagged, intake.FlagDuplicate, einvoice.TypeInvoice, payable), true, review.VerdictInvalid, 1, true},
		{"invalid and unpostable", filedAs("ubl", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, payable,
			einvoice.Finding{Code: "BR-CL-04", Severity: einvoice.SeverityFatal, Field: "BT-5", Message: "currency XXY"}), true, review.VerdictInvalid, 2, false},
		{"invalid and decided", filedAs("ubl", "en16931", intake.Rejected, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, payable), true, review.VerdictInvalid, 1, false},
		{"valid with nothing to post", filedAs("ubl", "en16931", intake.Flagged, intake.FlagNothingToPost, einvoice.TypeInvoice, nothingToPost),
			true, review.VerdictValid, 0, false},
		{"invalid with nothing to post", filedAs("ubl", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, payable, nothingToPost),
			true, review.VerdictInvalid, 1, false},
		{"BASIC WL", filedAs("facturx", "basic_wl", intake.Pending, "", einvoice.TypeInvoice,
			einvoice.Finding{Code: einvoice.CodeRulesNotApplicable, Severity: einvoice.SeverityInfo, Field: "profile", Message: "no lines"}), true, review.VerdictNotApplicable, 0, false},
		{"JSON", filedAs("json", "", intake.Pending, "", einvoice.TypeInvoice), false, review.VerdictValid, 0, false},
		{"ZUGFeRD 1.0", filedAs("zugferd1", "zugferd1_basic", intake.Pending, "", einvoice.TypeInvoice), false, review.VerdictValid, 0, false},
		{"ZUGFeRD 1.0 in a PDF", filedAs("facturx", "zugferd1_comfort", intake.Pending, "", einvoice.TypeInvoice), false, review.VerdictValid, 0, false},
		{"ZUGFeRD 1.0 in a PDF stating a profile of its own", filedAs("facturx", "other", intake.Pending, "", einvoice.TypeInvoice,
			einvoice.Finding{Code: einvoice.CodeRulesAdvisory, Severity: einvoice.SeverityInfo, Field: "profile", Message: "ZUGFeRD 1.0 predates EN 16931"},
			einvoice.Finding{Code: "BR-CO-16", Severity: einvoice.SeverityWarning, Field: "totals.payable", Message: "amount due"}), false, review.VerdictValid, 0, false},
		{"an order", filedAs("cii", "", intake.Flagged, intake.FlagNotAnInvoice, "",
			einvoice.Finding{Code: einvoice.CodeNotAnInvoice, Severity: einvoice.SeverityFatal, Field: "type", Message: "an Order-X order"}), false, review.VerdictInvalid, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := review.VerdictOf(tc.doc)
			if v.Applies != tc.applies || v.State != tc.state || v.Violations != tc.violations || v.NeedsAcknowledgement != tc.ack {
				t.Fatalf("verdict %+v, want applies %v, %s, %d violations, acknowledgement %v", v, tc.applies, tc.state, tc.violations, tc.ack)
			}
			if len(v.Findings) > 0 && v.Violations > 0 && !v.Findings[0].Fatal() {
				t.Fatalf("findings not fatal first: %v", v.Findings)
			}
		})
	}
}

// The rejection reason offered for an invalid e-invoice is worded for the
// supplier, names each fatal rule with its numbers (not the warnings), and
// always fits a rejection's reason.
func TestSupplierNotice(t *testing.T) {
	t.Parallel()
	one := review.VerdictOf(filedAs("ubl", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, dueEarly, payable)).SupplierNotice
	want := "Your invoice INV-1 cannot be accepted: it breaks EN 16931 rule BR-CO-16 (BT-115): totals: Amount due for payment (BT-115) = Invoice total amount with VAT (BT-112) -Paid amount (BT-113) +Rounding amount (BT-114). (amount due 24331.00 ≠ total with VAT 24321.07 − paid 0.00 + rounding -0.07). Please send a corrected invoice."
	if one != want {
		t.Fatalf("notice:\n%s\nwant:\n%s", one, want)
	}
	if v := review.VerdictOf(filedAs("ubl", "en16931", intake.Pending, "", einvoice.TypeInvoice, dueEarly)); v.SupplierNotice != "" {
		t.Fatalf("a valid document's notice: %q", v.SupplierNotice)
	}

	credit := review.VerdictOf(filedAs("cii", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeCreditNote, payable,
		einvoice.Finding{Code: "BR-06", Severity: einvoice.SeverityFatal, Field: "BT-27", Message: "[BR-06]-An Invoice shall contain the Seller name (BT-27)."})).SupplierNotice
	if !strings.HasPrefix(credit, "Your credit note INV-1 cannot be accepted: it breaks these EN 16931 rules:\n- BR-CO-16 (BT-115): totals: Amount due") ||
		!strings.Contains(credit, "\n- BR-06 (BT-27): An Invoice shall contain the Seller name (BT-27)\n") || !strings.HasSuffix(credit, "Please send a corrected credit note.") {
		t.Fatalf("two violations:\n%s", credit)
	}

	var many []einvoice.Finding
	for i := range 200 {
		many = append(many, einvoice.Finding{Code: fmt.Sprintf("BR-%02d", i), Severity: einvoice.SeverityFatal, Field: "BT-1", Message: strings.Repeat("x", 2000)})
	}
	long := review.VerdictOf(filedAs("ubl", "en16931", intake.Flagged, intake.FlagInvalidEInvoice, einvoice.TypeInvoice, many...)).SupplierNotice
	if n := len([]rune(long)); n > 2000 || !strings.Contains(long, "more\nPlease send a corrected invoice.") {
		t.Fatalf("200 long violations: %d runes:\n%s", n, long)
	}
}
