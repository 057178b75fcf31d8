// Package app assembles greatbook's domain services over one pool, the same
// way for `greatbook serve`, the command line and the tests: the run engine,
// the pipeline (and, as they arrive, the bookkeeper and the sweep).
package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/bankstatement"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/failpoint"
	"greatbook/internal/jobs"
	"greatbook/internal/payments"
	"greatbook/internal/pipeline"
	"greatbook/internal/reading"
	"greatbook/internal/review"
	"greatbook/internal/runs"
	"greatbook/internal/typewriter"
	"greatbook/internal/webhooks"
)

// Config configures the services.
type Config struct {
	Logger *slog.Logger
	// Workers execute runs in the background (serve); 0 means none (the
	// command line executes its own runs).
	Workers int
	// LeaseTTL is how long a run's lease lasts without renewal.
	LeaseTTL time.Duration
	// MaxUploadBytes limits a document (default 20 MiB).
	MaxUploadBytes int64
	// Model configures the optional model extractor (off when URL is empty).
	Model pipeline.ModelConfig
	// SweepInterval is how often the sweep runs (default 15 s); negative: never.
	SweepInterval time.Duration
	// MaxAttempts is how often a job is launched before it is abandoned (5).
	MaxAttempts int
	// RetryBackoff is the first wait before a failed job is launched again
	// (10 s, doubling up to 10 min).
	RetryBackoff time.Duration
	// WebhookAllowPrivate lets webhook endpoints point at loopback,
	// link-local and private addresses (off: refused against SSRF).
	WebhookAllowPrivate bool
	// WebhookTimeout bounds one webhook request (default 10 s).
	WebhookTimeout time.Duration
	// Failpoints act at the failpoints of the services (nil:
	// failpoint.Env, the process's): the sweep's FailpointBeforeSweepPass,
	// the outbox's and the decisions'.
	Failpoints failpoint.Injector
}

// FailpointBeforeSweepPass is the start of every sweep pass.
const FailpointBeforeSweepPass = "app/sweep/before-pass"

// RequestConnections is the share of the pool kept for requests (the
// approvals, uploads and pages the web server serves at once).
const RequestConnections = 4

// PoolSize is the size of the pool to open for an app with that many
// workers: one connection for each worker, which holds one while it
// executes a run, on top of the requests' share. A pool of pgx's default
// size (4 on a 2-core machine) let four busy approvers take every
// connection, so the workers waited for one between each step of posting
// what had been approved, and the backlog grew for as long as approvals
// came in.
func PoolSize(workers int) int32 {
	return int32(max(workers, 0) + RequestConnections)
}

// App is the assembled services.
type App struct {
	// Pool is concrete: the run engine and the bookkeeper use it from
	// goroutines they start, and the web server pings it for readiness.
	Pool       *pgxpool.Pool
	Engine     *runs.Engine
	Pipeline   *pipeline.Pipeline
	Bookkeeper *bookkeeper.Bookkeeper
	Outbox     *jobs.Outbox
	// BulkRetries runs a bulk retry of many dead letters as a durable run.
	BulkRetries *jobs.BulkRetries
	Decisions   *review.Decisions
	Typewriter  *typewriter.Service
	Webhooks    *webhooks.Service
	// Payments proposes, approves and exports pay runs.
	Payments *payments.Service
	// BankStatements imports bank statements and reconciles them with the
	// pay runs' items.
	BankStatements *bankstatement.Service
	// Readings are the text readings of PDFs and images without e-invoice
	// data, and the suppliers' layouts learned from them.
	Readings *reading.Service
	Metrics  *Metrics
	cfg      Config
	log      *slog.Logger

	// stop cancels the background work Start started; loops are the
	// goroutines it runs (the sweep and resume loops), which Close waits
	// for before the pool may close.
	stop  context.CancelFunc
	loops sync.WaitGroup
}

// New assembles the services; Start starts the background work.
func New(pool *pgxpool.Pool, cfg Config) *App {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Failpoints == nil {
		cfg.Failpoints = failpoint.Env{}
	}
	engine := runs.NewEngine(pool, runs.Options{Logger: cfg.Logger, LeaseTTL: cfg.LeaseTTL})
	a := &App{Pool: pool, Engine: engine, cfg: cfg, log: cfg.Logger}
	a.Pipeline = pipeline.New(pool, engine, pipeline.Options{MaxBytes: cfg.MaxUploadBytes,
		Model: pipeline.NewModelExtractor(cfg.Model), Logger: cfg.Logger})
	a.Bookkeeper = bookkeeper.New(pool, engine, cfg.Logger)
	if cfg.RetryBackoff > 0 {
		a.Bookkeeper.RetryBackoff = cfg.RetryBackoff
	}
	a.Outbox = &jobs.Outbox{Pool: pool, Starter: a.Bookkeeper, Logger: cfg.Logger, MaxAttempts: cfg.MaxAttempts, Backoff: cfg.RetryBackoff,
		Failpoints: cfg.Failpoints}
	a.BulkRetries = jobs.NewBulkRetries(pool, engine, a.Outbox)
	a.Decisions = review.NewDecisions(pool, a.Outbox, cfg.Failpoints)
	a.Typewriter = &typewriter.Service{Pool: pool, Pipeline: a.Pipeline}
	a.Webhooks = &webhooks.Service{Pool: pool, AllowPrivate: cfg.WebhookAllowPrivate, Timeout: cfg.WebhookTimeout, Logger: cfg.Logger}
	a.Payments = &payments.Service{Pool: pool, Failpoints: cfg.Failpoints}
	a.BankStatements = &bankstatement.Service{Pool: pool, Failpoints: cfg.Failpoints}
	a.Readings = &reading.Service{Pool: pool}
	a.Metrics = NewMetrics(pool)
	return a
}

// Start runs the workers and the resume pass (at once, to pick up what a
// previous process left, and then every lease period, to take over runs
// whose worker died), and finishes the bank statement imports a previous
// process left, until ctx is done or Close is called. Wait waits for
// them to stop.
func (a *App) Start(ctx context.Context) {
	if a.cfg.Workers <= 0 {
		return
	}
	ctx, a.stop = context.WithCancel(ctx)
	a.Engine.Start(ctx, a.cfg.Workers)
	if a.cfg.SweepInterval >= 0 {
		a.loops.Go(func() { a.sweepLoop(ctx) })
	}
	a.loops.Go(func() { a.resumeLoop(ctx) })
	a.loops.Go(func() { a.resumeImports(ctx) })
	a.Webhooks.Start(ctx)
}

// Wait blocks until every goroutine the app started has stopped: the sweep
// and resume loops, the workers, the webhook dispatcher and senders, the
// bookkeeper's background observations.
func (a *App) Wait() {
	a.loops.Wait()
	a.Webhooks.Wait()
	a.Engine.Wait()
	a.Bookkeeper.Wait()
}

// Close stops the background work and waits for it: when it returns, no
// goroutine of the app is left and no pass is in flight, so the caller may
// close the pool. It does not close the pool (the caller opened it).
func (a *App) Close() {
	if a.stop != nil {
		a.stop()
	}
	a.Wait()
}

// resumeImports finishes the bank statements' imports a previous process
// left in the middle.
func (a *App) resumeImports(ctx context.Context) {
	if n, err := a.BankStatements.Resume(ctx); err != nil && ctx.Err() == nil {
		a.log.Warn("finishing interrupted bank statement imports failed", "error", err)
	} else if n > 0 {
		a.log.Info("interrupted bank statement imports finished", "count", n)
	}
}

// resumeLoop runs the resume pass at once and then every lease period.
func (a *App) resumeLoop(ctx context.Context) {
	t := time.NewTicker(a.Engine.LeaseTTL)
	defer t.Stop()
	for {
		if n, err := a.Engine.ResumeAll(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("resume pass failed", "error", err)
		} else if n > 0 {
			a.log.Info("runs resumed", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepLoop runs the sweep on a ticker: it launches jobs left pending by a
// crash between approve's commit and its launch, and failed jobs whose
// backoff has passed.
func (a *App) sweepLoop(ctx context.Context) {
	every := a.cfg.SweepInterval
	if every == 0 {
		every = 15 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := a.sweepPass(ctx)
		a.Metrics.SweepPasses.Inc()
		a.Metrics.SweepLaunched.Add(float64(len(res.Launched)))
		a.Metrics.SweepFailed.Add(float64(len(res.Failed)))
		if err != nil && ctx.Err() == nil {
			a.log.Warn("sweep failed", "error", err)
		} else if n := len(res.Launched) + len(res.Failed); n > 0 {
			a.log.Info("sweep", "launched", len(res.Launched), "failed", len(res.Failed))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepPass sweeps once, unless its failpoint fails the pass.
func (a *App) sweepPass(ctx context.Context) (jobs.SweepResult, error) {
	if err := a.cfg.Failpoints.Inject(ctx, FailpointBeforeSweepPass); err != nil {
		return jobs.SweepResult{}, err
	}
	return a.Outbox.Sweep(ctx, 1000)
}
