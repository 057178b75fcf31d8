package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/audit"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/reading"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
	"greatbook/internal/textfields/specimen"
)

func plainInvoice(t *testing.T, rows [][2]string) []byte {
	t.Helper()
	b, err := specimen.Plain(rows)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func germanInvoice(t *testing.T, numberLabel, number, date, net, tax, total string) []byte {
	t.Helper()
	b, err := specimen.PlainGerman(numberLabel, number, date, net, tax, total)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fieldsOf(t *testing.T, doc intake.Document) einvoice.Document {
	t.Helper()
	var d einvoice.Document
	if err := json.Unmarshal(doc.Fields, &d); err != nil {
		t.Fatalf("fields %s: %v", doc.Fields, err)
	}
	return d
}

func TestAPlainPDFIsReadFromItsText(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	res := d.ingest(t, germanInvoice(t, "Rechnungsnummer:", "30064443", "15.11.2024", "29,18", "5,55", "34,73"), "application/pdf")
	doc := d.process(t, res)
	if doc.Status != intake.Pending || doc.Format != string(einvoice.FormatText) {
		t.Fatalf("filed %s (%s, %s) %s, want pending, read from its text", doc.Status, doc.FlagReason, doc.Format, doc.Findings)
	}
	f := fieldsOf(t, doc)
	if f.Number != "30064443" || f.IssueDate != "2024-11-15" || f.Currency != "EUR" || !f.Totals.Payable.Equal(decimal.RequireFromString("34.73")) {
		t.Fatalf("fields %s", doc.Fields)
	}
	r, err := reading.Get(context.Background(), d.db.Pool, d.org, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != "text_layer" || r.Pages != 1 || r.Fields["number"].Value != "30064443" || r.Fields["number"].Page != 1 {
		t.Fatalf("reading %+v", r)
	}
}

func TestAnUncertainReadingIsConfirmedAndTeachesTheLayout(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	ctx := context.Background()
	// "Beleg" is no label the reader knows for an invoice number.
	first := d.process(t, d.ingest(t, germanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "application/pdf"))
	if first.Status != intake.Flagged || first.FlagReason != intake.FlagUncertainReading {
		t.Fatalf("filed %s (%s) %s, want flagged uncertain_reading", first.Status, first.FlagReason, first.Findings)
	}
	named := false
	for _, f := range filedFindings(t, first) {
		named = named || (f.Field == "number" && f.Code == pipeline.CodeUncertain)
	}
	if !named {
		t.Fatalf("no uncertain_reading finding names the number: %s", first.Findings)
	}
	var raw map[string]any
	if err := json.Unmarshal(first.Fields, &raw); err != nil || raw["number"] != nil {
		t.Fatalf("an unread number is null in fields: %s", first.Fields)
	}

	// The reviewer types the number in and confirms the rest.
	typed := fieldsOf(t, first)
	typed.Number = "BX-1001"
	doc, findings, err := d.p.TypeIn(ctx, d.org, first.ID, typed, audit.Actor{Label: "ann@example.test"})
	if err != nil || len(findings) > 0 || doc.Status != intake.Pending {
		t.Fatalf("type in: %+v %v %v", doc, findings, err)
	}
	ls, err := reading.ListLayouts(ctx, d.db.Pool, d.org)
	if err != nil || len(ls) != 1 || ls[0].SupplierKey != "vat:DE123456789" || ls[0].LearnedFrom != first.ID {
		t.Fatalf("layouts %+v %v", ls, err)
	}

	// The supplier's next invoice, other values, is read by its layout.
	second := d.process(t, d.ingest(t, germanInvoice(t, "Beleg:", "BX-1002", "10.03.2025", "200,00", "38,00", "238,00"), "application/pdf"))
	if second.Status != intake.Pending {
		t.Fatalf("second filed %s (%s) %s, want pending", second.Status, second.FlagReason, second.Findings)
	}
	if f := fieldsOf(t, second); f.Number != "BX-1002" || f.IssueDate != "2025-03-10" || !f.Totals.Payable.Equal(decimal.RequireFromString("238")) {
		t.Fatalf("second fields %s", second.Fields)
	}
	r, err := reading.Get(ctx, d.db.Pool, d.org, second.ID)
	if err != nil || r.LayoutID != ls[0].ID {
		t.Fatalf("second read by layout %d, want %d (%v)", r.LayoutID, ls[0].ID, err)
	}
	if n := testkit.Count(t, d.db, `SELECT uses FROM supplier_layouts WHERE id = $1`, ls[0].ID); n != 1 {
		t.Fatalf("layout uses %d, want 1", n)
	}
}

func TestAPDFWithNoInvoiceTextWaitsForAPerson(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	doc := d.process(t, d.ingest(t, plainInvoice(t, [][2]string{{"Hello", "world"}}), "application/pdf"))
	if doc.Status != intake.Flagged || doc.FlagReason != intake.FlagNeedsManualExtraction {
		t.Fatalf("filed %s (%s), want needs_manual_extraction", doc.Status, doc.FlagReason)
	}
	// Its words are kept: typing it in teaches the supplier's layout.
	if _, err := reading.Get(context.Background(), d.db.Pool, d.org, doc.ID); err != nil {
		t.Fatal(err)
	}
}

// durableWithModel is a durable pipeline whose model extractor asks srv.
func durableWithModel(t *testing.T, srv *modelServer) *durable {
	db := testkit.NewDB(t)
	var waits []time.Duration
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(db.Pool, e, pipeline.Options{MaxBytes: 1 << 20, Logger: testkit.Logger(t), Model: modelExtractor(srv.URL, &waits)})
	return &durable{db: db, engine: e, p: p, org: testkit.Org(t, db).ID}
}

func TestTheModelReadsOnlyWhatTheTextReadingWasUnsureOf(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t, answer(goodInvoice))
	d := durableWithModel(t, srv)
	doc := d.process(t, d.ingest(t, germanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "application/pdf"))
	if srv.calls.Load() != 1 {
		t.Fatalf("%d model calls, want 1", srv.calls.Load())
	}
	f := fieldsOf(t, doc)
	// The number, which the text reading did not find, is the model's; the
	// date and the payable, which it read with confidence, stay its own.
	if f.Number != "SCAN-1" || f.IssueDate != "2025-02-03" || !f.Totals.Payable.Equal(decimal.RequireFromString("119")) {
		t.Fatalf("fields %s", doc.Fields)
	}
	if doc.Status != intake.Pending && doc.FlagReason != intake.FlagUncertainReading {
		t.Fatalf("filed %s (%s)", doc.Status, doc.FlagReason)
	}
	r, err := reading.Get(context.Background(), d.db.Pool, d.org, doc.ID)
	if err != nil || r.Fields["number"].Label != "model extractor" {
		t.Fatalf("reading %+v %v", r, err)
	}
}

func TestAModelWithoutAnAnswerLeavesTheTextReading(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t, status(http.StatusBadRequest))
	d := durableWithModel(t, srv)
	doc := d.process(t, d.ingest(t, germanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "application/pdf"))
	if doc.Status != intake.Flagged || doc.FlagReason != intake.FlagUncertainReading {
		t.Fatalf("filed %s (%s) %s, want flagged uncertain_reading", doc.Status, doc.FlagReason, doc.Findings)
	}
	if f := fieldsOf(t, doc); f.IssueDate != "2025-02-03" || f.Currency != "EUR" {
		t.Fatalf("the text reading was lost: %s", doc.Fields)
	}
	failed := false
	for _, f := range filedFindings(t, doc) {
		failed = failed || f.Code == pipeline.CodeModelFailed
	}
	if !failed {
		t.Fatalf("no model_failed finding: %s", doc.Findings)
	}
	if _, err := reading.Get(context.Background(), d.db.Pool, d.org, doc.ID); err != nil {
		t.Fatal(err)
	}
}

// A person who adds the VAT id the reading missed still has the supplier's
// next invoice, read as this one was (by its IBAN), find the layout.
func TestALayoutIsFoundByTheKeyTheReadingHad(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	ctx := context.Background()
	invoice := func(number, date, net, tax, total string) []byte {
		return plainInvoice(t, [][2]string{{"Beleg:", number}, {"Rechnungsdatum:", date}, {"An:", "Kunden AG Mitte"},
			{"Nettobetrag:", net + " EUR"}, {"MwSt. 19 %:", tax + " EUR"}, {"Gesamtbetrag:", total + " EUR"},
			{"IBAN:", "DE02120300000000202051"}})
	}
	first := d.process(t, d.ingest(t, invoice("BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "application/pdf"))
	if first.Status != intake.Flagged {
		t.Fatalf("filed %s, want flagged", first.Status)
	}
	typed := fieldsOf(t, first)
	typed.Number, typed.Seller.VATID = "BX-1001", "DE136695976"
	if _, fs, err := d.p.TypeIn(ctx, d.org, first.ID, typed, audit.Actor{Label: "ann@example.test"}); err != nil || len(fs) > 0 {
		t.Fatalf("type in: %v %v", fs, err)
	}
	second := d.process(t, d.ingest(t, invoice("BX-1002", "10.03.2025", "200,00", "38,00", "238,00"), "application/pdf"))
	r, err := reading.Get(ctx, d.db.Pool, d.org, second.ID)
	if err != nil || r.LayoutID == 0 || fieldsOf(t, second).Number != "BX-1002" {
		t.Fatalf("second read by layout %d, fields %s (%v)", r.LayoutID, second.Fields, err)
	}
}
