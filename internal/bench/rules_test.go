package bench

import (
	"bytes"
	"context"
	"strings"
	"time"

	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
)

// TestTheBenchInvoiceIsAValidEInvoice: the pipeline figure files every document it measures pending
// and fails otherwise, so its invoice must pass the EN 16931 rules the pipeline judges it by.
func TestTheBenchInvoiceIsAValidEInvoice(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{1, 2, 999_999, 1_000_001} {
		doc, err := read.Parse(UBLInvoice(n))
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

// TestTheRulesFigurePrintsTheirCost runs the in-process rules figure briefly: it needs no database.
func TestTheRulesFigurePrintsTheirCost(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	e := InProcess(&out, 50*time.Millisecond)
	defer e.Close()
	if err := Rules(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"extraction with the rules", "the rules alone", "extraction without the rules", "rules on / off"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in\n%s", want, out.String())
		}
	}
	// With the pipeline's rate known, it shows the pipeline with the rules on and off.
	out.Reset()
	e.pipelineRate = 100
	if err := Rules(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "pipeline, 1 worker, rules off") {
		t.Fatalf("no pipeline rows in\n%s", out.String())
	}
}
