// Package database opens greatbook's PostgreSQL pool, applies the embedded
// migrations and runs functions in transactions.
package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"greatbook/migrations"
)

// Executor is the one way greatbook reaches its data: a pool, a connection
// and a transaction all satisfy it, as River's driver executor does.
//
// The rule: a function that may join its caller's transaction takes an
// Executor (never a *pgxpool.Pool), so a caller can pass its pgx.Tx and the
// function's work commits or rolls back with the caller's. Begin on a
// transaction starts a savepoint, so a function that opens its own
// transaction (WithTx) nests inside the caller's. A function that must run
// inside a transaction (ledger.PostTx and the other ...Tx functions) takes a
// pgx.Tx instead, and one that must run a transaction of its own
// (ledger.Post, through WithPipelinedTx) takes the pool: nothing switches on
// the type of what it was handed.
//
// Service structs hold an Executor too; one shared by concurrent requests
// must be given a pool, since a Tx or Conn serves one goroutine at a time.
// Only code that needs what a pool alone offers (Close, Ping, use from
// goroutines it starts itself, a connection of its own for a pipelined
// transaction) holds the concrete *pgxpool.Pool, and says why.
type Executor interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

var (
	_ Executor = (*pgxpool.Pool)(nil)
	_ Executor = (*pgx.Conn)(nil)
	_ Executor = pgx.Tx(nil)
)

// Open connects a pool to connString and checks that the server answers.
func Open(ctx context.Context, connString string, maxConns int32) (*pgxpool.Pool, error) {
	return OpenTraced(ctx, connString, maxConns, nil)
}

// OpenTraced is Open with a query tracer on every connection (make bench
// uses one to time a page's own SQL).
func OpenTraced(ctx context.Context, connString string, maxConns int32, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("database: parse connection string: %w", err)
	}
	if tracer != nil {
		cfg.ConnConfig.Tracer = tracer
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database: connect: %w", err)
	}
	return pool, nil
}

// WithTx runs fn in a transaction and commits when fn returns nil. It always
// rolls back on error, even when ctx was cancelled meanwhile.
func WithTx(ctx context.Context, db Executor, fn func(tx pgx.Tx) error) error {
	_, err := WithTxV(ctx, db, func(tx pgx.Tx) (struct{}, error) { return struct{}{}, fn(tx) })
	return err
}

// WithTxV is WithTx for functions that return a value.
func WithTxV[T any](ctx context.Context, db Executor, fn func(tx pgx.Tx) (T, error)) (T, error) {
	var zero T
	tx, err := db.Begin(ctx)
	if err != nil {
		return zero, fmt.Errorf("database: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	v, err := fn(tx)
	if err != nil {
		return zero, err
	}
	if err := tx.Commit(ctx); err != nil {
		return zero, fmt.Errorf("database: commit: %w", err)
	}
	return v, nil
}

// Migrate applies every pending migration. Concurrent callers (two processes
// starting at once) serialise on goose's session advisory lock; a waiting
// caller tries it every second for five minutes. It takes the pool itself:
// goose runs over a database/sql handle made from it.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return fmt.Errorf("database: migration lock: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("database: migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("database: migrate: %w", err)
	}
	if logger != nil {
		for _, r := range results {
			logger.Info("migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
		}
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique violation of constraint
// (any constraint when constraint is empty).
func IsUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && (constraint == "" || pgErr.ConstraintName == constraint)
}

// IsRetryableConflict reports whether err is a deadlock or serialization
// failure, which the whole transaction may simply be run again for.
func IsRetryableConflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
