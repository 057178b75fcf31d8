// Package bench measures greatbook's hot paths and prints each figure beside
// the physical limit measured in the same run: pgbench sending the same SQL
// statements to the same server. The ratio is what the code adds.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/database"
	"greatbook/internal/embeddedpg"
)

// Env is one benchmark run: a durable embedded cluster in a fresh directory.
type Env struct {
	Out      io.Writer
	Duration time.Duration
	Pool     *pgxpool.Pool
	cluster  *embeddedpg.Cluster
	dir      string
	db       string
	// url, when set, is the database pgbench connects to instead of db
	// on the cluster (a test's database).
	url string
	// pipelineRate is the pipeline figure's documents/s at 1 worker, once it has run: the rules figure
	// shows the pipeline's rate with the rules on and off from it.
	pipelineRate float64
}

// InProcess is the environment of a run whose figures need no database (the rules figure alone).
func InProcess(out io.Writer, d time.Duration) *Env { return &Env{Out: out, Duration: d} }

// Setup starts a cluster with production settings (fsync on) and migrates.
func Setup(ctx context.Context, out io.Writer, d time.Duration) (*Env, error) {
	dir, err := os.MkdirTemp("/tmp", "greatbook-bench-")
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(dir, 0o755)
	settings := map[string]string{"max_connections": "200", "shared_buffers": "256MB"}
	if statementsWanted() {
		for k, v := range statementSettings {
			settings[k] = v
		}
	}
	c, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: dir, Durable: true, Settings: settings})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e := &Env{Out: out, Duration: d, cluster: c, dir: dir, db: "bench"}
	if err := c.EnsureDatabase(ctx, e.db); err != nil {
		e.Close()
		return nil, err
	}
	e.Pool, err = database.Open(ctx, c.ConnString(e.db), 64)
	if err != nil {
		e.Close()
		return nil, err
	}
	if err := database.Migrate(ctx, e.Pool, nil); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close stops the cluster and removes its directory.
func (e *Env) Close() {
	if e.Pool != nil {
		e.Pool.Close()
	}
	if e.cluster != nil {
		_ = e.cluster.Close()
		os.RemoveAll(e.dir)
	}
}

// NewPool opens a pool of exactly n connections, one per client.
func (e *Env) NewPool(ctx context.Context, n int) (*pgxpool.Pool, error) {
	return database.Open(ctx, e.cluster.ConnString(e.db), int32(n))
}

// NewTracedPool opens a pool of n connections whose statements tracer times.
func (e *Env) NewTracedPool(ctx context.Context, n int, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	return database.OpenTraced(ctx, e.cluster.ConnString(e.db), int32(n), tracer)
}

// Analyze refreshes the planner statistics after a bulk load.
func (e *Env) Analyze(ctx context.Context) error {
	_, err := e.Pool.Exec(ctx, "ANALYZE")
	return err
}

// Script is a pgbench script: its text and the -D variables it uses.
type Script struct {
	Text string
	Vars map[string]string
	// Transactions, when set, runs that many per client instead of for
	// e.Duration.
	Transactions int
}

// PGBenchResult is what pgbench measured.
type PGBenchResult struct {
	TPS       float64
	LatencyMS float64
}

var paramPattern = regexp.MustCompile(`\$(\d+)`)

// Statement turns a statement with $n parameters into pgbench text, the nth
// parameter becoming the variable names[n-1]. pgbench -M prepared sends it
// back as the same parameterised statement.
func Statement(sql string, names ...string) string {
	out := paramPattern.ReplaceAllStringFunc(sql, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return ":" + names[n-1]
	})
	// pgbench reads one statement per line unless it ends in ';'.
	return strings.Join(strings.Fields(out), " ") + ";\n"
}

var tpsPattern = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// PGBench runs a script with the given number of clients for e.Duration and
// returns transactions per second.
func (e *Env) PGBench(ctx context.Context, s Script, clients int) (float64, error) {
	r, err := e.PGBenchRun(ctx, s, clients)
	return r.TPS, err
}

var latencyPattern = regexp.MustCompile(`latency average = ([0-9.]+) ms`)

// PGBenchRun runs a script and returns its rate and average latency.
func (e *Env) PGBenchRun(ctx context.Context, s Script, clients int) (PGBenchResult, error) {
	f := filepath.Join(e.dir, fmt.Sprintf("script-%d.sql", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(s.Text), 0o644); err != nil {
		return PGBenchResult{}, err
	}
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-f", f}
	if s.Transactions > 0 {
		args = append(args, "-t", strconv.Itoa(s.Transactions))
	} else {
		args = append(args, "-T", strconv.Itoa(int(e.Duration.Seconds())))
	}
	names := make([]string, 0, len(s.Vars))
	for k := range s.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		args = append(args, "-D", k+"="+s.Vars[k])
	}
	if e.url != "" {
		args = append(args, e.url)
	} else {
		args = append(args, "-h", e.cluster.SocketDir(), "-p", strconv.Itoa(embeddedpg.Port), "-U", "postgres", e.db)
	}
	out, err := exec.CommandContext(ctx, "pgbench", args...).CombinedOutput()
	if err != nil {
		return PGBenchResult{}, fmt.Errorf("bench: pgbench: %v: %s", err, out)
	}
	m := tpsPattern.FindSubmatch(out)
	if m == nil {
		return PGBenchResult{}, fmt.Errorf("bench: no tps in pgbench output: %s", out)
	}
	if strings.Contains(string(out), "number of failed transactions: ") && !strings.Contains(string(out), "number of failed transactions: 0 ") {
		return PGBenchResult{}, fmt.Errorf("bench: pgbench transactions failed: %s", out)
	}
	var r PGBenchResult
	r.TPS, _ = strconv.ParseFloat(string(m[1]), 64)
	if l := latencyPattern.FindSubmatch(out); l != nil {
		r.LatencyMS, _ = strconv.ParseFloat(string(l[1]), 64)
	}
	return r, nil
}

// Measure runs op from clients goroutines for d and returns operations per
// second. op gets the worker number and a per-worker sequence number.
func Measure(ctx context.Context, clients int, d time.Duration, op func(ctx context.Context, worker, seq int) error) (float64, error) {
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; time.Now().Before(deadline); seq++ {
				if err := op(ctx, w, seq); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(done.Load()) / time.Since(start).Seconds(), nil
}

// Table prints aligned rows.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Print writes the table.
func (t *Table) Print(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", t.Title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t")+"\t")
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	_ = tw.Flush()
}

// Rate formats operations per second.
func Rate(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// Ratio formats a ratio.
func Ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64)
}

// ErrSkipped marks a benchmark that could not run here.
var ErrSkipped = errors.New("bench: skipped")

// Interleaved is figures and their pgbench limit measured in alternating
// windows under the same conditions: on a shared 2-core machine two
// measurements taken one after the other drift apart by more than the
// difference they compare. Go[i] is the ith operation's mean rate and
// PGBench pgbench's (the windows are equally long); Rounds holds each
// round's rates, the operations' in order and then pgbench's.
type Interleaved struct {
	Go      []float64
	PGBench float64
	Rounds  [][]float64
}

// Windows splits d into rounds of whole-second windows (pgbench's -T
// counts seconds) for the given number of sides: about five rounds, each
// side measuring about d in all, rounded up to a multiple of the sides.
func Windows(d time.Duration, sides int) (rounds int, window time.Duration) {
	window = max(time.Second, (d / 5).Round(time.Second))
	rounds = max(1, int(d/window))
	return (rounds + sides - 1) / sides * sides, window
}

// MeasureInterleaved runs each op from clients goroutines and pgbench's s
// at the same client count in alternating windows of e.Duration's split
// (Windows): each round starts one side later than the one before, and
// every other cycle of rounds goes round the sides backwards, so that every
// side goes first equally often and follows each of the others, and a
// drift during the run, or what one window leaves behind for the next,
// weighs on every side alike.
func (e *Env) MeasureInterleaved(ctx context.Context, clients int, s Script, ops ...func(ctx context.Context, worker, seq int) error) (Interleaved, error) {
	sides := len(ops) + 1
	rounds, window := Windows(e.Duration, sides)
	pg := *e
	pg.Duration = window
	r := Interleaved{Go: make([]float64, len(ops))}
	for i := range rounds {
		rates := make([]float64, sides)
		for k := range sides {
			side := (i + k) % sides
			if (i/sides)%2 == 1 {
				side = (i - k + sides) % sides
			}
			var err error
			if side == len(ops) {
				rates[side], err = pg.PGBench(ctx, s, clients)
			} else {
				rates[side], err = Measure(ctx, clients, window, ops[side])
			}
			if err != nil {
				return r, err
			}
		}
		for k := range ops {
			r.Go[k] += rates[k] / float64(rounds)
		}
		r.PGBench += rates[len(ops)] / float64(rounds)
		r.Rounds = append(r.Rounds, rates)
	}
	return r, nil
}
