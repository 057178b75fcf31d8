package pipeline_test

import (
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// Order-X and the other messages of the CII family are filed not_an_invoice, with a finding naming
// what they are, in whichever version of their namespaces: Order-X's own (no "standard" in it), the
// one with "standard", another version, and a despatch advice of version 3.
func TestCIIMessagesThatAreNoInvoicesAreNotAnInvoice(t *testing.T) {
	t.Parallel()
	orderX := string(read(t, "orderx-order.xml"))
	const scrdm = "urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100"
	for _, tc := range []struct {
		name, mediaType string
		content         []byte
		says            string
	}{
		{"order-x order", "application/xml", []byte(orderX), "an Order-X order"},
		{"order-x order in a pdf", "application/pdf", read(t, "orderx-order.pdf"), "an Order-X order"},
		{"order-x order in the namespace with standard", "application/xml",
			[]byte(strings.Replace(orderX, scrdm, "urn:un:unece:uncefact:data:standard:SCRDMCCBDACIOMessageStructure:100", 1)), "an Order-X order"},
		{"order-x order in another version of its namespace", "application/xml",
			[]byte(strings.Replace(orderX, scrdm, "urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:2", 1)), "an Order-X order"},
		{"despatch advice of version 3", "application/xml",
			[]byte(`<?xml version="1.0"?><rsm:CrossIndustryDespatchAdvice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryDespatchAdvice:3"><rsm:ExchangedDocument/></rsm:CrossIndustryDespatchAdvice>`),
			"a UN/CEFACT despatch advice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, tc.content, tc.mediaType, nil)
			if d.Status != intake.Flagged || d.FlagReason != intake.FlagNotAnInvoice {
				t.Fatalf("filed %s %q, want flagged %s (trace %v)", d.Status, d.FlagReason, intake.FlagNotAnInvoice, trace)
			}
			var fs []einvoice.Finding
			if err := json.Unmarshal(d.Findings, &fs); err != nil || len(fs) != 1 || fs[0].Code != einvoice.CodeNotAnInvoice ||
				!strings.Contains(fs[0].Message, tc.says) {
				t.Fatalf("findings %s (%v), want one %s saying %q", d.Findings, err, einvoice.CodeNotAnInvoice, tc.says)
			}
		})
	}
}
