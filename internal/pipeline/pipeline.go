package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/coding"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/failpoint"
	"greatbook/internal/intake"
	"greatbook/internal/pagetext"
	"greatbook/internal/reading"
	"greatbook/internal/runs"
)

// Kind is the run kind of the pipeline.
const Kind = "pipeline"

// DefaultMaxRepairs bounds the validate → extract repair loop.
const DefaultMaxRepairs = 2

// DefaultExtractTimeLimit bounds the deterministic extraction of one document (parsing, and carving a
// PDF). The parsers are linear with caps on their work, so a real invoice takes milliseconds; this is
// the backstop for whatever the other caps miss, and a document over it is filed flagged.
const DefaultExtractTimeLimit = 10 * time.Second

// Options configure the pipeline.
type Options struct {
	MaxRepairs int
	MaxBytes   int64
	// ExtractTimeLimit bounds the deterministic extraction of one document; zero means
	// DefaultExtractTimeLimit.
	ExtractTimeLimit time.Duration
	Model            *ModelExtractor
	// Reading bounds the text reading (text layer and OCR) of one PDF or
	// image without e-invoice data; NoTextReading turns it off (such
	// documents then wait for a person, or the model extractor).
	Reading       pagetext.Limits
	NoTextReading bool
	Logger        *slog.Logger
	// NoSuggestions files documents without suggesting their coding (the
	// benchmark's comparison; the product always suggests).
	NoSuggestions bool
}

// Pipeline files arriving documents through durable runs.
type Pipeline struct {
	// pool is concrete, not a database.Executor: an ingest's pipelined
	// transaction holds a connection of its own, which only a pool hands
	// out, and launches its run only once that transaction has committed.
	pool   *pgxpool.Pool
	engine *runs.Engine
	opts   Options
	graph  runs.Graph[State]
}

// New returns the pipeline and registers its graph with the engine.
func New(pool *pgxpool.Pool, engine *runs.Engine, opts Options) *Pipeline {
	if opts.MaxRepairs == 0 {
		opts.MaxRepairs = DefaultMaxRepairs
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.ExtractTimeLimit == 0 {
		opts.ExtractTimeLimit = DefaultExtractTimeLimit
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pipeline{pool: pool, engine: engine, opts: opts}
	p.graph = p.buildGraph()
	runs.Register(engine, p.graph)
	return p
}

// MaxBytes is the size limit of a document.
func (p *Pipeline) MaxBytes() int64 { return p.opts.MaxBytes }

func (p *Pipeline) inputs(orgID, docID int64) Inputs {
	in := Inputs{
		Original:      func(ctx context.Context) ([]byte, error) { return intake.Original(ctx, p.pool, orgID, docID) },
		Deterministic: Deterministic{TimeLimit: p.opts.ExtractTimeLimit},
		MaxRepairs:    p.opts.MaxRepairs,
	}
	if p.opts.Model != nil {
		in.Model = p.opts.Model
	}
	if !p.opts.NoTextReading {
		in.Text = &TextReader{
			Read: func(ctx context.Context, content []byte, mediaType string) (pagetext.Text, error) {
				return pagetext.Read(ctx, content, mediaType, p.opts.Reading)
			},
			Layout: func(ctx context.Context, supplierKeys ...string) (reading.Layout, bool, error) {
				return reading.LayoutFor(ctx, p.pool, orgID, supplierKeys...)
			},
		}
	}
	return in
}

// runInputs are the inputs of r's nodes: the document's bytes are read once
// per execution of the run, by the first node that needs them.
func (p *Pipeline) runInputs(r *runs.Run[State]) Inputs {
	in := p.inputs(r.OrgID, r.SubjectID)
	read := in.Original
	in.Original = func(ctx context.Context) ([]byte, error) {
		if b, ok := r.Scratch[originalKey].([]byte); ok {
			return b, nil
		}
		b, err := read(ctx)
		if err != nil {
			return nil, err
		}
		if r.Scratch == nil {
			r.Scratch = map[string]any{}
		}
		r.Scratch[originalKey] = b
		return b, nil
	}
	return in
}

// originalKey holds a run's document bytes in its Scratch.
const originalKey = "original"

func (p *Pipeline) buildGraph() runs.Graph[State] {
	nodes := map[string]runs.NodeFunc[State]{}
	for name, st := range stages {
		nodes[name] = func(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
			// Only a model's reading and a text reading are worth a
			// checkpoint of their own (a call, maybe money, or seconds of
			// OCR to repeat); the other stages are pure and cheap, so they
			// chain: their rows are written with the next checkpoint, and a
			// crash in between re-runs them.
			cheap := name != nodeExtract || (r.State.Extractor != "model" && r.State.Extractor != "text")
			next, note, err := st(ctx, p.runInputs(r), &r.State)
			return runs.Step{Next: next, Note: note, Chain: cheap}, err
		}
	}
	// The terminal write point: the filing commits with the run's last
	// checkpoint, in a pipelined transaction: BEGIN travels with the
	// filing's first batch, and the suggested coding (intake_coding, not
	// the intake row) with the checkpoint and the COMMIT.
	nodes[nodeQueue] = func(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
		note := "filed"
		if r.State.Flag != "" {
			note = "filed flagged: " + r.State.Flag
		}
		return runs.Step{Note: note, CommitBatched: func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error) {
			doc, err := queue(ctx, intake.NewPGStoreTx(tx), &r.State)
			if err != nil {
				return nil, err
			}
			b := &pgx.Batch{}
			if s := r.State; s.Reading != nil && s.Text != nil {
				if err := reading.QueueSave(b, doc.OrgID, doc.ID, *s.Reading, s.LayoutID, *s.Text); err != nil {
					return nil, err
				}
			}
			if !p.opts.NoSuggestions && r.State.Document != nil {
				coding.QueueSuggestions(b, doc.OrgID, doc.ID, doc.SourceRef, *r.State.Document)
			}
			if b.Len() == 0 {
				return nil, nil
			}
			return b, nil
		}}, nil
	}
	return runs.Graph[State]{
		Kind: Kind, Start: nodeClassify, Nodes: nodes, History: history,
		// A run that fails never strands its row at received: it is filed
		// flagged, with the error, for a person.
		OnFail: func(ctx context.Context, tx pgx.Tx, r *runs.Run[State], cause error) error {
			s := r.State
			s.Flag = intake.FlagExtractionFailed
			s.Findings = append(s.Findings, einvoice.Finding{Code: "pipeline_failed", Severity: einvoice.SeverityFatal, Field: "document", Message: cause.Error()})
			if s.Reading != nil && s.Text != nil && foundAny(*s.Reading) {
				// What the text reading found stands, for a person to
				// confirm; the failure is a warning beside it.
				d := einvoice.MakeStorable(completed(s.Reading.Document, *s.Text))
				s.Document, s.Flag = &d, intake.FlagUncertainReading
				s.Findings = append(uncertainFindings(*s.Reading), einvoice.Finding{Code: "pipeline_failed", Severity: einvoice.SeverityWarning,
					Field: "document", Message: cause.Error()})
			}
			doc, err := queue(ctx, intake.NewPGStoreTx(tx), &s)
			if errors.Is(err, intake.ErrNotReceived) {
				return nil
			}
			if err != nil || s.Reading == nil || s.Text == nil {
				return err
			}
			b := &pgx.Batch{}
			if err := reading.QueueSave(b, doc.OrgID, doc.ID, *s.Reading, s.LayoutID, *s.Text); err != nil {
				return err
			}
			return tx.SendBatch(ctx, b).Close()
		},
	}
}

// history is what a run's checkpoints record of its state: not what was
// read (the document's fields, the page's words and their reading), which
// the run's own row keeps while it runs and the filing stores with the
// document (its fields) and the reading's tables when it ends. A
// checkpoint row then costs a few hundred bytes, however long the invoice.
func history(s State) State {
	s.Document, s.Text, s.Reading = nil, nil, nil
	return s
}

// Ingested is the outcome of an arrival.
type Ingested struct {
	Document intake.Document
	RunID    string
	// Created is false when the same bytes arrived before in this org.
	Created bool
}

// Ingest is the first write point: it checks the arrival, stores the bytes
// and writes the row at received with its run, in one transaction, and
// launches the run after the commit. The same bytes again return the
// existing row and start no second run.
func (p *Pipeline) Ingest(ctx context.Context, a intake.Arrival) (Ingested, error) {
	mt, err := CheckArrival(a.MediaType, a.Content, p.opts.MaxBytes)
	if err != nil {
		return Ingested{}, err
	}
	a.MediaType = mt
	a.RunID = runs.NewID()
	res, err := p.ingest(ctx, a, State{MediaType: mt})
	if err != nil {
		return Ingested{}, err
	}
	if err := failpoint.Inject("pipeline/after-ingest"); err != nil {
		return res, err
	}
	if res.Document.Status == intake.Received && res.RunID != "" {
		// New, or arrived before and not filed yet (its worker may have
		// died): hand it to the workers; a live worker's lease makes this
		// a no-op.
		if err := p.engine.Launch(res.RunID); err != nil {
			p.opts.Logger.Warn("pipeline run not launched; the resume pass will", "run_id", res.RunID, "error", err)
		}
	}
	return res, nil
}

// ingest writes the row at received with its bytes and its run in one
// transaction of one round trip: the begin, the row, the run and the
// commit in one batch.
func (p *Pipeline) ingest(ctx context.Context, a intake.Arrival, initial State) (Ingested, error) {
	data, err := json.Marshal(initial)
	if err != nil {
		return Ingested{}, fmt.Errorf("pipeline: encode state: %w", err)
	}
	var res Ingested
	err = database.WithPipelinedTx(ctx, p.pool, func(pgx.Tx) (*pgx.Batch, error) {
		b := &pgx.Batch{}
		read, err := intake.QueueIngest(b, a)
		if err != nil {
			return nil, err
		}
		// read reads the results of what QueueIngest queued.
		b.QueuedQueries[0].Fn = func(br pgx.BatchResults) error {
			doc, created, err := read(br)
			res = Ingested{Document: doc, RunID: doc.PipelineRunID, Created: created}
			return err
		}
		b.Queue(runOfArrivalSQL, a.RunID, Kind, p.graph.Start, data, intake.ContentHash(a.Content), a.OrgID).Fn = func(br pgx.BatchResults) error {
			tag, err := br.Exec()
			if err != nil {
				return fmt.Errorf("pipeline: create run: %w", err)
			}
			if res.Created != (tag.RowsAffected() == 1) {
				return fmt.Errorf("pipeline: ingest: row written %v, run created %d", res.Created, tag.RowsAffected())
			}
			return nil
		}
		return b, nil
	})
	if err != nil || res.Created {
		return res, err
	}
	// The same bytes arrived before: their row, as it is now.
	doc, err := intake.ArrivedBefore(ctx, p.pool, a)
	return Ingested{Document: doc, RunID: doc.PipelineRunID}, err
}

// Process runs a document's pipeline here and now, to its end.
func (p *Pipeline) Process(ctx context.Context, runID string) error {
	return p.engine.Execute(ctx, runID)
}

// Trace is one step of an offline run.
type Trace struct{ Node, Note string }

// RunOffline files a document of an in-memory store through the same nodes
// without a database: for offline pipeline tests.
func RunOffline(ctx context.Context, store intake.Store, in Inputs, docID int64, mediaType string) (intake.Document, []Trace, error) {
	if in.MaxRepairs == 0 {
		in.MaxRepairs = DefaultMaxRepairs
	}
	if in.Deterministic == nil {
		in.Deterministic = Deterministic{}
	}
	if in.Original == nil {
		return intake.Document{}, nil, errors.New("pipeline: RunOffline needs Inputs.Original")
	}
	s := &State{DocumentID: docID, MediaType: mediaType}
	var trace []Trace
	node := nodeClassify
	for steps := 0; steps < 100; steps++ {
		if node == nodeQueue {
			d, err := queue(ctx, store, s)
			trace = append(trace, Trace{Node: nodeQueue})
			return d, trace, err
		}
		next, note, err := stages[node](ctx, in, s)
		trace = append(trace, Trace{Node: node, Note: note})
		if err != nil {
			return intake.Document{}, trace, err
		}
		node = next
	}
	return intake.Document{}, trace, fmt.Errorf("pipeline: run did not end")
}
