package bookkeeper_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type fixture struct {
	db    *testkit.DB
	app   *app.App
	org   org.Org
	doc   einvoice.Document
	n     int
	actor audit.Actor
}

func newFixture(t *testing.T, baseCurrency string) *fixture {
	db := testkit.NewDB(t)
	a := app.New(db.Pool, app.Config{Logger: testkit.Logger(t), Workers: 2, SweepInterval: -1})
	ctx, stop := context.WithCancel(context.Background())
	a.Start(ctx)
	t.Cleanup(func() { stop(); a.Wait() })
	return &fixture{db: db, app: a, org: testkit.OrgWith(t, db, "bk", baseCurrency), doc: sampleInvoice(t), actor: audit.Actor{Label: "ann@example.test"}}
}

// sampleInvoice is the invoice every fixture files copies of.
func sampleInvoice(t *testing.T) einvoice.Document {
	t.Helper()
	raw, err := os.ReadFile("../einvoice/testdata/ubl-invoice-multirate.xml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := read.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// approve files a pending copy of the invoice under a new number and approves it.
func (f *fixture) approve(t *testing.T) int64 {
	t.Helper()
	id := f.insertPending(t)
	a, err := f.app.Decisions.Approve(context.Background(), f.org.ID, id, f.actor)
	if err != nil || a.Launch.Outcome != "launched" {
		t.Fatalf("approve: %+v %v", a, err)
	}
	return id
}

// insertPending files a pending copy of the invoice under a new number.
func (f *fixture) insertPending(t *testing.T) int64 {
	t.Helper()
	f.n++
	d := f.doc
	d.Number = fmt.Sprintf("%s-%d", d.Number, f.n)
	fields, _ := json.Marshal(d)
	var id int64
	if err := f.db.Pool.QueryRow(context.Background(), `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
		received_via, received_by, status, doc_type, source_ref, format, fields, queued_at)
		VALUES ($1, $2, 'application/xml', 1, 'api', 't', 'pending', 'invoice', $3, 'ubl', $4, now()) RETURNING id`,
		f.org.ID, hex.EncodeToString([]byte(fmt.Sprintf("%032d", f.n))), d.SourceRef(), fields).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *fixture) waitQuestion(t *testing.T, kind string) bookkeeper.Question {
	t.Helper()
	var qs []bookkeeper.Question
	testkit.Eventually(t, 60*time.Second, "no "+kind+" question", func() (bool, error) {
		var err error
		qs, err = f.app.Bookkeeper.Questions(context.Background(), f.org.ID)
		return len(qs) == 1 && qs[0].Kind == kind, err
	})
	return qs[0]
}

func (f *fixture) waitPosted(t *testing.T, id int64) ledger.Entry {
	t.Helper()
	var d intake.Document
	testkit.Eventually(t, 60*time.Second, fmt.Sprintf("document %d not posted", id), func() (bool, error) {
		var err error
		d, err = intake.NewPGStore(f.db.Pool).Get(context.Background(), f.org.ID, id)
		return d.Status == intake.Posted, err
	})
	e, err := ledger.Get(context.Background(), f.db.Pool, f.org.ID, d.ResultEntryID)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAnUnknownSupplierIsAskedOnceAndRemembered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "SEK") // the invoice's own currency; no default expense account
	first := f.approve(t)
	q := f.waitQuestion(t, bookkeeper.AskExpenseAccount)
	if q.IntakeID != first || q.Data["supplier_name"] == "" {
		t.Fatalf("question: %+v", q)
	}
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"account": "9999"}, true, f.actor); err == nil {
		t.Fatal("an unknown account was accepted")
	}
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"account": "6200"}, true, f.actor); err != nil {
		t.Fatal(err)
	}
	e := f.waitPosted(t, first)
	if e.Lines[0].Account != "6200" || e.SourceID != fmt.Sprint(first) || e.EntrySet != "bill" {
		t.Fatalf("entry: %+v", e)
	}
	// The next invoice from the same supplier goes to 6200 without a question.
	second := f.approve(t)
	if e := f.waitPosted(t, second); e.Lines[0].Account != "6200" {
		t.Fatalf("remembered account not used: %+v", e.Lines[0])
	}
}

func TestAForeignCurrencyWithoutARateAsksForOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "EUR") // the invoice is in SEK
	if _, err := f.db.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id = (SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, f.org.ID); err != nil {
		t.Fatal(err)
	}
	id := f.approve(t)
	q := f.waitQuestion(t, bookkeeper.AskExchangeRate)
	if q.Data["currency"] != "SEK" || q.Data["base_currency"] != "EUR" {
		t.Fatalf("question: %+v", q)
	}
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"rate": "0.087"}, true, f.actor); err != nil {
		t.Fatal(err)
	}
	e := f.waitPosted(t, id)
	if e.Currency != "SEK" || e.BaseCurrency != "EUR" {
		t.Fatalf("entry: %+v", e)
	}
	var bd, bc = e.Lines[0].BaseDebit.Sub(e.Lines[0].BaseDebit), e.Lines[0].BaseDebit.Sub(e.Lines[0].BaseDebit)
	for _, l := range e.Lines {
		bd, bc = bd.Add(l.BaseDebit), bc.Add(l.BaseCredit)
	}
	if !bd.Equal(bc) || bd.IsZero() {
		t.Fatalf("base amounts: %s / %s", bd, bc)
	}
	if n := testkit.Count(t, f.db, `SELECT count(*) FROM exchange_rates WHERE org_id = $1 AND currency = 'SEK'`, f.org.ID); n != 1 {
		t.Fatal("the rate was not remembered")
	}
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"rate": "1"}, false, f.actor); err == nil {
		t.Fatal("answering twice")
	}
}

func TestTheSourceKeyExplorerHearsTheBookkeepersReplaysAndConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "SEK")
	if _, err := f.db.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id =
		(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, f.org.ID); err != nil {
		t.Fatal(err)
	}
	observed := func(id int64) []ledger.Observation {
		obs, err := ledger.Observations(ctx, f.db.Pool, ledger.SourceKey{OrgID: f.org.ID, SourceType: "intake",
			SourceID: fmt.Sprint(id), EntrySet: bookkeeper.EntrySet})
		if err != nil {
			t.Fatal(err)
		}
		return obs
	}

	// A job that runs again for a document whose entry exists (its status
	// put back by hand) replays: the same entry, and the explorer says so.
	id := f.approve(t)
	e := f.waitPosted(t, id)
	if len(observed(id)) != 0 {
		t.Fatal("a first post is the entry itself, not an observation")
	}
	var jobID int64
	if err := f.db.Pool.QueryRow(ctx, `WITH d AS (UPDATE intake_documents SET status = 'active', result_entry_id = NULL WHERE id = $1)
		UPDATE jobs SET status = 'abandoned' WHERE intake_id = $1 RETURNING id`, id).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	if out, err := f.app.Outbox.Retry(ctx, f.org.ID, jobID, "replay on purpose", f.actor); err != nil || out.Outcome != "launched" {
		t.Fatalf("retry: %+v %v", out, err)
	}
	if again := f.waitPosted(t, id); again.ID != e.ID {
		t.Fatalf("the replay posted entry %d, want %d", again.ID, e.ID)
	}
	if obs := observed(id); len(obs) != 1 || obs[0].Outcome != "replayed" || obs[0].EntryID != e.ID || obs[0].Actor != "system:bookkeeper" {
		t.Fatalf("observations after the replay: %+v", obs)
	}

	// Someone posted other facts under the next document's key first: the
	// bookkeeper's post is a conflict, which the explorer hears of.
	next := id + 1
	if _, err := ledger.Post(ctx, f.db.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: f.org.ID, SourceType: "intake", SourceID: fmt.Sprint(next), EntrySet: bookkeeper.EntrySet},
		Date:      "2026-11-20", Currency: "SEK", Description: "squatter", Actor: "api:someone",
		Lines: []ledger.Line{{Account: "6000", Debit: decimal.RequireFromString("1")}, {Account: "2000", Credit: decimal.RequireFromString("1")}},
	}); err != nil {
		t.Fatal(err)
	}
	if got := f.approve(t); got != next {
		t.Fatalf("approved %d, want %d", got, next)
	}
	testkit.Eventually(t, 60*time.Second, "the bookkeeper's conflict was not observed", func() (bool, error) {
		obs := observed(next)
		return len(obs) == 1 && obs[0].Outcome == "conflict" && obs[0].Actor == "system:bookkeeper", nil
	})
}

// A rate the rates table cannot hold (numeric(20,10)) is asked again, not a
// run that fails writing it.
func TestARateBeyondWhatIsStoredIsAskedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "EUR")
	if _, err := f.db.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id = (SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, f.org.ID); err != nil {
		t.Fatal(err)
	}
	f.approve(t)
	q := f.waitQuestion(t, bookkeeper.AskExchangeRate)
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"rate": "12345678901"}, true, f.actor); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 60*time.Second, "the rate was not asked again", func() (bool, error) {
		qs, err := f.app.Bookkeeper.Questions(ctx, f.org.ID)
		return len(qs) == 1 && strings.Contains(qs[0].Prompt, "beyond"), err
	})
}
