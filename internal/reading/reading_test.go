package reading_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/intake"
	"greatbook/internal/pagetext"
	"greatbook/internal/reading"
	"greatbook/internal/testkit"
	"greatbook/internal/textfields/specimen"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// filed ingests a PDF into the world's org and files it.
func filed(t *testing.T, w *apptest.World, pdf []byte) intake.Document {
	t.Helper()
	ctx := context.Background()
	res, err := w.App.Pipeline.Ingest(ctx, intake.Arrival{OrgID: w.Org.ID, Content: pdf, MediaType: "application/pdf", Via: "api", Actor: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.App.Pipeline.Process(ctx, res.RunID); err != nil {
		t.Fatal(err)
	}
	doc, err := intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, res.Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// sameSupplier are two invoices of one supplier's layout, read with
// confidence at first sight.
func sameSupplier(t *testing.T) (a, b specimen.Specimen) {
	t.Helper()
	all, err := specimen.Generate(7, 2*len(specimen.Layouts()))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range all {
		for _, o := range all[i+1:] {
			if o.Supplier == s.Supplier {
				return s, o
			}
		}
	}
	t.Fatal("no two specimens of one supplier")
	return
}

func TestConfirmingTwoInvoicesOfASupplierAtOnceKeepsOneLayout(t *testing.T) {
	t.Parallel()
	w := apptest.NewWorld(t, app.Config{})
	ctx := context.Background()
	a, b := sameSupplier(t)
	docs := []intake.Document{filed(t, w, a.PDF), filed(t, w, b.PDF)}
	for _, d := range docs {
		if d.Status != intake.Pending {
			t.Fatalf("specimen %s filed %s (%s): %s", a.Layout, d.Status, d.FlagReason, d.Findings)
		}
	}
	// Approving what was read confirms it; two approvals of the supplier's
	// invoices at once learn its layout once, the later one winning.
	var wg sync.WaitGroup
	errs := make([]error, len(docs))
	for i, d := range docs {
		wg.Go(func() { _, errs[i] = w.App.Decisions.Approve(ctx, w.Org.ID, d.ID, w.Actor) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	ls, err := w.App.Readings.Layouts(ctx, w.Org.ID)
	if err != nil || len(ls) != 1 || len(ls[0].FieldNames()) == 0 {
		t.Fatalf("layouts %+v %v, want one with places", ls, err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'layout_learned' AND org_id = $1`, w.Org.ID); n != 2 {
		t.Fatalf("%d layout_learned events, want 2", n)
	}
}

func TestAnAdminForgetsLayoutsOfTheirOrgOnly(t *testing.T) {
	t.Parallel()
	w := apptest.NewWorld(t, app.Config{})
	ctx := context.Background()
	a, _ := sameSupplier(t)
	d := filed(t, w, a.PDF)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, d.ID, w.Actor); err != nil {
		t.Fatal(err)
	}
	ls, err := w.App.Readings.Layouts(ctx, w.Org.ID)
	if err != nil || len(ls) != 1 {
		t.Fatalf("layouts %+v %v", ls, err)
	}
	other := testkit.Org(t, w.DB)
	admin := audit.Actor{Label: "admin@example.test"}
	if err := w.App.Readings.Forget(ctx, other.ID, ls[0].ID, admin); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org forgets it: %v, want not_found", err)
	}
	if _, err := w.App.Readings.Get(ctx, other.ID, d.ID); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org reads its reading: %v, want not_found", err)
	}
	if err := w.App.Readings.Forget(ctx, w.Org.ID, ls[0].ID, admin); err != nil {
		t.Fatal(err)
	}
	if n, err := w.App.Readings.Reset(ctx, w.Org.ID, admin); err != nil || n != 0 {
		t.Fatalf("reset after forgetting: %d %v", n, err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action IN ('layout_forgotten', 'layouts_reset') AND org_id = $1`, w.Org.ID); n != 2 {
		t.Fatalf("%d audit events, want 2", n)
	}
	// An e-invoice was not read from its text.
	if _, err := reading.Get(ctx, w.DB.Pool, w.Org.ID, w.Doc(t, 0)); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("an e-invoice's reading: %v, want not_found", err)
	}
}

// A page that cannot be drawn within the reading's limits is the
// document's fault (422), not a server error.
func TestAPagePastALimitIsInvalid(t *testing.T) {
	t.Parallel()
	w := apptest.NewWorld(t, app.Config{})
	a, _ := sameSupplier(t)
	doc := filed(t, w, a.PDF)
	// 16 MiB of address space does not even hold pdftoppm's libraries.
	s := reading.Service{Pool: w.DB.Pool, Limits: pagetext.Limits{MaxMemory: 16 << 20}}
	_, err := s.PageImage(context.Background(), w.Org.ID, doc.ID, 1, 72)
	if !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("PageImage: %v, want invalid", err)
	}
}
