// Package embeddedpg runs the private PostgreSQL cluster that greatbook uses
// when no DATABASE_URL is given: the system's PostgreSQL binaries, a data
// directory of our own, and a unix socket only this machine's root and the
// postgres user can reach.
//
// Several greatbook processes share one data directory safely. Whoever finds
// the cluster stopped starts it and becomes its owner; everyone else reuses
// it. Coordination uses flock(2) on files in the data directory, which the
// kernel releases when a process dies, so a SIGKILLed owner never strands a
// lock. The postmaster is started with a parent-death signal, so a SIGKILLed
// owner never strands a postgres either.
//
//	serve.lock  exclusive for the life of a `greatbook serve`: a second serve refuses
//	users.lock  shared for the life of every process using the cluster
//	start.lock  exclusive while one process checks for and starts the cluster
//	owner.lock  exclusive for the life of the owner; holds its role and pid
//
// An owner that exits waits for the other users to finish (users.lock
// exclusive) and then stops the cluster. An owner restarts a postmaster that
// exits on its own (killed, crashed) with a growing delay between attempts;
// PostgreSQL's crash recovery keeps the data. A process that merely reuses
// the cluster leaves that to the owner. A serve that finds the cluster owned
// by a short CLI command waits for that command to finish and then starts the
// cluster itself, so that the cluster lives exactly as long as the serve.
package embeddedpg

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Role says how long a process means to use the cluster.
type Role string

const (
	// RoleServer is `greatbook serve`: long-lived, at most one per data directory.
	RoleServer Role = "serve"
	// RoleClient is any other command: short-lived, reuses a running cluster.
	RoleClient Role = "cli"
)

// Port is the port number that names the unix socket. Nothing listens on TCP.
const Port = 5432

// Options configure Start.
type Options struct {
	// DataDir holds the cluster and the coordination files. Created if missing.
	DataDir string
	// Role of the calling process.
	Role Role
	// Durable keeps PostgreSQL's crash-safety settings. Tests turn it off.
	Durable bool
	// Settings are extra `-c name=value` server settings.
	Settings map[string]string
	// StartTimeout bounds how long to wait for the server to accept connections.
	StartTimeout time.Duration
	// Logger receives progress messages; nil discards them.
	Logger *slog.Logger
	// BinDir holds initdb and postgres; empty searches PATH and
	// /usr/lib/postgresql/*/bin.
	BinDir string
	// RestartDelay is the owner's first wait before restarting a postmaster
	// that exited on its own (default 250 ms); it doubles after each failed
	// attempt up to MaxRestartDelay.
	RestartDelay time.Duration
}

// MaxRestartDelay bounds the wait between two attempts to restart the cluster.
const MaxRestartDelay = 30 * time.Second

// PreviousServerWait bounds how long a start waits for the processes of a
// server that died (its owner or postmaster killed) to finish exiting.
const PreviousServerWait = 30 * time.Second

// Cluster is a running embedded cluster, started or reused by this process.
type Cluster struct {
	opts      Options
	pgRoot    string // directory holding pgdata and the socket directory
	pgdata    string
	socketDir string
	owned     bool
	cmd       *exec.Cmd
	exited    chan struct{}
	bins      binaries
	account   serverUser

	// The owner's watcher restarts the postmaster. Close cancels it and
	// waits for it before it stops the server, so no restart follows Close.
	stopWatching context.CancelFunc
	watcherDone  chan struct{}
	closeOnce    sync.Once
	closeErr     error

	serveLock *os.File
	usersLock *os.File
	ownerLock *os.File
}

// ErrServeRunning is returned to a second `serve` on the same data directory.
var ErrServeRunning = errors.New("embeddedpg: another greatbook serve is using this data directory")

// Start starts the cluster in opts.DataDir, or reuses it when another greatbook
// process already runs it.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Role == "" {
		opts.Role = RoleClient
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RestartDelay <= 0 {
		opts.RestartDelay = 250 * time.Millisecond
	}
	bins, err := findBinaries(opts.BinDir)
	if err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("embeddedpg: resolve data dir: %w", err)
	}
	opts.DataDir = dataDir
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("embeddedpg: create data dir: %w", err)
	}
	account, err := serverAccount()
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, bins: bins, account: account}
	c.pgRoot = dataDir
	if account.differs && !reachableBy(dataDir, account) {
		// The postgres user cannot search a parent of the data directory
		// (a clone under /root, a 0700 temporary directory). Keep the
		// cluster in a directory it can reach, named by the data directory.
		sum := sha256.Sum256([]byte(dataDir))
		c.pgRoot = filepath.Join("/var/lib/greatbook", hex.EncodeToString(sum[:8]))
		if err := os.MkdirAll(c.pgRoot, 0o755); err != nil {
			return nil, fmt.Errorf("embeddedpg: %s is not reachable by the postgres user and %s cannot be created: %w", dataDir, c.pgRoot, err)
		}
		_ = os.WriteFile(filepath.Join(dataDir, "CLUSTER_LOCATION"), []byte(c.pgRoot+"\n"), 0o644)
		opts.Logger.Info("cluster kept outside the data directory, which the postgres user cannot reach", "data_dir", dataDir, "cluster", c.pgRoot)
	}
	c.pgdata = filepath.Join(c.pgRoot, "pgdata")
	c.socketDir = filepath.Join(c.pgRoot, "run")
	if n := len(filepath.Join(c.socketDir, ".s.PGSQL."+strconv.Itoa(Port))); n > 100 {
		return nil, fmt.Errorf("embeddedpg: data dir path %s is too long for a unix socket (%d bytes); choose a shorter --data-dir", dataDir, n)
	}

	if opts.Role == RoleServer {
		f, err := openLock(dataDir, "serve.lock")
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid := readLockNote(f)
			f.Close()
			return nil, fmt.Errorf("%w (%s, pid %s); stop it first or use another --data-dir", ErrServeRunning, dataDir, pid)
		}
		writeLockNote(f, fmt.Sprintf("%d", os.Getpid()))
		c.serveLock = f
	}
	if err := c.join(ctx, bins, account); err != nil {
		c.release()
		return nil, err
	}
	if c.owned {
		watchCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		c.stopWatching, c.watcherDone = stop, make(chan struct{})
		go c.watch(watchCtx)
	}
	return c, nil
}

// watch restarts the postmaster whenever it exits while the cluster is
// owned and open. It alone touches c.cmd and c.exited until Close has
// stopped it.
func (c *Cluster) watch(ctx context.Context) {
	defer close(c.watcherDone)
	log := c.opts.Logger
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.exited:
		}
		if ctx.Err() != nil {
			return
		}
		log.Error("database cluster exited unexpectedly; restarting it", "dir", c.pgdata,
			"pid", c.cmd.Process.Pid, "exit", c.cmd.ProcessState.String())
		c.cmd = nil
		delay := c.opts.RestartDelay
		for attempt := 1; ; attempt++ {
			log.Warn("restarting the database cluster", "attempt", attempt, "delay", delay)
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			// The postmaster's parent-death signal follows the thread that
			// starts it; Go ends a thread only when a goroutine that locked
			// it exits, which greatbook never does, so any thread will do.
			err := c.startServer(ctx, c.bins, c.account)
			if ctx.Err() != nil {
				return // Close came during the attempt; startServer stopped what it started
			}
			if err == nil {
				log.Info("database cluster restarted", "attempt", attempt, "pid", c.cmd.Process.Pid)
				break
			}
			log.Error("restarting the database cluster failed", "attempt", attempt, "error", err)
			delay = min(2*delay, MaxRestartDelay)
		}
	}
}

// join takes the users lock and either starts the cluster or reuses it.
func (c *Cluster) join(ctx context.Context, bins binaries, account serverUser) error {
	log := c.opts.Logger
	for {
		users, err := openLock(c.opts.DataDir, "users.lock")
		if err != nil {
			return err
		}
		if err := flockContext(ctx, users, syscall.LOCK_SH); err != nil {
			users.Close()
			return err
		}
		start, err := openLock(c.opts.DataDir, "start.lock")
		if err != nil {
			users.Close()
			return err
		}
		if err := flockContext(ctx, start, syscall.LOCK_EX); err != nil {
			users.Close()
			start.Close()
			return err
		}
		owner, err := openLock(c.opts.DataDir, "owner.lock")
		if err != nil {
			users.Close()
			start.Close()
			return err
		}
		if syscall.Flock(int(owner.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			// Nobody owns the cluster: start it and own it.
			writeLockNote(owner, fmt.Sprintf("%s %d", c.opts.Role, os.Getpid()))
			c.usersLock, c.ownerLock = users, owner
			err := c.startServer(ctx, bins, account)
			start.Close()
			if err != nil {
				return err
			}
			c.owned = true
			return nil
		}
		note := strings.Fields(readLockNote(owner))
		owner.Close()
		if c.opts.Role == RoleServer && len(note) == 2 && note[0] == string(RoleClient) {
			// A short CLI command owns the cluster. Wait for it to stop the
			// cluster, then start one that lives as long as this serve.
			start.Close()
			users.Close()
			log.Info("waiting for a greatbook command to finish with the database", "pid", note[1])
			if err := waitForOwnerExit(ctx, c.opts.DataDir); err != nil {
				return err
			}
			continue
		}
		start.Close()
		c.usersLock = users
		log.Info("reusing the running database cluster", "data_dir", c.opts.DataDir)
		return c.waitReady(ctx, nil)
	}
}

// Owned reports whether this process started the cluster and will stop it.
func (c *Cluster) Owned() bool { return c.owned }

// SocketDir is the directory of the server's unix socket.
func (c *Cluster) SocketDir() string { return c.socketDir }

// DataDir is the data directory the cluster was started for.
func (c *Cluster) DataDir() string { return c.opts.DataDir }

// ConnString returns a libpq keyword/value connection string for database db.
func (c *Cluster) ConnString(db string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.socketDir, Port, db)
}

// URL returns a postgres:// URL for database db.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.socketDir}, "sslmode": {"disable"}}
	return fmt.Sprintf("postgres://postgres@:%d/%s?%s", Port, url.PathEscape(db), q.Encode())
}

// EnsureDatabase creates database name if it does not exist.
func (c *Cluster) EnsureDatabase(ctx context.Context, name string) error {
	conn, err := pgconn.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		return fmt.Errorf("embeddedpg: connect: %w", err)
	}
	defer conn.Close(context.Background())
	quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	_, err = conn.Exec(ctx, "CREATE DATABASE "+quoted).ReadAll()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
		return nil // exists, or created concurrently by another process
	}
	if err != nil {
		return fmt.Errorf("embeddedpg: create database %s: %w", name, err)
	}
	return nil
}

// Close leaves the cluster. The owner stops restarting it, waits for the
// other users to finish and stops the server; anyone else just lets go.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Cluster) close() error {
	if c.stopWatching != nil {
		c.stopWatching()
		<-c.watcherDone
	}
	var err error
	if c.owned && c.cmd != nil {
		// Let other processes finish first: they hold users.lock shared.
		_ = syscall.Flock(int(c.usersLock.Fd()), syscall.LOCK_UN)
		_ = syscall.Flock(int(c.usersLock.Fd()), syscall.LOCK_EX)
		err = c.stopServer()
	}
	c.release()
	return err
}

func (c *Cluster) release() {
	for _, f := range []*os.File{c.ownerLock, c.usersLock, c.serveLock} {
		if f != nil {
			f.Close()
		}
	}
	c.ownerLock, c.usersLock, c.serveLock = nil, nil, nil
}

// startServer initialises the cluster when needed and starts the postmaster.
func (c *Cluster) startServer(ctx context.Context, bins binaries, account serverUser) error {
	log := c.opts.Logger
	for _, dir := range []string{c.pgRoot} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("embeddedpg: %w", err)
		}
	}
	for _, dir := range []string{c.pgdata, c.socketDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("embeddedpg: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("embeddedpg: %w", err)
		}
		if account.differs {
			if err := os.Chown(dir, account.uid, account.gid); err != nil {
				return fmt.Errorf("embeddedpg: give %s to the postgres user: %w", dir, err)
			}
		}
	}
	if err := c.stopOrphan(); err != nil {
		return err
	}
	if err := c.awaitPreviousServer(ctx); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.pgdata, "PG_VERSION")); errors.Is(err, fs.ErrNotExist) {
		log.Info("initialising database cluster", "dir", c.pgdata)
		args := []string{"-D", c.pgdata, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"}
		if !c.opts.Durable {
			args = append(args, "--no-sync")
		}
		cmd := exec.CommandContext(ctx, bins.initdb, args...)
		cmd.Dir = c.pgRoot
		cmd.SysProcAttr = account.sysProcAttr(false)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("embeddedpg: initdb: %w: %s", err, lastLines(out, 5))
		}
	}

	logFile, err := os.OpenFile(filepath.Join(c.pgRoot, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("embeddedpg: open server log: %w", err)
	}
	defer logFile.Close()
	args := []string{"-D", c.pgdata, "-k", c.socketDir, "-p", strconv.Itoa(Port),
		"-c", "listen_addresses=", "-c", "unix_socket_permissions=0700",
		// greatbook runs short statements; compiling one, or starting
		// parallel workers for one, costs more than it saves (migrations
		// 00008 and 00039 say the same to an external database).
		"-c", "jit=off", "-c", "max_parallel_workers_per_gather=0"}
	if !c.opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	for k, v := range c.opts.Settings {
		args = append(args, "-c", k+"="+v)
	}
	cmd := exec.Command(bins.postgres, args...)
	cmd.Dir = c.pgRoot
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = account.sysProcAttr(true)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("embeddedpg: start postgres: %w", err)
	}
	c.cmd = cmd
	c.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(c.exited) }()
	if err := c.waitReady(ctx, c.exited); err != nil {
		_ = c.stopServer()
		return fmt.Errorf("%w; server log: %s", err, filepath.Join(c.pgRoot, "postgres.log"))
	}
	log.Info("database cluster started", "dir", c.pgdata, "pid", cmd.Process.Pid)
	return nil
}

// stopOrphan stops a postmaster that runs on our data directory although no
// greatbook process owns it (one started by hand, or one that outlived an
// owner in a way the parent-death signal did not cover), and removes a stale
// lock file whose pid now belongs to another program.
func (c *Cluster) stopOrphan() error {
	pidFile := filepath.Join(c.pgdata, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return nil
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return nil
	}
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if !strings.HasPrefix(string(comm), "postgres") {
		return nil // postgres itself detects and replaces a stale lock file
	}
	c.opts.Logger.Warn("stopping a postgres left running on this data directory without an owner", "pid", pid)
	_ = syscall.Kill(pid, syscall.SIGINT)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("embeddedpg: postgres pid %d on %s did not stop", pid, c.pgdata)
}

// awaitPreviousServer waits until no process of an earlier server works in
// the cluster. A postmaster that was killed leaves children that exit only
// when they next look (a backend finishing its query), and until then they
// hold the old shared memory: a postmaster started meanwhile exits at once
// ("pre-existing shared memory block is still in use").
func (c *Cluster) awaitPreviousServer(ctx context.Context) error {
	pids := serverProcesses(c.pgdata)
	if len(pids) == 0 {
		return nil
	}
	log := c.opts.Logger
	log.Warn("waiting for the previous database server's processes to exit", "dir", c.pgdata, "pids", pids)
	deadline := time.Now().Add(PreviousServerWait)
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("embeddedpg: waiting for the previous server's processes: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if pids = serverProcesses(c.pgdata); len(pids) == 0 {
			log.Info("the previous database server's processes have exited", "dir", c.pgdata)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("embeddedpg: postgres processes %v of a previous server still use %s after %s; stop them", pids, c.pgdata, PreviousServerWait)
		}
	}
}

// serverProcesses lists the live postgres processes working in pgdata: a
// postmaster and all its children run there. An exited process (a zombie
// not yet reaped) no longer has a working directory or shared memory, so it
// does not count.
func serverProcesses(pgdata string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		if cwd, _ := os.Readlink(filepath.Join(dir, "cwd")); cwd != pgdata {
			continue
		}
		if comm, _ := os.ReadFile(filepath.Join(dir, "comm")); strings.HasPrefix(string(comm), "postgres") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitReady polls the socket until the server accepts connections. exited,
// when not nil, reports that the server process ended while we waited.
func (c *Cluster) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	var lastErr error
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgconn.Connect(attempt, c.ConnString("postgres"))
		cancelAttempt()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		lastErr = err
		select {
		case <-exited:
			return fmt.Errorf("embeddedpg: postgres exited during start: %w", lastErr)
		case <-ctx.Done():
			return fmt.Errorf("embeddedpg: postgres did not accept connections within %s: %w", c.opts.StartTimeout, lastErr)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// stopServer asks the postmaster for a fast shutdown and waits for it.
func (c *Cluster) stopServer() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return nil
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(60 * time.Second):
		_ = c.cmd.Process.Signal(syscall.SIGQUIT)
		<-c.exited
	}
	c.opts.Logger.Info("database cluster stopped", "dir", c.pgdata)
	c.cmd = nil
	return nil
}

// waitForOwnerExit blocks until owner.lock can be taken, that is until the
// current owner has stopped the cluster and exited.
func waitForOwnerExit(ctx context.Context, dataDir string) error {
	owner, err := openLock(dataDir, "owner.lock")
	if err != nil {
		return err
	}
	defer owner.Close()
	return flockContext(ctx, owner, syscall.LOCK_EX)
}

func openLock(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("embeddedpg: open %s: %w", name, err)
	}
	return f, nil
}

// flockContext takes a flock, polling so that ctx can cancel the wait.
func flockContext(ctx context.Context, f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("embeddedpg: lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("embeddedpg: waiting for %s: %w", filepath.Base(f.Name()), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func writeLockNote(f *os.File, note string) {
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(note+"\n"), 0)
}

func readLockNote(f *os.File) string {
	buf := make([]byte, 128)
	n, _ := f.ReadAt(buf, 0)
	return strings.TrimSpace(string(buf[:n]))
}

func lastLines(out []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte(" | ")))
}

// binaries are the server programs, found on PATH or in Debian's layout.
type binaries struct{ initdb, postgres string }

// ErrBinariesMissing says the PostgreSQL server programs are not installed.
var ErrBinariesMissing = errors.New("embeddedpg: PostgreSQL server binaries (initdb, postgres) not found; install the Debian package postgresql-15 (apt-get install postgresql-15) or set DATABASE_URL")

func findBinaries(binDir string) (binaries, error) {
	var b binaries
	dirs := []string{binDir}
	if binDir == "" {
		dirs = nil
		if p, err := exec.LookPath("initdb"); err == nil {
			dirs = append(dirs, filepath.Dir(p))
		}
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		for i := len(matches) - 1; i >= 0; i-- {
			dirs = append(dirs, matches[i])
		}
	}
	for _, d := range dirs {
		initdb, postgres := filepath.Join(d, "initdb"), filepath.Join(d, "postgres")
		if isExecutable(initdb) && isExecutable(postgres) {
			b.initdb, b.postgres = initdb, postgres
			return b, nil
		}
	}
	return b, ErrBinariesMissing
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// serverUser is the account the server programs run as: `postgres` when we
// are root (PostgreSQL refuses to run as root), ourselves otherwise.
type serverUser struct {
	uid, gid int
	differs  bool
}

func serverAccount() (serverUser, error) {
	if os.Geteuid() != 0 {
		return serverUser{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return serverUser{}, fmt.Errorf("embeddedpg: running as root needs the postgres system user, which the Debian package postgresql-15 creates: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return serverUser{uid: uid, gid: gid, differs: true}, nil
}

// sysProcAttr runs a child as the server account, in its own process group
// (a terminal's Ctrl-C reaches us, and we shut the server down in order). The
// postmaster gets SIGQUIT, an immediate shutdown, when its parent dies.
func (a serverUser) sysProcAttr(postmaster bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a.differs {
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)}
	}
	if postmaster {
		attr.Pdeathsig = syscall.SIGQUIT
	}
	return attr
}

// reachableBy reports whether every directory from / down to dir can be
// searched by the given account (the server needs to traverse them).
func reachableBy(dir string, a serverUser) bool {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return false
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		mode := st.Mode().Perm()
		var searchable bool
		switch {
		case int(sys.Uid) == a.uid:
			searchable = mode&0o100 != 0
		case int(sys.Gid) == a.gid:
			searchable = mode&0o010 != 0
		default:
			searchable = mode&0o001 != 0
		}
		if !searchable {
			return false
		}
		if d == "/" {
			return true
		}
	}
}
