package pipeline_test

import (
	"regexp"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// TestAnXRechnungWithOnlyBRDEWarningsIsFiledPending proves XRechnung's rules are warnings through the real
// pipeline: the published UBL and CII examples stating XRechnung 3.0 as their specification identifier but
// without a buyer reference (BR-DE-15) and with a seller telephone of fewer than three digits (BR-DE-27) are
// filed pending, not flagged, with both BR-DE findings shown as warnings in KoSIT's words.
func TestAnXRechnungWithOnlyBRDEWarningsIsFiledPending(t *testing.T) {
	t.Parallel()
	const xr = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
	for _, tc := range []struct{ sample, bt24, phone string }{
		{ublInvoice, `(<cbc:CustomizationID>)[^<]*`, `(<cbc:Telephone>)[^<]*`},
		{ciiInvoice, `(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*`, `(<ram:CompleteNumber>)[^<]*`},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			t.Parallel()
			s := string(read(t, tc.sample))
			for _, e := range []struct{ re, repl string }{{tc.bt24, "${1}" + xr}, {tc.phone, "${1}+4 (0)"}} {
				re := regexp.MustCompile(e.re)
				if len(re.FindAllString(s, -1)) == 0 {
					t.Fatalf("%s not in %s", e.re, tc.sample)
				}
				done := false
				s = re.ReplaceAllStringFunc(s, func(m string) string {
					if done {
						return m
					}
					done = true
					return re.ReplaceAllString(m, e.repl)
				})
			}
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, []byte(s), "application/xml", nil)
			fs := filedFindings(t, d)
			if d.Status != intake.Pending || d.FlagReason != "" || einvoice.HasFatal(fs) {
				t.Fatalf("filed %s %q with findings %+v, want pending without a fatal finding (trace %v)", d.Status, d.FlagReason, fs, trace)
			}
			for _, rule := range []string{"BR-DE-15", "BR-DE-27"} {
				found := false
				for _, f := range fs {
					if f.Code == rule && f.Severity == einvoice.SeverityWarning && strings.Contains(f.Message, "["+rule+"]") {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s warning in %+v", rule, fs)
				}
			}
		})
	}
}
