package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// spentLimit is an extraction time limit that has passed before the extraction starts: the parsers
// stop at their first look at the clock, deterministically, whatever the machine's speed.
const spentLimit = -time.Nanosecond

// timeCapFinding returns the input_cap finding on "time" among a document's findings.
func timeCapFinding(t *testing.T, findings json.RawMessage) (einvoice.Finding, bool) {
	t.Helper()
	var fs []einvoice.Finding
	if err := json.Unmarshal(findings, &fs); err != nil {
		t.Fatalf("findings %s: %v", findings, err)
	}
	for _, f := range fs {
		if f.Code == einvoice.CodeInputCap && f.Field == "time" {
			return f, true
		}
	}
	return einvoice.Finding{}, false
}

// A document whose extraction runs out of time is filed flagged extraction_failed with an input_cap
// finding on "time" naming the limit, like any other cap.
func TestExtractionOverItsTimeIsFiledFlagged(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"ubl-invoice-multirate.xml", "json-invoice-with-totals.json", "facturx-invoice.pdf"} {
		t.Run(file, func(t *testing.T) {
			mem := intake.NewMemoryStore()
			ctx := context.Background()
			d, _, err := mem.Ingest(ctx, intake.Arrival{OrgID: 1, Content: read(t, file), MediaType: "application/octet-stream", Via: "api", Actor: "t"})
			if err != nil {
				t.Fatal(err)
			}
			in := pipeline.Inputs{Original: func(context.Context) ([]byte, error) { return mem.Original(d.ID), nil },
				Deterministic: pipeline.Deterministic{TimeLimit: spentLimit}}
			got, trace, err := pipeline.RunOffline(ctx, mem, in, d.ID, "application/octet-stream")
			if err != nil {
				t.Fatalf("pipeline: %v (trace %v)", err, trace)
			}
			f, ok := timeCapFinding(t, got.Findings)
			if got.Status != intake.Flagged || got.FlagReason != intake.FlagExtractionFailed || !ok {
				t.Fatalf("filed %s %s with findings %s, want flagged extraction_failed with input_cap on time", got.Status, got.FlagReason, got.Findings)
			}
			if !strings.Contains(f.Message, "time limit of "+spentLimit.String()) {
				t.Fatalf("the finding does not name the limit: %q", f.Message)
			}
		})
	}
}

// The time cap is the document's, not a fault: the durable run ends done on its first attempt, with no
// retry, and files the document flagged.
func TestATimeCapIsNotRetried(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(db.Pool, e, pipeline.Options{MaxBytes: 1 << 20, ExtractTimeLimit: spentLimit, Logger: testkit.Logger(t)})
	d := &durable{db: db, engine: e, p: p, org: testkit.Org(t, db).ID}
	res := d.ingest(t, read(t, "facturx-invoice.pdf"), "application/pdf")
	doc := d.process(t, res)
	if _, ok := timeCapFinding(t, doc.Findings); doc.Status != intake.Flagged || doc.FlagReason != intake.FlagExtractionFailed || !ok {
		t.Fatalf("filed %s %s with findings %s", doc.Status, doc.FlagReason, doc.Findings)
	}
	info, err := runs.Get(context.Background(), db.Pool, d.org, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != runs.Done || info.LastError != "" {
		t.Fatalf("run %s, last error %q; want done without an error", info.Status, info.LastError)
	}
	cps, err := runs.Checkpoints(context.Background(), db.Pool, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	extracts := 0
	for _, c := range cps {
		if c.Outcome == "retry" {
			t.Fatalf("the run retried: %+v", c)
		}
		if c.Node == "extract" {
			extracts++
		}
	}
	if extracts != 1 {
		t.Fatalf("extract ran %d times, want once", extracts)
	}
}
