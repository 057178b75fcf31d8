package database

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WithPipelinedTx is WithTx for the transactions whose round trips count:
// it runs fn in a transaction on a connection of the pool's own, whose
// BEGIN travels with the first batch fn sends through tx (or with the
// batch fn returns, when fn sends nothing) and whose COMMIT travels with
// the batch fn returns. Work that fits in one batch costs one round trip;
// work that must read before it writes, two. The statements of the
// returned batch report through their callbacks (QueuedQuery.QueryRow,
// Exec, Query): the first that fails stops the batch before its COMMIT.
// Like WithTx it always rolls back on error, even when ctx was cancelled.
//
// It takes the pool itself: the transaction holds one connection from its
// BEGIN to its COMMIT, and only a pool hands one out. Code that must join
// a caller's transaction sends its batches through that pgx.Tx instead.
//
// tx is a full pgx.Tx (Begin makes a savepoint) but for Commit, which
// fails: the transaction commits when fn returns. A statement sent alone
// before any batch begins the transaction in a round trip of its own.
func WithPipelinedTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) (*pgx.Batch, error)) (err error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: acquire connection: %w", err)
	}
	defer c.Release()
	tx := &pipelinedTx{conn: c.Conn()}
	defer func() {
		if err != nil {
			tx.rollback(context.WithoutCancel(ctx))
		}
	}()
	last, err := fn(tx)
	if err != nil {
		return err
	}
	return tx.commit(ctx, last)
}

// errPipelinedCommit is what a pipelined transaction's Commit returns.
var errPipelinedCommit = errors.New("database: a pipelined transaction commits when its function returns")

// pipelinedTx is the transaction WithPipelinedTx hands its function. It
// holds pgx's transaction once BEGIN has been sent, and passes everything
// on to it.
type pipelinedTx struct {
	conn *pgx.Conn
	tx   pgx.Tx // nil until BEGIN has been sent
}

var _ pgx.Tx = (*pipelinedTx)(nil)

// withBegin is b behind the statement that begins a transaction, as one
// batch whose results pgx hands out with the transaction it begins.
func withBegin(b *pgx.Batch) *pgx.Batch {
	begun := &pgx.Batch{}
	begun.BeginTx(pgx.TxOptions{})
	begun.QueuedQueries = append(begun.QueuedQueries, b.QueuedQueries...)
	return begun
}

// begin sends BEGIN alone, for a statement that cannot travel with it.
func (t *pipelinedTx) begin(ctx context.Context) error {
	if t.tx != nil {
		return nil
	}
	tx, err := t.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("database: begin: %w", err)
	}
	t.tx = tx
	return nil
}

// SendBatch sends b, with BEGIN in front when the transaction has not begun.
func (t *pipelinedTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.tx != nil {
		return t.tx.SendBatch(ctx, b)
	}
	br := t.conn.SendBatch(ctx, withBegin(b))
	t.tx = br.Tx()
	// BEGIN's result is read here; b's are the caller's to read. An error
	// of BEGIN is the batch's, which the caller reads there.
	_, _ = br.Exec()
	return br
}

// commit sends last with COMMIT behind it (and BEGIN in front when
// nothing was sent yet); with no last batch, COMMIT alone, and nothing at
// all when nothing was sent.
func (t *pipelinedTx) commit(ctx context.Context, last *pgx.Batch) error {
	if last == nil || last.Len() == 0 {
		if t.tx == nil {
			return nil
		}
		if err := t.tx.Commit(ctx); err != nil {
			return fmt.Errorf("database: commit: %w", err)
		}
		return nil
	}
	b := &pgx.Batch{QueuedQueries: append([]*pgx.QueuedQuery(nil), last.QueuedQueries...)}
	b.Queue("COMMIT").Fn = func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err != nil {
			return fmt.Errorf("database: commit: %w", err)
		}
		if tag.String() == "ROLLBACK" { // COMMIT of a failed transaction
			return fmt.Errorf("database: commit: %w", pgx.ErrTxCommitRollback)
		}
		return nil
	}
	var br pgx.BatchResults
	if t.tx == nil {
		br = t.conn.SendBatch(ctx, withBegin(b))
		t.tx = br.Tx()
	} else {
		br = t.tx.SendBatch(ctx, b)
	}
	return br.Close()
}

// rollback ends a transaction that did not commit.
func (t *pipelinedTx) rollback(ctx context.Context) {
	if t.tx == nil || t.conn.IsClosed() || t.conn.PgConn().TxStatus() == 'I' {
		return
	}
	// A failed rollback closes the connection, which the pool then drops:
	// the server rolls back what it held.
	_ = t.tx.Rollback(ctx)
}

// Begin starts a savepoint.
func (t *pipelinedTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Begin(ctx)
}

// Commit fails: WithPipelinedTx commits when its function returns.
func (t *pipelinedTx) Commit(context.Context) error { return errPipelinedCommit }

// Rollback rolls the transaction back; WithPipelinedTx then fails.
func (t *pipelinedTx) Rollback(ctx context.Context) error {
	if t.tx == nil {
		return nil
	}
	return t.tx.Rollback(ctx)
}

func (t *pipelinedTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.tx.CopyFrom(ctx, table, columns, src)
}

// LargeObjects needs the transaction begun: send a statement first.
func (t *pipelinedTx) LargeObjects() pgx.LargeObjects {
	if t.tx == nil {
		return pgx.LargeObjects{}
	}
	return t.tx.LargeObjects()
}

func (t *pipelinedTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *pipelinedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.tx.Exec(ctx, sql, args...)
}

func (t *pipelinedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Query(ctx, sql, args...)
}

// errRow is a row whose Scan fails with the error that kept it from being read.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t *pipelinedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.begin(ctx); err != nil {
		return errRow{err}
	}
	return t.tx.QueryRow(ctx, sql, args...)
}

func (t *pipelinedTx) Conn() *pgx.Conn { return t.conn }

// QueueSavepoint queues a savepoint named name at the head of b, for work
// in a caller's transaction that must be undone alone when it fails
// (RollbackToSavepoint) without a round trip of its own when it succeeds.
// pgx's Tx.Begin makes a savepoint too, in a round trip of its own.
func QueueSavepoint(b *pgx.Batch, name string) {
	b.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: "SAVEPOINT " + pgx.Identifier{name}.Sanitize()}}, b.QueuedQueries...)
}

// RollbackToSavepoint undoes tx's work since the savepoint name, even when
// ctx was cancelled; on a closed connection there is nothing to undo.
func RollbackToSavepoint(ctx context.Context, tx pgx.Tx, name string) {
	if tx.Conn().IsClosed() {
		return
	}
	_, _ = tx.Exec(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+pgx.Identifier{name}.Sanitize())
}
