package intake_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/intake"
	"greatbook/internal/testkit"
)

// versions files a typewriter document with n versions and a received
// intake row for each, numbered differently (so that only the version
// guard, not the natural key, can relate them).
func (w *world) versions(t *testing.T, n int) (group int64, rows []int64) {
	t.Helper()
	ctx := context.Background()
	if err := w.DB.Pool.QueryRow(ctx, `INSERT INTO typewriter_documents (org_id, created_by) VALUES ($1, 't') RETURNING id`, w.Org.ID).Scan(&group); err != nil {
		t.Fatal(err)
	}
	var prev any
	for i := 1; i <= n; i++ {
		var v int64
		if err := w.DB.Pool.QueryRow(ctx, `INSERT INTO typewriter_versions (document_id, org_id, number, supersedes_id, body, pdf, pdf_sha256, created_by)
			VALUES ($1, $2, $3, $4, '{}', '\x00', repeat('a', 64), 't') RETURNING id`, group, w.Org.ID, i, prev).Scan(&v); err != nil {
			t.Fatal(err)
		}
		prev = v
		var id int64
		if err := w.DB.Pool.QueryRow(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
			typewriter_version_id, version_group) VALUES ($1, $2, 'application/pdf', 1, 'typewriter', 't', $3, $4) RETURNING id`,
			w.Org.ID, intake.ContentHash([]byte(fmt.Sprintf("%d/%d/%d", group, i, time.Now().UnixNano()))), v, group).Scan(&id); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, id)
	}
	return group, rows
}

// received inserts an intake row as ingest leaves it, with no version group.
func (w *world) received(t *testing.T) int64 {
	t.Helper()
	var id int64
	if err := w.DB.Pool.QueryRow(context.Background(), `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by)
		VALUES ($1, $2, 'application/xml', 1, 'api', 't') RETURNING id`,
		w.Org.ID, intake.ContentHash([]byte(fmt.Sprintf("received/%d/%d", w.NextRef(), time.Now().UnixNano())))).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (w *world) filing(n int) intake.Filing {
	return intake.Filing{DocType: "invoice", SourceRef: fmt.Sprintf("vat:SE1/TW-%d-%d", n, w.NextRef()), Format: "facturx", Fields: w.Fields}
}

// guardModes are the ways a test store takes a guard's lock: as the
// product does, and the two ways that let two incumbents through.
var guardModes = []struct {
	name string
	mode intake.GuardLockMode
	ok   bool
}{
	{"lock held across the insert", intake.GuardLockHeld, true},
	{"no lock (what the test guards against)", intake.GuardLockNone, false},
	{"lock released before the insert (what the test guards against)", intake.GuardLockReleasedEarly, false},
}

// fileAtOnce files rows[i] with filings[i], each in its own transaction on
// its own connection, through a store whose guard lock works as mode says.
// Both filers meet after reading their incumbent: each waits until the
// other has read too, or until the other waits for the lock this one holds
// (no sleeps: the meeting is observed in pg_stat_activity).
func (w *world) fileAtOnce(t *testing.T, mode intake.GuardLockMode, rows []int64, filings []intake.Filing) []intake.Document {
	t.Helper()
	ctx := context.Background()
	type filerKey struct{}
	var mu sync.Mutex
	read := map[int]bool{} // the filers that have read an incumbent
	hook := func(ctx context.Context) {
		mu.Lock()
		read[ctx.Value(filerKey{}).(int)] = true
		mu.Unlock()
		bothRead := func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(read) >= len(rows)
		}
		if err := testkit.PollForLockWaiter(ctx, w.DB.Pool, bothRead); err != nil {
			t.Errorf("the filers never met: %v", err)
		}
	}
	docs := make([]intake.Document, len(rows))
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i, id := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.WithValue(ctx, filerKey{}, i)
			errs[i] = pgx.BeginFunc(ctx, w.DB.Pool, func(tx pgx.Tx) error {
				var err error
				docs[i], err = intake.File(ctx, intake.NewPGStoreForTest(tx, mode, hook), id, filings[i])
				return err
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// filed says how each document was filed, briefly.
func filed(docs []intake.Document) string {
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "[%d %s duplicate_of=%d %s] ", d.ID, d.Status, d.DuplicateOf, d.DuplicateReason)
	}
	return b.String()
}

// wantOneIncumbent checks filings made at once: with the guard's lock
// (ok) exactly one holds its keys and the others are flagged against it for
// reason; without it (!ok) the test expects the lock's absence to show.
func wantOneIncumbent(t *testing.T, docs []intake.Document, ok bool, reason string) {
	t.Helper()
	n := 0
	for _, d := range docs {
		if d.DuplicateOf == 0 {
			n++
		}
	}
	if (n == 1) != ok {
		t.Fatalf("%d incumbents among %s", n, filed(docs))
	}
	if !ok {
		return
	}
	for _, d := range docs {
		if d.DuplicateOf != 0 && (d.DuplicateReason != reason || d.Status != intake.Flagged) {
			t.Fatalf("the later filing: %s", filed([]intake.Document{d}))
		}
	}
}

func TestVersionsFiledAtOnceHaveOneIncumbent(t *testing.T) {
	t.Parallel()
	for _, tc := range guardModes {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, app.Config{})
			_, rows := w.versions(t, 2)
			docs := w.fileAtOnce(t, tc.mode, rows, []intake.Filing{w.filing(0), w.filing(1)})
			wantOneIncumbent(t, docs, tc.ok, intake.NewerVersion)
		})
	}
}

// Two documents with the same facts under different numbers (a supplier
// sending one invoice twice, renumbered) arriving at once: one holds the
// content key, the other is flagged against it. The content key is not
// unique, so only the guard's lock can make this true.
func TestContentTwinsFiledAtOnceHaveOneIncumbent(t *testing.T) {
	t.Parallel()
	for _, tc := range guardModes {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, app.Config{})
			rows := []int64{w.received(t), w.received(t)}
			filings := []intake.Filing{w.filing(0), w.filing(1)}
			for i := range filings {
				filings[i].ContentKey = "vat:SE1|2026-11-20|EUR|1250.00"
			}
			docs := w.fileAtOnce(t, tc.mode, rows, filings)
			wantOneIncumbent(t, docs, tc.ok, intake.SameContent)
		})
	}
}

func TestTheLiveIncumbentOfTheGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	file := func(id int64) intake.Document {
		t.Helper()
		d, err := intake.File(ctx, intake.NewPGStore(w.DB.Pool), id, w.filing(int(id)))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// v1 pending, v2 filed: flagged against v1.
	_, rows := w.versions(t, 3)
	v1 := file(rows[0])
	if v2 := file(rows[1]); v2.DuplicateOf != v1.ID || v2.DuplicateReason != intake.NewerVersion {
		t.Fatalf("v2 after a pending v1: %+v", v2)
	}
	// v1 rejected: v3 is flagged against the live one, v2.
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, v1.ID, "superseded", w.Actor); err != nil {
		t.Fatal(err)
	}
	if v3 := file(rows[2]); v3.DuplicateOf != rows[1] {
		t.Fatalf("v3 after v2 after a rejected v1: %+v, want against %d", v3, rows[1])
	}
	// Only v1, rejected: v2 is filed normally.
	_, rows = w.versions(t, 2)
	first := file(rows[0])
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, first.ID, "wrong", w.Actor); err != nil {
		t.Fatal(err)
	}
	if v2 := file(rows[1]); v2.DuplicateOf != 0 || v2.Status != intake.Pending {
		t.Fatalf("v2 after a rejected v1: %+v", v2)
	}
}

// A filing in its caller's transaction that the natural key's unique index
// refuses (another filing took the key and committed while this one waited
// on the index) is filed as a duplicate of that incumbent in the same
// transaction, which then commits: the filing's savepoint undid only the
// refused update. Without the savepoint the refusal would abort the
// caller's transaction (the pipeline's run would fail instead of filing).
func TestAKeyTakenWhileFilingInATransactionFilesADuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	first, second := w.received(t), w.received(t)
	f := w.filing(0) // no content key: only the unique index relates the two
	txA, err := w.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = txA.Rollback(ctx) }()
	if d, err := intake.File(ctx, intake.NewPGStoreTx(txA), first, f); err != nil || d.Status != intake.Pending {
		t.Fatalf("first filing: %+v, %v", d, err)
	}
	type outcome struct {
		doc intake.Document
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.err = pgx.BeginFunc(ctx, w.DB.Pool, func(tx pgx.Tx) error {
			var err error
			o.doc, err = intake.File(ctx, intake.NewPGStoreTx(tx), second, f)
			return err
		})
		done <- o
	}()
	// The second filing waits on the index entry of the first's
	// uncommitted row; the first commits under it.
	testkit.WaitForLockWaiter(t, w.DB.Pool)
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("the second filing's transaction: %v", o.err)
	}
	if o.doc.Status != intake.Flagged || o.doc.DuplicateOf != first || o.doc.DuplicateReason != intake.SameReference {
		t.Fatalf("the second filing: %s", filed([]intake.Document{o.doc}))
	}
	got, err := intake.GetDocument(ctx, w.DB.Pool, w.Org.ID, second)
	if err != nil || got.DuplicateOf != first {
		t.Fatalf("the second row as committed: %s, %v", filed([]intake.Document{got}), err)
	}
}
