package desk_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/desk"
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
	conn, err := w.DB.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	plan := func(sql string, args ...any) string {
		t.Helper()
		rows, err := conn.Query(ctx, `EXPLAIN `+sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, line)
		}
		return strings.Join(lines, "\n")
	}
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
				sql, args, _ := desk.QueueQuery(w.Org.ID, desk.QueueFilter{Tab: tab, PageSize: 50, Order: order, Approver: "alice@example.test"})
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
			sql, args := desk.ListQuery(w.Org.ID, f, 50)
			if p := plan(sql, args...); strings.Contains(p, "Seq Scan on intake_documents") || strings.Contains(p, "->  Sort") {
				t.Errorf("want a merge of ordered reads:\n%s", p)
			}
		})
	}
}
