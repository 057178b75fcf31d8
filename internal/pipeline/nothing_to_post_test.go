package pipeline_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
)

// zeroAmounts is an e-invoice with every amount zero: UBL's amounts (those with a currencyID, and
// the prices) and CII's (every element whose name ends in Amount).
func zeroAmounts(t *testing.T, name string) []byte {
	t.Helper()
	zeroed := regexp.MustCompile(`(<(cbc:\w+ currencyID="[A-Z]{3}"|ram:\w*Amount( currencyID="[A-Z]{3}")?)>)-?[0-9.]+<`).
		ReplaceAll(read(t, name), []byte("${1}0.00<"))
	if string(zeroed) == string(read(t, name)) {
		t.Fatalf("%s: no amount zeroed", name)
	}
	return zeroed
}

// A valid document every amount of which is zero is not an invalid e-invoice: it is filed flagged
// nothing_to_post, its fields read, the finding still fatal (approve refuses it). Broken as well, it
// is an invalid e-invoice.
func TestAValidDocumentWithNothingToPostIsFlaggedNothingToPost(t *testing.T) {
	t.Parallel()
	zeroJSON, err := os.ReadFile("../../testdata/hostile/json-zero-amount.json")
	if err != nil {
		t.Fatal(err)
	}
	zeroUBL := zeroAmounts(t, "ubl-invoice-multirate.xml")
	for _, tc := range []struct {
		name, mediaType string
		content         []byte
		flag            string
	}{
		{"json", "application/json", zeroJSON, intake.FlagNothingToPost},
		{"ubl", "application/xml", zeroUBL, intake.FlagNothingToPost},
		{"cii", "application/xml", zeroAmounts(t, "cii-invoice.xml"), intake.FlagNothingToPost},
		{"ubl without its currency as well", "application/xml",
			regexp.MustCompile(`<cbc:DocumentCurrencyCode>[A-Z]+</cbc:DocumentCurrencyCode>`).ReplaceAll(zeroUBL, nil), intake.FlagInvalidEInvoice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, tc.content, tc.mediaType, nil)
			if d.Status != intake.Flagged || d.FlagReason != tc.flag || d.DocType != "invoice" || len(d.Fields) == 0 {
				t.Fatalf("filed %s %q %q, want flagged %s invoice with fields; findings %s (trace %v)", d.Status, d.FlagReason, d.DocType, tc.flag, d.Findings, trace)
			}
			var fs []einvoice.Finding
			if err := json.Unmarshal(d.Findings, &fs); err != nil {
				t.Fatal(err)
			}
			nothing, others := false, 0
			for _, f := range fs {
				switch {
				case f.Code == einvoice.CodeNothingToPost:
					nothing = f.Fatal()
				case f.Fatal():
					others++
				}
			}
			if !nothing || (tc.flag == intake.FlagNothingToPost) != (others == 0) {
				t.Fatalf("findings %+v, want a fatal %s and %s", fs, einvoice.CodeNothingToPost, map[bool]string{true: "no other fatal one", false: "another fatal one"}[tc.flag == intake.FlagNothingToPost])
			}
		})
	}
}
