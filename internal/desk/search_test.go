package desk_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/desk"
	"greatbook/internal/testkit"
)

// A search reads its rows by the supplier names it finds when few contain
// its text, and walks the tab when many do; either way its pages, paged to
// the end in the default order or a sorted one, hold exactly the rows whose
// supplier contains the text or whose number begins with it.
func TestASearchFindsWhatItsTextMatchesHoweverManyNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
		status, doc_type, queued_at, fields)
		SELECT $1, md5(i::text) || md5(i::text || 'x'), 'application/xml', 1, 'api', 'test',
		       CASE WHEN i % 3 = 0 THEN 'posted' ELSE 'pending' END, 'invoice', now(),
		       jsonb_build_object('seller', jsonb_build_object('name', 'Vendor ' || (i % 260) || ' Ltd'), 'number', 'N' || i,
		            'due_date', '2026-01-01'::date + i % 40, 'currency', 'EUR', 'totals', jsonb_build_object('payable', (i % 97)::text))
		FROM generate_series(1, 1200) i`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	// A name with a capital past ASCII, found as it is written (the
	// database lower-cases the text as it does the names).
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
		status, doc_type, queued_at, fields)
		SELECT $1, md5(i::text) || md5(i::text || 'ä'), 'application/xml', 1, 'api', 'test', 'pending', 'invoice', now(),
		       jsonb_build_object('seller', jsonb_build_object('name', 'ÄPFEL GmbH'), 'number', 'Ä' || i)
		FROM generate_series(1, 5) i`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	// Another org's documents of the same names are no match.
	other := testkit.Org(t, w.DB).ID
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
		status, doc_type, queued_at, fields)
		SELECT $1, md5(i::text) || md5(i::text || 'y'), 'application/xml', 1, 'api', 'test', 'pending', 'invoice', now(),
		       jsonb_build_object('seller', jsonb_build_object('name', 'Vendor ' || i || ' Ltd'), 'number', 'N' || i)
		FROM generate_series(1, 50) i`, other); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"vendor", "Vendor 12", "VENDOR 1", "n11", "12", "vendor 999", "7", "ÄPFEL", "Äpfel gmbh"} {
		for _, tab := range []desk.Tab{desk.TabAll, desk.TabNeedsReview, desk.TabPosted} {
			want := func(order string) []int64 {
				t.Helper()
				rows, err := w.DB.Pool.Query(ctx, `SELECT id FROM intake_documents d WHERE org_id = $1
					AND (lower(supplier_name) LIKE '%' || lower($2) || '%' OR upper(doc_number) LIKE upper($2) || '%' OR payable::text = $2)
					AND status = ANY($3) ORDER BY `+order, w.Org.ID, q, tabStatuses(tab))
				if err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for rows.Next() {
					var id int64
					if err := rows.Scan(&id); err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
				return ids
			}
			t.Run(fmt.Sprintf("%s %q", tab, q), func(t *testing.T) {
				var got []int64
				f := desk.QueueFilter{Tab: tab, Query: q, PageSize: 40}
				for {
					p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(p.Rows)...)
					if p.Older == 0 {
						break
					}
					f.Before = p.Older
				}
				if w := want("id DESC"); !slices.Equal(got, w) {
					t.Errorf("newest first: got %d rows, want %d", len(got), len(w))
				}
				if q[0] > 0x7f && tab != desk.TabPosted && len(got) != 5 {
					t.Errorf("found %d of the 5 documents of ÄPFEL GmbH", len(got))
				}
				got = nil
				f = desk.QueueFilter{Tab: tab, Query: q, PageSize: 40, Order: desk.QueueOrder{Key: desk.SortDue, Desc: true}}
				for {
					p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(p.Rows)...)
					if p.NextOffset < 0 {
						break
					}
					f.Offset = p.NextOffset
				}
				if w := want("fields->>'due_date' DESC, id DESC"); !slices.Equal(got, w) {
					t.Errorf("by due date: got %d rows, want %d", len(got), len(w))
				}
			})
		}
	}
}

func tabStatuses(tab desk.Tab) []string {
	switch tab {
	case desk.TabPosted:
		return []string{"posted"}
	case desk.TabNeedsReview:
		return []string{"pending", "flagged"}
	}
	return []string{"received", "pending", "flagged", "active", "posted", "rejected"}
}

// The range of a prefix holds exactly the strings that begin with it, in
// byte order: its upper bound is the prefix with its last character the
// next one, past the surrogates and the last character.
func TestAPrefixRangeHoldsWhatBeginsWithIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prefix, hi string
		ok         bool
	}{
		{"INV-", "INV.", true},
		{"Ä", "Å", true},
		{"a\uD7FF", "a\uE000", true},
		{"a\U0010FFFF", "b", true},
		{"\U0010FFFF", "", false},
	} {
		lo, hi, ok := desk.PrefixRange(c.prefix)
		if ok != c.ok || hi != c.hi || (ok && lo != c.prefix) {
			t.Errorf("PrefixRange(%q) = %q, %q, %v; want %q, %q, %v", c.prefix, lo, hi, ok, c.prefix, c.hi, c.ok)
		}
	}
}
