package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/runs"
)

// Retry is an operator's retry of a stranded pipeline run (failed without
// filing its document, or running with no live worker): it runs again from
// the node it stopped at, and is launched.
func (p *Pipeline) Retry(ctx context.Context, orgID int64, runID, actor string) error {
	if err := database.WithTx(ctx, p.pool, func(tx pgx.Tx) error {
		return runs.Reopen(ctx, tx, orgID, Kind, runID, actor)
	}); err != nil {
		return err
	}
	if err := p.engine.Launch(runID); err != nil {
		p.opts.Logger.Warn("retried pipeline run not launched; the resume pass will", "run_id", runID, "error", err)
	}
	return nil
}

// Abandon is an operator's end of a stranded pipeline run: the run is failed
// for good and its document, if it is still waiting, is filed flagged
// extraction_failed for a person, with the run's last error, in the same
// transaction. It files through the queue node's own filing, as a run that
// fails does, so the row is still written only at ingest and at queue.
func (p *Pipeline) Abandon(ctx context.Context, orgID int64, runID, actor string) error {
	return database.WithTx(ctx, p.pool, func(tx pgx.Tx) error {
		info, err := runs.Abandon(ctx, tx, orgID, Kind, runID, actor)
		if err != nil {
			return err
		}
		var s State
		if err := json.Unmarshal(info.Data, &s); err != nil {
			return fmt.Errorf("pipeline: abandon %s: %w", runID, err)
		}
		s.Flag = intake.FlagExtractionFailed
		s.Findings = append(s.Findings, einvoice.Finding{Code: "pipeline_abandoned", Severity: einvoice.SeverityFatal, Field: "document",
			Message: fmt.Sprintf("the pipeline run was abandoned by %s; its last error: %s", actor, info.LastError)})
		_, err = queue(ctx, intake.NewPGStoreTx(tx), &s)
		if errors.Is(err, intake.ErrNotReceived) {
			return nil // filed already: only the run ends
		}
		return err
	})
}
