package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

var docSeq atomic.Int64

// listed is a document as a test files it straight into the table: the
// listing reads rows, however they were filed.
type listed struct {
	status, flag, vat, name, number, payable string
	receivedAt                               time.Time
	duplicateOf                              int64
}

// fileDoc writes one document of an org and returns its id.
func fileDoc(t *testing.T, a *webtest.Site, orgID int64, d listed) int64 {
	t.Helper()
	if d.status == "" {
		d.status = "pending"
	}
	if d.receivedAt.IsZero() {
		d.receivedAt = time.Now()
	}
	n := docSeq.Add(1)
	if d.number == "" {
		d.number = fmt.Sprintf("INV-%d", n)
	}
	if d.name == "" {
		d.name = "Supplier AB"
	}
	if d.payable == "" {
		d.payable = "125.00"
	}
	fields := map[string]any{"type": "invoice", "number": d.number, "issue_date": "2026-11-20", "currency": "EUR",
		"seller": map[string]any{"name": d.name, "vat_id": d.vat}, "totals": map[string]any{"payable": d.payable}}
	raw, _ := json.Marshal(fields)
	sourceRef := "vat:" + d.vat + "/" + d.number
	if d.vat == "" {
		sourceRef = "name:" + strings.ToLower(d.name) + "/" + d.number
	}
	var flag, dupOf, dupReason any
	if d.status == "flagged" {
		flag = d.flag
	}
	if d.duplicateOf != 0 {
		dupOf, dupReason = d.duplicateOf, "same_reference"
	}
	var id int64
	err := a.DB.Pool.QueryRow(context.Background(), `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
		received_via, received_by, status, doc_type, source_ref, fields, flag_reason, duplicate_of, duplicate_reason, received_at, queued_at)
		VALUES ($1, $2, 'application/json', 10, 'api', 'test', $3, 'invoice', $4, $5, $6, $7, $8, $9, CASE WHEN $3 = 'received' THEN NULL ELSE $9::timestamptz END) RETURNING id`,
		orgID, fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "doc %d %d", orgID, n))), d.status, sourceRef, raw, flag, dupOf, dupReason,
		d.receivedAt).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestIntakeListingFilters(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleReviewer)
	day := func(s string) time.Time { x, _ := time.Parse(time.RFC3339, s); return x }

	pending := fileDoc(t, a, u.OrgID, listed{vat: "SE556677889901", name: "Nordic Widgets AB", number: "NW-1", receivedAt: day("2026-11-01T10:00:00Z")})
	dup := fileDoc(t, a, u.OrgID, listed{status: "flagged", flag: "duplicate", vat: "SE556677889901", name: "Nordic Widgets AB", number: "NW-1-copy",
		duplicateOf: pending, receivedAt: day("2026-11-02T10:00:00Z")})
	invalid := fileDoc(t, a, u.OrgID, listed{status: "flagged", flag: "invalid_einvoice", vat: "DE123456789", name: "Berlin Bolts GmbH", number: "BB-77",
		payable: "99.50", receivedAt: day("2026-11-20T08:00:00Z")})
	posted := fileDoc(t, a, u.OrgID, listed{status: "posted", name: "Acme Paper", number: "AP-3", receivedAt: day("2026-12-01T00:00:00Z")})
	rejected := fileDoc(t, a, u.OrgID, listed{status: "rejected", vat: "DE123456789", name: "Berlin Bolts GmbH", number: "BB-78",
		receivedAt: day("2026-12-02T09:30:00Z")})
	// Another org's documents match every filter below and must never appear.
	_, ou := a.API(t, auth.RoleReviewer)
	for _, st := range []string{"pending", "flagged", "posted", "rejected"} {
		fileDoc(t, a, ou.OrgID, listed{status: st, flag: "duplicate", vat: "SE556677889901", name: "Nordic Widgets AB", number: "NW-9" + st,
			payable: "99.50", receivedAt: day("2026-12-02T10:00:00Z")})
	}

	for _, tc := range []struct {
		name, query string
		want        []int64
	}{
		{"no filter: the org's documents, newest first", "", []int64{rejected, posted, invalid, dup, pending}},
		{"status", "status=flagged", []int64{invalid, dup}},
		{"status posted", "status=posted", []int64{posted}},
		{"flag_reason", "flag_reason=invalid_einvoice", []int64{invalid}},
		{"status and flag_reason", "status=flagged&flag_reason=duplicate", []int64{dup}},
		{"supplier by VAT id as written on the invoice", "supplier=" + url.QueryEscape("se 5566-77889901"), []int64{dup, pending}},
		{"supplier by the seller part of source_ref", "supplier=" + url.QueryEscape("vat:DE123456789"), []int64{rejected, invalid}},
		{"supplier by name identity", "supplier=" + url.QueryEscape("name:acme paper"), []int64{posted}},
		{"supplier nobody is", "supplier=XX000", nil},
		{"q: supplier name substring", "q=bolts", []int64{rejected, invalid}},
		{"q: number prefix", "q=nw-1", []int64{dup, pending}},
		{"q: amount", "q=99.50", []int64{invalid}},
		{"received_after a date keeps that day", "received_after=2026-12-01", []int64{rejected, posted}},
		{"received_after a timestamp is strict", "received_after=" + url.QueryEscape("2026-12-01T00:00:00Z"), []int64{rejected}},
		{"received_after with an offset", "received_after=" + url.QueryEscape("2026-11-20T09:00:00+01:00"), []int64{rejected, posted}},
		{"filters combine", "supplier=DE123456789&status=flagged&received_after=2026-11-01", []int64{invalid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v1/intake"
			if tc.query != "" {
				path += "?" + tc.query
			}
			got := c.ListAll(path+map[bool]string{true: "&", false: "?"}[tc.query != ""]+"limit=2", nil)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("%s: got %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

func TestIntakeListingShowsEachDocumentExactlyAsItsOwnRoute(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleAdmin)
	ctx := context.Background()
	first := fileDoc(t, a, u.OrgID, listed{status: "posted", vat: "SE556677889901", number: "A-1"})
	second := fileDoc(t, a, u.OrgID, listed{status: "flagged", flag: "duplicate", vat: "SE556677889901", number: "A-1b", duplicateOf: first})
	third := fileDoc(t, a, u.OrgID, listed{status: "active", number: "B-1"})
	fileDoc(t, a, u.OrgID, listed{status: "received"})
	// A job with an error, and findings as filed: every part of the JSON that is read apart from the row.
	// The job waits out a backoff longer than the test, so the site's sweep leaves it between the two reads.
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, last_error, error_class, created_by,
		next_attempt_at) VALUES ($1, $2, 'failed', 2, 'boom', 'transient', 'test', now() + interval '1 hour')`, u.OrgID, third); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.Pool.Exec(ctx, `UPDATE intake_documents SET findings = '[{"code": "BR-CO-16", "severity": "fatal", "message": "x"}]'
		WHERE id = $1`, second); err != nil {
		t.Fatal(err)
	}
	// Coding rows on two documents (the listing reads a page's in one statement).
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO intake_coding (intake_id, org_id, row_no, line, account_id, dimensions, amount, source)
		SELECT v.id, $3, v.n, v.line, a.id, v.dims::jsonb, v.amount, v.source FROM accounts a,
		(VALUES ($1::bigint, 0, 1, '{"cost_center": "OPS"}', 80.5, 'history'), ($1, 1, NULL, '{}', -2, 'default'),
		        ($2, 0, NULL, '{}', 100, 'reviewer')) AS v (id, n, line, dims, amount, source)
		WHERE a.org_id = $3 AND a.code = '6000'`, second, third, u.OrgID); err != nil {
		t.Fatal(err)
	}
	p := c.Page("/api/v1/intake")
	if len(p.Documents) != 4 {
		t.Fatalf("listed %d documents, want 4", len(p.Documents))
	}
	for _, listedDoc := range p.Documents {
		var x struct{ ID int64 }
		_ = json.Unmarshal(listedDoc, &x)
		status, single := c.Raw("GET", "/api/v1/intake/"+webtest.Itoa(x.ID))
		if status != 200 {
			t.Fatalf("GET %d: %d", x.ID, status)
		}
		if !bytes.Equal(bytes.TrimSpace(single), listedDoc) {
			t.Fatalf("document %d differs between the routes:\nlisted: %s\nsingle: %s", x.ID, listedDoc, single)
		}
	}
	var doc map[string]any
	_ = json.Unmarshal(p.Documents[1], &doc)
	if doc["job"] == nil || len(doc["group"].([]any)) != 1 {
		t.Fatalf("the active document's job: %v", doc)
	}
	_ = json.Unmarshal(p.Documents[2], &doc)
	if len(doc["group"].([]any)) != 2 || len(doc["findings"].([]any)) != 1 || len(doc["coding"].([]any)) != 2 {
		t.Fatalf("the duplicate's group and findings: %v", doc)
	}
}

func TestIntakeListingCursorIsStableWhileDocumentsArrive(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleReviewer)
	_, ou := a.API(t, auth.RoleReviewer)
	var every, flagged []int64 // newest first
	for i := 0; i < 23; i++ {
		st := []string{"pending", "flagged", "posted"}[i%3]
		id := fileDoc(t, a, u.OrgID, listed{status: st, flag: "duplicate"})
		every = append([]int64{id}, every...)
		if st == "flagged" {
			flagged = append([]int64{id}, flagged...)
		}
		fileDoc(t, a, ou.OrgID, listed{status: st, flag: "duplicate"})
	}
	for _, tc := range []struct {
		name, path string
		want       *[]int64
	}{
		{"every document", "/api/v1/intake?limit=5", &every},
		{"a status", "/api/v1/intake?limit=2&status=flagged", &flagged},
	} {
		want := slices.Clone(*tc.want)
		var arrived []int64
		got := c.ListAll(tc.path, func() {
			// Newer documents arrive (in both orgs) between every two pages.
			for range 3 {
				arrived = append(arrived, fileDoc(t, a, u.OrgID, listed{status: "flagged", flag: "duplicate"}))
				fileDoc(t, a, ou.OrgID, listed{status: "flagged", flag: "duplicate"})
			}
		})
		if len(arrived) == 0 {
			t.Fatal("nothing arrived while paging")
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: paging while documents arrive: got %v, want %v (each once, newest first)", tc.name, got, want)
		}
		// What arrived is in the listings after this one.
		slices.Reverse(arrived)
		every, flagged = append(slices.Clone(arrived), every...), append(slices.Clone(arrived), flagged...)
	}
}

func TestIntakeListingLimits(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleReviewer)
	for range 201 {
		fileDoc(t, a, u.OrgID, listed{})
	}
	for _, tc := range []struct {
		query string
		n     int
	}{{"", 50}, {"?limit=1", 1}, {"?limit=200", 200}} {
		p := c.Page("/api/v1/intake" + tc.query)
		if len(p.Documents) != tc.n || p.NextCursor == nil {
			t.Fatalf("%q: %d documents, next %v; want %d and a next page", tc.query, len(p.Documents), p.NextCursor, tc.n)
		}
	}
	all := c.ListAll("/api/v1/intake?limit=200", nil)
	if len(all) != 201 {
		t.Fatalf("followed to the end: %d documents, want 201", len(all))
	}
	// A page that ends exactly at the last document says so.
	if p := c.Page("/api/v1/intake?limit=1&cursor=" + url.QueryEscape(base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "intake\n%d", all[199])))); p.NextCursor != nil || len(p.Documents) != 1 {
		t.Fatalf("the last page: %d documents, next %v", len(p.Documents), p.NextCursor)
	}
}

func TestIntakeListingRefusesBadParametersNamingThem(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	cursor := func(s string) string { return url.QueryEscape(base64.RawURLEncoding.EncodeToString([]byte(s))) }
	for _, tc := range []struct{ query, parameter string }{
		{"status=approved", "status"},
		{"status=", ""},
		{"flag_reason=whatever", "flag_reason"},
		{"limit=0", "limit"},
		{"limit=201", "limit"},
		{"limit=-1", "limit"},
		{"limit=ten", "limit"},
		{"received_after=yesterday", "received_after"},
		{"received_after=2026-13-01", "received_after"},
		{"cursor=not*base64", "cursor"},
		{"cursor=" + cursor("intake\nabc"), "cursor"},
		{"cursor=" + cursor("intake\n-5"), "cursor"},
		{"cursor=" + cursor("entries\n2026-11-30\n4"), "cursor"},
		{"cursor=" + cursor("intake\n4\n5"), "cursor"},
		{"q=%00", "q"},
		{"supplier=%ff", "supplier"},
		{"statuss=pending", "statuss"},
		{"q=%zz", "q"},
		{"limit=5;cursor=x", "limit"},
		{"status=pending&status=flagged", "status"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			status, body := c.Get("/api/v1/intake?" + tc.query)
			if tc.parameter == "" {
				if status != 200 {
					t.Fatalf("an empty parameter filters nothing: %d %v", status, body)
				}
				return
			}
			e := webtest.ErrorOf(body)
			if status != 422 || e["code"] != "invalid" || e["parameter"] != tc.parameter ||
				!strings.Contains(e["message"].(string), tc.parameter) {
				t.Fatalf("%s: %d %v, want 422 invalid naming %s", tc.query, status, body, tc.parameter)
			}
		})
	}
}

func TestIntakeListingNeedsAToken(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	resp, err := http.Get(a.URL + "/api/v1/intake")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without a token: %d", resp.StatusCode)
	}
}

// postEntry posts a balanced entry and returns its id.
func postEntry(c *webtest.APIClient, sourceType, sourceID, date, account string) int64 {
	c.T.Helper()
	status, body := c.PostJSON("/api/v1/journal-entries", fmt.Sprintf(`{"source_type": %q, "source_id": %q, "entry_set": "main",
		"date": %q, "currency": "EUR", "description": "test",
		"lines": [{"account": %q, "debit": "10.00", "credit": "0"}, {"account": "2000", "debit": "0", "credit": "10.00"}]}`,
		sourceType, sourceID, date, account))
	if status != 201 {
		c.T.Fatalf("post entry: %d %v", status, body)
	}
	return int64(body["id"].(float64))
}

func listEntries(c *webtest.APIClient, path string, between func()) []int64 {
	c.T.Helper()
	var ids []int64
	c.Pages(path, between, func(p webtest.ListPage) { ids = append(ids, webtest.IDsOf(c.T, p.Entries)...) })
	return ids
}

func TestJournalEntryListingPagesByCursor(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	other, _ := a.API(t, auth.RoleReviewer)
	// Entries on a few dates, several per date, posted in an order unlike the list's.
	type entry struct {
		id                int64
		date, sourceType  string
		sourceID, account string
	}
	var all []entry
	for i, date := range []string{"2026-11-03", "2026-11-30", "2026-10-15", "2026-11-30", "2026-11-03", "2026-12-01", "2026-11-30", "2026-10-15", "2026-11-03"} {
		st, acct := "payroll", "6000"
		if i%3 == 0 {
			st = "bank"
		}
		e := entry{date: date, sourceType: st, sourceID: fmt.Sprintf("run-%d", i), account: acct}
		e.id = postEntry(c, e.sourceType, e.sourceID, e.date, e.account)
		postEntry(other, e.sourceType, e.sourceID, e.date, e.account)
		all = append(all, e)
	}
	// The list's order: date, then id, newest first.
	slices.SortFunc(all, func(x, y entry) int {
		if x.date != y.date {
			return strings.Compare(y.date, x.date)
		}
		return int(y.id - x.id)
	})
	want := func(keep func(entry) bool) []int64 {
		var ids []int64
		for _, e := range all {
			if keep(e) {
				ids = append(ids, e.id)
			}
		}
		return ids
	}
	for _, tc := range []struct {
		name, query string
		want        []int64
	}{
		{"every entry", "", want(func(entry) bool { return true })},
		{"source_type", "source_type=bank", want(func(e entry) bool { return e.sourceType == "bank" })},
		{"source_type and source_id, as before", "source_type=payroll&source_id=run-2", want(func(e entry) bool { return e.sourceID == "run-2" })},
		{"a date range", "from=2026-11-03&to=2026-11-30", want(func(e entry) bool { return e.date >= "2026-11-03" && e.date <= "2026-11-30" })},
		{"from", "from=2026-11-30", want(func(e entry) bool { return e.date >= "2026-11-30" })},
		{"account", "account=2000", want(func(entry) bool { return true })},
		{"an account no entry uses", "account=6999", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []string{"limit=2", "limit=200"} {
				path := "/api/v1/journal-entries?" + limit
				if tc.query != "" {
					path += "&" + tc.query
				}
				if got := listEntries(c, path, nil); !slices.Equal(got, tc.want) {
					t.Fatalf("%s: got %v, want %v", path, got, tc.want)
				}
			}
		})
	}

	t.Run("entries posted while paging", func(t *testing.T) {
		before := want(func(entry) bool { return true })
		n := 0
		got := listEntries(c, "/api/v1/journal-entries?limit=2", func() {
			// Newer, older and same-day entries arrive between every two pages.
			for _, date := range []string{"2026-12-31", "2026-11-30", "2026-10-01"} {
				n++
				postEntry(c, "late", fmt.Sprintf("late-%d", n), date, "6000")
			}
		})
		seen := map[int64]bool{}
		var existing []int64
		for _, id := range got {
			if seen[id] {
				t.Fatalf("entry %d listed twice: %v", id, got)
			}
			seen[id] = true
			if slices.Contains(before, id) {
				existing = append(existing, id)
			}
		}
		if !slices.Equal(existing, before) {
			t.Fatalf("the entries there before paging: got %v, want %v (each once, in order)", existing, before)
		}
	})

	t.Run("the default page is 100, as before the cursor", func(t *testing.T) {
		for i := range 95 {
			postEntry(c, "bulk", fmt.Sprintf("bulk-%d", i), "2026-09-01", "6000")
		}
		p := c.Page("/api/v1/journal-entries")
		if len(p.Entries) != 100 || p.NextCursor == nil {
			t.Fatalf("default page: %d entries, next %v", len(p.Entries), p.NextCursor)
		}
	})
}

func TestJournalEntryListingRefusesBadParametersNamingThem(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	cursor := func(s string) string { return url.QueryEscape(base64.RawURLEncoding.EncodeToString([]byte(s))) }
	for _, tc := range []struct{ query, parameter string }{
		{"limit=0", "limit"},
		{"limit=501", "limit"},
		{"limit=many", "limit"},
		{"offset=-1", "offset"},
		{"from=30.11.2026", "from"},
		{"to=2026-02-30", "to"},
		{"cursor=%%%", "cursor"},
		{"cursor=" + cursor("intake\n12"), "cursor"},
		{"cursor=" + cursor("entries\nyesterday\n12"), "cursor"},
		{"cursor=" + cursor("entries\n2026-11-30\n0"), "cursor"},
		{"cursor=" + cursor("entries\n2026-11-30\nx"), "cursor"},
		{"source_type=%00", "source_type"},
		{"account=%ff", "account"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			status, body := c.Get("/api/v1/journal-entries?" + tc.query)
			e := webtest.ErrorOf(body)
			msg, _ := e["message"].(string)
			if status != 422 || e["code"] != "invalid" || e["parameter"] != tc.parameter || !strings.Contains(msg, tc.parameter) {
				t.Fatalf("%s: %d %v, want 422 invalid naming %s", tc.query, status, body, tc.parameter)
			}
		})
	}
}

// askQuestion writes a paused bookkeeper run of an org, asked at a time.
func askQuestion(t *testing.T, a *webtest.Site, orgID int64, askedAt time.Time) string {
	t.Helper()
	var id string
	err := a.DB.Pool.QueryRow(context.Background(), `INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, question, updated_at)
		VALUES (gen_random_uuid(), $1, 'bookkeeper', 1, 'paused', 'post', '{}',
		        '{"kind": "expense_account", "prompt": "Which account?", "data": {"supplier": "Acme"}}', $2) RETURNING id::text`,
		orgID, askedAt).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func runIDsOf(t *testing.T, qs []json.RawMessage) []string {
	t.Helper()
	ids := make([]string, 0, len(qs))
	for _, q := range qs {
		var x struct {
			RunID    string `json:"run_id"`
			IntakeID *int64 `json:"intake_id"`
			Kind     string `json:"kind"`
			Prompt   string `json:"prompt"`
			AskedAt  string `json:"asked_at"`
		}
		if err := json.Unmarshal(q, &x); err != nil || x.RunID == "" || x.IntakeID == nil || x.Kind == "" || x.Prompt == "" || x.AskedAt == "" {
			t.Fatalf("a question lost its shape: %s", q)
		}
		ids = append(ids, x.RunID)
	}
	return ids
}

func TestQuestionListingPagesByCursor(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, u := a.API(t, auth.RoleReviewer)
	_, ou := a.API(t, auth.RoleReviewer)
	base := time.Date(2026, 11, 30, 9, 0, 0, 123456000, time.UTC)
	// Oldest first; three asked in the same microsecond are ordered by run id.
	var want []string
	for i, offset := range []time.Duration{0, time.Minute, time.Minute, time.Minute, 2 * time.Minute, 3 * time.Hour, 3*time.Hour + time.Microsecond} {
		want = append(want, askQuestion(t, a, u.OrgID, base.Add(offset)))
		askQuestion(t, a, ou.OrgID, base.Add(offset).Add(time.Duration(i)))
	}
	slices.SortStableFunc(want[1:4], strings.Compare)

	list := func(path string, between func()) []string {
		var ids []string
		c.Pages(path, between, func(p webtest.ListPage) { ids = append(ids, runIDsOf(t, p.Questions)...) })
		return ids
	}
	if got := list("/api/v1/questions", nil); !slices.Equal(got, want) {
		t.Fatalf("one page: got %v, want %v", got, want)
	}
	var asked []string
	got := list("/api/v1/questions?limit=2", func() {
		// Questions asked while a client pages come after everything it saw.
		later := base.Add(time.Duration(len(asked)+1) * 24 * time.Hour)
		asked = append(asked, askQuestion(t, a, u.OrgID, later))
		askQuestion(t, a, ou.OrgID, later)
	})
	if want := append(slices.Clone(want), asked...); !slices.Equal(got, want) {
		t.Fatalf("paging while questions are asked: got %v, want %v", got, want)
	}
	if p := c.Page("/api/v1/questions?limit=1"); len(p.Questions) != 1 || p.NextCursor == nil {
		t.Fatalf("limit=1: %d questions, next %v", len(p.Questions), p.NextCursor)
	}

	cursor := func(s string) string { return url.QueryEscape(base64.RawURLEncoding.EncodeToString([]byte(s))) }
	for _, tc := range []struct{ query, parameter string }{
		{"limit=0", "limit"},
		{"limit=501", "limit"},
		{"cursor=" + cursor("questions\nnoon\n"+want[0]), "cursor"},
		{"cursor=" + cursor("questions\n2026-11-30T09:00:00Z\nnot-a-uuid"), "cursor"},
		{"cursor=" + cursor("intake\n5"), "cursor"},
		{"cursor=@@", "cursor"},
	} {
		status, body := c.Get("/api/v1/questions?" + tc.query)
		e := webtest.ErrorOf(body)
		msg, _ := e["message"].(string)
		if status != 422 || e["code"] != "invalid" || e["parameter"] != tc.parameter || !strings.Contains(msg, tc.parameter) {
			t.Fatalf("%s: %d %v, want 422 invalid naming %s", tc.query, status, body, tc.parameter)
		}
	}
}

func TestJournalEntryListingShowsEachEntryExactlyAsItsOwnRoute(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	first := postEntry(c, "payroll", "run-1", "2026-11-30", "6000")
	postEntry(c, "payroll", "run-2", "2026-11-29", "6000")
	if status, body := c.PostJSON("/api/v1/journal-entries/"+webtest.Itoa(first)+"/reverse", `{"date": "2026-12-01"}`); status != 201 {
		t.Fatalf("reverse: %d %v", status, body)
	}
	p := c.Page("/api/v1/journal-entries")
	if len(p.Entries) != 3 {
		t.Fatalf("listed %d entries, want 3", len(p.Entries))
	}
	for _, listed := range p.Entries {
		var x struct{ ID int64 }
		_ = json.Unmarshal(listed, &x)
		status, single := c.Raw("GET", "/api/v1/journal-entries/"+webtest.Itoa(x.ID))
		if status != 200 || !bytes.Equal(bytes.TrimSpace(single), listed) {
			t.Fatalf("entry %d differs between the routes:\nlisted: %s\nsingle: %d %s", x.ID, listed, status, single)
		}
	}
}
