package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// TestOnlyAFatalFindingFlags files copies of a published example (Peppol
// BIS 3.0's base example), each changed in one place: what EN 16931 accepts
// is pending with the product's warnings stored beside it; what breaks one
// of the standard's fatal rules is flagged invalid_einvoice naming the rule,
// its fields still read and stored.
func TestOnlyAFatalFindingFlags(t *testing.T) {
	t.Parallel()
	sample := string(read(t, "samples/peppol-bis3-base-example.xml"))
	edit := func(old, new string) []byte {
		if !strings.Contains(sample, old) {
			t.Fatalf("the sample has no %q", old)
		}
		return []byte(strings.Replace(sample, old, new, 1))
	}
	for _, tc := range []struct {
		name     string
		content  []byte
		flag     string // "" for pending
		code     string // a finding the document must carry
		severity einvoice.Severity
	}{
		{"the example as published", []byte(sample), "", "", ""},
		{"return line with a positive quantity and a negative net", edit(`unitCode="DAY">-3<`, `unitCode="DAY">3<`), "",
			einvoice.CodeLineNet, einvoice.SeverityWarning},
		{"prepaid invoice due before its issue date", edit(`<cbc:DueDate>2017-12-01<`, `<cbc:DueDate>2017-11-01<`), "",
			einvoice.CodeDueBeforeIssue, einvoice.SeverityWarning},
		{"amount due is not total with VAT − paid + rounding", edit(`<cbc:PayableAmount currencyID="EUR">1656.25<`, `<cbc:PayableAmount currencyID="EUR">1666.25<`),
			intake.FlagInvalidEInvoice, einvoice.CodePayable, einvoice.SeverityFatal},
		{"currency code not ISO 4217", edit(`<cbc:DocumentCurrencyCode>EUR<`, `<cbc:DocumentCurrencyCode>EUX<`),
			intake.FlagInvalidEInvoice, einvoice.CodeInvalidCurrency, einvoice.SeverityFatal},
		{"seller without its legal name", edit(`<cbc:RegistrationName>SupplierOfficialName Ltd</cbc:RegistrationName>`, ``),
			intake.FlagInvalidEInvoice, einvoice.CodeSellerName, einvoice.SeverityFatal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, tc.content, "application/xml", nil)
			want := intake.Pending
			if tc.flag != "" {
				want = intake.Flagged
			}
			if d.Status != want || d.FlagReason != tc.flag {
				t.Fatalf("filed %s %q, want %s %q; findings %s (trace %v)", d.Status, d.FlagReason, want, tc.flag, d.Findings, trace)
			}
			var fields einvoice.Document
			if err := json.Unmarshal(d.Fields, &fields); err != nil || fields.Number != "Snippet1" || d.SourceRef == "" {
				t.Fatalf("fields %s (%v), source ref %q", d.Fields, err, d.SourceRef)
			}
			var fs []einvoice.Finding
			if len(d.Findings) > 0 {
				if err := json.Unmarshal(d.Findings, &fs); err != nil {
					t.Fatal(err)
				}
			}
			if tc.code == "" && len(fs) != 0 {
				t.Fatalf("findings %+v, want none", fs)
			}
			found := false
			for _, f := range fs {
				found = found || (f.Code == tc.code && f.Severity == tc.severity)
				if tc.flag == "" && f.Fatal() {
					t.Errorf("a pending document carries the fatal finding %+v", f)
				}
			}
			if tc.code != "" && !found {
				t.Fatalf("no %s %s finding in %+v", tc.severity, tc.code, fs)
			}
		})
	}
}

// TestWarningsAreNoReasonToRepair: a model's reading whose only findings
// are warnings is filed pending after one extraction, never read again.
func TestWarningsAreNoReasonToRepair(t *testing.T) {
	t.Parallel()
	warned := `{"type":"invoice","number":"SCAN-1","issue_date":"2026-11-20","due_date":"2026-11-01","currency":"EUR",
		"seller":{"name":"Supplier AB","vat_id":"SE556677889901"},
		"lines":[{"description":"Widget","quantity":"2","unit_price":"50.00","tax_rate":"25"}]}`
	srv := newModelServer(t, answer(warned), answer(warned), answer(warned))
	var waits []time.Duration
	mem := intake.NewMemoryStore()
	d, trace := offline(t, mem, mem, read(t, "scanned-invoice.png"), "image/png", modelExtractor(srv.URL, &waits))
	if d.Status != intake.Pending || srv.calls.Load() != 1 {
		t.Fatalf("filed %s %q after %d extractions (trace %v)", d.Status, d.FlagReason, srv.calls.Load(), trace)
	}
	if !strings.Contains(string(d.Findings), einvoice.CodeDueBeforeIssue) {
		t.Fatalf("findings %s", d.Findings)
	}
}
