package embeddedpg_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/embeddedpg"
)

// shortDir returns a directory the postgres user can reach with a path short
// enough for a unix socket (t.TempDir parents are 0700 and long).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "gbpg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func query(t *testing.T, c *embeddedpg.Cluster, sql string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), c.ConnString("postgres"))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(context.Background())
	var out string
	if err := conn.QueryRow(context.Background(), sql).Scan(&out); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func TestStartReuseAndRestart(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(shortDir(t), "data")

	first, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleServer})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if !first.Owned() {
		t.Fatal("the first process should own the cluster it started")
	}
	pid := query(t, first, "SELECT pg_postmaster_start_time()::text")

	// A second process (here: a second Cluster in this process; flock
	// treats separate opens like separate processes) reuses the cluster.
	second, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleClient})
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	if second.Owned() {
		t.Fatal("the second process must reuse, not own, the running cluster")
	}
	if got := query(t, second, "SELECT pg_postmaster_start_time()::text"); got != pid {
		t.Fatalf("second process reached another server: %s vs %s", got, pid)
	}
	if err := second.EnsureDatabase(ctx, "greatbook"); err != nil {
		t.Fatal(err)
	}
	if err := first.EnsureDatabase(ctx, "greatbook"); err != nil {
		t.Fatalf("EnsureDatabase must be idempotent: %v", err)
	}

	// A second serve refuses clearly.
	_, err = embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleServer})
	if !errors.Is(err, embeddedpg.ErrServeRunning) {
		t.Fatalf("second serve: got %v, want ErrServeRunning", err)
	}

	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the owner's Close must stop the server (postmaster.pid: %v)", err)
	}

	// The next start keeps the data.
	again, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := query(t, again, "SELECT count(*)::text FROM pg_database WHERE datname = 'greatbook'"); got != "1" {
		t.Fatalf("database lost across restart")
	}
}

func TestUnreachableDataDirFallsBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another user")
	}
	base := shortDir(t)
	private := filepath.Join(base, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := embeddedpg.Start(context.Background(), embeddedpg.Options{DataDir: filepath.Join(private, "d")})
	if err != nil {
		t.Fatalf("start under a 0700 parent: %v", err)
	}
	defer func() {
		c.Close()
		loc, _ := os.ReadFile(filepath.Join(private, "d", "CLUSTER_LOCATION"))
		if len(loc) > 0 {
			os.RemoveAll(string(loc[:len(loc)-1]))
		}
	}()
	query(t, c, "SELECT 'ok'")
}
