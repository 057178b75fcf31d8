package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// ZUGFeRD 1.0 predates EN 16931 and never claims it: the standard's rules are shown for it as
// warnings, with an info finding saying why, and change nothing; what the ledger cannot post or
// hold stays fatal.
func TestZUGFeRD1IsJudgedByEN16931AsWarnings(t *testing.T) {
	t.Parallel()
	comfort := string(read(t, "zugferd1-comfort.xml"))
	edit := func(old, new string) []byte {
		if !strings.Contains(comfort, old) {
			t.Fatalf("zugferd1-comfort.xml has no %q", old)
		}
		return []byte(strings.Replace(comfort, old, new, 1))
	}
	for _, tc := range []struct {
		name, mediaType string
		content         []byte
		flag            string            // "" for pending
		code            string            // a finding the document must carry
		severity        einvoice.Severity // its severity
	}{
		{"comfort as published", "application/xml", []byte(comfort), "", "", ""},
		{"basic as published", "application/xml", read(t, "zugferd1-basic.xml"), "", "", ""},
		{"comfort in a pdf", "application/pdf", read(t, "zugferd1-invoice.pdf"), "", "", ""},
		{"amount due is not total with VAT − paid", "application/xml",
			edit(`<ram:DuePayableAmount currencyID="EUR">479.87<`, `<ram:DuePayableAmount currencyID="EUR">489.87<`),
			"", einvoice.CodePayable, einvoice.SeverityWarning},
		{"seller without a name", "application/xml", edit(`<ram:Name>Bürobedarf Altmann GmbH</ram:Name>`, ``),
			"", einvoice.CodeSellerName, einvoice.SeverityWarning},
		{"currency the ledger does not know", "application/xml",
			edit(`<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>`, `<ram:InvoiceCurrencyCode>EUX</ram:InvoiceCurrencyCode>`),
			intake.FlagInvalidEInvoice, einvoice.CodeInvalidCurrency, einvoice.SeverityFatal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, tc.content, tc.mediaType, nil)
			want := intake.Pending
			if tc.flag != "" {
				want = intake.Flagged
			}
			if d.Status != want || d.FlagReason != tc.flag || d.DocType != "invoice" {
				t.Fatalf("filed %s %q %q, want %s %q invoice; findings %s (trace %v)", d.Status, d.FlagReason, d.DocType, want, tc.flag, d.Findings, trace)
			}
			var fs []einvoice.Finding
			if err := json.Unmarshal(d.Findings, &fs); err != nil {
				t.Fatalf("findings %s: %v", d.Findings, err)
			}
			why, found := false, tc.code == ""
			for _, f := range fs {
				why = why || (f.Code == einvoice.CodeRulesAdvisory && f.Severity == einvoice.SeverityInfo &&
					strings.Contains(f.Message, "ZUGFeRD 1.0 predates EN 16931; its rules are shown as warnings"))
				found = found || (f.Code == tc.code && f.Severity == tc.severity)
				if f.Fatal() && !einvoice.Unpostable(f.Code) {
					t.Errorf("a fatal finding the ledger does not need: %+v", f)
				}
			}
			if !why || !found {
				t.Fatalf("findings %+v, want the info %s and a %s %s", fs, einvoice.CodeRulesAdvisory, tc.severity, tc.code)
			}
		})
	}
}
