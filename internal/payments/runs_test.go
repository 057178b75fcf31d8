package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/events"
	"greatbook/internal/org"
	"greatbook/internal/payments"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// Valid IBANs (check digits right) and one that is not.
const (
	ibanA   = "DE89370400440532013000"
	ibanB   = "GB29NWBK60161331926819"
	ibanC   = "FR1420041010050500013M02606"
	ibanBad = "DE89370400440532013001"
	ourIBAN = "NL91ABNA0417164300"
)

// books is an org with a bank account and two admins.
type books struct {
	db       *testkit.DB
	org      org.Org
	ann, bob auth.User
	svc      *payments.Service
}

func newBooks(t *testing.T) *books {
	t.Helper()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := db.Pool.Exec(context.Background(), `UPDATE orgs SET bank_iban = $2, bank_bic = 'ABNANL2A' WHERE id = $1`, o.ID, ourIBAN); err != nil {
		t.Fatal(err)
	}
	return &books{db: db, org: o, ann: testkit.User(t, db, o, auth.RoleAdmin), bob: testkit.User(t, db, o, auth.RoleAdmin),
		svc: &payments.Service{Pool: db.Pool}}
}

// doc is a posted document's facts.
type doc struct {
	supplier, number, docType, currency, payable, due, iban string
	paymentIBAN, billingRef                                 string
}

// posted files a posted document approved by ann, with its journal entry.
func (b *books) posted(t *testing.T, d doc) int64 {
	t.Helper()
	if d.docType == "" {
		d.docType = "invoice"
	}
	if d.currency == "" {
		d.currency = "EUR"
	}
	fields := map[string]any{"number": d.number, "currency": d.currency, "issue_date": "2026-11-01",
		"seller": map[string]any{"name": "Supplier " + d.supplier}, "totals": map[string]any{"payable": d.payable}}
	if d.due != "" {
		fields["due_date"] = d.due
	}
	if d.iban != "" {
		fields["payee_iban"] = d.iban
	}
	if d.billingRef != "" {
		fields["billing_reference"] = d.billingRef
	}
	if d.paymentIBAN != "" {
		fields["payment"] = map[string]any{"iban": d.paymentIBAN, "bic": "COBADEFFXXX"}
	}
	raw, _ := json.Marshal(fields)
	ctx := context.Background()
	var id int64
	err := b.db.Pool.QueryRow(ctx, `
		WITH e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
			VALUES ($1, 'test', $3 || '/' || $4, 'main', '2026-11-01', 'EUR', 'EUR') RETURNING id),
		l AS (INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
			SELECT e.id, $1, n, a.id, CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END,
			       CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END
			FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.org_id = $1 AND a.code = v.code)
		INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_by)
		SELECT $1, encode(sha256(convert_to($3 || '/' || $4 || $2, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'x', 'posted', $2,
			$3 || '/' || $4, $5, e.id, now(), $6
		FROM e RETURNING id`, b.org.ID, d.docType, d.supplier, d.number, raw, b.ann.Email).Scan(&id)
	if err != nil {
		t.Fatalf("posted document: %v", err)
	}
	return id
}

func proposal(exec, due string) payments.Proposal {
	return payments.Proposal{ExecutionDate: exec, DueUntil: due}
}

func wantCode(t *testing.T, err error, code apperr.Code) {
	t.Helper()
	if apperr.CodeOf(err) != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

func itemIntakes(r payments.Run) map[int64]bool {
	m := map[int64]bool{}
	for _, it := range r.Items {
		m[it.IntakeID] = true
	}
	return m
}

func blockedReasons(r payments.Run) map[int64]string {
	m := map[int64]string{}
	for _, b := range r.Blocked {
		m[b.IntakeID] = b.Reason
	}
	return m
}

func TestProposalTakesThePayablesAndSaysWhyNotTheRest(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	ok := b.posted(t, doc{supplier: "acme", number: "A-1", payable: "336.90", due: "2026-12-20", iban: ibanA})
	noDue := b.posted(t, doc{supplier: "acme", number: "A-2", payable: "10", iban: "de89 3704 0044 0532 0130 00"})
	viaPayment := b.posted(t, doc{supplier: "zeta", number: "Z-1", payable: "5.5", paymentIBAN: ibanC, iban: ibanBad})
	later := b.posted(t, doc{supplier: "acme", number: "A-3", payable: "10", due: "2027-01-15", iban: ibanA})
	usd := b.posted(t, doc{supplier: "acme", number: "A-4", payable: "10", currency: "USD", iban: ibanA})
	noIBAN := b.posted(t, doc{supplier: "beta", number: "B-1", payable: "10"})
	bad := b.posted(t, doc{supplier: "gamma", number: "G-1", payable: "10", iban: ibanBad})
	note := b.posted(t, doc{supplier: "acme", number: "CN-1", docType: "credit_note", payable: "3"})
	lonelyNote := b.posted(t, doc{supplier: "omega", number: "CN-2", docType: "credit_note", payable: "3"})
	// delta was paid to ibanA before; its invoice now names ibanB.
	paid := b.posted(t, doc{supplier: "delta", number: "D-1", payable: "10", iban: ibanA})
	changed := b.posted(t, doc{supplier: "delta", number: "D-2", payable: "10", iban: ibanB})
	if _, err := b.db.Pool.Exec(ctx, `WITH r AS (INSERT INTO payment_runs (org_id, status, execution_date, due_until, currency, debtor_name,
			debtor_iban, proposed_by) VALUES ($1, 'sent', '2026-11-01', '2026-11-01', 'EUR', 'x', $3, 'x') RETURNING id)
		INSERT INTO payment_items (run_id, org_id, intake_id, status, amount, currency, creditor_name, creditor_iban, end_to_end_id, paid_at)
		SELECT r.id, $1, $2, 'paid', 10, 'EUR', 'delta', $4, 'OLD-1', now() FROM r`, b.org.ID, paid, ourIBAN, ibanA); err != nil {
		t.Fatal(err)
	}

	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := itemIntakes(run), map[int64]bool{ok: true, noDue: true, viaPayment: true}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	wantBlocked := map[int64]string{usd: "not_eur", noIBAN: "no_iban", bad: "iban_invalid", changed: "iban_unconfirmed",
		note: "credit_note_not_netted"}
	if got := blockedReasons(run); fmt.Sprint(got) != fmt.Sprint(wantBlocked) {
		t.Fatalf("blocked %v, want %v", got, wantBlocked)
	}
	_, _ = later, lonelyNote
	if run.Status != "proposed" || run.Total != "352.40" || run.Currency != "EUR" || run.Debtor.IBAN != ourIBAN {
		t.Fatalf("run %+v", run)
	}
	for _, it := range run.Items {
		if want := fmt.Sprintf("GB-%d-%d", b.org.ID, it.ID); it.EndToEndID != want {
			t.Errorf("item %d end-to-end id %q, want %q", it.ID, it.EndToEndID, want)
		}
		switch it.IntakeID {
		case noDue:
			if it.Creditor.IBAN != ibanA || it.Amount != "10.00" {
				t.Errorf("item %+v", it)
			}
		case viaPayment:
			if it.Creditor.IBAN != ibanC || it.Creditor.BIC != "COBADEFFXXX" {
				t.Errorf("payment.iban is not the creditor's account: %+v", it)
			}
		}
	}

	// A second proposal takes nothing that is in the live run.
	second, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Items) != 0 {
		t.Fatalf("second run took %v", itemIntakes(second))
	}

	// Ann approved the changed invoice: she may not confirm its IBAN; Bob may.
	_, err = b.svc.ConfirmIBAN(ctx, b.org.ID, changed, "", b.ann.Actor())
	wantCode(t, err, apperr.Forbidden)
	if e, _ := apperr.As(err); e.Details["reason"] != "separation_of_duties" {
		t.Fatalf("refusal %v", err)
	}
	_, err = b.svc.ConfirmIBAN(ctx, b.org.ID, bad, "", b.bob.Actor())
	wantCode(t, err, apperr.Invalid)
	c, err := b.svc.ConfirmIBAN(ctx, b.org.ID, changed, "", b.bob.Actor())
	if err != nil || c.IBAN != ibanB || c.SupplierKey != "delta" || c.ConfirmedBy != b.bob.Email {
		t.Fatalf("confirmation %+v, %v", c, err)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM audit_events WHERE action = $1 AND subject_id = $2`,
		payments.ActionIBANConfirmed, changed); n != 1 {
		t.Fatalf("%d audit events of the confirmation", n)
	}
	got, err := b.svc.Get(ctx, b.org.ID, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, still := blockedReasons(got)[changed]; still {
		t.Fatalf("the confirmed IBAN still blocks: %v", got.Blocked)
	}
	third, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.bob.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if !itemIntakes(third)[changed] || len(third.Items) != 1 {
		t.Fatalf("third run %v", itemIntakes(third))
	}
}

func TestProposalNeedsTheOrgsBankAccountAndDates(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	_, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-1", ""), b.ann.Actor())
	wantCode(t, err, apperr.Invalid)
	if _, err := b.db.Pool.Exec(ctx, `UPDATE orgs SET bank_iban = '' WHERE id = $1`, b.org.ID); err != nil {
		t.Fatal(err)
	}
	_, err = b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", ""), b.ann.Actor())
	wantCode(t, err, apperr.Invalid)
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM payment_runs`); n != 0 {
		t.Fatalf("%d runs", n)
	}
}

func TestRunLifecycle(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	one := b.posted(t, doc{supplier: "acme", number: "A-1", payable: "100", iban: ibanA})
	two := b.posted(t, doc{supplier: "acme", number: "A-2", payable: "50", iban: ibanA})
	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	var itemTwo int64
	for _, it := range run.Items {
		if it.IntakeID == two {
			itemTwo = it.ID
		}
	}
	run, err = b.svc.RemoveItem(ctx, b.org.ID, run.ID, itemTwo, b.ann.Actor())
	if err != nil || len(run.Items) != 1 || run.Total != "100.00" {
		t.Fatalf("after removing: %+v, %v", run, err)
	}
	_, err = b.svc.RemoveItem(ctx, b.org.ID, run.ID, itemTwo, b.ann.Actor())
	wantCode(t, err, apperr.NotFound)
	_, err = b.svc.Export(ctx, b.org.ID, run.ID, b.ann.Actor())
	wantCode(t, err, apperr.InvalidState)
	run, err = b.svc.Approve(ctx, b.org.ID, run.ID, b.bob.Actor())
	if err != nil || run.Status != "approved" || run.ApprovedAt == nil {
		t.Fatalf("approve: %+v, %v", run, err)
	}
	_, err = b.svc.RemoveItem(ctx, b.org.ID, run.ID, run.Items[0].ID, b.ann.Actor())
	wantCode(t, err, apperr.InvalidState)
	// The removed invoice is free for another run; the approved one is not.
	other, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-11", "2026-12-31"), b.ann.Actor())
	if err != nil || fmt.Sprint(itemIntakes(other)) != fmt.Sprint(map[int64]bool{two: true}) {
		t.Fatalf("other run %v, %v", itemIntakes(other), err)
	}
	// Cancelling releases the items.
	other, err = b.svc.Cancel(ctx, b.org.ID, other.ID, b.ann.Actor())
	if err != nil || other.Status != "cancelled" || other.Items[0].Status != "cancelled" {
		t.Fatalf("cancel: %+v, %v", other, err)
	}
	_, err = b.svc.Approve(ctx, b.org.ID, other.ID, b.ann.Actor())
	wantCode(t, err, apperr.InvalidState)
	// Once downloaded, the run can no longer be cancelled.
	if _, err := b.svc.Export(ctx, b.org.ID, run.ID, b.ann.Actor()); err != nil {
		t.Fatal(err)
	}
	_, err = b.svc.Cancel(ctx, b.org.ID, run.ID, b.ann.Actor())
	wantCode(t, err, apperr.InvalidState)
	_, err = b.svc.Get(ctx, b.org.ID+1000, run.ID)
	wantCode(t, err, apperr.NotFound)
	run, err = b.svc.Get(ctx, b.org.ID, run.ID)
	if err != nil || run.Status != "sent" || run.Items[0].Status != "sent" || run.Items[0].IntakeID != one {
		t.Fatalf("sent run %+v, %v", run, err)
	}
	var actions []string
	if err := b.db.Pool.QueryRow(ctx, `SELECT array_agg(action ORDER BY id) FROM audit_events WHERE subject_type = 'payment_run' AND subject_id = $1`,
		run.ID).Scan(&actions); err != nil {
		t.Fatal(err)
	}
	if want := "[payment_run_proposed payment_item_removed payment_run_approved payment_run_sent]"; fmt.Sprint(actions) != want {
		t.Fatalf("audit %v, want %s", actions, want)
	}
	// The event feed shows the runs' changes as payment.* events.
	var feed []string
	testkit.Eventually(t, 10*time.Second, "the feed to show the runs' events", func() (bool, error) {
		list, _, err := events.Read(ctx, b.db.Pool, b.org.ID, "", 0)
		feed = feed[:0]
		for _, e := range list {
			feed = append(feed, fmt.Sprintf("%s:%v:%v", e.Type, e.Data["run_id"], e.Data["status"]))
		}
		return len(feed) == 5, err
	})
	want := fmt.Sprintf("[payment.run_proposed:%[1]d:proposed payment.run_approved:%[1]d:approved payment.run_proposed:%[2]d:proposed "+
		"payment.run_cancelled:%[2]d:cancelled payment.run_sent:%[1]d:sent]", run.ID, other.ID)
	if fmt.Sprint(feed) != want {
		t.Fatalf("feed %v, want %s", feed, want)
	}
}

// TestConcurrentProposalsNeverShareAnInvoice has many admins propose at
// once, each on its own connection: every invoice ends in exactly one live
// item, though every proposal read them all as payable before any inserted.
// The partial unique index is what guarantees it (dropping it in this test's
// database makes the test fail with invoices in two runs).
func TestConcurrentProposalsNeverShareAnInvoice(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	const invoices, proposers = 30, 6
	for i := range invoices {
		b.posted(t, doc{supplier: "acme", number: fmt.Sprintf("A-%d", i), payable: "10", iban: ibanA})
	}
	// Every proposal reads what is payable before any puts an item in its run.
	var read sync.WaitGroup
	read.Add(proposers)
	fp := &testkit.Failpoints{}
	fp.Set(payments.FailpointBeforeItems, func(context.Context) error { read.Done(); read.Wait(); return nil })
	b.svc.Failpoints = fp
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, proposers)
	for p := range proposers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[p] = b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), audit.Actor{Label: fmt.Sprintf("admin-%d", p)})
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM payment_runs`); n != proposers {
		t.Fatalf("%d runs", n)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM (SELECT intake_id FROM payment_items WHERE status = 'in_run'
		GROUP BY intake_id HAVING count(*) > 1) x`); n != 0 {
		t.Fatalf("%d invoices in two live runs", n)
	}
	if n := testkit.Count(t, b.db, `SELECT count(DISTINCT intake_id) FROM payment_items WHERE status = 'in_run'`); n != invoices {
		t.Fatalf("%d of %d invoices in a run", n, invoices)
	}
}

// A credit note referring to an invoice of its supplier is netted against
// it: the item pays the difference and names the note, which no later run
// nets again; a note larger than its invoice, or referring to nothing, is
// left for a person.
func TestCreditNotesAreNettedAgainstTheInvoiceTheyReferTo(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	inv := b.posted(t, doc{supplier: "acme", number: "A-1", payable: "100.00", iban: ibanA})
	note := b.posted(t, doc{supplier: "acme", number: "CN-1", docType: "credit_note", payable: "30.50", billingRef: "A-1"})
	small := b.posted(t, doc{supplier: "acme", number: "A-2", payable: "10.00", iban: ibanA})
	big := b.posted(t, doc{supplier: "acme", number: "CN-2", docType: "credit_note", payable: "20.00", billingRef: "A-2"})
	other := b.posted(t, doc{supplier: "zeta", number: "CN-3", docType: "credit_note", payable: "5.00", billingRef: "A-1"})
	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	amounts := map[int64]string{}
	for _, it := range run.Items {
		amounts[it.IntakeID] = it.Amount
		if it.IntakeID == inv && (it.CreditNoteID == nil || *it.CreditNoteID != note || it.Credited != "30.50") {
			t.Fatalf("item %+v does not name the netted credit note", it)
		}
	}
	if amounts[inv] != "69.50" || amounts[small] != "10.00" || len(amounts) != 2 || run.Total != "79.50" {
		t.Fatalf("items %v total %s", amounts, run.Total)
	}
	if got, want := blockedReasons(run), map[int64]string{big: "credit_note_not_netted"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("blocked %v, want %v (zeta's note %d has no invoice in the run)", got, want, other)
	}
	if _, err := b.svc.Approve(ctx, b.org.ID, run.ID, b.bob.Actor()); err != nil {
		t.Fatal(err)
	}
	file, err := b.svc.Export(ctx, b.org.ID, run.ID, b.bob.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), "<Ustrd>A-1 less credit note CN-1 (30.50)</Ustrd>") {
		t.Fatalf("the file does not tell the creditor of the credit note:\n%s", file)
	}
	// The note is spent: a new invoice referred to by nothing, and the
	// note itself in no second item.
	b.posted(t, doc{supplier: "acme", number: "A-1b", payable: "40.00", iban: ibanA})
	second, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range second.Items {
		if it.CreditNoteID != nil {
			t.Fatalf("a second run netted note %d again", *it.CreditNoteID)
		}
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM payment_items WHERE credit_note_id = $1`, note); n != 1 {
		t.Fatalf("note in %d items", n)
	}
}

// An invoice stating an invalid IBAN is paid only to an account a second
// admin confirms in its place; the supplier's other invoices stating the
// same misprint follow it; a second correction of the misprint is refused.
func TestAnInvalidIBANIsPaidToTheAccountAnotherAdminConfirmsInItsPlace(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	bad := b.posted(t, doc{supplier: "gamma", number: "G-1", payable: "10", iban: ibanBad})
	_, err := b.svc.ConfirmIBAN(ctx, b.org.ID, bad, "", b.bob.Actor())
	wantCode(t, err, apperr.Invalid)
	_, err = b.svc.ConfirmIBAN(ctx, b.org.ID, bad, ibanA, b.ann.Actor())
	wantCode(t, err, apperr.Forbidden)
	_, err = b.svc.ConfirmIBAN(ctx, b.org.ID, bad, "DE00 1234", b.bob.Actor())
	wantCode(t, err, apperr.Invalid)
	c, err := b.svc.ConfirmIBAN(ctx, b.org.ID, bad, "de89 3704 0044 0532 0130 00", b.bob.Actor())
	if err != nil || c.IBAN != ibanA || c.Replaces != ibanBad {
		t.Fatalf("confirmation %+v, %v", c, err)
	}
	if _, err := b.svc.ConfirmIBAN(ctx, b.org.ID, bad, ibanA, b.bob.Actor()); err != nil {
		t.Fatalf("confirming again: %v", err)
	}
	_, err = b.svc.ConfirmIBAN(ctx, b.org.ID, bad, ibanB, b.bob.Actor())
	wantCode(t, err, apperr.InvalidState)
	again := b.posted(t, doc{supplier: "gamma", number: "G-2", payable: "5", iban: ibanBad})
	run, err := b.svc.Propose(ctx, b.org.ID, proposal("2026-12-10", "2026-12-31"), b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Items) != 2 || len(run.Blocked) != 0 {
		t.Fatalf("run items %v blocked %v", itemIntakes(run), run.Blocked)
	}
	for _, it := range run.Items {
		if it.Creditor.IBAN != ibanA {
			t.Fatalf("item of %d pays %s, not the confirmed account (%d)", it.IntakeID, it.Creditor.IBAN, again)
		}
	}
}
