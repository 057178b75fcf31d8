// Package apptest is the assembled app on a fresh database, with an org and
// documents in it, for the tests of the packages the app assembles: a World.
package apptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/retry"
	"greatbook/internal/testkit"
)

// World is what the tests of documents, decisions, jobs and the desk stand
// on: an org with a default expense account, the assembled services with two
// workers (none when cfg.Workers is negative) acting at the world's
// failpoints, and a valid invoice's fields to give documents.
type World struct {
	DB         *testkit.DB
	App        *app.App
	Failpoints *testkit.Failpoints
	Org        org.Org
	Actor      audit.Actor
	// Fields are a valid invoice's fields, as the pipeline files them.
	Fields []byte
	refs   atomic.Int64
}

// NewWorld builds a world on a fresh database; the app stops with the test.
func NewWorld(t *testing.T, cfg app.Config) *World {
	t.Helper()
	db := testkit.NewDB(t)
	cfg.Logger, cfg.LeaseTTL = testkit.Logger(t), 5*time.Second
	if cfg.Workers == 0 {
		cfg.Workers = 2 // negative: no workers and no resume loop, for a test that runs its own engines
	}
	if cfg.SweepInterval == 0 {
		cfg.SweepInterval = -1 // tests sweep by hand
	}
	fp := &testkit.Failpoints{}
	cfg.Failpoints = fp
	a := app.New(db.Pool, cfg)
	ctx, stop := context.WithCancel(context.Background())
	a.Start(ctx)
	t.Cleanup(func() { stop(); a.Wait() })
	raw, err := os.ReadFile(filepath.Join(testkit.RepoRoot(), "internal", "einvoice", "testdata", "ubl-invoice-multirate.xml"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := read.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The org keeps its books in the invoice's currency, and has a default
	// expense account: the bookkeeper has nothing to ask.
	o := testkit.OrgWith(t, db, fmt.Sprintf("world-%d", worlds.Add(1)), d.Currency)
	if _, err := db.Pool.Exec(context.Background(), `UPDATE orgs SET default_expense_account_id =
		(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
		t.Fatal(err)
	}
	fields, _ := json.Marshal(d)
	return &World{DB: db, App: a, Failpoints: fp, Org: o, Actor: audit.Actor{Label: "reviewer@example.test"}, Fields: fields}
}

var worlds atomic.Int64

// NextRef is a number no other call on w returns, for unique references.
func (w *World) NextRef() int64 { return w.refs.Add(1) }

// Doc inserts a filed document: pending when it duplicates nothing, else
// flagged as a duplicate of dupOf.
func (w *World) Doc(t *testing.T, dupOf int64) int64 {
	t.Helper()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	status, flag, reason := "pending", any(nil), any(nil)
	var dup any
	if dupOf != 0 {
		status, flag, reason, dup = "flagged", "duplicate", "same_reference", dupOf
	}
	var id int64
	err := w.DB.Pool.QueryRow(context.Background(), `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
		received_via, received_by, status, doc_type, source_ref, format, fields, flag_reason, duplicate_of, duplicate_reason, queued_at)
		VALUES ($1, $2, 'application/xml', 1, 'api', 'test', $3, 'invoice', $4, 'ubl', $5, $6, $7, $8, now()) RETURNING id`,
		w.Org.ID, hex.EncodeToString(b), status, fmt.Sprintf("vat:SE1/REF-%d", w.NextRef()), w.Fields, flag, dup, reason).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Named gives a filed document its own supplier, number and (unless
// empty: a changed amount no longer balances) amount.
func (w *World) Named(t *testing.T, id int64, supplier, number, payable string) {
	t.Helper()
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET fields = jsonb_set(jsonb_set(jsonb_set(fields,
		'{seller,name}', to_jsonb($2::text)), '{number}', to_jsonb($3::text)), '{totals,payable}', coalesce(to_jsonb(NULLIF($4::text, '')), fields #> '{totals,payable}'))
		WHERE id = $1`, id, supplier, number, payable); err != nil {
		t.Fatal(err)
	}
}

// Link sets an edge after the fact (cycles need it).
func (w *World) Link(t *testing.T, child, parent int64) {
	t.Helper()
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET duplicate_of = $2, duplicate_reason = 'same_reference',
		status = 'flagged', flag_reason = 'duplicate' WHERE id = $1`, child, parent); err != nil {
		t.Fatal(err)
	}
}

// Group builds a topology: edges[i] = j means member i duplicates member j
// (-1: none). It returns the member ids in order.
func (w *World) Group(t *testing.T, edges []int) []int64 {
	t.Helper()
	ids := make([]int64, len(edges))
	for i := range edges {
		ids[i] = w.Doc(t, 0)
	}
	for i, j := range edges {
		if j >= 0 {
			w.Link(t, ids[i], ids[j])
		}
	}
	return ids
}

// WaitPosted waits until the bookkeeper has posted a document.
func (w *World) WaitPosted(t *testing.T, id int64) intake.Document {
	t.Helper()
	var d intake.Document
	err := testkit.Poll(20*time.Second, func() (bool, error) {
		var err error
		d, err = intake.NewPGStore(w.DB.Pool).Get(context.Background(), w.Org.ID, id)
		return d.Status == intake.Posted, err
	})
	if err != nil {
		job, _, _ := jobs.ForDocument(context.Background(), w.DB.Pool, w.Org.ID, id)
		t.Fatalf("document %d is %s (job %+v), want posted: %v", id, d.Status, job, err)
	}
	return d
}

// Entries counts the journal entries posted for a document.
func (w *World) Entries(t *testing.T, id int64) int {
	return testkit.Count(t, w.DB, `SELECT count(*) FROM journal_entries WHERE org_id = $1 AND source_type = 'intake' AND source_id = $2`,
		w.Org.ID, fmt.Sprint(id))
}

// FailLaunches makes every launch fail transiently with message until the
// returned fix is called.
func (w *World) FailLaunches(message string) (fix func()) {
	var mu sync.Mutex
	failing := true
	w.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return retry.MarkTransient(errors.New(message), 0)
		}
		return nil
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		failing = false
	}
}
