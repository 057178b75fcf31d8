package runs

import (
	"context"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// commitBatched writes a step's CommitBatched effects and its checkpoint
// (the fenced statement sql) in one pipelined transaction: its begin goes
// with the effects' first batch, and the batch they return goes with the
// checkpoint and the commit. A failed statement, the fence's included,
// stops the batch before its commit; the transaction is rolled back, even
// when ctx was cancelled.
func (e *Engine) commitBatched(ctx context.Context, runID string, effects func(context.Context, pgx.Tx) (*pgx.Batch, error), sql string, args []any) error {
	effectsFailed := false
	err := database.WithPipelinedTx(ctx, e.pool, func(tx pgx.Tx) (*pgx.Batch, error) {
		last, err := effects(ctx, tx)
		if err != nil {
			effectsFailed = true
			return nil, err
		}
		b := &pgx.Batch{}
		if last != nil {
			b.QueuedQueries = append(b.QueuedQueries, last.QueuedQueries...)
		}
		b.Queue(sql, args...).QueryRow(scanFenced)
		return b, nil
	})
	if err != nil && !effectsFailed {
		return checkpointError(runID, err)
	}
	return err
}
