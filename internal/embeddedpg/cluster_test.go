package embeddedpg_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/embeddedpg"
	"greatbook/internal/testkit"
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

func postmasterPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	if err != nil {
		t.Fatalf("no running cluster: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// postgresRunning reports whether a postgres process works in dir's cluster.
func postgresRunning(dir string) bool {
	pgdata := filepath.Join(dir, "pgdata")
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if strings.HasPrefix(string(comm), "postgres") && cwd == pgdata {
			return true
		}
	}
	return false
}

func killPostmaster(t *testing.T, dir string) {
	t.Helper()
	pid := postmasterPID(t, dir)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The owner reaps its child at once; until then it is a zombie.
	testkit.Eventually(t, 30*time.Second, fmt.Sprintf("postmaster %d gone after SIGKILL", pid), func() (bool, error) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(stat), ") Z "), nil
	})
}

func TestTheOwnerRestartsAKilledPostmasterAndKeepsTheData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(shortDir(t), "data")
	var logs testkit.LogBuffer
	c, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleServer, Durable: true,
		RestartDelay: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept AS SELECT 'before the crash'::text AS note"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	started := query(t, c, "SELECT pg_postmaster_start_time()::text")

	for round := 1; round <= 2; round++ {
		old := postmasterPID(t, dir)
		killPostmaster(t, dir)
		var conn *pgx.Conn
		if perr := testkit.PollEvery(20*time.Millisecond, 60*time.Second, func() (bool, error) {
			conn, err = pgx.Connect(ctx, c.ConnString("postgres"))
			return err == nil, nil
		}); perr != nil {
			t.Fatalf("round %d: the cluster never came back (%v): %v\n%s", round, perr, err, logs.String())
		}
		var note, now string
		if err := conn.QueryRow(ctx, "SELECT (SELECT note FROM kept), pg_postmaster_start_time()::text").Scan(&note, &now); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
		if note != "before the crash" || now == started || postmasterPID(t, dir) == old {
			t.Fatalf("round %d: note %q, start time %s (was %s)", round, note, now, started)
		}
		started = now
		// The owner logs the restart once it has seen the server accept
		// connections; the next kill must come after that, or it would
		// count as a failed attempt of this restart.
		if err := testkit.Poll(30*time.Second, func() (bool, error) {
			return strings.Count(logs.String(), "database cluster restarted") == round, nil
		}); err != nil {
			t.Fatalf("round %d: the restart was not logged (%v):\n%s", round, err, logs.String())
		}
	}

	if !strings.Contains(logs.String(), "database cluster exited unexpectedly") {
		t.Fatalf("the crash was not logged:\n%s", logs.String())
	}
}

func TestCloseDuringARestartLeavesTheClusterStopped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(shortDir(t), "data")
	const delay = 500 * time.Millisecond
	c, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleServer, RestartDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	killPostmaster(t, dir)
	// Close while the owner waits to restart: Close stops the watcher
	// before it returns, so nothing may start afterwards.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	// The killed postmaster's backends exit on their own.
	if err := testkit.PollEvery(20*time.Millisecond, 30*time.Second, func() (bool, error) { return !postgresRunning(dir), nil }); err != nil {
		t.Fatalf("postgres still runs after Close: %v", err)
	}
	time.Sleep(4 * delay) // past the restart delay: a leaked restart would run now
	if postgresRunning(dir) {
		t.Fatal("the cluster was restarted after Close")
	}
}

// TestOwnerProcess is not a test: run by the tests below as a child process
// (GREATBOOK_TEST_OWNER set to a data directory), it starts and owns the
// cluster there, says "ready" on stdout and waits to be killed.
func TestOwnerProcess(t *testing.T) {
	dir := os.Getenv("GREATBOOK_TEST_OWNER")
	if dir == "" {
		t.Skip("only run as a child process by the tests that kill an owner")
	}
	// The owner's watcher must not restart a killed postmaster while the
	// test kills the owner too.
	c, err := embeddedpg.Start(context.Background(), embeddedpg.Options{DataDir: dir, Role: embeddedpg.RoleServer,
		Durable: true, RestartDelay: time.Hour, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		os.Exit(3)
	}
	defer c.Close() // never: the test kills this process
	fmt.Println("ready")
	select {}
}

// ownerProcess is a child process owning the cluster in dir.
type ownerProcess struct {
	cmd   *exec.Cmd
	ready chan struct{}
	done  chan error
	log   *testkit.LogBuffer
}

func startOwner(t *testing.T, dir string) *ownerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnerProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "GREATBOOK_TEST_OWNER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &ownerProcess{cmd: cmd, ready: make(chan struct{}), done: make(chan error, 1), log: &testkit.LogBuffer{}}
	cmd.Stderr = o.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if lines.Text() == "ready" {
				close(o.ready)
			}
		}
		o.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-o.done
		if t.Failed() {
			t.Logf("owner %d logged:\n%s", cmd.Process.Pid, o.log.String())
		}
	})
	return o
}

// waitReady waits for the owner to have started the cluster.
func (o *ownerProcess) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-o.ready:
	case err := <-o.done:
		o.done <- err
		t.Fatalf("the owner exited before its cluster was ready: %v\n%s", err, o.log.String())
	case <-time.After(120 * time.Second):
		t.Fatalf("the owner never became ready:\n%s", o.log.String())
	}
}

// A SIGKILLed owner whose postmaster was killed first (the OOM killer, an
// operator's kill -9 of both) leaves postgres children that have not yet
// noticed: a backend busy in a query keeps the old shared memory attached.
// The next owner, started at once, must wait for them rather than fail on
// "pre-existing shared memory block is still in use", and keep the data.
func TestANewOwnerWaitsForTheKilledServersProcessesAndKeepsTheData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(shortDir(t), "data")
	old := startOwner(t, dir)
	old.waitReady(t)
	url := fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", filepath.Join(dir, "run"), embeddedpg.Port)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept AS SELECT 'before the kill'::text AS note"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	// A backend in a CPU-bound query checks for its postmaster's death only
	// when it next waits; the statement timeout ends it should the test die.
	busy, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var backend int
	if err := busy.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if _, err := busy.Exec(ctx, "SET statement_timeout = '10min'"); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = busy.Exec(ctx, "SELECT count(*) FROM pg_class a, pg_class b, pg_class c, pg_class d")
		busy.Close(ctx)
	}()
	watch, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "the busy query never started", func() (bool, error) {
		var active bool
		err := watch.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1 AND state = 'active')", backend).Scan(&active)
		return active, err
	})
	watch.Close(ctx)

	killPostmaster(t, dir)
	if err := old.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-old.done
	old.done <- nil
	if !postgresRunning(dir) {
		t.Fatal("the busy backend did not outlive its postmaster; the test proves nothing")
	}

	// At once, without waiting for the old processes.
	next := startOwner(t, dir)
	exited, err := false, error(nil)
	if perr := testkit.Poll(60*time.Second, func() (bool, error) {
		if strings.Contains(next.log.String(), "waiting for the previous database server's processes to exit") {
			return true, nil
		}
		select {
		case err = <-next.done:
			next.done <- err
			exited = true
			return true, nil
		default:
		}
		return false, nil
	}); perr != nil {
		t.Fatalf("the new owner neither waited nor failed (%v):\n%s", perr, next.log.String())
	}
	if exited {
		t.Fatalf("the new owner did not wait for the old backend: %v\n%s", err, next.log.String())
	}
	// The old backend goes (here: killed; on its own it would go when its
	// query ends), and the new owner starts the cluster on the data.
	if err := syscall.Kill(backend, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	next.waitReady(t)
	conn, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var note string
	if err := conn.QueryRow(ctx, "SELECT note FROM kept").Scan(&note); err != nil || note != "before the kill" {
		t.Fatalf("the data after the restart: %q %v", note, err)
	}
}
