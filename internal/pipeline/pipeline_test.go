package pipeline_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type durable struct {
	db     *testkit.DB
	engine *runs.Engine
	p      *pipeline.Pipeline
	org    int64
}

func newDurable(t *testing.T) *durable {
	db := testkit.NewDB(t)
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(db.Pool, e, pipeline.Options{MaxBytes: 1 << 20, Logger: testkit.Logger(t)})
	return &durable{db: db, engine: e, p: p, org: testkit.Org(t, db).ID}
}

func (d *durable) ingest(t *testing.T, content []byte, mediaType string) pipeline.Ingested {
	t.Helper()
	res, err := d.p.Ingest(context.Background(), intake.Arrival{OrgID: d.org, Content: content, MediaType: mediaType, Via: "api", Actor: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (d *durable) process(t *testing.T, res pipeline.Ingested) intake.Document {
	t.Helper()
	if err := d.p.Process(context.Background(), res.RunID); err != nil {
		t.Fatal(err)
	}
	doc, err := intake.NewPGStore(d.db.Pool).Get(context.Background(), d.org, res.Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestDurablePipeline(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	ubl := read(t, "ubl-invoice-multirate.xml")
	first := d.ingest(t, ubl, "application/xml")
	if !first.Created || first.Document.Status != intake.Received || first.RunID == "" {
		t.Fatalf("ingest: %+v", first)
	}
	doc := d.process(t, first)
	if doc.Status != intake.Pending || doc.SourceRef == "" || doc.PipelineRunID != first.RunID {
		t.Fatalf("filed: %+v", doc)
	}
	cps, err := runs.Checkpoints(context.Background(), d.db.Pool, first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []string{}
	for _, c := range cps {
		nodes = append(nodes, c.Node)
	}
	if len(nodes) != 4 || nodes[0] != "classify" || nodes[1] != "extract" || nodes[2] != "validate" || nodes[3] != "queue" {
		t.Fatalf("checkpoints %v", nodes)
	}
	// The run's history refers to the document and does not repeat what
	// was read of it: the intake row holds the fields.
	info, err := runs.Get(context.Background(), d.db.Pool, doc.OrgID, first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range append([]json.RawMessage{info.Data}, cps[0].Data, cps[1].Data, cps[2].Data, cps[3].Data) {
		var kept map[string]json.RawMessage
		if err := json.Unmarshal(data, &kept); err != nil {
			t.Fatal(err)
		}
		if _, ok := kept["document"]; ok || string(kept["document_id"]) != strconv.FormatInt(doc.ID, 10) {
			t.Errorf("state %d of the run's history: %s", i, data)
		}
	}
	if len(doc.Fields) == 0 {
		t.Fatal("the filed document has no fields")
	}

	again := d.ingest(t, ubl, "application/xml")
	if again.Created || again.Document.ID != first.Document.ID || again.RunID != first.RunID || again.Document.Status != intake.Pending {
		t.Fatalf("same bytes again: %+v", again)
	}
	if n := testkit.Count(t, d.db, `SELECT count(*) FROM runs WHERE kind = 'pipeline'`); n != 1 {
		t.Fatalf("%d runs for one document", n)
	}

	// The same invoice as other bytes (a re-sent copy with a note added).
	copyBytes := append([]byte("<!-- re-sent -->\n"), ubl...)
	dup := d.process(t, d.ingest(t, copyBytes, "application/xml"))
	if dup.Status != intake.Flagged || dup.DuplicateOf != first.Document.ID || dup.DuplicateReason != intake.SameReference {
		t.Fatalf("re-sent copy: %+v", dup)
	}
}

func TestRefusedArrivalsWriteNothing(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	for _, tc := range []struct {
		name, mediaType string
		content         []byte
		code            apperr.Code
	}{
		{"too large", "application/xml", make([]byte, 1<<20+1), apperr.TooLarge},
		{"unsupported type", "text/plain", []byte("hello"), apperr.UnsupportedMediaType},
		{"a lie about the type", "application/pdf", []byte("<Invoice/>"), apperr.UnsupportedMediaType},
		{"empty", "application/xml", nil, apperr.Invalid},
		{"JSON with an unknown field", "application/json", read(t, "json-unknown-field.json"), apperr.Invalid},
		{"JSON with money as a number", "application/json", read(t, "json-numeric-money.json"), apperr.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.p.Ingest(context.Background(), intake.Arrival{OrgID: d.org, Content: tc.content, MediaType: tc.mediaType, Via: "api", Actor: "t"})
			if !apperr.Is(err, tc.code) {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
	for _, table := range []string{"intake_documents", "intake_originals", "runs"} {
		if n := testkit.Count(t, d.db, `SELECT count(*) FROM `+table); n != 0 {
			t.Fatalf("%d rows in %s after refused arrivals", n, table)
		}
	}
}

func TestAFailedRunNeverStrandsItsDocument(t *testing.T) {
	t.Parallel()
	d := newDurable(t)
	res := d.ingest(t, read(t, "cii-invoice.xml"), "application/xml")
	// The bytes vanish (a permanent error for every node that reads them).
	if _, err := d.db.Pool.Exec(context.Background(), `DELETE FROM intake_originals WHERE document_id = $1`, res.Document.ID); err != nil {
		t.Fatal(err)
	}
	doc := d.process(t, res)
	info, _ := runs.Get(context.Background(), d.db.Pool, d.org, res.RunID)
	if info.Status != runs.Failed || doc.Status != intake.Flagged || doc.FlagReason != intake.FlagExtractionFailed {
		t.Fatalf("run %s, document %s %s", info.Status, doc.Status, doc.FlagReason)
	}
}

// The pure stages chain: their checkpoint rows are written by the filing's
// transaction. A model's reading is the one stage that costs a call to
// repeat, so it keeps a checkpoint (a transaction) of its own, and a crash
// after it never asks the model again.
func TestOnlyAModelsOrATextReadingIsCheckpointedOnItsOwn(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	srv := newModelServer(t, answer(goodInvoice))
	var waits []time.Duration
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	p := pipeline.New(db.Pool, e, pipeline.Options{MaxBytes: 1 << 20, Logger: testkit.Logger(t), Model: modelExtractor(srv.URL, &waits)})
	d := &durable{db: db, engine: e, p: p, org: testkit.Org(t, db).ID}

	// xactOf lists each checkpoint row's node beside the transaction that wrote it.
	xactOf := func(runID string) map[string][]string {
		rows, err := db.Pool.Query(context.Background(), `SELECT node, xmin::text FROM run_checkpoints WHERE run_id = $1::uuid ORDER BY seq`, runID)
		if err != nil {
			t.Fatal(err)
		}
		byXact := map[string][]string{}
		for rows.Next() {
			var node, xact string
			if err := rows.Scan(&node, &xact); err != nil {
				t.Fatal(err)
			}
			byXact[xact] = append(byXact[xact], node)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return byXact
	}

	ubl := d.ingest(t, read(t, "ubl-invoice-multirate.xml"), "application/xml")
	if doc := d.process(t, ubl); doc.Status != intake.Pending {
		t.Fatalf("filed: %+v", doc)
	}
	if got := xactOf(ubl.RunID); len(got) != 1 {
		t.Fatalf("an e-invoice's checkpoints were written by %d transactions, want the filing's alone: %v", len(got), got)
	}

	scan := d.ingest(t, read(t, "scanned-invoice.png"), "image/png")
	if doc := d.process(t, scan); doc.Status != intake.Pending {
		t.Fatalf("filed: %+v", doc)
	}
	if srv.calls.Load() != 1 {
		t.Fatalf("%d model calls", srv.calls.Load())
	}
	got := xactOf(scan.RunID)
	// The text reading (OCR) ends a transaction of its own, with the
	// chained rows before it; the model's reading of what OCR left
	// uncertain another; the filing's writes the rest.
	own := 0
	for _, nodes := range got {
		if nodes[len(nodes)-1] == "extract" {
			own++
		}
	}
	if len(got) != 3 || own != 2 {
		t.Fatalf("a scan's checkpoints by transaction: %v; want the text reading and the model's reading to end one each and the filing the last", got)
	}
}
