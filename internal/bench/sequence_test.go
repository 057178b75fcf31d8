package bench

import (
	"context"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/testkit"
)

// sentStatements records the statements a pool's connections send, alone
// or in a batch, without BEGIN and COMMIT, each on one line.
type sentStatements struct {
	mu   sync.Mutex
	sent []string
}

func (r *sentStatements) add(sql string) {
	sql = strings.Join(strings.Fields(sql), " ")
	if w := strings.ToUpper(sql); w == "BEGIN" || w == "COMMIT" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, sql)
}

func (r *sentStatements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}
func (r *sentStatements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *sentStatements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	for _, q := range d.Batch.QueuedQueries {
		r.add(q.SQL)
	}
	return ctx
}
func (r *sentStatements) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *sentStatements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

var (
	parameterPattern = regexp.MustCompile(`\$\d+`)
	variablePattern  = regexp.MustCompile(`([^:]):[a-z_]+`)
)

// TestTheWholeSequenceScriptIsWhatADocumentSends proves that the end-to-end
// figure's whole-sequence limit measures the product: the statements of
// sequenceScript are, in order, those greatbook sends to approve a
// document and post it (its run executed by a worker), and the script run
// once by pgbench posts a document as greatbook would: the document
// posted with its entry, its job done, its run done with four checkpoints.
func TestTheWholeSequenceScriptIsWhatADocumentSends(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pgbench"); err != nil {
		t.Skip("no pgbench")
	}
	ctx := context.Background()
	db := testkit.NewDB(t)
	seed, err := SeedEndToEnd(ctx, db.Pool, "sequence", 3)
	if err != nil {
		t.Fatal(err)
	}

	// Greatbook's sequence, for the second document (the first warms up).
	rec := &sentStatements{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	// No workers: the test executes each run itself, within a long lease.
	a := app.New(pool, app.Config{Logger: testkit.Logger(t), LeaseTTL: time.Hour, SweepInterval: -1})
	for _, id := range seed.IDs[:2] {
		rec.mu.Lock()
		rec.sent = nil
		rec.mu.Unlock()
		ap, err := a.Decisions.Approve(ctx, seed.Org.ID, id, audit.Actor{UserID: seed.User.ID, Label: seed.User.Email})
		if err != nil || ap.Launch.RunID == "" {
			t.Fatalf("approve: %+v %v", ap, err)
		}
		if err := a.Engine.Execute(ctx, ap.Launch.RunID); err != nil {
			t.Fatal(err)
		}
	}
	var product []string
	for _, s := range rec.sent {
		product = append(product, parameterPattern.ReplaceAllString(s, "?"))
	}

	e := &Env{Out: io.Discard, Pool: db.Pool, dir: t.TempDir(), url: db.URL}
	w := &approveWorld{e: e, org: seed.Org, user: seed.User}
	if err := w.pgbenchTargets(ctx, "sequence_targets", seed.IDs[2:]); err != nil {
		t.Fatal(err)
	}
	s, err := sequenceScript(ctx, e, seed, "sequence_targets")
	if err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, line := range strings.Split(strings.TrimSpace(s.Text), "\n")[1:] { // after the target's
		if strings.HasPrefix(line, `\`) || line == "BEGIN;" || line == "COMMIT;" || strings.HasPrefix(line, "SELECT gen_random_uuid()") {
			continue
		}
		line, _, _ = strings.Cut(line, ` \gset`)
		script = append(script, variablePattern.ReplaceAllString(strings.TrimSuffix(line, ";"), "$1?"))
	}
	if !slices.Equal(script, product) {
		t.Errorf("the script sends\n%s\n\ngreatbook sends\n%s", strings.Join(script, "\n"), strings.Join(product, "\n"))
	}

	s.Transactions = 1
	if _, err := e.PGBenchRun(ctx, s, 1); err != nil {
		t.Fatal(err)
	}
	id := seed.IDs[2]
	var status, job, run string
	var checkpoints, lines, choices int
	if err := db.Pool.QueryRow(ctx, `SELECT d.status, j.status, r.state,
			(SELECT count(*) FROM run_checkpoints c WHERE c.run_id = r.id),
			(SELECT count(*) FROM journal_lines l WHERE l.entry_id = d.result_entry_id),
			(SELECT count(*) FROM account_choices c WHERE c.intake_id = d.id AND c.entry_id = d.result_entry_id)
		FROM intake_documents d JOIN jobs j ON j.intake_id = d.id JOIN runs r ON r.id = j.run_id WHERE d.id = $1`, id).
		Scan(&status, &job, &run, &checkpoints, &lines, &choices); err != nil {
		t.Fatal(err)
	}
	if status != "posted" || job != "done" || run != "done" || checkpoints != 4 || lines != 3 || choices != 1 {
		t.Fatalf("after the script: document %s, job %s, run %s with %d checkpoints, entry of %d lines, %d choices; want posted, done, done, 4, 3, 1",
			status, job, run, checkpoints, lines, choices)
	}
}
