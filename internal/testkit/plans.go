package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Plan is a statement's plan as EXPLAIN (FORMAT JSON) gives it: the tests
// of the pages that must not grow with history read which scans it makes.
type Plan struct {
	// Text is the statement and its plan as text, for a failure message.
	Text string
	root planNode
}

// planNode is one node of a plan, with the fields the assertions read.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	IndexName string     `json:"Index Name"`
	Plans     []planNode `json:"Plans"`
}

// GenericPlan plans sql as a prepared statement does once PostgreSQL keeps
// one plan for every argument (plan_cache_mode = force_generic_plan): the
// plan a busy page runs with, which cannot lean on the values of args
// (integers, strings, times and arrays of strings, written into the EXECUTE as
// literals).
func GenericPlan(t testing.TB, conn *pgx.Conn, sql string, args ...any) Plan {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A prepared statement outlives the transaction: it goes after it.
	defer func() {
		_ = tx.Rollback(ctx)
		_, _ = conn.Exec(ctx, `DEALLOCATE planned`)
	}()
	if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `PREPARE planned AS `+sql); err != nil {
		t.Fatalf("prepare: %v\n%s", err, sql)
	}
	literals := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			literals[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case int, int32, int64:
			literals[i] = fmt.Sprint(v)
		case time.Time:
			literals[i] = "'" + v.UTC().Format(time.RFC3339Nano) + "'"
		case []string:
			elems := make([]string, len(v))
			for j, e := range v {
				elems[j] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "'", "''").Replace(e) + `"`
			}
			literals[i] = "'{" + strings.Join(elems, ",") + "}'"
		case []int64:
			elems := make([]string, len(v))
			for j, e := range v {
				elems[j] = fmt.Sprint(e)
			}
			literals[i] = "'{" + strings.Join(elems, ",") + "}'"
		default:
			t.Fatalf("GenericPlan: argument %d is a %T", i+1, a)
		}
	}
	execute := "EXECUTE planned"
	if len(args) > 0 {
		execute += "(" + strings.Join(literals, ", ") + ")"
	}
	var raw []byte
	if err := tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+execute).Scan(&raw); err != nil {
		t.Fatalf("explain: %v\n%s", err, sql)
	}
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc) != 1 {
		t.Fatalf("explain: %v: %s", err, raw)
	}
	rows, err := tx.Query(ctx, `EXPLAIN `+execute)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return Plan{Text: sql + "\n" + strings.Join(lines, "\n"), root: doc[0].Plan}
}

// walk calls f for every node of the plan.
func (p Plan) walk(f func(planNode)) {
	var visit func(planNode)
	visit = func(n planNode) {
		f(n)
		for _, c := range n.Plans {
			visit(c)
		}
	}
	visit(p.root)
}

// UsesIndex says whether a scan of the plan reads the index.
func (p Plan) UsesIndex(index string) bool {
	found := false
	p.walk(func(n planNode) { found = found || n.IndexName == index })
	return found
}

// SeqScans lists the tables the plan reads in full.
func (p Plan) SeqScans() []string {
	var tables []string
	p.walk(func(n planNode) {
		if n.NodeType == "Seq Scan" {
			tables = append(tables, n.Relation)
		}
	})
	return tables
}

// RequireIndexes fails t unless the plan reads every one of indexes and
// reads none of tables in full.
func (p Plan) RequireIndexes(t testing.TB, what string, tables []string, indexes ...string) {
	t.Helper()
	for _, ix := range indexes {
		if !p.UsesIndex(ix) {
			t.Errorf("%s: the plan does not read %s:\n%s", what, ix, p.Text)
		}
	}
	for _, table := range p.SeqScans() {
		for _, big := range tables {
			if table == big {
				t.Errorf("%s: the plan reads %s in full:\n%s", what, table, p.Text)
			}
		}
	}
}
