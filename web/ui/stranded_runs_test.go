package ui_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A pipeline run that failed without filing its document (as a run whose
// failure could not be recorded is left) is stranded work: the runs page
// counts it, with its last error, and offers retry and abandon, which work.
func TestAStrandedPipelineRunIsVisibleAndAnOperatorCanRetryOrAbandonIt(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	api, admin := a.API(t, auth.RoleAdmin)
	c := a.Client(t)
	csrf := a.SignIn(t, c, admin)
	ubl, err := os.ReadFile("../../internal/einvoice/testdata/ubl-invoice-multirate.xml")
	if err != nil {
		t.Fatal(err)
	}
	status, body := api.Do("POST", "/api/v1/documents", "application/xml", ubl)
	if status != 202 {
		t.Fatalf("upload: %d %v", status, body)
	}
	id, runID := body["intake_id"].(float64), body["run_id"].(string)
	api.WaitStatus(id, "pending")

	strand := func() {
		t.Helper()
		// The state the bug left: the run failed at extract, its document
		// still received.
		for _, q := range []string{
			`UPDATE intake_documents SET status = 'received', queued_at = NULL WHERE id = $1 AND $2::text IS NOT NULL`,
			`UPDATE runs SET state = 'failed', next_node = NULL, finished_at = now(),
			        last_error = 'runs: checkpoint: ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)' WHERE id = $2::uuid AND $1::bigint IS NOT NULL`,
			`INSERT INTO run_checkpoints (run_id, seq, node, outcome, data, note, worker)
			 SELECT $2::uuid, max(seq) + 1, 'extract', 'failed', (SELECT data FROM run_checkpoints WHERE run_id = $2::uuid AND node = 'classify'),
			        'permanent error', 'test' FROM run_checkpoints WHERE run_id = $2::uuid AND $1::bigint IS NOT NULL`,
		} {
			if _, err := a.DB.Pool.Exec(context.Background(), q, int64(id), runID); err != nil {
				t.Fatal(err)
			}
		}
	}
	page := func() (items, errs string, retry, abandon bool) {
		t.Helper()
		resp, err := c.Get(a.URL + "/admin/runs")
		if err != nil {
			t.Fatal(err)
		}
		d := webtest.Doc(t, resp)
		_, retry = d.Find(`[data-testid=stranded-item] form[action="/admin/runs/` + runID + `/retry"]`).Attr("action")
		_, abandon = d.Find(`[data-testid=stranded-item] form[action="/admin/runs/` + runID + `/abandon"]`).Attr("action")
		return d.Find(`[data-testid=stranded-item]`).Text(), d.Find(`[data-testid=stranded-error]`).Text(), retry, abandon
	}
	post := func(action string) {
		t.Helper()
		resp, err := c.PostForm(a.URL+"/admin/runs/"+runID+"/"+action, url.Values{"_csrf": {csrf}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 303 {
			t.Fatalf("%s: %d", action, resp.StatusCode)
		}
	}

	strand()
	items, errs, retry, abandon := page()
	if !strings.Contains(items, "document "+webtest.Itoa(int64(id))) || !strings.Contains(errs, "22P05") || !retry || !abandon {
		t.Fatalf("runs page: items %q, errors %q, retry %v, abandon %v", items, errs, retry, abandon)
	}
	post("retry")
	api.WaitStatus(id, "pending")
	if items, _, _, _ := page(); items != "" {
		t.Fatalf("still stranded after the retry: %q", items)
	}

	strand()
	post("abandon")
	got := api.WaitStatus(id, "flagged")
	if got["flag_reason"] != "extraction_failed" || !strings.Contains(webtest.ToJSON(got["findings"]), "pipeline_abandoned") {
		t.Fatalf("abandoned: %v", got)
	}
	if items, _, _, _ := page(); items != "" {
		t.Fatalf("still stranded after abandon: %q", items)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM runs WHERE id = $1::uuid AND state = 'failed'`, runID); n != 1 {
		t.Fatal("the abandoned run is not failed")
	}
}
