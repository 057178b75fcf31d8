package jobs_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// The dead-letter page and the stranded-work check read through indexes
// bounded by a status, however long the history: on an org with 60,000
// documents (their jobs mostly done, 2% abandoned) and as many runs, the
// dead letters come from the jobs' dead-letter indexes (a supplier's page
// from the index of the dead letters by name, in the page's order, for the
// few names its text finds, or walking the dead letters in order when many
// names contain it; a supplier's count from the trigram index of the dead
// letters' names; never each one's document, and a page's documents only
// once its dead letters are chosen), and no check reads a table in full.
func TestTheDeadLettersAndTheStrandedChecksPlanOnIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	for _, sql := range []string{
		`INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by,
			pipeline_run_id, status, doc_type, source_ref, format, fields, queued_at, received_at, decided_by, decided_at)
		SELECT $1, encode(sha256(('p' || i)::bytea), 'hex'), 'application/xml', 'invoice-' || i || '.xml', 6000, 'api', 'test', gen_random_uuid(),
		       CASE WHEN i % 50 = 4 THEN 'active' ELSE 'posted' END, 'invoice', 'vat:SE' || (i % 3000) || '/INV-' || i, 'ubl',
		       jsonb_build_object('seller', jsonb_build_object('name', 'Supplier ' || (i % 3000) || ' AB'), 'number', 'INV-' || i),
		       now(), now(), 'reviewer', now()
		FROM generate_series(1, 60000) i`,
		`INSERT INTO runs (id, org_id, kind, subject_id, state, data, created_at, updated_at, finished_at)
		SELECT pipeline_run_id, org_id, 'pipeline', id, 'done', '{}', now(), now(), now() FROM intake_documents WHERE org_id = $1`,
		`INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error, error_class, created_by)
		SELECT org_id, id, CASE status WHEN 'posted' THEN 'done' ELSE 'abandoned' END, 3, 3,
		       CASE WHEN status = 'active' THEN 'posting service unavailable' END,
		       CASE WHEN status = 'active' THEN CASE WHEN id % 4 = 0 THEN 'transient' ELSE 'permanent' END END, 'reviewer'
		FROM intake_documents WHERE org_id = $1`,
	} {
		if _, err := db.Pool.Exec(ctx, sql, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `VACUUM ANALYZE intake_documents, jobs, runs`); err != nil {
		t.Fatal(err)
	}
	conn := db.Conn(t)
	big := []string{"jobs", "intake_documents", "runs"}
	scope := org.Only(o.ID)
	// A later page starts from its cursor in the index's order.
	var later jobs.DeadLetterCursor
	if err := db.Pool.QueryRow(ctx, `SELECT updated_at, id FROM jobs WHERE org_id = $1 AND status = 'abandoned'
		ORDER BY updated_at DESC, id DESC OFFSET 500 LIMIT 1`, o.ID).Scan(&later.UpdatedAt, &later.ID); err != nil {
		t.Fatal(err)
	}
	for _, f := range []jobs.DeadLetterFilter{{}, {ErrorClass: "transient"}, {Supplier: "supplier 12", ErrorClass: "transient"}, {Supplier: "supplier 1234 ab"},
		{Supplier: "supplier 12", Status: "abandoned"}, {Supplier: "supplier", ErrorClass: "transient"}} {
		names, err := jobs.FindSupplierNames(ctx, conn, scope, f)
		if err != nil {
			t.Fatal(err)
		}
		// "supplier" is in every one of the 3,000 names.
		byName := f.Supplier != "" && f.Supplier != "supplier"
		count, countArgs, err := jobs.CountMatchingQuery(scope, f, names, 1001)
		if err != nil {
			t.Fatal(err)
		}
		plans := map[string]testkit.Plan{
			"the count of dead letters " + f.Supplier + " " + f.ErrorClass: testkit.GenericPlan(t, conn, count, countArgs...),
		}
		for page, after := range map[string]jobs.DeadLetterCursor{"first": {}, "later": later} {
			list, args, err := jobs.DeadLettersQuery(scope, f, names, after, jobs.DeadLetterPage+1)
			if err != nil {
				t.Fatal(err)
			}
			what := "the " + page + " page of dead letters " + f.Supplier + " " + f.ErrorClass
			p := testkit.GenericPlan(t, conn, list, args...)
			plans[what] = p
			// A page's documents are read for the page, after its dead
			// letters are chosen (the plan's root is no Limit over them).
			if strings.Contains(p.Text, "\nLimit ") {
				t.Errorf("%s: the plan reads the documents of dead letters the page does not show:\n%s", what, p.Text)
			}
			if !byName && page == "later" && !strings.Contains(p.Text, "Index Cond: ((org_id = $1) AND (ROW(updated_at, id) < ROW(") {
				t.Errorf("%s: the plan does not start the page at its cursor in the index:\n%s", what, p.Text)
			}
			switch {
			case byName && (!p.UsesIndex("jobs_dead_letter_supplier_key_idx") || !strings.Contains(p.Text, "Index Only Scan using jobs_dead_letter_supplier_key_idx")):
				t.Errorf("%s: the plan does not read each name's dead letters in the page's order:\n%s", what, p.Text)
			case !byName && !p.UsesIndex("jobs_dead_letters_idx") && !p.UsesIndex("jobs_status_idx"):
				t.Errorf("%s: the plan does not walk the dead letters in the page's order:\n%s", what, p.Text)
			}
		}
		for what, p := range plans {
			p.RequireIndexes(t, what, big)
		}
		counting := plans["the count of dead letters "+f.Supplier+" "+f.ErrorClass]
		switch {
		case byName && !counting.UsesIndex("jobs_dead_letter_supplier_key_idx"):
			t.Errorf("the count of dead letters %+v does not read them by their names:\n%s", f, counting.Text)
		case !byName && !counting.UsesIndex("jobs_dead_letters_idx") && !counting.UsesIndex("jobs_status_idx"):
			t.Errorf("the count of dead letters %+v does not walk them in order:\n%s", f, counting.Text)
		}
	}
	for _, sql := range jobs.StrandedChecks {
		args := []any{o.ID}
		if strings.Contains(sql, "$2") {
			args = append(args, 300)
		}
		testkit.GenericPlan(t, conn, sql+" LIMIT 200", args...).RequireIndexes(t, "a stranded-work check", big)
	}
}
