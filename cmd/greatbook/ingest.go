package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/intake"
	"greatbook/internal/org"
	"greatbook/internal/runs"
)

// ingest runs the intake pipeline on files, here and now, and prints one
// line per file: its document id and status. A file that is refused is
// named on stderr and the command exits non-zero after the others; what it
// prints is what is stored: a refused file left no row, and a file whose
// row was stored is printed with its id and status.
func (e env) ingest(ctx context.Context, args []string) error {
	c := e.subcommand("ingest")
	orgSlug := c.flags.String("org", "", "org slug")
	files, err := c.parse(args)
	if err != nil {
		return err
	}
	if *orgSlug == "" || len(files) == 0 {
		//lint:ignore ST1005 a usage line shown to the user as is: "FILE..." (one or more files) is the notation the help text and docs/configuration.md use
		return errors.New("usage: greatbook ingest --org SLUG FILE...")
	}
	logger := e.cliLogger()
	d, err := c.open(ctx, logger)
	if err != nil {
		return err
	}
	defer d.Close()
	o, err := org.BySlug(ctx, d.pool, *orgSlug)
	if err != nil {
		return errors.New(message(err))
	}
	services := app.New(d.pool, app.Config{Logger: logger, MaxUploadBytes: envInt(e, "GREATBOOK_MAX_UPLOAD_BYTES", 0), Model: modelConfig(e)})
	defer services.Close() // before the pool closes: no background work outlives it
	refused := 0
	for _, path := range files {
		id, status, err := ingestFile(ctx, services, o.ID, path)
		if err != nil {
			refused++
			fmt.Fprintf(e.stderr, "greatbook: %s: %s\n", path, message(err))
			if id != 0 {
				fmt.Fprintf(e.stdout, "%d %s\n", id, status) // stored: say so
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%d %s\n", id, status)
	}
	if refused > 0 {
		return fmt.Errorf("%d of %d files refused", refused, len(files))
	}
	return nil
}

// ingestFile files one document and waits for its pipeline to end: it runs
// the run itself, or waits for the process that holds it.
func ingestFile(ctx context.Context, a *app.App, orgID int64, path string) (int64, intake.Status, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	return ingestContent(ctx, a, orgID, filepath.Base(path), content)
}

// ingestContent is ingestFile for content already read (the demo's).
func ingestContent(ctx context.Context, a *app.App, orgID int64, filename string, content []byte) (int64, intake.Status, error) {
	res, err := a.Pipeline.Ingest(ctx, intake.Arrival{OrgID: orgID, Content: content, Filename: filename, Via: "cli", Actor: "cli"})
	if err != nil {
		return 0, "", err
	}
	doc := res.Document
	for deadline := time.Now().Add(2 * time.Minute); doc.Status == intake.Received && time.Now().Before(deadline); {
		processErr := a.Pipeline.Process(ctx, res.RunID)
		if doc, err = intake.GetDocument(ctx, a.Pool, orgID, doc.ID); err != nil {
			return 0, "", err
		}
		if doc.Status != intake.Received {
			break // filed, whatever the run's last step said
		}
		if run, err := runs.Get(ctx, a.Pool, orgID, res.RunID); err == nil && (run.Status == runs.Failed || run.Status == runs.Done) {
			// The run ended without filing the row: file it for a person,
			// as an operator's abandon would, rather than leave a row the
			// line would call refused.
			if err := a.Pipeline.Abandon(ctx, orgID, res.RunID, "cli"); err != nil {
				return doc.ID, doc.Status, fmt.Errorf("document %d is stored, received, and its run failed: %s", doc.ID, run.LastError)
			}
			continue
		}
		if processErr != nil {
			return doc.ID, doc.Status, fmt.Errorf("document %d is stored, received; its run stopped: %w", doc.ID, processErr)
		}
		if doc.Status == intake.Received {
			// Another live process holds the run: wait for it.
			select {
			case <-ctx.Done():
				return 0, "", ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return doc.ID, doc.Status, nil
}
