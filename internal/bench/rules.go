package bench

import (
	"context"
	"fmt"
	"time"

	"greatbook/internal/einvoice/read"
	"greatbook/internal/en16931"
)

// Rules measures what the EN 16931 rules cost the pipeline, in-process, over the pipeline figure's own
// documents: the deterministic extraction as the pipeline runs it (read.Parse, which judges every UBL
// and CII document by the rules) and the rules alone (en16931.Validate on the same bytes, which is the
// call Parse makes). The extraction without the rules is the difference. Both are timed in alternating
// batches on one goroutine, so the load of the machine weighs on both alike.
//
// It is a figure of its own rather than a switch in the pipeline: turning the rules off would need a
// test switch in the production path, and a document read without its verdict must never be filed.
// When the pipeline figure ran in the same invocation, its 1-worker rate is shown with the rules on (as
// measured) and off (each document's time less the rules' time), with their ratio, bounded at 0.90 or more
// (the rules should cost the pipeline at most a tenth of its rate).
func Rules(ctx context.Context, e *Env) error {
	docs := make([][]byte, 64)
	for i := range docs {
		docs[i] = UBLInvoice(int64(i + 1))
		doc, err := read.Parse(docs[i])
		if err != nil {
			return fmt.Errorf("bench: the bench's own invoice does not parse: %w", err)
		}
		if len(doc.Conformance) != 0 {
			return fmt.Errorf("bench: the bench's own invoice breaks EN 16931 rules: %+v", doc.Conformance)
		}
	}
	const batch = 32
	var withRules, rulesAlone time.Duration
	var n int
	deadline := time.Now().Add(e.Duration)
	for i := 0; time.Now().Before(deadline); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		for j := range batch {
			if _, err := read.Parse(docs[(i*batch+j)%len(docs)]); err != nil {
				return err
			}
		}
		withRules += time.Since(start)
		start = time.Now()
		for j := range batch {
			if _, err := en16931.Validate("ubl", docs[(i*batch+j)%len(docs)]); err != nil {
				return err
			}
		}
		rulesAlone += time.Since(start)
		n += batch
	}
	perDoc := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	on, rules := perDoc(withRules), perDoc(rulesAlone)
	off := on - rules
	table := &Table{
		Title: fmt.Sprintf("EN 16931 rules: documents per second in-process, UBL invoice with 10 lines, 1 goroutine (%s, %d documents each)",
			e.Duration, n),
		Columns: []string{"measurement", "documents/s", "µs/document", "rules on / off"},
	}
	rate := func(seconds float64) string {
		if seconds <= 0 {
			return "-"
		}
		return Rate(1 / seconds)
	}
	micro := func(seconds float64) string { return fmt.Sprintf("%.0f", seconds*1e6) }
	table.Add("extraction with the rules (read.Parse)", rate(on), micro(on), Ratio(off, on))
	table.Add("the rules alone (en16931.Validate)", rate(rules), micro(rules), "")
	table.Add("extraction without the rules (difference)", rate(off), micro(off), "")
	if e.pipelineRate > 0 {
		pipelineOn := 1 / e.pipelineRate
		table.Add("pipeline, 1 worker, rules on (figure above)", Rate(e.pipelineRate), micro(pipelineOn), Ratio(pipelineOn-rules, pipelineOn))
		table.Add("pipeline, 1 worker, rules off (less the rules)", rate(pipelineOn-rules), micro(pipelineOn-rules), "")
	}
	table.Print(e.Out)
	fmt.Fprintln(e.Out, "rules on / off is documents/s with the rules over documents/s without them; the bound: at least 0.90")
	if e.pipelineRate == 0 {
		fmt.Fprintln(e.Out, "(run the pipeline figure in the same invocation, -only pipeline,rules, for the pipeline's rate with the rules on and off)")
	}
	return nil
}
