package desk_test

import (
	"context"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/desk"
	"greatbook/internal/intake"
)

// readDocument reads a document's page, its original (which the world's
// documents lack) stored first.
func (w *world) readDocument(t *testing.T, r desk.Reader, id int64) desk.DocumentPage {
	t.Helper()
	ctx := context.Background()
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO intake_originals (document_id, content) VALUES ($1, '<Invoice/>')
		ON CONFLICT DO NOTHING`, id); err != nil {
		t.Fatal(err)
	}
	p, err := desk.ReadDocument(ctx, w.DB.Pool, r, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A document may be typed in only while it is flagged for want of fields
// fit to post; the read model, not the page, says so.
func TestTheDocumentPageOffersTypingInOnlyForAFlaggedDocumentWithoutFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	reviewer := desk.Reader{OrgID: w.Org.ID}
	original := w.Doc(t, 0)
	for _, tc := range []struct {
		name, status, flag string
		want               bool
	}{
		{"flagged for manual extraction", "flagged", intake.FlagNeedsManualExtraction, true},
		{"flagged as extraction failed", "flagged", intake.FlagExtractionFailed, true},
		{"flagged as an invalid e-invoice", "flagged", intake.FlagInvalidEInvoice, true},
		{"flagged as a duplicate", "flagged", "duplicate", false},
		{"flagged as not an invoice", "flagged", intake.FlagNotAnInvoice, false},
		{"pending", "pending", "", false},
		{"rejected after a manual-extraction flag", "rejected", intake.FlagNeedsManualExtraction, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.Doc(t, 0)
			if tc.flag == "duplicate" {
				w.Link(t, id, original)
			} else if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = $2, flag_reason = NULLIF($3, '') WHERE id = $1`,
				id, tc.status, tc.flag); err != nil {
				t.Fatal(err)
			}
			p := w.readDocument(t, reviewer, id)
			if p.CanTypeIn != tc.want {
				t.Errorf("CanTypeIn = %v, want %v (status %s, flag %q)", p.CanTypeIn, tc.want, p.Document.Status, p.Document.FlagReason)
			}
		})
	}
}

// The page sets a document beside the member it was filed as a duplicate
// of; the original, beside the first other member; a lone document, beside
// nothing.
func TestTheDocumentPageComparesWithTheMemberItDuplicates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	reviewer := desk.Reader{OrgID: w.Org.ID}
	// first <- second <- third: third duplicates second, though first
	// comes first in the group.
	ids := w.Group(t, []int{-1, 0, 1})
	first, second, third := ids[0], ids[1], ids[2]
	lone := w.Doc(t, 0)
	for _, tc := range []struct {
		name     string
		id, want int64
	}{
		{"a duplicate, with what it duplicates", third, second},
		{"the original, with the first other member", first, second},
		{"a lone document, with nothing", lone, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.readDocument(t, reviewer, tc.id)
			if p.Comparison.With != tc.want {
				t.Errorf("compares %d with %d, want %d", tc.id, p.Comparison.With, tc.want)
			}
			if (len(p.Comparison.Rows) > 0) != (tc.want != 0) {
				t.Errorf("%d rows side by side comparing with %d", len(p.Comparison.Rows), tc.want)
			}
		})
	}

	// Asked for a member outside the group (or itself), it compares with nothing.
	for _, with := range []int64{lone, third, 0} {
		c, err := desk.ReadComparison(ctx, w.DB.Pool, reviewer, third, with)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int64]int64{lone: 0, third: 0, 0: 0}[with]; c.With != want || len(c.Rows) != 0 {
			t.Errorf("ReadComparison(%d, with %d) = with %d and %d rows, want nothing", third, with, c.With, len(c.Rows))
		}
	}
	c, err := desk.ReadComparison(ctx, w.DB.Pool, reviewer, third, first)
	if err != nil {
		t.Fatal(err)
	}
	if c.With != first || len(c.Rows) == 0 {
		t.Errorf("ReadComparison(%d, with %d) = with %d and %d rows", third, first, c.With, len(c.Rows))
	}
}

// The decision panel says who blocks an approve before anyone presses it,
// and offers the admin's actions to admins only and only where they apply.
func TestTheDecisionPanelDecidesWhatAReaderMayDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	reviewer, admin := desk.Reader{OrgID: w.Org.ID}, desk.Reader{OrgID: w.Org.ID, Admin: true}
	ids := w.Group(t, []int{-1, 0})
	original, duplicate := ids[0], ids[1]

	read := func(r desk.Reader, id int64) desk.DecisionPanel {
		t.Helper()
		p, err := desk.ReadDecision(ctx, w.DB.Pool, r, id)
		if err != nil {
			t.Fatal(err)
		}
		page := w.readDocument(t, r, id)
		if (page.Decision.Blocking == nil) != (p.Blocking == nil) || page.Decision.CanMarkDistinct != p.CanMarkDistinct ||
			page.Decision.CanRetry != p.CanRetry {
			t.Errorf("document %d: the page's panel %+v differs from the panel's %+v", id, page.Decision, p)
		}
		return p
	}

	if p := read(admin, duplicate); !p.CanMarkDistinct || p.Blocking != nil {
		t.Errorf("admin on a pending duplicate: CanMarkDistinct %v, Blocking %v; want true, nil", p.CanMarkDistinct, p.Blocking)
	}
	if p := read(reviewer, duplicate); p.CanMarkDistinct {
		t.Error("a reviewer may mark a duplicate distinct")
	}
	if p := read(admin, original); p.CanMarkDistinct {
		t.Error("an admin may mark distinct a document that duplicates nothing")
	}

	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, original, w.Actor); err != nil {
		t.Fatal(err)
	}
	p := read(admin, duplicate)
	if p.Blocking == nil || p.Blocking.ID != original {
		t.Fatalf("after %d was approved, the duplicate's panel is blocked by %+v", original, p.Blocking)
	}
	if p := read(admin, original); p.Blocking != nil || p.CanMarkDistinct || p.Job == nil {
		t.Errorf("the approved document's panel: Blocking %v, CanMarkDistinct %v, Job %v", p.Blocking, p.CanMarkDistinct, p.Job)
	}

	// Retry is for an admin, on a job that failed or was abandoned.
	w.WaitPosted(t, original)
	if p := read(admin, original); p.CanRetry {
		t.Error("a done job may be retried")
	}
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE jobs SET status = 'abandoned' WHERE intake_id = $1`, original); err != nil {
		t.Fatal(err)
	}
	if p := read(admin, original); !p.CanRetry {
		t.Error("an admin may not retry an abandoned job")
	}
	if p := read(reviewer, original); p.CanRetry {
		t.Error("a reviewer may retry an abandoned job")
	}
}

// A reader of another org finds nothing.
func TestTheReadModelKeepsToTheReadersOrg(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	id := w.Doc(t, 0)
	stranger := desk.Reader{OrgID: w.Org.ID + 1000, Admin: true}
	if _, err := desk.ReadDocument(ctx, w.DB.Pool, stranger, id); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("ReadDocument from another org: %v, want not found", err)
	}
	if _, err := desk.ReadDecision(ctx, w.DB.Pool, stranger, id); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("ReadDecision from another org: %v, want not found", err)
	}
}
