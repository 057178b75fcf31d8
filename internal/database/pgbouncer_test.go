package database_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

// startPgbouncer runs Debian's pgbouncer in front of the test database.
func startPgbouncer(t *testing.T, dbURL, poolMode string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
		if _, err := os.Stat(bin); err != nil {
			t.Skip("pgbouncer is not installed (make test-deps installs it as root)")
		}
	}
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "gbpgb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	_ = os.Chmod(dir, 0o755)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ini := fmt.Sprintf(`[databases]
testdb = host=%s port=%d dbname=%s user=%s password=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = %s
default_pool_size = 1
max_client_conn = 20
logfile = %s
ignore_startup_parameters = extra_float_digits
`, cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password, port, poolMode, filepath.Join(dir, "pgbouncer.log"))
	confPath := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(confPath, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, confPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		// pgbouncer refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("no postgres user to run pgbouncer as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		_ = os.Chown(dir, uid, gid)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := testkit.PollEvery(20*time.Millisecond, 10*time.Second, func() (bool, error) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		t.Fatalf("pgbouncer did not start (%v): %s", err, log)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(cfg.User, cfg.Password), Host: addr, Path: "/testdb", RawQuery: "sslmode=disable"}
	return u.String()
}

func TestSessionModeCheckAgainstPgbouncer(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	t.Run("transaction mode is refused", func(t *testing.T) {
		url := startPgbouncer(t, db.URL, "transaction")
		err := database.CheckSessionMode(context.Background(), url)
		if !errors.Is(err, database.ErrNotSessionMode) {
			t.Fatalf("got %v, want ErrNotSessionMode", err)
		}
	})
	t.Run("session mode is accepted", func(t *testing.T) {
		url := startPgbouncer(t, db.URL, "session")
		if err := database.CheckSessionMode(context.Background(), url); err != nil {
			t.Fatalf("got %v", err)
		}
	})
}
