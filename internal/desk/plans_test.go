package desk_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/desk"
	"greatbook/internal/testkit"
)

// Every tab in every order, and the API's listing of every status, read
// intake_documents through the desk's indexes, each sorted order through
// its own: no page reads the table in full, and none needs an index the
// table no longer has. The table holds a few thousand rows of every
// status, so the plans are those of a table worth an index.
func TestEveryTabAndOrderReadsByIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
		status, flag_reason, queued_at, fields)
		SELECT $1, md5(i::text) || md5(i::text || 'x'), 'application/xml', 1, 'api', 'test', s,
		       CASE WHEN s = 'flagged' THEN 'duplicate' END, CASE WHEN s <> 'received' THEN now() END,
		       CASE WHEN s <> 'received' THEN jsonb_build_object('issue_date', '2026-01-01'::date + i % 300, 'due_date', '2026-02-01'::date + i % 300,
		            'currency', 'EUR', 'totals', jsonb_build_object('payable', (i % 997)::text)) END
		FROM generate_series(1, 6000) i, LATERAL (SELECT (ARRAY['received', 'pending', 'flagged', 'active', 'posted', 'rejected'])[1 + i % 6] AS s) x`,
		w.Org.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `ANALYZE intake_documents`); err != nil {
		t.Fatal(err)
	}
	plan := planWithoutSeqScans(t, w.DB.Pool)
	// The orders by id read (org_id, status, id) or, where the planner
	// would rather walk the ids and filter (one org, every status alike),
	// the primary key; the sorted orders read their own index, except the
	// Reversed tab, which starts from the reversals.
	byID := []string{"intake_desk_idx", "intake_documents_pkey"}
	indexOf := map[desk.QueueOrder][]string{
		desk.DefaultOrder:                  byID,
		{Key: desk.SortReceived}:           byID,
		{Key: desk.SortIssued}:             {"intake_desk_issued_idx"},
		{Key: desk.SortIssued, Desc: true}: {"intake_desk_issued_idx"},
		{Key: desk.SortDue}:                {"intake_desk_due_idx"},
		{Key: desk.SortDue, Desc: true}:    {"intake_desk_due_idx"},
		{Key: desk.SortAmount}:             {"intake_desk_base_amount_idx"},
		{Key: desk.SortAmount, Desc: true}: {"intake_desk_base_amount_desc_idx"},
	}
	for _, tab := range desk.Tabs {
		for order, indexes := range indexOf {
			t.Run(string(tab)+" "+order.String(), func(t *testing.T) {
				sql, args, err := desk.QueueQuery(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: tab, PageSize: 50, Order: order, Approver: "alice@example.test"})
				if err != nil {
					t.Fatal(err)
				}
				p := plan(sql, args...)
				if strings.Contains(p, "Seq Scan on intake_documents") {
					t.Errorf("reads the table in full:\n%s", p)
				}
				if tab != desk.TabReversed && !slices.ContainsFunc(indexes, func(index string) bool { return strings.Contains(p, index) }) {
					t.Errorf("want a read through %s:\n%s", strings.Join(indexes, " or "), p)
				}
			})
		}
	}
	for name, f := range map[string]desk.ListFilter{
		"every status":         {},
		"every status, before": {Before: 3000},
		"flagged":              {Status: "flagged"},
	} {
		t.Run("listing "+name, func(t *testing.T) {
			sql, args, err := desk.ListQuery(ctx, w.DB.Pool, w.Org.ID, f, 50)
			if err != nil {
				t.Fatal(err)
			}
			if p := plan(sql, args...); strings.Contains(p, "Seq Scan on intake_documents") || strings.Contains(p, "->  Sort") {
				t.Errorf("want a merge of ordered reads:\n%s", p)
			}
		})
	}
}

// A search by supplier reads the org's supplier names, then each matching
// name's newest documents through intake_supplier_name_idx, a page at most
// per name and term: on 100,000 documents of 3,000 suppliers, no page of a
// tab, nor the API's listing, reads intake_documents in full or by a scan
// that grows with the history of every supplier. A text most names contain
// ("AB") walks the tab's rows in order, which soon fill a page.
func TestSearchBySupplierReadsItsNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := db.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by,
		status, doc_type, queued_at, fields)
		SELECT $1, md5(i::text) || md5(i::text || 'x'), 'application/xml', 1, 'api', 'test',
		       CASE WHEN i % 20 = 0 THEN 'pending' ELSE 'posted' END, 'invoice', now(),
		       jsonb_build_object('seller', jsonb_build_object('name', 'Supplier ' || (i % 3000) || ' AB'), 'number', 'INV-' || i,
		            'currency', 'EUR', 'totals', jsonb_build_object('payable', (i % 997)::text))
		FROM generate_series(1, 100000) i`, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `VACUUM ANALYZE intake_documents, supplier_names`); err != nil {
		t.Fatal(err)
	}
	conn := db.Conn(t)
	big := []string{"intake_documents"}
	for _, f := range []desk.QueueFilter{
		{Tab: desk.TabAll, Query: "supplier 1234 ab"},
		{Tab: desk.TabAll, Query: "supplier 1234 ab", Before: 90000},
		{Tab: desk.TabAll, Query: "supplier 1234 ab", After: 9000},
		{Tab: desk.TabNeedsReview, Query: "Supplier 12"},
		{Tab: desk.TabPosted, Query: "supplier 1234 ab"},
		{Tab: desk.TabAll, Query: "12"},
		{Tab: desk.TabAll, Query: "supplier 1234 ab", Order: desk.QueueOrder{Key: desk.SortDue}},
	} {
		f.PageSize, f.Approver = 50, "alice@example.test"
		if f.Order == (desk.QueueOrder{}) {
			f.Order = desk.DefaultOrder
		}
		sql, args, err := desk.QueueQuery(ctx, db.Pool, o.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		testkit.GenericPlan(t, conn, sql, args...).RequireIndexes(t, "the search "+f.Values().Encode(), big, "intake_supplier_name_idx", "intake_number_idx")
	}
	sql, args, err := desk.ListQuery(ctx, db.Pool, o.ID, desk.ListFilter{Query: "supplier 1234 ab"}, 50)
	if err != nil {
		t.Fatal(err)
	}
	testkit.GenericPlan(t, conn, sql, args...).RequireIndexes(t, "the listing's search", big, "intake_supplier_name_idx", "intake_number_idx")
	names := testkit.GenericPlan(t, conn, desk.SupplierNamesSQL, o.ID, "%supplier 1234 ab%", 201)
	names.RequireIndexes(t, "the supplier names", big)

	sql, args, err = desk.QueueQuery(ctx, db.Pool, o.ID, desk.QueueFilter{Tab: desk.TabAll, Query: "AB", PageSize: 50, Order: desk.DefaultOrder})
	if err != nil {
		t.Fatal(err)
	}
	testkit.GenericPlan(t, conn, sql, args...).RequireIndexes(t, "the search AB", big, "intake_desk_idx")
}

// planWithoutSeqScans returns a function that EXPLAINs a statement on one
// connection of pool with sequential scans off, so that a plan shows the
// indexes the planner can use even where, on a small table, it would rather
// read the table whole.
func planWithoutSeqScans(t *testing.T, pool *pgxpool.Pool) func(sql string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	return func(sql string, args ...any) string {
		t.Helper()
		rows, err := conn.Query(ctx, `EXPLAIN `+sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
}
