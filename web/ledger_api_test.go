package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// apiClient calls the JSON API with a bearer token.
type apiClient struct {
	t     *testing.T
	base  string
	token string
}

func (a *site) api(t *testing.T, role auth.Role) (*apiClient, auth.User) {
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, role)
	return &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}, u
}

func (c *apiClient) do(method, path, contentType string, body []byte) (int, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

func (c *apiClient) postJSON(path, body string) (int, map[string]any) {
	return c.do("POST", path, "application/json", []byte(body))
}

func (c *apiClient) get(path string) (int, map[string]any) { return c.do("GET", path, "", nil) }

const payroll = `{"source_type": "payroll", "source_id": "run-2026-11", "entry_set": "main", "date": "2026-11-30",
 "currency": "EUR", "description": "November payroll",
 "lines": [{"account": "6000", "debit": "100.00", "credit": "0", "dimensions": {"cost_center": "OPS"}},
           {"account": "2000", "debit": "0", "credit": "100.00"}]}`

func errorOf(body map[string]any) map[string]any {
	e, _ := body["error"].(map[string]any)
	return e
}

func TestLedgerAPI(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c, _ := a.api(t, auth.RoleReviewer)

	status, entry := c.postJSON("/api/v1/journal-entries", payroll)
	if status != 201 || entry["replayed"] != false {
		t.Fatalf("new entry: %d %v", status, entry)
	}
	id := entry["id"].(float64)
	lines := entry["lines"].([]any)
	first := lines[0].(map[string]any)
	if first["debit"] != "100.00" || first["credit"] != "0.00" || first["account"] != "6000" ||
		first["dimensions"].(map[string]any)["cost_center"] != "OPS" || entry["reverses_id"] != nil || len(entry["fingerprint"].(string)) != 64 {
		t.Fatalf("entry shape: %v", entry)
	}

	// An exact replay, written differently ("100.0", keys in another order).
	replay := strings.Replace(payroll, `"debit": "100.00", "credit": "0"`, `"credit": "0", "debit": "100.0"`, 1)
	status, again := c.postJSON("/api/v1/journal-entries", replay)
	if status != 200 || again["replayed"] != true || again["id"] != id {
		t.Fatalf("replay: %d %v", status, again)
	}

	conflicting := strings.ReplaceAll(payroll, `"100.00"`, `"120.00"`)
	status, body := c.postJSON("/api/v1/journal-entries", conflicting)
	e := errorOf(body)
	if status != 409 || e["code"] != "source_replay_conflict" {
		t.Fatalf("conflict: %d %v", status, body)
	}
	d := e["differences"].([]any)[0].(map[string]any)
	if d["field"] != "lines[0].debit" || d["stored"] != "100.00" || d["requested"] != "120.00" {
		t.Fatalf("difference: %v", d)
	}

	for _, tc := range []struct {
		name, body, field string
	}{
		{"unbalanced", strings.Replace(payroll, `"credit": "100.00"`, `"credit": "99.00"`, 1), "lines"},
		{"unknown account", strings.Replace(payroll, `"6000"`, `"6999"`, 1), "lines[0].account"},
		{"bad amount", strings.Replace(payroll, `"debit": "100.00"`, `"debit": "1,000.00"`, 1), "lines[0].debit"},
		{"money as a JSON number", strings.Replace(payroll, `"debit": "100.00"`, `"debit": 100.00`, 1), "lines.debit"},
		{"unknown field", strings.Replace(payroll, `"entry_set"`, `"entryset": "x", "entry_set"`, 1), "entryset"},
		{"single line", `{"source_type": "payroll", "source_id": "x", "entry_set": "main", "date": "2026-11-30", "currency": "EUR",
			"lines": [{"account": "6000", "debit": "1.00"}]}`, "lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(tc.body, "run-2026-11", "fresh-"+tc.name, 1)
			status, resp := c.postJSON("/api/v1/journal-entries", body)
			e := errorOf(resp)
			if status != 422 || e["code"] != "invalid" {
				t.Fatalf("got %d %v", status, resp)
			}
			reasons, _ := e["reasons"].([]any)
			found := false
			for _, r := range reasons {
				found = found || strings.HasPrefix(r.(map[string]any)["field"].(string), tc.field)
			}
			if !found {
				t.Fatalf("reasons %v do not name %s", reasons, tc.field)
			}
		})
	}

	path := "/api/v1/journal-entries/" + itoa(int64(id))
	if status, got := c.get(path); status != 200 || got["id"] != id {
		t.Fatalf("get: %d %v", status, got)
	}
	status, list := c.get("/api/v1/journal-entries?source_type=payroll&source_id=run-2026-11")
	if status != 200 || len(list["entries"].([]any)) != 1 {
		t.Fatalf("list by source: %d %v", status, list)
	}
	status, rev := c.postJSON(path+"/reverse", "")
	if status != 201 || rev["reverses_id"] != id || rev["entry_set"] != "main/reversal" || rev["source_id"] != "run-2026-11" {
		t.Fatalf("reverse: %d %v", status, rev)
	}
	if status, again := c.postJSON(path+"/reverse", ""); status != 200 || again["replayed"] != true || again["id"] != rev["id"] {
		t.Fatalf("reverse again: %d %v", status, again)
	}
	status, accounts := c.get("/api/v1/accounts")
	if status != 200 || len(accounts["accounts"].([]any)) < 10 {
		t.Fatalf("accounts: %d %v", status, accounts)
	}
	acct := accounts["accounts"].([]any)[0].(map[string]any)
	if acct["code"] == "" || acct["type"] == "" || acct["active"] != true {
		t.Fatalf("account shape: %v", acct)
	}

	other, _ := a.api(t, auth.RoleReviewer)
	for _, p := range []string{path} {
		if status, body := other.get(p); status != 404 || errorOf(body)["code"] != "not_found" {
			t.Fatalf("another org reading %s: %d %v", p, status, body)
		}
	}
	if status, _ := other.postJSON(path+"/reverse", ""); status != 404 {
		t.Fatalf("another org reversing: %d", status)
	}
	if status, body := other.get("/api/v1/journal-entries?source_type=payroll"); status != 200 || len(body["entries"].([]any)) != 0 {
		t.Fatalf("another org listing: %d %v", status, body)
	}
	if status, _ := c.get("/api/v1/journal-entries?from=yesterday"); status != 422 {
		t.Fatalf("a bad date filter: %d, want 422", status)
	}
}
