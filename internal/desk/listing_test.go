package desk_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"greatbook/internal/apchecks"
	"greatbook/internal/app"
	"greatbook/internal/desk"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
)

// TestListReadsAPageInAFixedNumberOfStatements proves the listing has no
// N+1: a page of 3 and a page of 12 send the same statements (the page, all
// its groups, all its jobs, the org, all the bank check's previous
// accounts), and what it read of each document is what the single reads
// (review.Group, jobs.ForDocument, desk.Findings) read.
func TestListReadsAPageInAFixedNumberOfStatements(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := w.DB.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Posted invoices of the supplier paid to one account; newer ones ask
	// for another (the bank check's warning) or the same (none).
	for _, iban := range []string{"SE4550000000058398257466", "SE4550000000058398257466", "DE89370400440532013000"} {
		id := w.Doc(t, 0)
		exec(`UPDATE intake_documents SET status = 'posted', fields = jsonb_set(fields, '{payee_iban}', to_jsonb($2::text)) WHERE id = $1`, id, iban)
	}
	var ids []int64
	for i := range 14 {
		id := w.Doc(t, 0)
		ids = append(ids, id)
		switch i % 4 {
		case 0:
			exec(`UPDATE intake_documents SET fields = jsonb_set(fields, '{payee_iban}', '"NL91ABNA0417164300"') WHERE id = $1`, id)
		case 1:
			exec(`UPDATE intake_documents SET fields = jsonb_set(fields, '{payee_iban}', '"SE4550000000058398257466"') WHERE id = $1`, id)
		case 2:
			w.Link(t, id, ids[i-1])
			exec(`INSERT INTO jobs (org_id, intake_id, created_by) VALUES ($1, $2, 'test')`, w.Org.ID, id)
		}
	}
	pool, log := w.DB.TracedPool(t)
	var counts []int
	for _, limit := range []int{3, 12} {
		log.Take()
		page, err := desk.List(ctx, pool, w.Org.ID, desk.ListFilter{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, len(log.Take()))
		if len(page.Documents) != limit || page.Next != page.Documents[limit-1].ID {
			t.Fatalf("limit %d: %d documents, next %d", limit, len(page.Documents), page.Next)
		}
		bankChanges := 0
		for _, d := range page.Documents {
			group, err := review.Group(ctx, w.DB.Pool, w.Org.ID, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(page.Groups[d.ID], group) {
				t.Fatalf("group of %d: listed %+v, single %+v", d.ID, page.Groups[d.ID], group)
			}
			job, ok, err := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, d.ID)
			if listed, has := page.Jobs[d.ID]; err != nil || ok != has || has && !reflect.DeepEqual(listed, job) {
				t.Fatalf("job of %d: listed %+v (%v), single %+v (%v) %v", d.ID, listed, has, job, ok, err)
			}
			findings, err := desk.Findings(ctx, w.DB.Pool, d)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(page.Findings[d.ID])
			b, _ := json.Marshal(findings)
			if string(a) != string(b) {
				t.Fatalf("findings of %d: listed %s, single %s", d.ID, a, b)
			}
			if strings.Contains(string(b), apchecks.CodeSupplierIBANDiff) {
				bankChanges++
			}
		}
		if bankChanges == 0 {
			t.Fatalf("limit %d: no bank change on the page; the comparison proves nothing", limit)
		}
	}
	if counts[0] != counts[1] || counts[0] > 5 {
		t.Fatalf("statements for a page of 3 and of 12: %v; want the same, at most 5", counts)
	}
}
