package pagetext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lookTool finds a reading tool; tests replace it to stand a script in for
// one.
var lookTool = exec.LookPath

// toolStarted is told the process id of each tool run (the leader of its
// process group); tests use it to prove no process outlives a read.
var toolStarted = func(pid int) {}

// cpuSeconds is the CPU budget of one tool run: the wall time left to the
// document and a second, which only a tool busy on several threads at once
// can use up before the deadline. Tests replace it.
var cpuSeconds = func(ctx context.Context) int64 {
	if deadline, ok := ctx.Deadline(); ok {
		return int64(math.Ceil(time.Until(deadline).Seconds())) + 1
	}
	return 60
}

// stderrCap bounds what is kept of a tool's messages.
const stderrCap = 16 << 10

// errTimeLimit is the cause of the document's own deadline, which tells it
// apart from a caller's cancellation.
var errTimeLimit = errors.New("pagetext: document time limit")

// toolError is a tool that exited with an error on its own, for a reason
// other than a limit: the caller decides whose fault it is.
type toolError struct {
	tool    string
	code    int
	message string
}

func (e *toolError) Error() string {
	return fmt.Sprintf("pagetext: %s exited with %d: %s", e.tool, e.code, e.message)
}

// messages keeps the first max bytes a tool writes to its standard error
// and drops the rest without failing, so a chatty tool is never blocked.
type messages struct {
	bytes.Buffer
	max int
}

func (m *messages) Write(p []byte) (int, error) {
	if room := m.max - m.Len(); room > 0 {
		m.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// run runs one tool under the document's limits and returns its standard
// output. The tool runs under prlimit (address space and CPU seconds) as the
// leader of its own process group, and the whole group is killed when the
// document's deadline passes or the tool is done. overWhat names the limit a
// standard output longer than outCap goes past.
func (r *reader) run(name string, args []string, outCap int, overWhat string) ([]byte, error) {
	path, err := lookTool(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrToolMissing, name)
	}
	prlimit, err := lookTool("prlimit")
	if err != nil {
		return nil, fmt.Errorf("%w: prlimit", ErrToolMissing)
	}
	cpu := max(cpuSeconds(r.ctx), 1)
	// The soft limit sends SIGXCPU, reported as the time limit; the hard
	// one a second later is SIGKILL, for a tool that ignores it. With the
	// two equal Linux sends only SIGKILL, which reads as the memory limit.
	argv := append([]string{
		"--as=" + strconv.FormatInt(r.lim.MaxMemory, 10),
		"--cpu=" + strconv.FormatInt(cpu, 10) + ":" + strconv.FormatInt(cpu+1, 10),
		"--", path,
	}, args...)
	cmd := exec.CommandContext(r.ctx, prlimit, argv...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1", "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	stderr := &messages{max: stderrCap}
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pagetext: %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		if r.ctx.Err() != nil {
			return nil, r.contextError()
		}
		return nil, fmt.Errorf("pagetext: start %s: %w", name, err)
	}
	toolStarted(cmd.Process.Pid)
	out, _ := io.ReadAll(io.LimitReader(pipe, int64(outCap)+1))
	over := len(out) > outCap
	if over {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	err = cmd.Wait()
	// A tool's children, if it made any, die with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	switch {
	case r.ctx.Err() != nil:
		return nil, r.contextError()
	case over:
		return nil, &LimitError{What: overWhat, Limit: fmt.Sprintf("%d bytes of %s output", outCap, name)}
	case outOfMemory(stderr.String()):
		return nil, r.memoryError()
	case strings.Contains(stderr.String(), "Failed loading language"):
		// tesseract reads on without a model it cannot load, worse.
		return nil, fmt.Errorf("%w: tesseract: %s", ErrToolMissing, lineWith(stderr.String(), "Failed loading language"))
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			switch status.Signal() {
			case syscall.SIGXCPU:
				return nil, &LimitError{What: "time", Limit: fmt.Sprintf("%d CPU seconds", cpu)}
			case syscall.SIGKILL, syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGBUS:
				// Under an address-space cap a failed allocation ends a
				// tool this way far more often than a bug does.
				return nil, r.memoryError()
			}
		}
		return nil, &toolError{tool: name, code: exitErr.ExitCode(), message: firstLine(stderr.String())}
	}
	if err != nil {
		return nil, fmt.Errorf("pagetext: %s: %w", name, err)
	}
	return out, nil
}

// contextError is the error of a read whose context is done: the time
// limit when the document's own deadline passed, else the caller's error,
// wrapped. A caller's cancellation is then permanent to retry.ClassOf and a
// caller's own deadline passing transient: whether to read again is the
// caller's business, not the document's.
func (r *reader) contextError() error {
	if errors.Is(context.Cause(r.ctx), errTimeLimit) {
		return &LimitError{What: "time", Limit: r.lim.Timeout.String()}
	}
	return fmt.Errorf("pagetext: %w", r.ctx.Err())
}

func (r *reader) memoryError() error {
	return &LimitError{What: "memory", Limit: fmt.Sprintf("%d MiB per tool", r.lim.MaxMemory>>20)}
}

// outOfMemory reports whether a tool's messages say an allocation failed:
// the loader failing to map a library, poppler's "Out of memory" (after
// which pdftoppm may still exit 0) or C++'s bad_alloc.
func outOfMemory(stderr string) bool {
	s := strings.ToLower(stderr)
	for _, m := range []string{"failed to map segment", "cannot allocate memory", "out of memory", "bad_alloc"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// lineWith is the first line of a tool's messages that holds part.
func lineWith(s, part string) string {
	for line := range strings.Lines(s) {
		if strings.Contains(line, part) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// firstLine is the first non-empty line of a tool's messages, short enough
// for an error.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200]
			}
			return line
		}
	}
	return "no message"
}
