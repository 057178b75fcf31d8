package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"greatbook/internal/testkit"
)

// binary is greatbook built once for the tests that need real processes;
// crashable is the same with failpoints compiled in.
var binary, crashable string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "greatbook-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "greatbook")
	crashable = filepath.Join(dir, "greatbook-failpoints")
	for _, b := range []struct{ out, tags string }{{binary, ""}, {crashable, "failpoints"}} {
		if out, err := exec.Command("go", "build", "-tags", b.tags, "-o", b.out, ".").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build greatbook: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	testkit.AtExit(func() { os.RemoveAll(dir) })
	testkit.Main(m)
}

// dataDir returns a data directory the postgres user can reach.
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "gbcmd-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "data")
}

// command runs greatbook to completion with an environment without DATABASE_URL.
func command(t *testing.T, stdin string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "GREATBOOK_") {
			env = append(env, kv)
		}
	}
	return env
}

// serveProcess is a running `greatbook serve`.
type serveProcess struct {
	cmd  *exec.Cmd
	url  string
	done chan error
	log  *testkit.LogBuffer // its stderr, shown when the test fails
}

func startServe(t *testing.T, dir string) *serveProcess {
	t.Helper()
	return startServeWith(t, binary, nil, "--data-dir", dir)
}

// startServeWith starts a serve of a binary with extra environment and flags.
func startServeWith(t *testing.T, bin string, env []string, args ...string) *serveProcess {
	t.Helper()
	s, out := launchServe(t, bin, env, args...)
	s.awaitURL(t, out)
	return s
}

// launchServe starts a serve process without waiting for it to serve, so
// that several can start at the same moment; awaitURL waits.
func launchServe(t *testing.T, bin string, env []string, args ...string) (*serveProcess, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cleanEnv(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &serveProcess{cmd: cmd, done: make(chan error, 1), log: &testkit.LogBuffer{}}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // in case awaitURL is never reached
	return s, out
}

// awaitURL reads serve's stdout until it prints its URL, and registers the
// cleanup that kills it (and shows its log when the test failed).
func (s *serveProcess) awaitURL(t *testing.T, out io.ReadCloser) {
	t.Helper()
	cmd := s.cmd
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "GreatBook Intake is serving on "); ok {
			s.url = u
			break
		}
	}
	if s.url == "" {
		_ = cmd.Process.Kill()
		t.Fatal("serve never printed its URL")
	}
	go func() { _, _ = io.Copy(io.Discard, out); s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			lines := strings.Split(s.log.String(), "\n")
			t.Logf("serve (pid %d) logged (the last 150 lines):\n%s", cmd.Process.Pid, strings.Join(lines[max(0, len(lines)-150):], "\n"))
		}
	})
}

// kill SIGKILLs serve and waits for it to exit. Its exit is put back on
// done for the cleanup that waits for it.
func (s *serveProcess) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	s.done <- nil
}

// postgresProcesses lists the postgres processes working in the data
// directory's cluster (the postmaster and its children all run there).
func postgresProcesses(t *testing.T, dir string) []int {
	t.Helper()
	pgdata := filepath.Join(dir, "pgdata")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if strings.HasPrefix(string(comm), "postgres") && cwd == pgdata {
			pids = append(pids, pid)
		}
	}
	return pids
}

func postmasterPID(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "pgdata", "postmaster.pid"))
	if err != nil {
		t.Fatalf("no running cluster: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return first
}

// waitFor polls a condition (a process ending is not an event we can
// subscribe to) every 20 ms until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if err := testkit.PollEvery(processPoll, timeout, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// processPoll is how often the tests ask a process or its server whether
// something happened: less often than testkit.Poll, since each look is a
// request or a scan of /proc.
const processPoll = 20 * time.Millisecond

func TestSIGKILLedServeLeavesNoPostgresAndKeepsData(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	s := startServe(t, dir)
	resp, err := http.Get(s.url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	postmaster := postmasterPID(t, dir)

	// A second process, the CLI while serve runs, reuses the cluster.
	out, errOut, err := command(t, "", nil, "org", "add", "acme", "--name", "Acme Ltd", "--data-dir", dir)
	if err != nil || !strings.Contains(out, "org acme created") {
		t.Fatalf("org add: %v\n%s%s", err, out, errOut)
	}
	if got := postmasterPID(t, dir); got != postmaster {
		t.Fatalf("the CLI started another postmaster (%s, serve's is %s)", got, postmaster)
	}
	if n := len(postgresProcesses(t, dir)); n == 0 {
		t.Fatal("the CLI stopped serve's cluster when it exited")
	}
	// A second serve on the same directory refuses clearly.
	_, errOut, err = command(t, "", nil, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir)
	if err == nil || !strings.Contains(errOut, "another greatbook serve is using this data directory") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("second serve: %v, stderr %q", err, errOut)
	}

	s.kill(t)
	waitFor(t, "the cluster to go with its SIGKILLed owner", 30*time.Second, func() bool {
		return len(postgresProcesses(t, dir)) == 0
	})

	again := startServe(t, dir)
	out, _, err = command(t, "", nil, "org", "add", "acme", "--name", "Acme Ltd", "--data-dir", dir)
	if err != nil || !strings.Contains(out, "org acme exists") {
		t.Fatalf("data lost across the SIGKILL: %v %s", err, out)
	}
	// A clean stop takes the cluster down too.
	if err := again.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := <-again.done; err != nil {
		t.Fatalf("serve after SIGINT: %v", err)
	}
	again.done <- nil
	if n := len(postgresProcesses(t, dir)); n != 0 {
		t.Fatalf("%d postgres processes left after a clean stop", n)
	}
}

func TestCLIErrorsAreOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown command", nil, []string{"frobnicate"}, "unknown command"},
		{"missing PostgreSQL binaries", []string{"GREATBOOK_PG_BIN=/nonexistent"}, []string{"migrate", "--data-dir", "/tmp/gb-never-created"}, "install the Debian package postgresql-15"},
		{"bad org slug", []string{"DATABASE_URL=postgres://nobody@127.0.0.1:1/x?connect_timeout=1"}, []string{"org", "add", "acme"}, "usage: greatbook org add"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, err := command(t, "", tc.env, tc.args...)
			if err == nil {
				t.Fatal("want a non-zero exit")
			}
			line := strings.TrimSuffix(errOut, "\n")
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "greatbook: ") || !strings.Contains(line, tc.want) {
				t.Fatalf("stderr %q, want one line containing %q", errOut, tc.want)
			}
		})
	}
}
