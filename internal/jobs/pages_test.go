package jobs_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// The dead-letter page is read a page at a time from a cursor: following
// the pages' cursors lists every dead letter the filter matches once, newest
// first (letters that failed at the same moment by id), and a dead letter
// retried meanwhile leaves the pages after it as they were. A supplier's
// pages, read by the names the text finds (one, two, or more than are read
// by name), list the same as the unpaged list.
func TestTheDeadLetterPagesListEveryDeadLetterOnceByTheirCursors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	const n = 2*jobs.DeadLetterPage + 3
	seedDeadLetters(t, db, o.ID, n)
	scope := org.Only(o.ID)
	want := func(f jobs.DeadLetterFilter) []int64 {
		t.Helper()
		all, err := jobs.DeadLettersAll(ctx, db.Pool, scope, f)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	tie := time.Date(2026, 12, 1, 8, 0, 50, 123456000, time.UTC)
	endsInTie := false
	// All pages of a filter, each letter's id in the order shown.
	pages := func(f jobs.DeadLetterFilter, counted bool) (ids []int64, sizes []int) {
		t.Helper()
		var after jobs.DeadLetterCursor
		for {
			page, err := jobs.DeadLettersIn(ctx, db.Pool, scope, f, after)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(page.Letters))
			// A supplier's page read by the names found says how many
			// match, on every page; the others do not count.
			if !counted && page.Matches != -1 {
				t.Errorf("filter %+v: a page counted %d matches", f, page.Matches)
			}
			if counted && page.Matches != len(want(f)) {
				t.Errorf("filter %+v: a page counted %d matches, want %d", f, page.Matches, len(want(f)))
			}
			for _, d := range page.Letters {
				ids = append(ids, d.ID)
			}
			if page.Next.IsZero() {
				return ids, sizes
			}
			if page.Next.UpdatedAt.Equal(tie) {
				endsInTie = true
			}
			// The cursor goes through a link and back.
			if after, err = jobs.ParseDeadLetterCursor(page.Next.String()); err != nil || after.ID != page.Next.ID || !after.UpdatedAt.Equal(page.Next.UpdatedAt) {
				t.Fatalf("the cursor %+v read back from %q as %+v (%v)", page.Next, page.Next.String(), after, err)
			}
		}
	}
	check := func(f jobs.DeadLetterFilter, counted bool, wantAll int) {
		t.Helper()
		ids, sizes := pages(f, counted)
		all := want(f)
		if len(all) != wantAll {
			t.Fatalf("filter %+v: %d dead letters match, want %d", f, len(all), wantAll)
		}
		if len(ids) != len(all) {
			t.Fatalf("filter %+v: the pages (%v) list %d dead letters, want %d", f, sizes, len(ids), len(all))
		}
		for i := range all {
			if ids[i] != all[i] {
				t.Fatalf("filter %+v: the pages list %v, want %v", f, ids, all)
			}
		}
		if sizes[0] != jobs.DeadLetterPage {
			t.Errorf("filter %+v: the first page lists %d, want %d", f, sizes[0], jobs.DeadLetterPage)
		}
	}
	check(jobs.DeadLetterFilter{}, false, n)
	check(jobs.DeadLetterFilter{Supplier: "acme"}, true, n-n/5)
	// "o" is in both names: their pages are merged in one order.
	check(jobs.DeadLetterFilter{Supplier: "O"}, true, n)
	// More names than a page is read by contain "acme": the pages walk
	// the dead letters in their order, testing each one's name.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO supplier_names (org_id, name) SELECT $1, 'acme ' || i FROM generate_series(1, 200) i`, o.ID); err != nil {
		t.Fatal(err)
	}
	check(jobs.DeadLetterFilter{Supplier: "acme"}, false, n-n/5)
	if !endsInTie {
		t.Error("no page ended among the dead letters that failed at the same moment: the test proves nothing of ties")
	}
	if got, err := jobs.CountMatchingUpTo(ctx, db.Pool, scope, jobs.DeadLetterFilter{Supplier: "other"}, 1000); err != nil || got != n/5 {
		t.Errorf("counted %d dead letters of Other AB (%v), want %d", got, err, n/5)
	}
	if got, err := jobs.CountMatchingUpTo(ctx, db.Pool, scope, jobs.DeadLetterFilter{}, 10); err != nil || got != 10 {
		t.Errorf("counted %d dead letters up to 10 (%v)", got, err)
	}

	// One of the first page is retried (no longer a dead letter): the
	// second page, read from the first's cursor, is as it was.
	first, err := jobs.DeadLettersIn(ctx, db.Pool, scope, jobs.DeadLetterFilter{}, jobs.DeadLetterCursor{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := jobs.DeadLettersIn(ctx, db.Pool, scope, jobs.DeadLetterFilter{}, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE jobs SET status = 'pending' WHERE id = $1`, first.Letters[3].ID); err != nil {
		t.Fatal(err)
	}
	again, err := jobs.DeadLettersIn(ctx, db.Pool, scope, jobs.DeadLetterFilter{}, first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Letters) != len(second.Letters) || again.Letters[0].ID != second.Letters[0].ID || again.Next != second.Next {
		t.Errorf("the second page changed when a letter of the first was retried")
	}
}

// A supplier's page read by name counts the filter's matches up to one
// past jobs.DeadLetterCountMax, however many there are.
func TestASuppliersPageCountsItsMatchesUpToABound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	seedDeadLetters(t, db, o.ID, jobs.DeadLetterCountMax*5/4+10)
	page, err := jobs.DeadLettersIn(ctx, db.Pool, org.Only(o.ID), jobs.DeadLetterFilter{Supplier: "acme"}, jobs.DeadLetterCursor{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Matches != jobs.DeadLetterCountMax+1 || len(page.Letters) != jobs.DeadLetterPage {
		t.Errorf("the page lists %d and counts %d matches, want %d and %d", len(page.Letters), page.Matches, jobs.DeadLetterPage, jobs.DeadLetterCountMax+1)
	}
}

// A supplier whose name has a capital past ASCII is found by its name as
// written, on its page and by a bulk retry's filter: the database
// lower-cases the text as it lower-cases the names (its lower() and Go's
// differ past ASCII).
func TestASuppliersNamePastASCIIIsFoundAsWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	seedNamedDeadLetters(t, db, o.ID, "ÄPFEL GmbH", 3, "2026-11-27T00:00:00Z")
	for _, text := range []string{"ÄPFEL", "Äpfel", " ÄPFEL gmbh "} {
		f := jobs.DeadLetterFilter{Supplier: text}
		page, err := jobs.DeadLettersIn(ctx, db.Pool, org.Only(o.ID), f, jobs.DeadLetterCursor{})
		if err != nil {
			t.Fatal(err)
		}
		all, err := jobs.DeadLettersAll(ctx, db.Pool, org.Only(o.ID), f)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Letters) != 3 || len(all) != 3 {
			t.Errorf("%q: the page lists %d, the bulk retry's filter matches %d, want 3", text, len(page.Letters), len(all))
		}
	}
}

// A supplier's pages, read by the names the text finds, list and count what
// the bulk retry's filter (the trigram index's LIKE) matches, for every
// combination of the filter's fields, in one org or every org (an
// operator's): names of two orgs, differing in case, with LIKE's wildcards
// and spaces in them, and a capital past ASCII.
func TestASuppliersPagesListWhatTheBulkRetrysFilterMatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	a, b := testkit.Org(t, db), testkit.Org(t, db)
	seedNamedDeadLetters(t, db, a.ID, "Acme Oy", 70, "2026-11-28T00:00:00Z")
	seedNamedDeadLetters(t, db, a.ID, "ACME Holding", 40, "2026-11-29T00:00:00Z")
	seedNamedDeadLetters(t, db, b.ID, "acme oy", 60, "2026-11-27T00:00:00Z")
	seedNamedDeadLetters(t, db, b.ID, "Other AB", 10, "2026-11-27T00:00:00Z")
	seedNamedDeadLetters(t, db, a.ID, "ÄPFEL GmbH", 3, "2026-11-27T00:00:00Z")
	seedNamedDeadLetters(t, db, a.ID, `50%_off\x`, 3, "2026-11-27T00:00:00Z")
	seedNamedDeadLetters(t, db, a.ID, "  Spaced  Name ", 3, "2026-11-27T00:00:00Z")
	for _, scope := range []org.Scope{org.Only(a.ID), org.Only(b.ID), org.AllOrgs()} {
		for _, sup := range []string{"acme", " ACME ", "acme oy", "äpfel", "ÄPFEL", "pfel", "%_o", `\x`, "%", "_", "spaced  name", "zzz"} {
			for _, st := range []string{"", "abandoned", "failed"} {
				for _, cl := range []string{"", "transient"} {
					for _, rng := range [][2]string{{"", ""}, {"2026-11-28", ""}, {"2026-11-29", "2026-12-01"}, {"", "2026-11-30"}} {
						f := jobs.DeadLetterFilter{Supplier: sup, Status: st, ErrorClass: cl, From: rng[0], To: rng[1]}
						want, err := jobs.DeadLettersAll(ctx, db.Pool, scope, f)
						if err != nil {
							t.Fatal(err)
						}
						got, matches := pagedDeadLetters(t, db, scope, f)
						if !slices.Equal(got, want) {
							t.Errorf("scope %v filter %+v: pages list %d, LIKE lists %d", scope, f, len(got), len(want))
						}
						for i, m := range matches {
							if m >= 0 && m != len(want) {
								t.Errorf("scope %v filter %+v: page %d counted %d, want %d", scope, f, i, m, len(want))
							}
						}
						n, err := jobs.CountMatchingUpTo(ctx, db.Pool, scope, f, 1001)
						if err != nil {
							t.Fatal(err)
						}
						if n != len(want) {
							t.Errorf("scope %v filter %+v: CountMatchingUpTo %d, want %d", scope, f, n, len(want))
						}
					}
				}
			}
		}
	}
}

// seedNamedDeadLetters adds n dead letters of one supplier's name to an
// org, alternating status and class, a third of them failed at one moment
// (ties across names and orgs), the rest spread over days from base.
func seedNamedDeadLetters(t *testing.T, db *testkit.DB, orgID int64, name string, n int, base string) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by,
			pipeline_run_id, status, doc_type, source_ref, format, fields, queued_at, received_at, decided_by, decided_at)
		SELECT $1::bigint, md5($3::text || $1::text || 'p' || i) || md5($3::text || 'q' || i), 'application/xml', 'invoice-' || i || '.xml', 6000, 'api', 'test', gen_random_uuid(),
		       'active', 'invoice', 'vat:SE1/' || md5($3) || '-' || i, 'ubl',
		       jsonb_build_object('seller', jsonb_build_object('name', $3::text), 'number', 'INV-' || i),
		       now(), now(), 'reviewer', now()
		FROM generate_series(1, $2::int) i`, orgID, n, name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error, error_class, created_by)
		SELECT org_id, id, CASE WHEN id % 2 = 0 THEN 'abandoned' ELSE 'failed' END, 3, 3, 'x',
		       CASE WHEN id % 3 = 0 THEN 'permanent' ELSE 'transient' END, 'reviewer'
		FROM intake_documents d WHERE org_id = $1 AND fields #>> '{seller,name}' = $2
		  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = d.id)`, orgID, name); err != nil {
		t.Fatal(err)
	}
	// Every third at one moment (ties across names and orgs), the rest spread over days.
	if _, err := db.Pool.Exec(ctx, `UPDATE jobs j SET updated_at = CASE WHEN j.intake_id % 3 = 0 THEN '2026-12-01T08:00:50.123456Z'::timestamptz
		ELSE $3::timestamptz + (j.intake_id % 97) * interval '37 minutes' END
		FROM intake_documents d WHERE d.id = j.intake_id AND j.org_id = $1 AND d.fields #>> '{seller,name}' = $2`, orgID, name, base); err != nil {
		t.Fatal(err)
	}
}

// pagedDeadLetters follows a filter's pages to the end: the ids listed and
// each page's count of matches.
func pagedDeadLetters(t *testing.T, db *testkit.DB, scope org.Scope, f jobs.DeadLetterFilter) (ids []int64, matches []int) {
	t.Helper()
	var after jobs.DeadLetterCursor
	for {
		page, err := jobs.DeadLettersIn(context.Background(), db.Pool, scope, f, after)
		if err != nil {
			t.Fatalf("filter %+v: %v", f, err)
		}
		matches = append(matches, page.Matches)
		for _, d := range page.Letters {
			ids = append(ids, d.ID)
		}
		if page.Next.IsZero() {
			return ids, matches
		}
		after = page.Next
	}
}

// seedDeadLetters gives an org n dead letters (and their documents), four
// in five of Acme Oy, the rest of Other AB; a third of them failed at one
// moment, among the rest (a second apart).
func seedDeadLetters(t *testing.T, db *testkit.DB, orgID int64, n int) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by,
			pipeline_run_id, status, doc_type, source_ref, format, fields, queued_at, received_at, decided_by, decided_at)
		SELECT $1, encode(sha256(('p' || i)::bytea), 'hex'), 'application/xml', 'invoice-' || i || '.xml', 6000, 'api', 'test', gen_random_uuid(),
		       'active', 'invoice', 'vat:SE1/INV-' || i, 'ubl',
		       jsonb_build_object('seller', jsonb_build_object('name', CASE WHEN i % 5 = 0 THEN 'Other AB' ELSE 'Acme Oy' END), 'number', 'INV-' || i),
		       now(), now(), 'reviewer', now()
		FROM generate_series(1, $2::int) i`,
		// A third of them failed at one moment, among the rest (a second
		// apart), so that a page ends within them.
		`INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error, error_class, created_by)
		SELECT org_id, id, 'abandoned', 3, 3, 'posting service unavailable', 'transient', 'reviewer'
		FROM intake_documents WHERE org_id = $1 AND $2::int > 0`,
		`UPDATE jobs SET updated_at = CASE WHEN intake_id % 3 = 0 THEN '2026-12-01T08:00:50.123456Z'::timestamptz
			ELSE '2026-12-01T08:00:00Z'::timestamptz + intake_id * interval '1 second' END WHERE org_id = $1 AND $2::int > 0`,
	} {
		if _, err := db.Pool.Exec(ctx, sql, orgID, n); err != nil {
			t.Fatal(err)
		}
	}
}

// A filter that cannot be read is refused before its supplier's names are
// looked up, by the page and by its count, even where no name contains the
// text (the page would otherwise be empty, the lookup a database error).
func TestADeadLetterFilterThatCannotBeReadIsInvalidOnThePageAndItsCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	for _, f := range []jobs.DeadLetterFilter{
		{Supplier: "nobody", Status: "done"},
		{Supplier: "nobody", ErrorClass: "fatal"},
		{Supplier: "nobody", From: "2026-13-01"},
		{Supplier: "no\x00body"},
		{Supplier: "no\xffbody"},
	} {
		if _, err := jobs.DeadLettersIn(ctx, db.Pool, org.Only(o.ID), f, jobs.DeadLetterCursor{}); !apperr.Is(err, apperr.Invalid) {
			t.Errorf("page of %+v: %v, want invalid", f, err)
		}
		if _, err := jobs.CountMatchingUpTo(ctx, db.Pool, org.Only(o.ID), f, jobs.DeadLetterCountMax); !apperr.Is(err, apperr.Invalid) {
			t.Errorf("count of %+v: %v, want invalid", f, err)
		}
	}
}

// A cursor that is not one a page wrote is invalid, not a database error.
func TestADeadLetterCursorNotFromAPageIsInvalid(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"x", "12", "12-", "-3", "12-0", "12-x", "-1-3", "99999999999999999999-1", "+5-3", "5-+3", "253402300800000000-1", "1-2-3"} {
		if _, err := jobs.ParseDeadLetterCursor(s); !apperr.Is(err, apperr.Invalid) {
			t.Errorf("cursor %q: %v, want invalid", s, err)
		}
	}
	c := jobs.DeadLetterCursor{UpdatedAt: time.Date(2026, 12, 1, 9, 0, 0, 123456000, time.UTC), ID: 42}
	if back, err := jobs.ParseDeadLetterCursor(c.String()); err != nil || back != c {
		t.Errorf("cursor %+v read back from %q as %+v (%v)", c, c.String(), back, err)
	}
}
