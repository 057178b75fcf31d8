package bankstatement_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"greatbook/internal/auth"
	"greatbook/internal/bankstatement"
	st "greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/events"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/payments"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const supplierIBAN = "DE89370400440532013000"

// books is an org with a bank account, two admins, and the services.
type books struct {
	db       *testkit.DB
	org      org.Org
	ann, bob auth.User
	pay      *payments.Service
	svc      *bankstatement.Service
	fp       *testkit.Failpoints
	invoices int
}

func newBooks(t *testing.T) *books {
	t.Helper()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := db.Pool.Exec(context.Background(), `UPDATE orgs SET bank_iban = $2, bank_bic = 'ABNANL2A' WHERE id = $1`, o.ID, ourIBAN); err != nil {
		t.Fatal(err)
	}
	fp := &testkit.Failpoints{}
	return &books{db: db, org: o, ann: testkit.User(t, db, o, auth.RoleAdmin), bob: testkit.User(t, db, o, auth.RoleAdmin),
		pay: &payments.Service{Pool: db.Pool, Failpoints: fp}, svc: &bankstatement.Service{Pool: db.Pool, Failpoints: fp}, fp: fp}
}

// posted files a posted invoice (approved by ann, with its journal entry)
// payable to supplierIBAN.
func (b *books) posted(t *testing.T, payable string) int64 {
	t.Helper()
	b.invoices++
	number := fmt.Sprintf("INV-%d", b.invoices)
	raw, _ := json.Marshal(map[string]any{"number": number, "currency": "EUR", "issue_date": "2026-11-01", "payee_iban": supplierIBAN,
		"seller": map[string]any{"name": "Acme"}, "totals": map[string]any{"payable": payable}})
	var id int64
	err := b.db.Pool.QueryRow(context.Background(), `
		WITH e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
			VALUES ($1, 'test', $2, 'main', '2026-11-01', 'EUR', 'EUR') RETURNING id),
		l AS (INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
			SELECT e.id, $1, n, a.id, CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END,
			       CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END
			FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.org_id = $1 AND a.code = v.code)
		INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by, status, doc_type,
			source_ref, fields, result_entry_id, queued_at, decided_by)
		SELECT $1, encode(sha256(convert_to('acme/' || $2, 'UTF8')), 'hex'), 'application/json', 1, 'api', 'x', 'posted', 'invoice',
			'acme/' || $2, $3, e.id, now(), $4
		FROM e RETURNING id`, b.org.ID, number, raw, b.ann.Email).Scan(&id)
	if err != nil {
		t.Fatalf("posted invoice: %v", err)
	}
	return id
}

// sentRun posts an invoice for each amount and pays them in a run whose
// file was downloaded; it returns the run's items in the order of the
// amounts.
func (b *books) sentRun(t *testing.T, amounts ...string) []payments.Item {
	t.Helper()
	ctx := context.Background()
	byIntake := map[int64]int{}
	for i, a := range amounts {
		byIntake[b.posted(t, a)] = i
	}
	run, err := b.pay.Propose(ctx, b.org.ID, payments.Proposal{ExecutionDate: "2026-12-10", DueUntil: "2026-12-31"}, b.ann.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.pay.Approve(ctx, b.org.ID, run.ID, b.bob.Actor()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pay.Export(ctx, b.org.ID, run.ID, b.ann.Actor()); err != nil {
		t.Fatal(err)
	}
	items := make([]payments.Item, len(amounts))
	for _, it := range run.Items {
		items[byIntake[it.IntakeID]] = it
	}
	return items
}

func (b *books) imports(t *testing.T, statement []byte) (bankstatement.Import, bool) {
	t.Helper()
	imp, created, err := b.svc.Import(context.Background(), b.org.ID, statement, b.ann.Actor())
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return imp, created
}

// paymentEntries counts the journal entries of an item under entry set set.
func (b *books) paymentEntries(t *testing.T, itemID int64, set string) int {
	t.Helper()
	return testkit.Count(t, b.db, `SELECT count(*) FROM journal_entries WHERE org_id = $1 AND source_type = 'payment'
		AND source_id = $2 AND entry_set = $3`, b.org.ID, strconv.FormatInt(itemID, 10), set)
}

// entryLines are an entry's lines as "account debit credit".
func (b *books) entryLines(t *testing.T, itemID int64, set string) []string {
	t.Helper()
	e, ok, err := ledger.ByKey(context.Background(), b.db.Pool, ledger.SourceKey{OrgID: b.org.ID, SourceType: "payment",
		SourceID: strconv.FormatInt(itemID, 10), EntrySet: set})
	if err != nil || !ok {
		t.Fatalf("entry of item %d (%s): %v, %v", itemID, set, ok, err)
	}
	var out []string
	for _, l := range e.Lines {
		out = append(out, fmt.Sprintf("%s %s %s", l.Account, l.Debit.StringFixed(2), l.Credit.StringFixed(2)))
	}
	return append(out, e.Date)
}

func (b *books) itemStatus(t *testing.T, itemID int64) string {
	t.Helper()
	var s string
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT status FROM payment_items WHERE id = $1`, itemID).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStatementPaysTheItemsOfASentRun(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	items := b.sentRun(t, "336.90", "100.00", "50.00")
	statement := st.Camt053("STMT-1", ourIBAN,
		st.Paid(items[0].EndToEndID, "336.90"),
		st.Paid(items[1].EndToEndID, "100.00"),
		st.Paid(items[2].EndToEndID, "49.00"), // not what was sent
		st.Paid("GB-999-999", "10.00"),
		st.Entry{Amount: "100.00", Status: "PDNG", EndToEndID: items[1].EndToEndID},
		st.Entry{Amount: "12.00", Credit: true, Reference: "CUSTOMER"},
	)
	validate(t, "camt.053.001.08.xsd", statement)
	imp, created := b.imports(t, statement)
	if !created || imp.Entries != 6 || imp.Matched != 2 || imp.Unmatched != 4 {
		t.Fatalf("import %+v, created %v", imp, created)
	}
	for i, it := range items[:2] {
		if got := b.itemStatus(t, it.ID); got != "paid" {
			t.Fatalf("item %d is %s", i, got)
		}
		want := []string{fmt.Sprintf("2000 %s 0.00", it.Amount), fmt.Sprintf("1000 0.00 %s", it.Amount), "2026-12-11"}
		if got := b.entryLines(t, it.ID, "main"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("entry of item %d: %v, want %v", i, got, want)
		}
	}
	if got := b.itemStatus(t, items[2].ID); got != "sent" {
		t.Fatalf("the item paid a different amount is %s", got)
	}
	// The same bytes again: the first answer, nothing new.
	again, created := b.imports(t, statement)
	if created || again != imp {
		t.Fatalf("again: %+v, created %v", again, created)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM journal_entries WHERE source_type = 'payment'`); n != 2 {
		t.Fatalf("%d payment entries", n)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM bank_statements`); n != 1 {
		t.Fatalf("%d imports", n)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM audit_events WHERE action = 'payment_paid'`); n != 2 {
		t.Fatalf("%d payment_paid audit events", n)
	}
	// The unmatched lines are listed, each with its reason.
	report, err := b.svc.Get(ctx, b.org.ID, imp.ID)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, l := range report.UnmatchedEntries {
		reasons = append(reasons, fmt.Sprintf("%d:%s:%s", l.Line, l.Reason, l.Amount))
	}
	want := "[3:amount_differs:49.00 4:unknown_end_to_end_id:10.00 5:not_booked:100.00 6:not_a_payment:12.00]"
	if fmt.Sprint(reasons) != want || !report.Complete || report.StatementID != "STMT-1" || report.MessageType != bankstatement.Camt053 {
		t.Fatalf("report %+v\nreasons %v, want %s", report, reasons, want)
	}
	if report.UnmatchedEntries[0].ItemID == nil || *report.UnmatchedEntries[0].ItemID != items[2].ID {
		t.Fatalf("the amount that differs names its item: %+v", report.UnmatchedEntries[0])
	}
	if _, err := b.svc.Get(ctx, b.org.ID+1000, imp.ID); err == nil {
		t.Fatal("another org read the import")
	}
	// The feed shows the payments.
	testkit.Eventually(t, 10*time.Second, "the feed to show the payments", func() (bool, error) {
		list, _, err := events.Read(ctx, b.db.Pool, b.org.ID, "", 0)
		var paid []string
		for _, e := range list {
			if e.Type == events.PaymentPaid {
				paid = append(paid, fmt.Sprintf("%v:%v:%v:%v", e.Data["item_id"], e.Data["status"], *e.IntakeID, *e.EntryID != 0))
			}
		}
		return len(paid) == 2, err
	})
}

func TestAnOverlappingStatementPostsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	items := b.sentRun(t, "10.00", "20.00", "30.00", "40.00")
	first, _ := b.imports(t, st.Camt053("A", ourIBAN, st.Paid(items[0].EndToEndID, "10.00"), st.Paid(items[1].EndToEndID, "20.00")))
	// The next statement repeats the second payment and adds two, one of
	// them in a batch entry with the repeated one.
	second, created := b.imports(t, st.Camt053("B", ourIBAN,
		st.Entry{Amount: "50.00", Batch: []st.Transaction{st.Tx(items[1].EndToEndID, "20.00"), st.Tx(items[2].EndToEndID, "30.00")}},
		st.Paid(items[3].EndToEndID, "40.00")))
	if first.Matched != 2 || !created || second.Entries != 3 || second.Matched != 3 || second.Unmatched != 0 {
		t.Fatalf("first %+v, second %+v", first, second)
	}
	for _, it := range items {
		if n := b.paymentEntries(t, it.ID, "main"); n != 1 || b.itemStatus(t, it.ID) != "paid" {
			t.Fatalf("item %d: %d entries, %s", it.ID, n, b.itemStatus(t, it.ID))
		}
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM bank_statement_entries WHERE outcome = 'already_paid' AND item_id = $1`, items[1].ID); n != 1 {
		t.Fatalf("%d already_paid lines of the repeated payment", n)
	}
}

// TestConcurrentOverlappingImportsPostEachPaymentOnce has two imports of
// overlapping statements meet: the first holds the row locks of its items
// while the second starts, on its own connection, and must wait for them.
// Each payment is posted, marked paid and audited once. Without the items'
// row locks both would find the shared items sent and both would book them
// (the ledger's key keeps one entry, but each import records a payment).
func TestConcurrentOverlappingImportsPostEachPaymentOnce(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	amounts := make([]string, 12)
	for i := range amounts {
		amounts[i] = fmt.Sprintf("%d.00", 10+i)
	}
	items := b.sentRun(t, amounts...)
	var stmtA, stmtB []st.Entry
	for i, it := range items {
		if i < 8 {
			stmtA = append(stmtA, st.Paid(it.EndToEndID, it.Amount))
		}
		if i >= 4 {
			// In the other order: the locks are taken by item id all the same.
			stmtB = append([]st.Entry{st.Paid(it.EndToEndID, it.Amount)}, stmtB...)
		}
	}
	held, release, secondLocked := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var calls sync.Mutex
	call := 0
	b.fp.Set(bankstatement.FailpointItemsLocked, func(context.Context) error {
		calls.Lock()
		call++
		n := call
		calls.Unlock()
		switch n {
		case 1:
			close(held)
			<-release
		case 2:
			close(secondLocked)
		}
		return nil
	})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	var wg sync.WaitGroup
	results := make([]bankstatement.Import, 2)
	errs := make([]error, 2)
	wg.Go(func() {
		results[0], _, errs[0] = b.svc.Import(ctx, b.org.ID, st.Camt053("A", ourIBAN, stmtA...), b.ann.Actor())
	})
	<-held
	wg.Go(func() {
		results[1], _, errs[1] = b.svc.Import(ctx, b.org.ID, st.Camt053("B", ourIBAN, stmtB...), b.bob.Actor())
	})
	// The second import waits for the first's row locks; were there none,
	// it would take the shared items as well, and the test would find them
	// booked twice.
	err := testkit.PollForLockWaiter(ctx, b.db.Conn(t), func() bool {
		select {
		case <-secondLocked:
			return true
		default:
			return false
		}
	})
	free()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if results[0].Matched != 8 || results[1].Matched != 8 {
		t.Fatalf("imports %+v", results)
	}
	for _, it := range items {
		if n := b.paymentEntries(t, it.ID, "main"); n != 1 {
			t.Fatalf("item %d: %d entries", it.ID, n)
		}
		if n := testkit.Count(t, b.db, `SELECT count(*) FROM audit_events WHERE action = 'payment_paid' AND subject_id = $1`, it.ID); n != 1 {
			t.Fatalf("item %d paid %d times", it.ID, n)
		}
		if n := testkit.Count(t, b.db, `SELECT count(*) FROM bank_statement_entries WHERE outcome = 'matched' AND item_id = $1`, it.ID); n != 1 {
			t.Fatalf("item %d matched by %d lines", it.ID, n)
		}
	}
}

func TestAReturnReopensTheInvoice(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	items := b.sentRun(t, "336.90", "20.00")
	// A return of a payment no statement showed paid is left to a person.
	early, _ := b.imports(t, st.Camt053("R0", ourIBAN, st.Returned(items[1].EndToEndID, "20.00", "AC04")))
	if early.Unmatched != 1 || b.itemStatus(t, items[1].ID) != "sent" {
		t.Fatalf("early return %+v", early)
	}
	b.imports(t, st.Camt053("A", ourIBAN, st.Paid(items[0].EndToEndID, "336.90")))
	ret := st.Camt053("R1", ourIBAN, st.Entry{Amount: "336.90", Credit: true, EndToEndID: items[0].EndToEndID, ReturnReason: "AC04",
		Date: "2026-12-14", Reference: "RTR"})
	validate(t, "camt.053.001.08.xsd", ret)
	imp, _ := b.imports(t, ret)
	if imp.Matched != 1 || b.itemStatus(t, items[0].ID) != "returned" {
		t.Fatalf("return %+v, item %s", imp, b.itemStatus(t, items[0].ID))
	}
	want := []string{"1000 336.90 0.00", "2000 0.00 336.90", "2026-12-14"}
	if got := b.entryLines(t, items[0].ID, "return"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("return entry %v, want %v", got, want)
	}
	// The same return in another statement, and the payment again: nothing new.
	again, _ := b.imports(t, st.Camt053("R2", ourIBAN, st.Returned(items[0].EndToEndID, "336.90", "AC04"),
		st.Paid(items[0].EndToEndID, "336.90")))
	if again.Matched != 2 || b.paymentEntries(t, items[0].ID, "return") != 1 || b.paymentEntries(t, items[0].ID, "main") != 1 {
		t.Fatalf("again %+v", again)
	}
	var outcomes []string
	rows, _ := b.db.Pool.Query(ctx, `SELECT e.outcome FROM bank_statement_entries e JOIN bank_statements s ON s.id = e.statement_id
		WHERE s.statement_id = 'R2' ORDER BY e.line`)
	for rows.Next() {
		var o string
		_ = rows.Scan(&o)
		outcomes = append(outcomes, o)
	}
	if fmt.Sprint(outcomes) != "[already_returned already_paid]" {
		t.Fatalf("outcomes %v", outcomes)
	}
	// The invoice may be proposed again.
	run, err := b.pay.Propose(ctx, b.org.ID, payments.Proposal{ExecutionDate: "2026-12-20", DueUntil: "2026-12-31"}, b.ann.Actor())
	if err != nil || len(run.Items) != 1 || run.Items[0].IntakeID != items[0].IntakeID {
		t.Fatalf("new proposal %+v, %v", run.Items, err)
	}
	testkit.Eventually(t, 10*time.Second, "the feed to show the return", func() (bool, error) {
		list, _, err := events.Read(ctx, b.db.Pool, b.org.ID, "", 0)
		for _, e := range list {
			if e.Type == events.PaymentReturned && e.Data["return_reason"] == "AC04" && e.Data["status"] == "returned" &&
				e.IntakeID != nil && *e.IntakeID == items[0].IntakeID {
				return true, err
			}
		}
		return false, err
	})
}

// TestACrashBetweenBatchesIsFinishedOnce stops an import after its first
// batch committed; the resume at startup finishes it, and so does a
// re-upload of the same bytes after a second crash: each payment is posted
// once.
func TestACrashBetweenBatchesIsFinishedOnce(t *testing.T) {
	t.Parallel()
	b := newBooks(t)
	ctx := context.Background()
	items := b.sentRun(t, "1.00", "2.00", "3.00", "4.00", "5.00", "6.00", "7.00", "8.00", "9.00", "10.00")
	b.svc.BatchSize = 2
	crash := errors.New("crashed between batches")
	crashOnce := func() {
		var once sync.Once
		b.fp.Set(bankstatement.FailpointAfterBatch, func(context.Context) error {
			err := error(nil)
			once.Do(func() { err = crash })
			return err
		})
	}
	statement := func(name string, its []payments.Item) []byte {
		var es []st.Entry
		for _, it := range its {
			es = append(es, st.Paid(it.EndToEndID, it.Amount))
		}
		return st.Camt053(name, ourIBAN, es...)
	}
	paid := func() int { return testkit.Count(t, b.db, `SELECT count(*) FROM payment_items WHERE status = 'paid'`) }

	crashOnce()
	first := statement("A", items[:5])
	if _, _, err := b.svc.Import(ctx, b.org.ID, first, b.ann.Actor()); !errors.Is(err, crash) {
		t.Fatalf("import: %v", err)
	}
	if n := paid(); n != 2 {
		t.Fatalf("%d paid after the first batch", n)
	}
	report, err := b.svc.Get(ctx, b.org.ID, mustImportID(t, b, "A"))
	if err != nil || report.Complete {
		t.Fatalf("an interrupted import: %+v, %v", report, err)
	}
	if n, err := b.svc.Resume(ctx); err != nil || n != 1 {
		t.Fatalf("resume: %d, %v", n, err)
	}
	if n := paid(); n != 5 {
		t.Fatalf("%d paid after the resume", n)
	}
	imp, created := b.imports(t, first)
	if created || imp.Matched != 5 || imp.Unmatched != 0 {
		t.Fatalf("re-upload after the resume: %+v", imp)
	}

	crashOnce()
	second := statement("B", items[3:])
	if _, _, err := b.svc.Import(ctx, b.org.ID, second, b.bob.Actor()); !errors.Is(err, crash) {
		t.Fatalf("import: %v", err)
	}
	imp, created = b.imports(t, second)
	if created || imp.Entries != 7 || imp.Matched != 7 {
		t.Fatalf("re-upload after the crash: %+v, created %v", imp, created)
	}
	if n := paid(); n != 10 {
		t.Fatalf("%d paid", n)
	}
	var perItem []int
	for _, it := range items {
		perItem = append(perItem, b.paymentEntries(t, it.ID, "main"))
	}
	sort.Ints(perItem)
	if perItem[0] != 1 || perItem[len(perItem)-1] != 1 {
		t.Fatalf("entries per item %v", perItem)
	}
	if n := testkit.Count(t, b.db, `SELECT count(*) FROM audit_events WHERE action = 'payment_paid'`); n != 10 {
		t.Fatalf("%d payment_paid audit events", n)
	}
	if n, err := b.svc.Resume(ctx); err != nil || n != 0 {
		t.Fatalf("nothing left to resume: %d, %v", n, err)
	}
}

func mustImportID(t *testing.T, b *books, statementID string) int64 {
	t.Helper()
	var id int64
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT id FROM bank_statements WHERE org_id = $1 AND statement_id = $2`,
		b.org.ID, statementID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
