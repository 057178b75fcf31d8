// Package testkit gives tests real parts: one embedded PostgreSQL server per
// test binary (or TEST_DATABASE_URL), a fresh migrated database per test, and
// small factories for the objects most tests need.
package testkit

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver pgtestdb opens
	"github.com/peterldowns/pgtestdb"
	"github.com/peterldowns/pgtestdb/migrators/goosemigrator"

	"greatbook/internal/embeddedpg"
	"greatbook/internal/ledger"
	"greatbook/migrations"
)

var (
	serverOnce sync.Once
	serverConf pgtestdb.Config
	serverErr  error
	cluster    *embeddedpg.Cluster
	clusterDir string

	atExitMu sync.Mutex
	atExit   []func()
)

// Main runs the tests of a package and then stops what testkit started.
// Use it as: func TestMain(m *testing.M) { testkit.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	atExitMu.Lock()
	for i := len(atExit) - 1; i >= 0; i-- {
		atExit[i]()
	}
	atExitMu.Unlock()
	if cluster != nil {
		_ = cluster.Close()
		os.RemoveAll(clusterDir)
	}
	os.Exit(code)
}

// AtExit registers f to run after all tests of the binary.
func AtExit(f func()) {
	atExitMu.Lock()
	defer atExitMu.Unlock()
	atExit = append(atExit, f)
}

// server returns the pgtestdb configuration of the test server, starting the
// embedded one on first use unless TEST_DATABASE_URL names another.
func server() (pgtestdb.Config, error) {
	serverOnce.Do(func() {
		if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
			serverConf, serverErr = configFromURL(u)
			return
		}
		serverConf, serverErr = startEmbedded()
	})
	return serverConf, serverErr
}

func configFromURL(u string) (pgtestdb.Config, error) {
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return pgtestdb.Config{}, fmt.Errorf("testkit: TEST_DATABASE_URL: %w", err)
	}
	c := pgtestdb.Config{DriverName: "pgx", User: cfg.User, Password: cfg.Password, Database: cfg.Database,
		Port: strconv.Itoa(int(cfg.Port)), Options: "sslmode=disable", ForceTerminateConnections: true}
	if filepath.IsAbs(cfg.Host) {
		c.Options += "&host=" + url.QueryEscape(cfg.Host)
	} else {
		c.Host = cfg.Host
	}
	return c, nil
}

// startEmbedded starts a throwaway server for this test binary. initdb runs
// once per machine into a template directory; each binary copies it (0.1 s
// instead of 1 s).
func startEmbedded() (pgtestdb.Config, error) {
	base := "/tmp/greatbook-testpg"
	if err := os.MkdirAll(base, 0o755); err != nil {
		return pgtestdb.Config{}, err
	}
	_ = os.Chmod(base, 0o755)
	template := filepath.Join(base, "template-"+strconv.Itoa(os.Geteuid()))
	if err := ensureTemplate(base, template); err != nil {
		return pgtestdb.Config{}, err
	}
	dir, err := os.MkdirTemp(base, "run-")
	if err != nil {
		return pgtestdb.Config{}, err
	}
	_ = os.Chmod(dir, 0o755)
	if out, err := exec.Command("cp", "-a", filepath.Join(template, "pgdata"), filepath.Join(dir, "pgdata")).CombinedOutput(); err != nil {
		return pgtestdb.Config{}, fmt.Errorf("testkit: copy template cluster: %v: %s", err, out)
	}
	clusterDir = dir
	cluster, err = embeddedpg.Start(context.Background(), embeddedpg.Options{
		DataDir: dir, Role: embeddedpg.RoleClient, Durable: false,
		Settings: map[string]string{"max_connections": "400", "shared_buffers": "64MB"},
	})
	if err != nil {
		return pgtestdb.Config{}, err
	}
	return pgtestdb.Config{DriverName: "pgx", User: "postgres", Database: "postgres", Port: strconv.Itoa(embeddedpg.Port),
		Options: "sslmode=disable&host=" + url.QueryEscape(cluster.SocketDir()), ForceTerminateConnections: true}, nil
}

// ensureTemplate initialises the template cluster once, under a file lock
// that parallel test binaries share.
func ensureTemplate(base, template string) error {
	lock, err := os.OpenFile(filepath.Join(base, "template.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(template, "READY")); err == nil {
		return nil
	}
	os.RemoveAll(template)
	c, err := embeddedpg.Start(context.Background(), embeddedpg.Options{DataDir: template, Durable: false})
	if err != nil {
		return err
	}
	if err := c.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(template, "READY"), nil, 0o644)
}

// DB is a fresh, migrated database for one test.
type DB struct {
	Pool *pgxpool.Pool
	URL  string
}

var migrator = goosemigrator.New(".", goosemigrator.WithFS(migrations.FS))

// NewDB returns a fresh database with every migration applied. It is dropped
// after the test when the test passed.
func NewDB(t testing.TB) *DB {
	t.Helper()
	conf, err := server()
	if err != nil {
		t.Fatalf("testkit: database server: %v", err)
	}
	instance := pgtestdb.Custom(t, conf, migrator)
	u := instance.URL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	cfg.MaxConns = 40
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("testkit: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	t.Cleanup(func() { checkBalances(t, u) })
	return &DB{Pool: pool, URL: u}
}

// checkBalances fails the test if the ledger's kept balances are not the
// sums of its journal lines, whatever the test did to the ledger. On a
// test's few lines it costs a millisecond or two.
// It connects on its own: a test may have closed its pool (to see what
// happens without a database).
func checkBalances(t testing.TB, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("testkit: check the ledger's balances: %v", err)
		return
	}
	defer conn.Close(ctx)
	diffs, err := ledger.CheckBalances(ctx, conn, 0)
	if err != nil {
		t.Errorf("testkit: check the ledger's balances: %v", err)
		return
	}
	for _, d := range diffs {
		t.Errorf("testkit: the ledger's balances are not the sums of its lines: %s", d)
	}
}

// Conn opens a dedicated connection to the test database, closed after the
// test: for proving what one session sees while another holds a lock.
func (d *DB) Conn(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), d.URL)
	if err != nil {
		t.Fatalf("testkit: connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// SocketDir returns the embedded test server's socket directory ("" with
// TEST_DATABASE_URL), for tools such as pgbench.
func SocketDir() string {
	if cluster == nil {
		return ""
	}
	return cluster.SocketDir()
}

// emptyMigrator leaves a database without schema.
type emptyMigrator struct{}

func (emptyMigrator) Hash() (string, error) { return "empty", nil }

func (emptyMigrator) Migrate(context.Context, *sql.DB, pgtestdb.Config) error { return nil }

// NewEmptyDB returns a fresh database with no migrations applied.
func NewEmptyDB(t testing.TB) *DB {
	t.Helper()
	conf, err := server()
	if err != nil {
		t.Fatalf("testkit: database server: %v", err)
	}
	instance := pgtestdb.Custom(t, conf, emptyMigrator{})
	pool, err := pgxpool.New(context.Background(), instance.URL())
	if err != nil {
		t.Fatalf("testkit: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return &DB{Pool: pool, URL: instance.URL()}
}
