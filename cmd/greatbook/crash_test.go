package main

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/testkit"
)

// crashableProcess runs `greatbook ARGS...` as a child of the failpoints
// build against the test database, SIGKILLed at failpoint when one is
// named; it returns what the child printed.
func crashableProcess(t *testing.T, dbURL, failpoint string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(crashable, args...)
	cmd.Env = append(cleanEnv(), "DATABASE_URL="+dbURL)
	if failpoint != "" {
		cmd.Env = append(cmd.Env, "GREATBOOK_FAILPOINTS="+failpoint+"=kill")
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && !killed(err) {
		t.Logf("greatbook %s: stderr: %s", strings.Join(args, " "), errOut.String())
	}
	return out.String(), err
}

// ingestProcess runs `greatbook ingest` as a child against the test
// database, optionally with a failpoint.
func ingestProcess(t *testing.T, dbURL, failpoint string, file string) (string, error) {
	t.Helper()
	return crashableProcess(t, dbURL, failpoint, "ingest", "--org", "acme", file)
}

func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestCrashAtEveryNodeBoundaryResumesToTheSameEnd(t *testing.T) {
	t.Parallel()
	const testdata = "../../internal/einvoice/testdata/"
	boundaries := []string{"pipeline/after-ingest"}
	for _, node := range []string{"classify", "extract", "validate", "queue"} {
		boundaries = append(boundaries, "runs/pipeline/before/"+node, "runs/pipeline/after/"+node)
	}
	for _, doc := range []struct {
		file, want string
		skips      map[string]bool // boundaries the document's run never reaches
	}{
		{"ubl-invoice-multirate.xml", "pending", nil},
		{"scanned-invoice.png", "flagged", map[string]bool{
			"runs/pipeline/before/extract": true, "runs/pipeline/after/extract": true,
			"runs/pipeline/before/validate": true, "runs/pipeline/after/validate": true}},
	} {
		for _, fp := range boundaries {
			if doc.skips[fp] {
				continue
			}
			t.Run(doc.file+"/"+fp, func(t *testing.T) {
				t.Parallel()
				db := testkit.NewDB(t)
				runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd")

				out, err := ingestProcess(t, db.URL, fp, testdata+doc.file)
				if !killed(err) {
					t.Fatalf("the child was not killed at %s: %v, %q", fp, err, out)
				}
				// The crash left at most a received row, never one in between.
				rows, _ := db.Pool.Query(context.Background(), `SELECT status FROM intake_documents`)
				statuses, err := pgx.CollectRows(rows, pgx.RowTo[string]) // a failed query is an error, not "no rows"
				if err != nil {
					t.Fatal(err)
				}
				if len(statuses) > 1 || len(statuses) == 1 && statuses[0] != "received" && statuses[0] != doc.want {
					t.Fatalf("after the crash: %v", statuses)
				}

				// Restart: the same command again, without the failpoint.
				out, err = ingestProcess(t, db.URL, "", testdata+doc.file)
				if err != nil {
					t.Fatalf("restart: %v", err)
				}
				if fields := strings.Fields(out); len(fields) != 2 || fields[1] != doc.want {
					t.Fatalf("restart printed %q, want \"<id> %s\"", out, doc.want)
				}
				if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents`); n != 1 {
					t.Fatalf("%d intake rows", n)
				}
				if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE status = $1`, doc.want); n != 1 {
					t.Fatalf("the document did not end %s", doc.want)
				}
				if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE state = 'done'`); n != 1 {
					t.Fatalf("want one finished run, have %d runs", testkit.Count(t, db, `SELECT count(*) FROM runs`))
				}
			})
		}
	}
}
