package testkit

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// RefuseConnections makes db refuse every new connection and throws out the
// ones it has, as a stopped or crashed server would, without touching the
// other tests' databases. The returned function lets connections in again;
// cleanup does so too.
func RefuseConnections(t testing.TB, db *DB) (restore func()) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("testkit: connect: %v", err)
	}
	exec := func(sql string, args ...any) {
		if _, err := admin.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("testkit: %s: %v", sql, err)
		}
	}
	quoted := pgx.Identifier{name}.Sanitize()
	exec(`ALTER DATABASE ` + quoted + ` ALLOW_CONNECTIONS false`)
	exec(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, name)
	restored := false
	restore = func() {
		if !restored {
			restored = true
			exec(`ALTER DATABASE ` + quoted + ` ALLOW_CONNECTIONS true`)
		}
	}
	t.Cleanup(func() { restore(); admin.Close(ctx) })
	return restore
}
