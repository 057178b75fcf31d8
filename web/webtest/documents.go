package webtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// Sample is a sample document of internal/einvoice/testdata.
func Sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(), "internal", "einvoice", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Payroll is a balanced journal entry of a payroll run, as a client posts it.
const Payroll = `{"source_type": "payroll", "source_id": "run-2026-11", "entry_set": "main", "date": "2026-11-30",
 "currency": "EUR", "description": "November payroll",
 "lines": [{"account": "6000", "debit": "100.00", "credit": "0", "dimensions": {"cost_center": "OPS"}},
           {"account": "2000", "debit": "0", "credit": "100.00"}]}`

// Composed is a document in the project's JSON format, as the typewriter
// composes one.
const Composed = `{"type": "invoice", "number": "SB-100", "issue_date": "2026-11-20", "due_date": "2026-12-20", "currency": "SEK",
 "seller": {"name": "Paper Supplier AB", "vat_id": "SE556677889901"}, "buyer": {"name": "Acme AB", "vat_id": "SE556000000101"},
 "lines": [{"description": "Paper", "quantity": "10", "unit_price": "50.00", "tax_rate": "25"},
           {"description": "Delivery", "quantity": "1", "unit_price": "100.00", "tax_rate": "25"}]}`

// JSONInvoice is an invoice in the project's JSON intake format: number
// varies, seller, date, currency and total do not.
func JSONInvoice(number string) []byte {
	return []byte(`{"type":"invoice","number":"` + number + `","issue_date":"2026-11-20","currency":"SEK",
		"seller":{"name":"Paper Supplier AB","vat_id":"SE556677889901"},"buyer":{"name":"Acme AB","vat_id":"SE556000000101"},
		"lines":[{"description":"Copy paper","quantity":"10","unit_price":"45.00","tax_rate":"25"}]}`)
}

// Numbered is the sample invoice under another invoice number and issue
// date, so that each copy is a document of its own (pending: neither the
// same reference nor the same content as another).
func Numbered(t *testing.T, n int) []byte {
	t.Helper()
	invoice := string(Sample(t, "ubl-invoice-multirate.xml"))
	invoice = strings.Replace(invoice, "<cbc:ID>NK-2026-0042</cbc:ID>", fmt.Sprintf("<cbc:ID>REVIEW-%03d</cbc:ID>", n), 1)
	invoice = strings.Replace(invoice, "<cbc:IssueDate>2026-11-20</cbc:IssueDate>", fmt.Sprintf("<cbc:IssueDate>2026-11-%02d</cbc:IssueDate>", n), 1)
	return []byte(invoice)
}

// BrokenCopy is the web tests' published UBL example under another number,
// with its amount due off by ten: it breaks BR-CO-16 and nothing else.
func BrokenCopy(t *testing.T, number string) []byte {
	t.Helper()
	s := string(Sample(t, "ubl-invoice-multirate.xml"))
	for _, edit := range [][2]string{
		{"<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>" + number + "</cbc:ID>"},
		{`<cbc:PayableAmount currencyID="SEK">24321.00<`, `<cbc:PayableAmount currencyID="SEK">24331.00<`},
	} {
		if !strings.Contains(s, edit[0]) {
			t.Fatalf("the sample has no %q", edit[0])
		}
		s = strings.Replace(s, edit[0], edit[1], 1)
	}
	return []byte(s)
}

// ZeroCopy is the web tests' published UBL example under another number with every amount zero: a
// valid e-invoice that posts nothing.
func ZeroCopy(t *testing.T, number string) []byte {
	t.Helper()
	s := string(Sample(t, "ubl-invoice-multirate.xml"))
	if !strings.Contains(s, "<cbc:ID>NK-2026-0042</cbc:ID>") {
		t.Fatal("the sample has no number NK-2026-0042")
	}
	s = strings.Replace(s, "<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>"+number+"</cbc:ID>", 1)
	return regexp.MustCompile(`(<cbc:\w+ currencyID="[A-Z]{3}">)-?[0-9.]+<`).ReplaceAll([]byte(s), []byte("${1}0.00<"))
}

// Filed uploads a document through the API and waits for the clerk.
func Filed(t *testing.T, c *APIClient, content []byte, status string) int64 {
	t.Helper()
	code, body := c.Do("POST", "/api/v1/documents", "application/xml", content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.WaitStatus(id, status)
	return int64(id)
}

// TwoCopies files an invoice (pending) and a copy of it with other bytes
// (flagged, a duplicate of the first).
func TwoCopies(t *testing.T, c *APIClient) (first, second int64) {
	t.Helper()
	invoice := Sample(t, "ubl-invoice-multirate.xml")
	return Filed(t, c, invoice, "pending"), Filed(t, c, append([]byte("<!-- again -->"), invoice...), "flagged")
}

// BookkeepingOrg is an org that keeps its books in the test invoices'
// currency (SEK) with a default expense account, so nothing is asked.
func BookkeepingOrg(t *testing.T, a *Site) org.Org {
	t.Helper()
	o := testkit.OrgWith(t, a.DB, "books-"+strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")), "SEK")
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE orgs SET default_expense_account_id =
		(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
		t.Fatal(err)
	}
	return o
}

// SeedDoc inserts a filed document straight into the table, with just the
// fields the desk lists.
func SeedDoc(t *testing.T, a *Site, o org.Org, status, supplier, number, payable string) int64 {
	t.Helper()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	flag := any(nil)
	if status == "flagged" {
		flag = "needs_manual_extraction"
	}
	fields := fmt.Sprintf(`{"seller": {"name": %q}, "number": %q, "currency": "EUR", "totals": {"payable": %q}}`, supplier, number, payable)
	var id int64
	if err := a.DB.Pool.QueryRow(context.Background(), `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
		received_via, received_by, status, doc_type, source_ref, format, fields, flag_reason, queued_at, decided_at)
		VALUES ($1, $2, 'application/xml', 1, 'api', 'test', $3, 'invoice', $4, 'ubl', $5, $6, now(),
		        CASE WHEN $3 IN ('active', 'posted', 'rejected') THEN now() END) RETURNING id`,
		o.ID, hex.EncodeToString(b), status, "ref:"+number, fields, flag).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// SeedDeadLetter files an approved document whose bookkeeping job was
// abandoned, and returns the job's id.
func SeedDeadLetter(t *testing.T, a *Site, o org.Org, number string) int64 {
	t.Helper()
	doc := SeedDoc(t, a, o, "active", "Acme Oy", number, "10.00")
	var id int64
	if err := a.DB.Pool.QueryRow(context.Background(), `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts,
		last_error, error_class, created_by) VALUES ($1, $2, 'abandoned', 5, 5, 'posting service unavailable', 'transient', 'test') RETURNING id`,
		o.ID, doc).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// ApprovedBill uploads a sample invoice under its own number (one
// supplier, many bills) and approves it.
func ApprovedBill(t *testing.T, a *Site, o org.Org, u auth.User, number string, day int) int64 {
	t.Helper()
	id := Filed(t, a.APIFor(t, u), BillContent(t, number, day), "pending")
	if ap, err := a.App.Decisions.Approve(context.Background(), o.ID, id, audit.Actor{Label: u.Email}); err != nil || ap.Launch.Outcome != "launched" {
		t.Fatalf("approve: %+v %v", ap, err)
	}
	return id
}

// BillContent is the multi-rate UBL sample numbered number and dated the
// day-th of November 2026: another day too, since the same supplier,
// amount and day would be a same-content duplicate.
func BillContent(t *testing.T, number string, day int) []byte {
	t.Helper()
	content := strings.Replace(string(Sample(t, "ubl-invoice-multirate.xml")), "<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>"+number+"</cbc:ID>", 1)
	return []byte(strings.Replace(content, "<cbc:IssueDate>2026-11-20</cbc:IssueDate>", fmt.Sprintf("<cbc:IssueDate>2026-11-%02d</cbc:IssueDate>", day), 1))
}

// OpenQuestion waits for the bookkeeper's question about document id.
func OpenQuestion(t *testing.T, a *Site, o org.Org, id int64) bookkeeper.Question {
	t.Helper()
	var q *bookkeeper.Question
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("no question about document %d", id), func() (bool, error) {
		var err error
		q, err = a.App.Bookkeeper.QuestionFor(context.Background(), o.ID, id)
		return q != nil, err
	})
	return *q
}

// WaitPosted waits until the bookkeeper has posted document id.
func WaitPosted(t *testing.T, a *Site, o org.Org, id int64) intake.Document {
	t.Helper()
	var d intake.Document
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("document %d not posted", id), func() (bool, error) {
		var err error
		d, err = intake.GetDocument(context.Background(), a.DB.Pool, o.ID, id)
		return d.Status == intake.Posted, err
	})
	return d
}

// ToJSON is v as JSON text.
func ToJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// PostEUR posts a two-line EUR entry of amount from debit account to credit account.
func PostEUR(t *testing.T, a *Site, orgID int64, sourceID, debit, credit, amount string) ledger.Entry {
	t.Helper()
	res, err := ledger.Post(context.Background(), a.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: orgID, SourceType: "test", SourceID: sourceID, EntrySet: "main"},
		Date:      "2026-11-20", Currency: "EUR", Description: "entry " + sourceID, Actor: "test",
		Lines: []ledger.Line{{Account: debit, Debit: decimal.RequireFromString(amount)}, {Account: credit, Credit: decimal.RequireFromString(amount)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Entry
}
