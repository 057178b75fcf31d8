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
	if err := a.QueryRow(ctx, markSessionSQL, want).Scan(&pidA1, new(string)); err != nil {
		return fmt.Errorf("database: session check: %w", err)
	}

	// B takes a backend inside a transaction, and holds it while A looks
	// again. A transaction-mode pooler hands B A's idle backend at once; a
	// session-mode pooler whose pool is exhausted (A holds the only
	// backend) makes it wait, which says session mode, and A's own state is
	// then all there is to check.
	probeCtx, cancelProbe := context.WithTimeout(ctx, 3*time.Second)
	defer cancelProbe()
	b, err := pgx.ConnectConfig(probeCtx, cfg)
	if err == nil {
		defer b.Close(context.WithoutCancel(ctx))
		decided := false
		var verdict error
		// B's transaction only holds a backend: it writes nothing, and
		// whether it commits does not matter once A has looked again.
		err = WithTx(probeCtx, b, func(tx pgx.Tx) error {
			var pidB int32
			if err := tx.QueryRow(probeCtx, backendPIDSQL).Scan(&pidB); err != nil {
				return err
			}
			decided = true
			if pidB == pidA1 {
				verdict = ErrNotSessionMode
			} else {
				verdict = lookAgain(ctx, a, pidA1, want)
			}
			return nil
		})
		if decided {
			return verdict
		}
	}
	if err != nil && probeCtx.Err() == nil {
		return fmt.Errorf("database: session check: %w", err)
	}
	return lookAgain(ctx, a, pidA1, want)
}

// lookAgain checks that A's next statement runs on A's backend, pidA1,
// and sees the token want that A's first statement set there.
func lookAgain(ctx context.Context, a *pgx.Conn, pidA1 int32, want string) error {
	var pidA2 int32
	var got *string
	if err := a.QueryRow(ctx, readSessionMarkSQL).Scan(&pidA2, &got); err != nil {
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
