package payui_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/bankstatement"
	st "greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/org"
	"greatbook/internal/payments"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

const (
	statementOurIBAN      = "NL91ABNA0417164300"
	statementSupplierIBAN = "DE89370400440532013000"
)

// sentRun posts an EUR invoice payable to statementSupplierIBAN for each
// amount and pays them in a run whose file ann downloaded: proposed by ann,
// approved by bob. It returns the run's items in the order of the amounts.
func sentRun(t *testing.T, a *webtest.Site, o org.Org, ann, bob auth.User, amounts ...string) []payments.Item {
	t.Helper()
	ctx := context.Background()
	if _, err := a.DB.Pool.Exec(ctx, `UPDATE orgs SET bank_iban = $2, bank_bic = 'ABNANL2A' WHERE id = $1`, o.ID, statementOurIBAN); err != nil {
		t.Fatal(err)
	}
	byIntake := map[int64]int{}
	for i, amount := range amounts {
		number := fmt.Sprintf("PAY-%d", i+1)
		entry := webtest.PostEUR(t, a, o.ID, number, "6000", "2000", amount)
		fields := fmt.Sprintf(`{"number": %q, "currency": "EUR", "issue_date": "2026-11-01", "payee_iban": %q,
			"seller": {"name": "Acme"}, "totals": {"payable": %q}}`, number, statementSupplierIBAN, amount)
		var id int64
		if err := a.DB.Pool.QueryRow(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via,
			received_by, status, doc_type, source_ref, fields, result_entry_id, queued_at, decided_at, decided_by)
			VALUES ($1, encode(sha256(convert_to($2, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'test', 'posted', 'invoice',
			        'acme/' || $2, $3, $4, now(), now(), $5) RETURNING id`, o.ID, number, fields, entry.ID, ann.Email).Scan(&id); err != nil {
			t.Fatal(err)
		}
		byIntake[id] = i
	}
	run, err := a.App.Payments.Propose(ctx, o.ID, payments.Proposal{ExecutionDate: "2026-12-10", DueUntil: "2026-12-31"}, ann.Actor())
	webtest.Must(t, err)
	if len(run.Items) != len(amounts) {
		t.Fatalf("the run has %d items, want %d (blocked: %+v)", len(run.Items), len(amounts), run.Blocked)
	}
	_, err = a.App.Payments.Approve(ctx, o.ID, run.ID, bob.Actor())
	webtest.Must(t, err)
	_, err = a.App.Payments.Export(ctx, o.ID, run.ID, ann.Actor())
	webtest.Must(t, err)
	items := make([]payments.Item, len(amounts))
	for _, it := range run.Items {
		items[byIntake[it.IntakeID]] = it
	}
	return items
}

// uploadStatement sends the bank statements page's form with content as
// its file.
func uploadStatement(t *testing.T, a *webtest.Site, c *http.Client, csrf, filename string, content []byte) *http.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("_csrf", csrf)
	part, _ := w.CreateFormFile("file", filename)
	_, _ = part.Write(content)
	_ = w.Close()
	resp, err := c.Post(a.URL+"/bank-statements", w.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// An admin uploads a statement paying a sent run's items on the page: the
// import's page shows the counts and the line no payment matched, with its
// reason in words; the same file again says it was imported before and
// books nothing twice; the list shows the import. A file that is no
// statement is refused inline with its status, one over the cap is 413,
// and a reviewer may neither see the page nor upload (403).
func TestBankStatementsPage(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	ann, bob := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleAdmin)
	items := sentRun(t, a, o, ann, bob, "336.90", "120.00")
	c := a.Client(t)
	csrf := a.SignIn(t, c, ann)

	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/bank-statements"))
	if d.Find(`[data-testid=statement-import-form]`).Length() != 1 || d.Find(`[data-testid=no-bank-statements]`).Length() != 1 {
		t.Fatal("the page lacks the upload form or the empty list")
	}
	if nav := d.Find(`nav a[href="/bank-statements"]`); nav.AttrOr("aria-current", "") != "page" {
		t.Fatalf("the nav entry: %q", nav.Text())
	}

	statement := st.Camt053("STMT-PAGE-1", statementOurIBAN, st.Paid(items[0].EndToEndID, "336.90"),
		st.Paid(items[1].EndToEndID, "120.00"), st.Paid("GB-NOBODY", "5.00"))
	resp := uploadStatement(t, a, c, csrf, "statement.xml", statement)
	resp.Body.Close()
	where := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(where, "/bank-statements/") {
		t.Fatalf("upload: %d %q", resp.StatusCode, where)
	}
	d = webtest.Doc(t, webtest.Get(t, c, a.URL+where))
	if got := d.Find(`[data-testid=flash]`).Text(); !strings.Contains(got, "Statement imported: 3 entries, 2 matched, 1 unmatched.") {
		t.Errorf("flash after the upload: %q", got)
	}
	for testid, want := range map[string]string{"statement-entries": "3", "statement-matched": "2", "statement-unmatched": "1"} {
		if got := strings.TrimSpace(d.Find(`[data-testid=` + testid + `]`).Text()); got != want {
			t.Errorf("%s: %q, want %q", testid, got, want)
		}
	}
	lines := d.Find(`[data-testid=unmatched-line]`)
	if lines.Length() != 1 || lines.AttrOr("data-reason", "") != "unknown_end_to_end_id" ||
		!strings.Contains(lines.Find(`[data-testid=unmatched-reason]`).Text(), "no payment of ours has this end-to-end id") ||
		strings.TrimSpace(lines.Find(`[data-testid=unmatched-amount]`).Text()) != "5.00 EUR" ||
		strings.TrimSpace(lines.Find(`[data-testid=unmatched-date]`).Text()) != "2026-12-11" ||
		lines.Find(`[data-testid=unmatched-e2e]`).Text() != "GB-NOBODY" || !strings.Contains(lines.Text(), "REF-GB-NOBODY") {
		t.Errorf("unmatched lines: %q", lines.Text())
	}

	resp = uploadStatement(t, a, c, csrf, "again.xml", statement)
	resp.Body.Close()
	if again := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || again != where {
		t.Fatalf("the same file again: %d %q, want %q", resp.StatusCode, again, where)
	}
	d = webtest.Doc(t, webtest.Get(t, c, a.URL+where))
	if got := d.Find(`[data-testid=flash]`).Text(); !strings.Contains(got, "Already imported: nothing new.") {
		t.Errorf("flash after the same file again: %q", got)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_entries WHERE org_id = $1 AND source_type = 'payment'`, o.ID); n != 2 {
		t.Errorf("%d payment entries, want 2", n)
	}

	d = webtest.Doc(t, webtest.Get(t, c, a.URL+"/bank-statements"))
	row := d.Find(`[data-testid=bank-statement]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "STMT-PAGE-1") || !strings.Contains(row.Text(), ann.Email) ||
		row.Find(`[data-testid=bank-statement-link]`).AttrOr("href", "") != where ||
		row.Find(`[data-testid=bank-statement-entries]`).Text() != "3" || row.Find(`[data-testid=bank-statement-matched]`).Text() != "2" ||
		row.Find(`[data-testid=bank-statement-unmatched]`).Text() != "1" {
		t.Errorf("the list: %q", row.Text())
	}

	for name, tc := range map[string]struct {
		content []byte
		status  int
		reason  string
	}{
		"not xml":  {[]byte("date;amount\n2026-12-11;5.00\n"), 422, "bank statement"},
		"not camt": {[]byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"/>`), 422, "bank statement"},
		"empty":    {nil, 422, "the file is empty"},
	} {
		resp := uploadStatement(t, a, c, csrf, "statement.csv", tc.content)
		d := webtest.Doc(t, resp)
		refusal := d.Find(`[data-testid=statement-error]`)
		if resp.StatusCode != tc.status || refusal.AttrOr("data-status", "") != fmt.Sprint(tc.status) ||
			!strings.Contains(refusal.Text(), "Unprocessable Entity") || !strings.Contains(refusal.Text(), tc.reason) ||
			d.Find(`[data-testid=statement-import-form]`).Length() != 1 || d.Find(`[data-testid=bank-statement]`).Length() != 1 {
			t.Errorf("%s: %d %q", name, resp.StatusCode, refusal.Text())
		}
	}
	big := append([]byte("<?xml version=\"1.0\"?>"), bytes.Repeat([]byte(" "), bankstatement.MaxBytes)...)
	if resp := uploadStatement(t, a, c, csrf, "big.xml", big); resp.Body.Close() == nil && resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a file over the cap: %d", resp.StatusCode)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM bank_statements WHERE org_id = $1`, o.ID); n != 1 {
		t.Errorf("%d imports after the refused files, want 1", n)
	}

	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	for _, path := range []string{"/bank-statements", where} {
		if resp := webtest.Get(t, rc, a.URL+path); resp.Body.Close() == nil && resp.StatusCode != http.StatusForbidden {
			t.Errorf("a reviewer reading %s: %d", path, resp.StatusCode)
		}
	}
	if resp := uploadStatement(t, a, rc, rcsrf, "statement.xml", st.Camt053("STMT-PAGE-2", statementOurIBAN)); resp.Body.Close() == nil &&
		resp.StatusCode != http.StatusForbidden {
		t.Errorf("a reviewer uploading: %d", resp.StatusCode)
	}
	if d := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/desk")); d.Find(`nav a[href="/bank-statements"]`).Length() != 0 {
		t.Error("a reviewer's nav offers the bank statements")
	}
	other := a.Client(t)
	a.SignIn(t, other, testkit.User(t, a.DB, testkit.Org(t, a.DB), auth.RoleAdmin))
	if resp := webtest.Get(t, other, a.URL+where); resp.Body.Close() == nil && resp.StatusCode != http.StatusNotFound {
		t.Errorf("another org's admin: %d", resp.StatusCode)
	}
}
