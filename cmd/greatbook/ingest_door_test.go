package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"greatbook/internal/testkit"
)

// What ingest prints is what is stored: a JSON invoice with \u0000 in its
// seller name was printed "refused" and left a row behind, received for
// ever. Now it is filed flagged, with the finding, and printed so.
func TestIngestPrintsWhatIsStored(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd")
	path := filepath.Join(t.TempDir(), "nul.json")
	if err := os.WriteFile(path, []byte(`{"type":"invoice","number":"INV-NUL","issue_date":"2026-11-20","currency":"EUR",
		"seller":{"name":"Evil\u0000Corp"},"lines":[{"description":"x","quantity":"1","unit_price":"10","tax_rate":"25"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := runCLI(t, db.URL, "", "ingest", "--org", "acme", path)
	var status, findings string
	if err := db.Pool.QueryRow(context.Background(), `SELECT status, findings::text FROM intake_documents`).Scan(&status, &findings); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "1 "+status || status != "flagged" || !strings.Contains(findings, "seller.name") {
		t.Fatalf("printed %q; stored %s with findings %s", out, status, findings)
	}
}
