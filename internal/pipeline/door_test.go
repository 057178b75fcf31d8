package pipeline_test

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/runs"
)

func jsonInvoice(number, seller, unitPrice, taxRate string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type": "invoice", "number": number, "issue_date": "2026-11-20", "currency": "EUR",
		"seller": map[string]string{"name": seller},
		"lines":  []map[string]string{{"description": "Widget", "quantity": "1", "unit_price": unitPrice, "tax_rate": taxRate}},
	})
	return b
}

func findingAt(t *testing.T, doc intake.Document, field string) einvoice.Finding {
	t.Helper()
	var fs []einvoice.Finding
	if err := json.Unmarshal(doc.Findings, &fs); err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Field == field {
			return f
		}
	}
	t.Fatalf("no finding at %s: %s", field, doc.Findings)
	return einvoice.Finding{}
}

// What the database cannot hold is a finding on a filed document, never a
// run that fails: each of these used to be answered 202 and then either
// never filed (the run failing on every attempt) or filed pending and
// dead-lettered at approval.
func TestWhatTheDatabaseCannotHoldIsFiledFlagged(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	for _, tc := range []struct {
		name    string
		content []byte
		field   string
		code    string
		flag    string // invalid_einvoice when empty
	}{
		{"NUL in the seller's name", []byte(`{"type":"invoice","number":"INV-NUL-1","issue_date":"2026-11-20","currency":"EUR",
			"seller":{"name":"Evil\u0000Corp"},"lines":[{"description":"x","quantity":"1","unit_price":"10","tax_rate":"25"}]}`),
			"seller.name", einvoice.CodeUnstorableText, ""},
		{"NUL in the number", []byte(`{"type":"invoice","number":"INV\u0000-2","issue_date":"2026-11-20","currency":"EUR",
			"seller":{"name":"Supplier AB"},"lines":[{"description":"x","quantity":"1","unit_price":"10","tax_rate":"25"}]}`),
			"number", einvoice.CodeUnstorableText, ""},
		{"17-digit unit price", jsonInvoice("INV-BIG-17", "Supplier AB", "12345678901234567", "25"), "lines[0].unit_price", einvoice.CodeAmountOutOfRange, ""},
		{"40-digit unit price", jsonInvoice("INV-BIG-40", "Supplier AB", "1234567890123456789012345678901234567890", "25"),
			"lines[0].unit_price", einvoice.CodeAmountOutOfRange, ""},
		// Valid, but nothing to post: a reason of its own (the finding stays fatal).
		{"zero amount", jsonInvoice("INV-ZERO", "Supplier AB", "0", "25"), "totals.payable", einvoice.CodeNothingToPost, intake.FlagNothingToPost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := d.ingest(t, tc.content, "application/json")
			doc := d.process(t, res)
			info, err := runs.Get(context.Background(), d.db.Pool, d.org, res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if info.Status != runs.Done || doc.Status != intake.Flagged || doc.FlagReason != cmp.Or(tc.flag, intake.FlagInvalidEInvoice) {
				t.Fatalf("run %s (%s), document %s %q", info.Status, info.LastError, doc.Status, doc.FlagReason)
			}
			if f := findingAt(t, doc, tc.field); f.Code != tc.code {
				t.Fatalf("finding at %s: %+v, want %s", tc.field, f, tc.code)
			}
		})
	}
	// The reviewer still reads the seller's name, the NUL shown as U+FFFD.
	var got struct {
		N   int64  `json:"n"`
		Raw string `json:"raw"`
	}
	if err := d.db.Pool.QueryRow(context.Background(), `SELECT count(*), max(supplier_name) FROM intake_documents WHERE supplier_name LIKE 'Evil%'`).
		Scan(&got.N, &got.Raw); err != nil {
		t.Fatal(err)
	}
	if got.N != 1 || got.Raw != "Evil\uFFFDCorp" {
		t.Fatalf("stored seller name %q (%d rows)", got.Raw, got.N)
	}
}

// A readable document that breaks a rule (a bad currency, a bad date) was
// read: it is invalid_einvoice, not extraction_failed, and keeps its fields.
func TestAReadableDocumentThatBreaksARuleIsInvalidNotUnread(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	for _, body := range []string{
		`{"type":"invoice","number":"INV-C","issue_date":"2026-11-20","currency":"XXQ","seller":{"name":"S"},"lines":[{"description":"x","quantity":"1","unit_price":"10","tax_rate":"25"}]}`,
		`{"type":"invoice","number":"INV-D","issue_date":"2026-13-45","currency":"EUR","seller":{"name":"S"},"lines":[{"description":"x","quantity":"1","unit_price":"10","tax_rate":"25"}]}`,
	} {
		doc := d.process(t, d.ingest(t, []byte(body), "application/json"))
		if doc.Status != intake.Flagged || doc.FlagReason != intake.FlagInvalidEInvoice || len(doc.Fields) == 0 || doc.SourceRef == "" {
			t.Fatalf("%s: %s %q, fields %s", body, doc.Status, doc.FlagReason, doc.Fields)
		}
	}
	// (An unreadable one stays extraction_failed: TestEveryDocumentFilesAsExpected.)
}

// Documents whose extraction yields nothing to compare (no seller, number or
// date) are not duplicates of each other.
func TestDocumentsWithNothingToCompareAreNotDuplicates(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	var docs []intake.Document
	for _, body := range []string{`{"type":"invoice"}`, `{"type":"invoice","lines":[]}`, `{"type":"credit_note"}`, `{"type":"invoice","buyer":{"name":"B"}}`} {
		docs = append(docs, d.process(t, d.ingest(t, []byte(body), "application/json")))
	}
	for _, doc := range docs {
		if doc.DuplicateOf != 0 || doc.FlagReason == intake.FlagDuplicate || doc.ContentKey != "" || doc.SourceRef != "" {
			t.Fatalf("document %d: duplicate of %d (%s), content key %q, source ref %q", doc.ID, doc.DuplicateOf, doc.DuplicateReason, doc.ContentKey, doc.SourceRef)
		}
	}
	if !strings.Contains(string(docs[0].Findings), einvoice.CodeNumberMissing) {
		t.Fatalf("findings %s", docs[0].Findings)
	}
}
