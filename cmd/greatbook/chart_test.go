package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"greatbook/internal/testkit"
)

// greatbook accounts import and dimensions import apply a CSV file whole,
// say what they did, change nothing the second time, and print every fault
// of a bad file by its line.
func TestChartImportCommands(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	accounts := write("chart.csv", "code;name;type\n6600;Hardware;expense\n6700;Legal;expense\n")
	if out := runCLI(t, db.URL, "", "accounts", "import", "--org", "acme", accounts); out != "2 rows: 2 added, 0 changed, 0 as they were\n" {
		t.Fatalf("first import printed %q", out)
	}
	if out := runCLI(t, db.URL, "", "accounts", "import", "--org", "acme", accounts); out != "2 rows: 0 added, 0 changed, 2 as they were\n" {
		t.Fatalf("second import printed %q", out)
	}
	values := write("cc.csv", "code,name\nOPS,Operations\n")
	if out := runCLI(t, db.URL, "", "dimensions", "import", "--org", "acme", "--dimension", "cost_center", values); !strings.HasPrefix(out, "1 rows: 1 added") {
		t.Fatalf("values import printed %q", out)
	}
	bad := write("bad.csv", "code,name,type\n6800,Rent,cost\n,x,expense\n")
	var stdout, stderr strings.Builder
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return db.URL
		}
		return ""
	}
	err := run(context.Background(), []string{"accounts", "import", "--org", "acme", bad}, getenv, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "line 2: type") || !strings.Contains(err.Error(), "line 3: a code is required") {
		t.Fatalf("bad file: %v", err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM accounts WHERE code IN ('6600', '6700')`); n != 2 {
		t.Fatalf("%d imported accounts, want 2", n)
	}
}
