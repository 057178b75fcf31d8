package bench

import (
	"context"
	"fmt"
	"time"

	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/en16931"
	"greatbook/internal/en16931/official"
)

// Official compares the speed of the product's EN 16931 rules with CEN's own validator on the same
// documents: the rules as the product evaluates them (en16931.Validate, in-process, one goroutine) and the
// official XSLT run by Saxon-HE in one warm JVM, both stylesheets compiled once (official.Validator, one
// document at a time through a pipe, as the differential test uses it). The documents are the bench's
// 10-line UBL invoices and the same invoices written as CII; the two sides take turns in batches so the
// load of the machine weighs on both alike. stylesheets is the folder of CEN's XSLT files.
func Official(ctx context.Context, e *Env, stylesheets string) error {
	type doc struct {
		syntax string
		data   []byte
	}
	var docs []doc
	for i := range int64(32) {
		ubl := UBLInvoice(i + 1)
		d, err := read.Parse(ubl)
		if err != nil {
			return fmt.Errorf("bench: the bench's own invoice does not parse: %w", err)
		}
		ciiXML, err := cii.Build(d)
		if err != nil {
			return fmt.Errorf("bench: the bench's invoice as CII: %w", err)
		}
		docs = append(docs, doc{"ubl", ubl}, doc{"cii", ciiXML})
	}
	v, err := official.Start(official.Options{StylesheetDir: stylesheets})
	if err != nil {
		return err
	}
	defer v.Close()
	for _, d := range docs { // warm: the JVM compiles what it runs often
		for range 20 {
			if _, err := v.Judge(d.syntax, d.data); err != nil {
				return err
			}
		}
	}
	const batch = 64
	var product, saxon time.Duration
	n := 0
	deadline := time.Now().Add(e.Duration)
	for i := 0; time.Now().Before(deadline); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		for j := range batch {
			d := docs[(i*batch+j)%len(docs)]
			if _, err := en16931.Validate(d.syntax, d.data); err != nil {
				return err
			}
		}
		product += time.Since(start)
		start = time.Now()
		for j := range batch {
			d := docs[(i*batch+j)%len(docs)]
			if _, err := v.Judge(d.syntax, d.data); err != nil {
				return err
			}
		}
		saxon += time.Since(start)
		n += batch
	}
	rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
	table := &Table{
		Title:   fmt.Sprintf("EN 16931 verdicts: documents per second, 10-line invoices, half UBL half CII, 1 goroutine (%s, %d documents each)", e.Duration, n),
		Columns: []string{"measurement", "documents/s", "µs/document", "product / official"},
	}
	micro := func(d time.Duration) string { return fmt.Sprintf("%.0f", d.Seconds()*1e6/float64(n)) }
	table.Add("the product's rules (en16931.Validate)", Rate(rate(product)), micro(product), Ratio(rate(product), rate(saxon)))
	table.Add("CEN's validator (Saxon-HE, warm, one JVM)", Rate(rate(saxon)), micro(saxon), "")
	table.Print(e.Out)
	return nil
}
