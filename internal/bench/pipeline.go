package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/audit"
	"greatbook/internal/coding"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/pipeline"
	"greatbook/internal/runs"
)

// UBLInvoice renders a UBL 2.1 invoice with ten lines at 25% VAT, numbered
// n, valid by the EN 16931 rules (the pipeline files it pending). Its first line's price varies with n, so that no two share their facts
// (they would be flagged as the same invoice renumbered).
func UBLInvoice(n int64) []byte {
	cents := 1000 + n%1_000_000 // first line: 4 × price, so tax = price exactly
	price := fmt.Sprintf("%d.%02d", cents/100, cents%100)
	money := func(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }
	net, tax := 18000+4*cents, 4500+cents
	var lines strings.Builder
	for i := 1; i <= 10; i++ {
		qty, p, lineNet := "2", "10.00", "20.00"
		if i == 1 {
			qty, p, lineNet = "4", price, money(4*cents)
		}
		fmt.Fprintf(&lines, `<cac:InvoiceLine><cbc:ID>%d</cbc:ID><cbc:InvoicedQuantity unitCode="C62">%s</cbc:InvoicedQuantity>
<cbc:LineExtensionAmount currencyID="EUR">%s</cbc:LineExtensionAmount>
<cac:Item><cbc:Name>Item %d</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
<cac:Price><cbc:PriceAmount currencyID="EUR">%s</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`, i, qty, lineNet, i, p)
	}
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
<cbc:ID>BENCH-%[1]d</cbc:ID><cbc:IssueDate>2026-11-20</cbc:IssueDate><cbc:DueDate>2026-12-20</cbc:DueDate>
<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Bench Supplier AB</cbc:Name></cac:PartyName>
<cac:PostalAddress><cbc:StreetName>Storgatan 1</cbc:StreetName><cbc:CityName>Stockholm</cbc:CityName><cbc:PostalZone>11122</cbc:PostalZone><cac:Country><cbc:IdentificationCode>SE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
<cac:PartyTaxScheme><cbc:CompanyID>SE556677889901</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme><cac:PartyLegalEntity><cbc:RegistrationName>Bench Supplier AB</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
<cac:AccountingCustomerParty><cac:Party><cac:PartyName><cbc:Name>Bench Buyer Ltd</cbc:Name></cac:PartyName>
<cac:PostalAddress><cbc:CityName>London</cbc:CityName><cac:Country><cbc:IdentificationCode>GB</cbc:IdentificationCode></cac:Country></cac:PostalAddress><cac:PartyLegalEntity><cbc:RegistrationName>Bench Buyer Ltd</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">%[2]s</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">%[3]s</cbc:TaxableAmount>
<cbc:TaxAmount currencyID="EUR">%[2]s</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">%[3]s</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">%[3]s</cbc:TaxExclusiveAmount>
<cbc:TaxInclusiveAmount currencyID="EUR">%[4]s</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">%[4]s</cbc:PayableAmount></cac:LegalMonetaryTotal>
%[5]s</Invoice>`, n, money(tax), money(net), money(net+tax), lines.String()))
}

// Pipeline measures documents per second through the whole pipeline (ingest,
// classify, extract, validate, queue, each checkpointed) at 1 and 4 workers,
// with the suggested coding on (as the product runs) and off, and the share
// of the run time spent writing checkpoints. One invoice of the supplier is
// coded and posted first, so that every benchmark document is suggested
// from history, the suggestion's dearest path.
func Pipeline(ctx context.Context, e *Env) error {
	o, _, err := org.Create(ctx, e.Pool, "bench-pipeline", "Bench Pipeline", "EUR", ledger.SeedDefaultChart)
	if err != nil {
		return err
	}
	var next atomic.Int64
	taught, err := teachCoding(ctx, e, o.ID, next.Add(1))
	if err != nil {
		return err
	}
	table := &Table{
		Title: fmt.Sprintf("pipeline: documents per second, UBL invoice with 10 lines, 4 checkpointed nodes (%s each; on and off alternate, on off off on)",
			e.Duration),
		Columns: []string{"workers", "suggestions", "documents/s", "ms/document", "round trips/document", "nodes", "checkpoints", "ingest and leases", "checkpoint share"},
	}
	rates := map[bool]map[int]float64{true: {}, false: {}}
	for _, workers := range []int{1, 4} {
		// The machine's load drifts: the two halves of each measurement
		// run in the order on, off, off, on, so a steady drift weighs on
		// both alike.
		var got [2]pipelineMeasurement // off, on
		if err := e.ResetStatements(ctx); err != nil {
			return err
		}
		for _, suggest := range []bool{true, false, false, true} {
			m, err := measurePipeline(ctx, e, o.ID, workers, suggest, e.Duration/2, &next)
			if err != nil {
				return err
			}
			got[b2i(suggest)].add(m)
		}
		if err := e.PrintStatements(ctx, fmt.Sprintf("pipeline, %d workers, suggestions on and off", workers), "document",
			int(got[0].documents+got[1].documents)); err != nil {
			return err
		}
		for _, suggest := range []bool{true, false} {
			m := got[b2i(suggest)]
			rate := float64(m.documents) / m.elapsed.Seconds()
			rates[suggest][workers] = rate
			if workers == 1 && suggest {
				e.pipelineRate = rate
			}
			wall := time.Duration(workers) * m.elapsed // time the workers spent, all of it
			share := func(d time.Duration) string { return fmt.Sprintf("%.0f%%", 100*float64(d)/float64(wall)) }
			perDocument := "-"
			if m.documents > 0 {
				perDocument = fmt.Sprintf("%.1f", float64(m.trips)/float64(m.documents))
			}
			table.Add(strconv.Itoa(workers), map[bool]string{true: "on", false: "off"}[suggest], Rate(rate), fmt.Sprintf("%.1f", 1000*float64(workers)/rate),
				perDocument, share(m.stats.Nodes), share(m.stats.Checkpoints), share(wall-m.stats.Nodes-m.stats.Checkpoints), share(m.stats.Checkpoints))
		}
	}
	var pending, suggested int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status <> 'pending'),
		count(*) FILTER (WHERE EXISTS (SELECT 1 FROM intake_coding c WHERE c.intake_id = d.id AND c.source = 'history'))
		FROM intake_documents d WHERE org_id = $1 AND id <> $2`, o.ID, taught).Scan(&pending, &suggested); err != nil {
		return err
	}
	table.Print(e.Out)
	if pending != 0 {
		return fmt.Errorf("bench: %d benchmark documents were not filed pending", pending)
	}
	if suggested == 0 {
		return fmt.Errorf("bench: no benchmark document was suggested its coding from history")
	}
	for _, workers := range []int{1, 4} {
		fmt.Fprintf(e.Out, "suggestions on / off, %d worker(s): %s\n", workers, Ratio(rates[true][workers], rates[false][workers]))
	}
	fmt.Fprintln(e.Out, "suggestions on / off is documents/s with the suggested coding over documents/s without it; the bound: at least 0.90")
	fmt.Fprintln(e.Out, "shares of the workers' time: nodes (parsing and validation in Go), checkpoints (each checkpoint's transaction,")
	fmt.Fprintln(e.Out, "with the queue's filing and the suggested coding in the last), ingest and leases (the first write, claiming the run);")
	fmt.Fprintln(e.Out, "round trips: exchanges with the server per filed document (a statement, a prepare, or a batch, which counts once)")
	return nil
}

// pipelineMeasurement is what one measurement of the pipeline counted.
type pipelineMeasurement struct {
	documents, trips int64
	elapsed          time.Duration
	stats            runs.Stats
}

func (m *pipelineMeasurement) add(o pipelineMeasurement) {
	m.documents, m.trips, m.elapsed = m.documents+o.documents, m.trips+o.trips, m.elapsed+o.elapsed
	m.stats.Nodes, m.stats.Checkpoints = m.stats.Nodes+o.stats.Nodes, m.stats.Checkpoints+o.stats.Checkpoints
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// measurePipeline files the benchmark's invoices into org orgID through a
// pipeline of its own at workers, for d, with or without suggestions.
func measurePipeline(ctx context.Context, e *Env, orgID int64, workers int, suggest bool, d time.Duration, next *atomic.Int64) (pipelineMeasurement, error) {
	trips := &roundTrips{}
	pool, err := e.NewTracedPool(ctx, workers+2, trips)
	if err != nil {
		return pipelineMeasurement{}, err
	}
	defer pool.Close()
	var documents atomic.Int64
	engine := runs.NewEngine(pool, runs.Options{})
	p := pipeline.New(pool, engine, pipeline.Options{NoSuggestions: !suggest})
	rate, err := Measure(ctx, workers, d, func(ctx context.Context, _, _ int) error {
		res, err := p.Ingest(ctx, intake.Arrival{OrgID: orgID, Content: UBLInvoice(next.Add(1)), MediaType: "application/xml", Via: "api", Actor: "bench"})
		if err != nil {
			return err
		}
		if err := p.Process(ctx, res.RunID); err != nil {
			return err
		}
		documents.Add(1)
		return nil
	})
	if err != nil {
		return pipelineMeasurement{}, err
	}
	elapsed := d
	if rate > 0 {
		elapsed = time.Duration(float64(documents.Load()) / rate * float64(time.Second))
	}
	return pipelineMeasurement{documents: documents.Load(), trips: trips.n.Load(), elapsed: elapsed, stats: engine.Stats()}, nil
}

// teachCoding files invoice n of the benchmark's supplier, codes it as a
// reviewer would (each line to an account, the first split across two
// cost centres) and marks it posted (approving and posting are not what is
// measured here), so that the supplier's next invoices learn from it. It
// returns the invoice's id.
func teachCoding(ctx context.Context, e *Env, orgID, n int64) (int64, error) {
	if _, err := e.Pool.Exec(ctx, `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name) SELECT id, v, v FROM d, unnest(ARRAY['OPS', 'RND']) v`, orgID); err != nil {
		return 0, fmt.Errorf("bench: cost centres: %w", err)
	}
	engine := runs.NewEngine(e.Pool, runs.Options{})
	p := pipeline.New(e.Pool, engine, pipeline.Options{NoSuggestions: true})
	res, err := p.Ingest(ctx, intake.Arrival{OrgID: orgID, Content: UBLInvoice(n), MediaType: "application/xml", Via: "api", Actor: "bench"})
	if err != nil {
		return 0, err
	}
	if err := p.Process(ctx, res.RunID); err != nil {
		return 0, err
	}
	first := 4 * (1000 + n) // cents: the first line is 4 × its price
	half := decimal.New(first/2, -2)
	rows := []coding.Row{
		{Line: new(1), Account: "6200", Amount: half, Dimensions: map[string]string{"cost_center": "OPS"}},
		{Line: new(1), Account: "6200", Amount: decimal.New(first, -2).Sub(half), Dimensions: map[string]string{"cost_center": "RND"}},
	}
	for line := 2; line <= 10; line++ {
		rows = append(rows, coding.Row{Line: new(line), Account: "6100", Amount: decimal.New(2000, -2), Dimensions: map[string]string{"cost_center": "OPS"}})
	}
	id := res.Document.ID
	if _, err := coding.Replace(ctx, e.Pool, orgID, id, rows, audit.Actor{Label: "bench"}); err != nil {
		return 0, fmt.Errorf("bench: code the first invoice: %w", err)
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'posted' WHERE id = $1`, id); err != nil {
		return 0, err
	}
	return id, nil
}
