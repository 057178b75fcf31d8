package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apchecks"
	"greatbook/internal/app"
	"greatbook/internal/desk"
	"greatbook/internal/intake"
	"greatbook/internal/testkit"
	"greatbook/web"
)

// runCLI runs a command in-process against the test database.
func runCLI(t *testing.T, dbURL, stdin string, args ...string) string {
	t.Helper()
	var out, errOut strings.Builder
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	if err := run(context.Background(), args, getenv, strings.NewReader(stdin), &out, &errOut); err != nil {
		t.Fatalf("greatbook %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

func TestTokenAddAuthenticatesAPICallsScopedToItsOrg(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd", "--currency", "SEK")
	runCLI(t, db.URL, "", "org", "add", "globex", "--name", "Globex")
	runCLI(t, db.URL, "a long password\n", "user", "add", "--org", "acme", "--email", "ann@acme.test", "--role", "admin", "--password-stdin")
	runCLI(t, db.URL, "another long password\n", "user", "add", "--org", "globex", "--email", "bob@globex.test", "--role", "reviewer", "--password-stdin")

	tokenOut := runCLI(t, db.URL, "", "token", "add", "--org", "acme", "--email", "ann@acme.test")
	token := strings.TrimSuffix(tokenOut, "\n")
	if strings.ContainsAny(token, " \n") || !strings.HasPrefix(token, "gbk_") {
		t.Fatalf("token add must print the token and nothing else, printed %q", tokenOut)
	}
	otherToken := strings.TrimSpace(runCLI(t, db.URL, "", "token", "add", "--org", "globex", "--email", "bob@globex.test"))

	ts := httptest.NewServer(web.New(app.New(db.Pool, app.Config{}), web.Options{Logger: testkit.Logger(t)}).Handler())
	defer ts.Close()
	get := func(path, token string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	status, me := get("/api/v1/me", token)
	if status != 200 || me["email"] != "ann@acme.test" || me["org"] != "acme" {
		t.Fatalf("/me with the printed token: %d %v", status, me)
	}
	annID := int64(me["id"].(float64))
	if status, _ := get("/api/v1/users/"+itoa(annID), token); status != 200 {
		t.Fatalf("own org's user: %d", status)
	}
	if status, body := get("/api/v1/users/"+itoa(annID), otherToken); status != 404 {
		t.Fatalf("another org's token must see 404, got %d %v", status, body)
	}

	// Re-running the setup is safe.
	if out := runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd", "--currency", "SEK"); !strings.Contains(out, "exists") {
		t.Fatalf("re-running org add: %q", out)
	}
}

func TestDemoIsIdempotent(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	first := runCLI(t, db.URL, "", "demo")
	second := runCLI(t, db.URL, "", "demo")
	if first != second || !strings.Contains(first, demoReviewer) || !strings.Contains(first, demoPassword) {
		t.Fatalf("demo output changed or lacks the sign-in details:\n%s\n---\n%s", first, second)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM users`); n != 3 {
		t.Fatalf("users after two demo runs: %d", n)
	}
	// The documents: a version chain, a duplicate group with one member
	// approved, one waiting, a credit note, an invalid e-invoice, an
	// approved document whose job is a dead letter, two posted payables and
	// two plain PDFs read from their text — filed once.
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents`); n != 12 {
		t.Fatalf("documents after two demo runs: %d", n)
	}
	for reason, want := range map[string]int{"newer_version": 1, "same_reference": 1} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE status = 'flagged' AND duplicate_reason = $1`, reason); n != want {
			t.Errorf("%s duplicates: %d, want %d", reason, n, want)
		}
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM jobs`); n != 4 {
		t.Errorf("approved demo documents: %d, want 4", n)
	}
	// Every page alive for a newcomer: a dead letter, an invalid e-invoice,
	// a posted (foreign-currency) entry — each once.
	if n := testkit.Count(t, db, `SELECT count(*) FROM jobs WHERE status = 'abandoned' AND run_id IS NULL`); n != 1 {
		t.Errorf("dead letters: %d, want 1", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM intake_documents WHERE status = 'flagged' AND flag_reason = 'invalid_einvoice'`); n != 1 {
		t.Errorf("invalid e-invoices: %d, want 1", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE currency <> base_currency`); n != 1 {
		t.Errorf("posted foreign-currency entries: %d, want 1", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'launch_failed'`); n != 1 {
		t.Errorf("the dead letter's failed launches: %d, want 1", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// An instance operator is added without an org, and only without one; a
// reviewer or an admin only with one.
func TestUserAddOperator(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme AB")
	out := runCLI(t, db.URL, "a long password\n", "user", "add", "--role", "operator", "--email", "olga@ops.test", "--password-stdin")
	if !strings.Contains(out, "operator of every org") {
		t.Fatalf("user add --role operator: %q", out)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM users WHERE email = 'olga@ops.test' AND role = 'operator' AND org_id IS NULL`); n != 1 {
		t.Fatalf("operators without an org: %d, want 1", n)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an operator with an org", []string{"--role", "operator", "--org", "acme"}, "an operator belongs to no org"},
		{"an admin without an org", []string{"--role", "admin"}, "a reviewer or an admin belongs to an org"},
		{"a reviewer without an org", []string{"--role", "reviewer"}, "a reviewer or an admin belongs to an org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"user", "add", "--email", "x@ops.test", "--password-stdin"}, tc.args...)
			err := run(context.Background(), args, func(k string) string {
				if k == "DATABASE_URL" {
					return db.URL
				}
				return ""
			}, strings.NewReader("a long password\n"), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line saying %q", err, tc.want)
			}
		})
	}
	// The database refuses an org-less admin and an operator in an org, whoever writes them.
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO users (org_id, email, role, password_hash) VALUES (NULL, 'a@x.test', 'admin', 'h')`); err == nil {
		t.Error("an admin without an org was stored")
	}
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO users (org_id, email, role, password_hash)
		VALUES ((SELECT id FROM orgs WHERE slug = 'acme'), 'o@x.test', 'operator', 'h')`); err == nil {
		t.Error("an operator in an org was stored")
	}
}

// The demo org states who it is, as its documents' buyer does, so the
// check that an invoice is addressed to another company has something to
// compare with: exactly the invalid e-invoice (sent to another company)
// carries that warning.
func TestDemoShowsTheInvoiceAddressedToAnotherCompany(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "demo")
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT d.id, d.org_id, coalesce(d.doc_number, '') FROM intake_documents d
		JOIN orgs o ON o.id = d.org_id WHERE o.slug = $1 ORDER BY d.id`, demoOrg)
	if err != nil {
		t.Fatal(err)
	}
	type filed struct {
		id, org int64
		number  string
	}
	docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (filed, error) {
		var f filed
		return f, r.Scan(&f.id, &f.org, &f.number)
	})
	if err != nil || len(docs) == 0 {
		t.Fatalf("demo documents: %v, %v", docs, err)
	}
	var addressedElsewhere []string
	for _, f := range docs {
		doc, err := intake.GetDocument(ctx, db.Pool, f.org, f.id)
		if err != nil {
			t.Fatal(err)
		}
		report, err := desk.CheckPayable(ctx, db.Pool, doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, finding := range report.Findings {
			if finding.Code == apchecks.CodeBuyerNotThisOrg {
				addressedElsewhere = append(addressedElsewhere, f.number)
			}
		}
	}
	if len(addressedElsewhere) != 1 || addressedElsewhere[0] != demoInvalidNumber {
		t.Fatalf("demo documents addressed to another company: %v, want only %s", addressedElsewhere, demoInvalidNumber)
	}
}
