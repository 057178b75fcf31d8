package database

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotSessionMode says DATABASE_URL points at a connection whose session
// state does not survive between statements: a pooler in transaction or
// statement mode. Advisory locks held across statements, and the leases of
// durable runs, need a stable session.
var ErrNotSessionMode = errors.New("database: DATABASE_URL must be a session-mode connection (direct, or a pooler in session mode): session state did not survive from one statement to the next; greatbook holds advisory locks and run leases across statements")

// CheckSessionMode proves that session state survives between statements on
// one connection. It sets a session variable on connection A, then has a
// second connection B occupy a server backend inside a transaction. Behind a
// transaction-mode pooler B is handed the backend A just used (or A's next
// statement lands on another backend); either way the check sees it.
func CheckSessionMode(ctx context.Context, connString string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return fmt.Errorf("database: parse connection string: %w", err)
	}
	// A pooler in transaction mode cannot keep prepared statements either.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	a, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("database: connect: %w", err)
	}
	defer a.Close(context.WithoutCancel(ctx))
	token := make([]byte, 8)
	_, _ = rand.Read(token)
	want := hex.EncodeToString(token)
	var pidA1 int32
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid(), set_config('greatbook.session_check', $1, false)", want).Scan(&pidA1, new(string)); err != nil {
		return fmt.Errorf("database: session check: %w", err)
	}

	// B takes a backend inside a transaction. A transaction-mode pooler
	// hands it A's idle backend at once; a session-mode pooler whose pool
	// is exhausted (A holds the only backend) makes it wait, which says
	// session mode, and A's own state is then all there is to check.
	probeCtx, cancelProbe := context.WithTimeout(ctx, 3*time.Second)
	defer cancelProbe()
	b, err := pgx.ConnectConfig(probeCtx, cfg)
	if err == nil {
		defer b.Close(context.WithoutCancel(ctx))
		var pidB int32
		var tx pgx.Tx
		tx, err = b.Begin(probeCtx)
		if err == nil {
			defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
			err = tx.QueryRow(probeCtx, "SELECT pg_backend_pid()").Scan(&pidB)
		}
		if err == nil && pidB == pidA1 {
			return ErrNotSessionMode
		}
	}
	if err != nil && probeCtx.Err() == nil {
		return fmt.Errorf("database: session check: %w", err)
	}
	var pidA2 int32
	var got *string
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid(), current_setting('greatbook.session_check', true)").Scan(&pidA2, &got); err != nil {
		if ctx.Err() != nil {
			// The pooler has no backend for A while B holds the only one.
			return ErrNotSessionMode
		}
		return fmt.Errorf("database: session check: %w", err)
	}
	if pidA2 != pidA1 || got == nil || *got != want {
		return ErrNotSessionMode
	}
	return nil
}
