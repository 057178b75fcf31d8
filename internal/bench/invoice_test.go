package bench

import (
	"testing"

	"greatbook/internal/einvoice"
)

// TestTheBenchInvoiceIsAValidEInvoice: the pipeline figure files every document it measures pending
// and fails otherwise, so its invoice must pass the EN 16931 rules the pipeline judges it by.
func TestTheBenchInvoiceIsAValidEInvoice(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{1, 2, 999_999, 1_000_001} {
		doc, err := einvoice.Parse(ublInvoice(n))
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Conformance) != 0 {
			t.Fatalf("invoice %d: EN 16931 findings %+v", n, doc.Conformance)
		}
		if fs := einvoice.Validate(doc); einvoice.HasFatal(fs) {
			t.Fatalf("invoice %d: fatal findings %+v", n, fs)
		}
	}
}
