package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// commitBatched writes a step's CommitBatched effects and its checkpoint
// (the fenced statement sql) in one transaction on a connection of its own,
// pipelined: BEGIN goes with the effects' first statement, and the batch
// they return goes with the checkpoint and COMMIT. A failed statement, the
// fence's included, aborts the transaction before its COMMIT runs; it is
// rolled back, even when ctx was cancelled.
func (e *Engine) commitBatched(ctx context.Context, runID string, effects func(context.Context, pgx.Tx) (*pgx.Batch, error), sql string, args []any) (err error) {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("runs: checkpoint %s: acquire connection: %w", runID, err)
	}
	defer c.Release()
	conn := c.Conn()
	defer func() {
		if err != nil && !conn.IsClosed() && conn.PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	tx := &pipelinedTx{conn: conn}
	last, err := effects(ctx, tx)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	if !tx.begun {
		b.Queue("BEGIN")
	}
	if last != nil {
		for _, q := range last.QueuedQueries {
			if q.Fn == nil {
				q.Exec(func(pgconn.CommandTag) error { return nil }) // so that its error stops the batch
			}
			b.QueuedQueries = append(b.QueuedQueries, q)
		}
	}
	b.Queue(sql, args...).QueryRow(scanFenced)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return checkpointError(runID, err)
	}
	if conn.PgConn().TxStatus() != 'I' {
		// COMMIT of a failed transaction answers ROLLBACK, not an error.
		return fmt.Errorf("runs: checkpoint %s: the transaction did not commit", runID)
	}
	return nil
}

// errNoSavepoints is a CommitBatched effect asking for a nested transaction.
var errNoSavepoints = errors.New("runs: a batched commit has no savepoints")

// pipelinedTx is the transaction a CommitBatched effect writes in: it
// begins with the first statement sent through it, in the same round trip
// when that is a batch. commitBatched commits it.
type pipelinedTx struct {
	conn  *pgx.Conn
	begun bool
}

var _ pgx.Tx = (*pipelinedTx)(nil)

func (t *pipelinedTx) begin(ctx context.Context) error {
	if t.begun {
		return nil
	}
	if _, err := t.conn.Exec(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("runs: begin: %w", err)
	}
	t.begun = true
	return nil
}

func (t *pipelinedTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNoSavepoints }

func (t *pipelinedTx) Commit(context.Context) error {
	return errors.New("runs: a batched commit is committed by the engine")
}

func (t *pipelinedTx) Rollback(ctx context.Context) error {
	if !t.begun {
		return nil
	}
	_, err := t.conn.Exec(ctx, "ROLLBACK")
	return err
}

func (t *pipelinedTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.conn.CopyFrom(ctx, table, columns, src)
}

// SendBatch sends b, with BEGIN first when the transaction has not begun.
func (t *pipelinedTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.begun {
		return t.conn.SendBatch(ctx, b)
	}
	withBegin := &pgx.Batch{QueuedQueries: append([]*pgx.QueuedQuery{{SQL: "BEGIN"}}, b.QueuedQueries...)}
	br := t.conn.SendBatch(ctx, withBegin)
	t.begun = true
	// BEGIN's result is read here; b's are the caller's to read. An error
	// of BEGIN is the batch's, and the caller reads it there.
	_, _ = br.Exec()
	return br
}

func (t *pipelinedTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *pipelinedTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *pipelinedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(ctx, sql, args...)
}

func (t *pipelinedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.conn.Query(ctx, sql, args...)
}

// errRow is a row whose Scan fails with the error that kept it from being read.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t *pipelinedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.begin(ctx); err != nil {
		return errRow{err}
	}
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *pipelinedTx) Conn() *pgx.Conn { return t.conn }
