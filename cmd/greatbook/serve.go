package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/embeddedpg"
	"greatbook/internal/pipeline"
	"greatbook/web"
)

// serveWorkers is the number of run workers serve starts.
const serveWorkers = 4

func (e env) serve(ctx context.Context, args []string) error {
	c := e.subcommand("serve")
	fs := c.flags
	addr := fs.String("addr", envOr(e, "GREATBOOK_ADDR", "127.0.0.1:8080"), "address to listen on")
	tlsCert := fs.String("tls-cert", e.getenv("GREATBOOK_TLS_CERT"), "TLS certificate file (serve HTTPS)")
	tlsKey := fs.String("tls-key", e.getenv("GREATBOOK_TLS_KEY"), "TLS key file")
	behindTLS := fs.Bool("behind-tls-proxy", e.getenv("GREATBOOK_BEHIND_TLS_PROXY") == "1", "a TLS-terminating proxy serves the site: use Secure cookies")
	maxUpload := fs.Int64("max-upload-bytes", envInt(e, "GREATBOOK_MAX_UPLOAD_BYTES", 20<<20), "largest document accepted")
	sweepEvery := fs.Duration("sweep-interval", envDuration(e, "GREATBOOK_SWEEP_INTERVAL", 15*time.Second), "how often the sweep launches jobs a crash or a failed launch left")
	webhookPrivate := fs.Bool("webhook-allow-private", e.getenv("GREATBOOK_WEBHOOK_ALLOW_PRIVATE") == "1",
		"let webhook endpoints point at loopback, link-local and private addresses (refused by default against SSRF)")
	webhookTimeout := fs.Duration("webhook-timeout", envDuration(e, "GREATBOOK_WEBHOOK_TIMEOUT", 10*time.Second), "how long one webhook request may take")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *webhookTimeout <= 0 {
		return errors.New("serve: --webhook-timeout must be a positive duration, such as 10s")
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return errors.New("serve: --tls-cert and --tls-key go together")
	}
	if *sweepEvery <= 0 {
		return errors.New("serve: --sweep-interval must be a positive duration, such as 15s")
	}
	logger := e.logger(slog.LevelInfo)
	slog.SetDefault(logger)

	// The workers' connections beside the requests': approvers must not
	// take every connection from the workers posting what they approved.
	c.db.poolSize = app.PoolSize(serveWorkers)
	d, err := e.openDatabase(ctx, c.db, embeddedpg.RoleServer, logger) // the server owns the cluster
	if err != nil {
		return err
	}
	defer d.Close()

	services := app.New(d.pool, app.Config{Logger: logger, Workers: serveWorkers, MaxUploadBytes: *maxUpload, Model: modelConfig(e),
		SweepInterval: *sweepEvery, WebhookAllowPrivate: *webhookPrivate, WebhookTimeout: *webhookTimeout})
	defer services.Close() // before the pool closes: no background work outlives it
	srv := web.New(services, web.Options{Logger: logger, Secure: *tlsCert != "" || *behindTLS, BehindProxy: *behindTLS})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", *addr, err)
	}
	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	scheme := "http"
	if *tlsCert != "" {
		scheme = "https"
	}
	errc := make(chan error, 1)
	go func() {
		if *tlsCert != "" {
			errc <- httpServer.ServeTLS(ln, *tlsCert, *tlsKey)
		} else {
			errc <- httpServer.Serve(ln)
		}
	}()
	url := fmt.Sprintf("%s://%s", scheme, ln.Addr())
	fmt.Fprintf(e.stdout, "GreatBook Intake is serving on %s\n", url)
	logger.Info("serving", "url", url, "data_dir", d.dataDirLabel())

	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	services.Start(workCtx)
	background := startBackground(ctx, d, srv, logger)
	select {
	case err := <-errc:
		background.stop()
		stopWork()
		services.Wait()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	background.stop()
	// Workers stop after the last request; a run they leave is resumed by
	// the next process from its last checkpoint.
	stopWork()
	services.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// background is the work serve does besides answering requests.
type background struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (b background) stop() {
	b.cancel()
	<-b.done
}

func startBackground(ctx context.Context, d *db, srv *web.Server, logger *slog.Logger) background {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(10 * time.Minute)
		defer t.Stop()
		for {
			if n, err := srv.Sessions().DeleteExpired(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("session cleanup failed", "error", err)
			} else if n > 0 {
				logger.Info("expired sessions removed", "count", n)
			}
			if n, err := srv.Auth().PruneThrottle(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("sign-in throttle prune failed", "error", err)
			} else if n > 0 {
				logger.Info("stale sign-in throttle rows removed", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return background{cancel: cancel, done: done}
}

func (d *db) dataDirLabel() string {
	if d.cluster != nil {
		return d.cluster.DataDir()
	}
	return "DATABASE_URL"
}

func envOr(e env, key, def string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return def
}

func envInt(e env, key string, def int64) int64 {
	if v := e.getenv(key); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return def
}

// envDuration reads a Go duration ("15s") from the environment; a value that
// does not parse is kept as -1, which the command refuses, naming the flag.
func envDuration(e env, key string, def time.Duration) time.Duration {
	if v := e.getenv(key); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return -1
		}
		return d
	}
	return def
}

// modelConfig reads the optional model extractor's settings.
func modelConfig(e env) pipeline.ModelConfig {
	cfg := pipeline.ModelConfig{URL: e.getenv("GREATBOOK_MODEL_URL"), Model: e.getenv("GREATBOOK_MODEL"), APIKey: e.getenv("GREATBOOK_MODEL_API_KEY")}
	if v := e.getenv("GREATBOOK_MODEL_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			cfg.Timeout = d
		}
	}
	return cfg
}
