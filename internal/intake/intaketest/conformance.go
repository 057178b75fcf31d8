// Package intaketest is the conformance suite every intake.Store passes:
// PostgreSQL's and the in-memory one. Whatever the pipeline sees offline it
// sees in production.
package intaketest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/intake"
)

// Fixture is a fresh store with two orgs.
type Fixture struct {
	Store        intake.Store
	OrgA, OrgB   int64
	Reject       func(t *testing.T, id int64)
	Concurrently int // goroutines for the race test
}

// Exercise runs the suite; newFixture returns a fresh, empty store.
func Exercise(t *testing.T, newFixture func(t *testing.T) Fixture) {
	ctx := context.Background()
	var n atomic.Int64
	arrive := func(t *testing.T, f Fixture, org int64, content string) intake.Document {
		t.Helper()
		d, created, err := f.Store.Ingest(ctx, intake.Arrival{OrgID: org, Content: []byte(content), MediaType: "application/xml",
			Filename: "doc.xml", Via: "api", Actor: "tester"})
		if err != nil || !created {
			t.Fatalf("ingest: created %v, %v", created, err)
		}
		return d
	}
	filing := func(docType, ref string) intake.Filing {
		return intake.Filing{DocType: docType, SourceRef: ref, ContentKey: fmt.Sprintf("content-%d", n.Add(1)), Format: "ubl",
			Fields: []byte(`{"number": "` + ref + `"}`)}
	}
	file := func(t *testing.T, f Fixture, id int64, fl intake.Filing) intake.Document {
		t.Helper()
		d, err := intake.File(ctx, f.Store, id, fl)
		if err != nil {
			t.Fatalf("file %d: %v", id, err)
		}
		return d
	}
	wantPending := func(t *testing.T, d intake.Document) {
		t.Helper()
		if d.Status != intake.Pending || d.DuplicateOf != 0 || d.FlagReason != "" {
			t.Fatalf("document %d: %s, duplicate_of %d, flag %q; want pending", d.ID, d.Status, d.DuplicateOf, d.FlagReason)
		}
	}
	wantDuplicate := func(t *testing.T, d intake.Document, of int64, reason string) {
		t.Helper()
		if d.Status != intake.Flagged || d.FlagReason != intake.FlagDuplicate || d.DuplicateOf != of || d.DuplicateReason != reason {
			t.Fatalf("document %d: %s, flag %q, duplicate_of %d (%s); want a flagged duplicate of %d (%s)",
				d.ID, d.Status, d.FlagReason, d.DuplicateOf, d.DuplicateReason, of, reason)
		}
	}

	t.Run("same bytes, same row", func(t *testing.T) {
		f := newFixture(t)
		first := arrive(t, f, f.OrgA, "<Invoice>1</Invoice>")
		again, created, err := f.Store.Ingest(ctx, intake.Arrival{OrgID: f.OrgA, Content: []byte("<Invoice>1</Invoice>"),
			MediaType: "application/xml", Via: "api", Actor: "someone else"})
		if err != nil || created || again.ID != first.ID || again.Status != intake.Received {
			t.Fatalf("same bytes again: %+v created=%v %v", again, created, err)
		}
		// Another org's identical bytes are that org's own document.
		other := arrive(t, f, f.OrgB, "<Invoice>1</Invoice>")
		if other.ID == first.ID {
			t.Fatal("orgs share a document")
		}
		if _, err := f.Store.Get(ctx, f.OrgB, first.ID); !apperr.Is(err, apperr.NotFound) {
			t.Fatalf("another org's document: %v", err)
		}
	})

	t.Run("same seller and number, other bytes: a flagged duplicate of the first", func(t *testing.T) {
		f := newFixture(t)
		a := file(t, f, arrive(t, f, f.OrgA, "a").ID, filing("invoice", "vat:SE1/INV-1"))
		b := file(t, f, arrive(t, f, f.OrgA, "b").ID, filing("invoice", "vat:SE1/INV-1"))
		wantPending(t, a)
		wantDuplicate(t, b, a.ID, intake.SameReference)
		// A duplicate never holds the key: a third copy points at the incumbent.
		c := file(t, f, arrive(t, f, f.OrgA, "c").ID, filing("invoice", "vat:SE1/INV-1"))
		wantDuplicate(t, c, a.ID, intake.SameReference)
	})

	t.Run("two sellers, one number: both pending", func(t *testing.T) {
		f := newFixture(t)
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "a").ID, filing("invoice", "vat:SE1/INV-001")))
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "b").ID, filing("invoice", "vat:DK2/INV-001")))
	})

	t.Run("an invoice and a credit note with one number are not duplicates", func(t *testing.T) {
		f := newFixture(t)
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "a").ID, filing("invoice", "vat:SE1/77")))
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "b").ID, filing("credit_note", "vat:SE1/77")))
	})

	t.Run("orgs do not share natural keys", func(t *testing.T) {
		f := newFixture(t)
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "a").ID, filing("invoice", "vat:SE1/INV-1")))
		wantPending(t, file(t, f, arrive(t, f, f.OrgB, "b").ID, filing("invoice", "vat:SE1/INV-1")))
	})

	t.Run("a rejected row gives up its natural key", func(t *testing.T) {
		f := newFixture(t)
		a := file(t, f, arrive(t, f, f.OrgA, "a").ID, filing("invoice", "vat:SE1/INV-9"))
		f.Reject(t, a.ID)
		wantPending(t, file(t, f, arrive(t, f, f.OrgA, "b").ID, filing("invoice", "vat:SE1/INV-9")))
	})

	t.Run("same facts under another number: a flagged duplicate", func(t *testing.T) {
		f := newFixture(t)
		fa := filing("invoice", "vat:SE1/INV-1")
		a := file(t, f, arrive(t, f, f.OrgA, "a").ID, fa)
		fb := filing("invoice", "vat:SE1/INV-1B")
		fb.ContentKey = fa.ContentKey
		wantDuplicate(t, file(t, f, arrive(t, f, f.OrgA, "b").ID, fb), a.ID, intake.SameContent)
	})

	t.Run("flagged for another reason, and filed twice", func(t *testing.T) {
		f := newFixture(t)
		d := arrive(t, f, f.OrgA, "scan")
		got := file(t, f, d.ID, intake.Filing{FlagReason: intake.FlagNeedsManualExtraction, Format: "unknown"})
		if got.Status != intake.Flagged || got.FlagReason != intake.FlagNeedsManualExtraction || got.QueuedAt == nil {
			t.Fatalf("flagged: %+v", got)
		}
		if _, err := f.Store.Queue(ctx, d.ID, filing("invoice", "x")); !errors.Is(err, intake.ErrNotReceived) {
			t.Fatalf("filing a filed row again: %v", err)
		}
	})

	t.Run("fields typed in by hand are filed by the same rules", func(t *testing.T) {
		f := newFixture(t)
		incumbent := file(t, f, arrive(t, f, f.OrgA, "xml").ID, filing("invoice", "vat:SE1/INV-5"))
		scan := file(t, f, arrive(t, f, f.OrgA, "scan").ID, intake.Filing{FlagReason: intake.FlagNeedsManualExtraction})
		other := file(t, f, arrive(t, f, f.OrgA, "scan2").ID, intake.Filing{FlagReason: intake.FlagNeedsManualExtraction})
		typed, err := intake.FileTyped(ctx, f.Store, scan.ID, filing("invoice", "vat:SE1/INV-5"))
		if err != nil {
			t.Fatal(err)
		}
		wantDuplicate(t, typed, incumbent.ID, intake.Manual)
		typed, err = intake.FileTyped(ctx, f.Store, other.ID, filing("invoice", "vat:SE1/INV-6"))
		if err != nil {
			t.Fatal(err)
		}
		wantPending(t, typed)
		if _, err := intake.FileTyped(ctx, f.Store, incumbent.ID, filing("invoice", "vat:SE1/INV-7")); !errors.Is(err, intake.ErrNotRefileable) {
			t.Fatalf("typing in a pending document: %v", err)
		}
	})

	t.Run("concurrent uploads of one reference: one pending, the rest flagged, no errors", func(t *testing.T) {
		f := newFixture(t)
		workers := max(f.Concurrently, 2)
		ids := make([]int64, workers)
		for i := range ids {
			ids[i] = arrive(t, f, f.OrgA, fmt.Sprintf("copy %d", i)).ID
		}
		docs := make([]intake.Document, workers)
		errs := make([]error, workers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				docs[i], errs[i] = intake.File(ctx, f.Store, ids[i], filing("invoice", "vat:SE1/RACE-1"))
			}()
		}
		close(start)
		wg.Wait()
		var holder int64
		for i, d := range docs {
			if errs[i] != nil {
				t.Fatalf("upload %d: %v", i, errs[i])
			}
			if d.Status == intake.Pending {
				if holder != 0 {
					t.Fatalf("two pending rows for one reference: %d and %d", holder, d.ID)
				}
				holder = d.ID
			}
		}
		if holder == 0 {
			t.Fatal("no row holds the reference")
		}
		for _, d := range docs {
			if d.ID != holder {
				wantDuplicate(t, d, holder, intake.SameReference)
			}
		}
	})
	t.Run("what the database cannot store is refused, naming the column, and nothing is written", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		for _, tc := range []struct {
			name   string
			change func(fl *intake.Filing)
		}{
			{"NUL in the source ref", func(fl *intake.Filing) { fl.SourceRef = "vat:SE1/INV\x00" }},
			{"invalid UTF-8 in the source ref", func(fl *intake.Filing) { fl.SourceRef = "name:caf\xe9/1" }},
			{"an absurd source ref", func(fl *intake.Filing) { fl.SourceRef = string(make([]byte, 5000)) }},
			{"NUL in the fields", func(fl *intake.Filing) { fl.Fields = []byte(`{"number": "a\u0000"}`) }},
			{"fields that are not JSON", func(fl *intake.Filing) { fl.Fields = []byte(`{"number": `) }},
			{"NUL in the findings", func(fl *intake.Filing) { fl.Findings = []byte(`[{"message": "\u0000"}]`) }},
		} {
			d := arrive(t, f, f.OrgA, "unstorable "+tc.name)
			fl := filing("invoice", "vat:SE1/OK-1")
			tc.change(&fl)
			_, err := intake.File(ctx, f.Store, d.ID, fl)
			if !apperr.Is(err, apperr.Invalid) {
				t.Fatalf("%s: %v, want invalid", tc.name, err)
			}
			got, err := f.Store.Get(ctx, f.OrgA, d.ID)
			if err != nil || got.Status != intake.Received {
				t.Fatalf("%s: the row is %s (%v), want received", tc.name, got.Status, err)
			}
		}
		_, _, err := f.Store.Ingest(ctx, intake.Arrival{OrgID: f.OrgA, Content: []byte("x"), MediaType: "application/xml", Via: "api", Actor: "a\x00b"})
		if !apperr.Is(err, apperr.Invalid) {
			t.Fatalf("an arrival by a NUL actor: %v", err)
		}
	})
}
