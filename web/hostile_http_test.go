package web_test

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A client cannot post under a source type the product writes itself: the
// reviewer's entry under the bookkeeper's key of a pending document is
// refused, and the approval then posts the document as usual. Reversing the
// product's entry through the API still works (a reversal keeps the type).
func TestReservedSourceTypesAreRefusedToClients(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	r := a.APIFor(t, reviewer)
	id := webtest.Filed(t, r, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	for _, st := range ledger.ReservedSourceTypes {
		body := strings.NewReplacer(`"payroll"`, fmt.Sprintf("%q", st), `"run-2026-11"`, fmt.Sprintf(`"%d"`, id), `"main"`, `"bill"`, `"EUR"`, `"SEK"`).Replace(webtest.Payroll)
		status, resp := r.PostJSON("/api/v1/journal-entries", body)
		e := webtest.ErrorOf(resp)
		reasons, _ := e["reasons"].([]any)
		if status != 422 || e["code"] != "invalid" || len(reasons) != 1 || reasons[0].(map[string]any)["field"] != "source_type" {
			t.Fatalf("posting under %q: %d %v", st, status, resp)
		}
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM ledger_observations`); n != 0 {
		t.Fatalf("a refused client post was recorded under the product's key (%d observations)", n)
	}

	status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", "")
	if status != 200 {
		t.Fatalf("approve: %d %v", status, resp)
	}
	posted := r.WaitStatus(float64(id), "posted")
	entryID := int64(posted["result_entry_id"].(float64))

	status, rev := r.PostJSON("/api/v1/journal-entries/"+webtest.Itoa(entryID)+"/reverse", "")
	if status != 201 || rev["source_type"] != ledger.SourceTypeIntake || rev["entry_set"] != "bill/reversal" {
		t.Fatalf("reversing the bookkeeper's entry: %d %v", status, rev)
	}
}

// Every route that names an object by id answers 404 for another org's
// object, in the JSON API and in the browser alike (docs/security.md:
// another org's id is 404), and changes nothing.
func TestAnotherOrgsIDsAre404OnEveryRoute(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	owner := webtest.BookkeepingOrg(t, a)
	r := a.APIFor(t, testkit.User(t, a.DB, owner, auth.RoleReviewer))
	docID := webtest.Filed(t, r, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	if status, resp := r.PostJSON("/api/v1/intake/"+webtest.Itoa(docID)+"/approve", ""); status != 200 {
		t.Fatalf("approve: %d %v", status, resp)
	}
	posted := r.WaitStatus(float64(docID), "posted")
	job := posted["job"].(map[string]any)
	jobID, runID := webtest.Itoa(int64(job["id"].(float64))), job["run_id"].(string)
	entryID := webtest.Itoa(int64(posted["result_entry_id"].(float64)))
	status, tw := r.PostJSON("/api/v1/typewriter/documents", webtest.Composed)
	if status != 201 {
		t.Fatalf("compose: %d %v", status, tw)
	}
	twID := webtest.Itoa(int64(tw["id"].(float64)))
	versionID := webtest.Itoa(int64(tw["version"].(map[string]any)["id"].(float64)))
	doc := webtest.Itoa(docID)
	// A document read from its text (its page images), and a layout learned.
	read := webtest.Itoa(webtest.FiledPDF(t, r, webtest.GermanInvoice(t, "Rechnungsnummer:", "30064443", "15.11.2024", "29,18", "5,55", "34,73"), "pending"))
	var layoutID int64
	if err := a.DB.Pool.QueryRow(t.Context(), `INSERT INTO supplier_layouts (org_id, supplier_key, supplier_name, layout, learned_by)
		VALUES ($1, 'vat:DE123456789', 'Lieferant GmbH', '{"fields": {}}', 'test') RETURNING id`, owner.ID).Scan(&layoutID); err != nil {
		t.Fatal(err)
	}
	layout := webtest.Itoa(layoutID)

	// The intruder is an admin of another org, so no route refuses it for its role first.
	intruderOrg := testkit.Org(t, a.DB)
	intruder := testkit.User(t, a.DB, intruderOrg, auth.RoleAdmin)
	api := a.APIFor(t, intruder)
	reason := `{"reason": "not mine to decide"}`
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/v1/intake/" + doc, ""},
		{"GET", "/api/v1/intake/" + read + "/reading", ""},
		{"DELETE", "/api/v1/layouts/" + layout, ""},
		{"POST", "/api/v1/intake/" + doc + "/approve", ""},
		{"POST", "/api/v1/intake/" + doc + "/reject", reason},
		{"POST", "/api/v1/intake/" + doc + "/close-nothing-to-post", ""},
		{"POST", "/api/v1/intake/" + doc + "/not-a-duplicate", reason},
		{"POST", "/api/v1/jobs/" + jobID + "/retry", reason},
		{"POST", "/api/v1/typewriter/documents/" + twID + "/versions", webtest.Composed},
		{"GET", "/api/v1/typewriter/versions/" + versionID + "/pdf", ""},
		{"POST", "/api/v1/typewriter/versions/" + versionID + "/submit", ""},
		{"POST", "/api/v1/runs/" + runID + "/answer", `{"account": "6000"}`},
		{"GET", "/api/v1/journal-entries/" + entryID, ""},
		{"POST", "/api/v1/journal-entries/" + entryID + "/reverse", ""},
	} {
		if status, body := api.Do(tc.method, tc.path, "application/json", []byte(tc.body)); status != 404 || webtest.ErrorOf(body)["code"] != "not_found" {
			t.Errorf("API %s %s with another org's id: %d %v", tc.method, tc.path, status, body)
		}
	}

	c := a.Client(t)
	csrf := a.SignIn(t, c, intruder)
	form := "reason=not+mine&account=6000&run_id=" + runID + "&number=X-1&currency=EUR"
	for _, tc := range []struct{ method, path string }{
		{"GET", "/intake/" + doc},
		{"GET", "/intake/" + doc + "/original"},
		{"GET", "/intake/" + read + "/pages/1"},
		{"POST", "/admin/layouts/" + layout + "/forget"},
		{"GET", "/intake/" + doc + "/type-in"},
		{"POST", "/intake/" + doc + "/type-in"},
		{"GET", "/intake/" + doc + "/decision"},
		{"GET", "/intake/" + doc + "/compare?with=" + doc},
		{"GET", "/intake/" + doc + "/watch?sig=stale"},
		{"GET", "/upload/documents/" + doc + "?arrival=new&poll=1"},
		{"POST", "/intake/" + doc + "/approve"},
		{"POST", "/intake/" + doc + "/reject"},
		{"POST", "/intake/" + doc + "/close-nothing-to-post"},
		{"POST", "/intake/" + doc + "/answer"},
		{"POST", "/intake/" + doc + "/not-a-duplicate"},
		{"POST", "/jobs/" + jobID + "/retry"},
		{"GET", "/admin/jobs/" + jobID},
		{"POST", "/admin/jobs/" + jobID + "/retry"},
		{"GET", "/admin/runs/" + runID},
		{"GET", "/typewriter/" + twID},
		{"GET", "/typewriter/" + twID + "/diff"},
		{"GET", "/typewriter/" + twID + "/revise"},
		{"POST", "/typewriter/" + twID + "/revise"},
		{"POST", "/typewriter/versions/" + versionID + "/submit"},
		{"GET", "/typewriter/versions/" + versionID + "/pdf"},
		{"GET", "/ledger/entries/" + entryID},
		{"POST", "/ledger/entries/" + entryID + "/reverse"},
	} {
		for _, htmx := range []bool{false, true} {
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader(form)
			}
			req, _ := http.NewRequest(tc.method, a.URL+tc.path, body)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-CSRF-Token", csrf)
			if htmx {
				req.Header.Set("HX-Request", "true")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("browser %s %s (htmx %v) with another org's id: %d", tc.method, tc.path, htmx, resp.StatusCode)
			}
		}
	}

	// The intruder's own document compared "with" the owner's shows nothing of it.
	own := webtest.Filed(t, api, webtest.Sample(t, "cii-invoice.xml"), "pending")
	number := posted["fields"].(map[string]any)["number"].(string) // NK-2026-0042, not the intruder's
	resp, err := c.Get(a.URL + "/intake/" + webtest.Itoa(own) + "/compare?with=" + doc)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(string(page), number) {
		t.Errorf("compare with another org's document: %d, shows its number %s: %v", resp.StatusCode, number, strings.Contains(string(page), number))
	}

	// Nothing of the owner's changed.
	if got := r.WaitStatus(float64(docID), "posted"); got["job"].(map[string]any)["attempts"] != job["attempts"] {
		t.Fatalf("the owner's document changed: %v", got)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_entries`); n != 1 {
		t.Fatalf("%d journal entries, want the owner's one", n)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM supplier_layouts WHERE id = $1`, layoutID); n != 1 {
		t.Fatal("the owner's layout was forgotten")
	}
}

// hostileFilenames are Content-Disposition parameters of an uploaded part
// that once gave a 500 or were stored and sent back unbounded.
var hostileFilenames = []struct {
	name, param, want string
}{
	// A raw NUL is not allowed in a header line at all: the part is malformed (422, below).
	{"NUL in filename*", "filename*=utf-8''inv%00oice.json", "inv_oice.json"},
	{"invalid UTF-8 in filename*", "filename*=utf-8''inv%FF%FEoice.json", "inv\uFFFDoice.json"},
	{"invalid UTF-8", "filename=\"inv\xff\xfeoice.json\"", "inv\uFFFDoice.json"},
	{"100 kB", `filename="` + strings.Repeat("a", 100_000) + `.json"`, strings.Repeat("a", 250) + ".json"},
	{"path traversal", `filename="..\..\etc\passwd"`, "passwd"},
	{"right-to-left override", "filename*=utf-8''invoice%E2%80%AEfdp.exe", "invoice_fdp.exe"},
}

// hostilePart is a multipart body of one part "file" with a raw
// Content-Disposition parameter, and a distinct small invoice as content.
func hostilePart(t *testing.T, param string, n int, csrf string) ([]byte, string) {
	const boundary = "hostile-boundary"
	var b strings.Builder
	if csrf != "" {
		b.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + csrf + "\r\n")
	}
	b.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; " + param + "\r\n")
	b.WriteString("Content-Type: application/json\r\n\r\n")
	b.Write(bytes.Replace(webtest.Sample(t, "json-invoice-without-totals.json"), []byte("INV-1002"), fmt.Appendf(nil, "FN-%d", n), 1))
	b.WriteString("\r\n--" + boundary + "--\r\n")
	return []byte(b.String()), "multipart/form-data; boundary=" + boundary
}

// A filename with a NUL, invalid UTF-8 (plain or RFC 5987), 100 kB, a path
// or a bidirectional override is cleaned at the door, on the API and on the
// upload form: the document is accepted, stored under the clean name, and
// sent back with a short, well-formed Content-Disposition.
func TestHostileFilenamesAreCleanedAtTheDoor(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	api := a.APIFor(t, u)
	c := a.Client(t)
	csrf := a.SignIn(t, c, u)

	n := 0
	for _, tc := range hostileFilenames {
		for _, door := range []string{"api", "upload"} {
			t.Run(tc.name+" via "+door, func(t *testing.T) {
				n++
				var id int64
				if door == "api" {
					body, ct := hostilePart(t, tc.param, n, "")
					status, resp := api.Do("POST", "/api/v1/documents", ct, body)
					if status != 202 {
						t.Fatalf("upload: %d %v", status, resp)
					}
					id = int64(resp["intake_id"].(float64))
				} else {
					body, ct := hostilePart(t, tc.param, n, csrf)
					req, _ := http.NewRequest("POST", a.URL+"/upload", bytes.NewReader(body))
					req.Header.Set("Content-Type", ct)
					req.Header.Set("HX-Request", "true")
					resp, err := c.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					d := webtest.Doc(t, resp)
					href, _ := d.Find(`[data-testid=upload-result] a`).Attr("href")
					if resp.StatusCode != 200 || href == "" {
						t.Fatalf("upload form: %d %q", resp.StatusCode, d.Text())
					}
					id = webtest.MustAtoi(t, strings.TrimPrefix(href, "/intake/"))
				}
				_, got := api.Get("/api/v1/intake/" + webtest.Itoa(id))
				if got["status"] == nil {
					t.Fatalf("document %d: %v", id, got)
				}
				if name, _ := got["filename"].(string); name != tc.want {
					t.Fatalf("stored filename of %d bytes %.80q…, want %.80q…", len(name), name, tc.want)
				}
				resp, err := c.Get(a.URL + "/intake/" + webtest.Itoa(id) + "/original")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				cd := resp.Header.Get("Content-Disposition")
				_, params, err := mime.ParseMediaType(cd)
				if resp.StatusCode != 200 || err != nil || params["filename"] != tc.want || len(cd) > 1024 {
					t.Fatalf("original: %d, Content-Disposition of %d bytes %.120q… (%v), want filename %.80q…", resp.StatusCode, len(cd), cd, err, tc.want)
				}
			})
		}
	}
}

// The upload page names each file in its result row, also one refused
// before anything is stored: that name is cleaned at the door (the stores
// clean what they keep, but never see a refused file's name).
func TestARefusedUploadShowsItsFilenameCleaned(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, _, c, csrf := a.SignedInClient(t, auth.RoleReviewer)
	const boundary = "refused-boundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + csrf + "\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename*=utf-8''invoice%E2%80%AEfdp.exe\r\n" +
		"Content-Type: text/plain\r\n\r\nnot a document\r\n--" + boundary + "--\r\n"
	req, _ := http.NewRequest("POST", a.URL+"/upload", strings.NewReader(body))
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	row := d.Find(`[data-testid=upload-result]`)
	if outcome, _ := row.Attr("data-outcome"); outcome != "refused" {
		t.Fatalf("upload: %d, outcome %q: %q", resp.StatusCode, outcome, d.Text())
	}
	if name := row.Find(".filename").Text(); name != "invoice_fdp.exe" {
		t.Fatalf("the refused file is shown as %q, want %q", name, "invoice_fdp.exe")
	}
}

// A raw NUL in a part's header is a malformed form: 422 with a clear
// message on both doors, never a 500, and nothing is stored.
func TestANulInAPartHeaderIsAMalformedForm(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	api := a.APIFor(t, u)
	c := a.Client(t)
	csrf := a.SignIn(t, c, u)
	param := "filename=\"inv\x00oice.json\""

	body, ct := hostilePart(t, param, 1, "")
	if status, resp := api.Do("POST", "/api/v1/documents", ct, body); status != 422 || webtest.ErrorOf(resp)["code"] != "invalid" {
		t.Fatalf("API: %d %v", status, resp)
	}
	body, ct = hostilePart(t, param, 1, csrf)
	resp, err := c.Post(a.URL+"/upload", ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 422 {
		t.Fatalf("upload form: %d", resp.StatusCode)
	}
	if n := webtest.CountRows(t, a, "intake_documents"); n != 0 {
		t.Fatalf("%d documents stored from malformed forms", n)
	}
}

// countingBody is a request body of size bytes (a multipart form whose
// first part is a file, or filler) that counts what the server read of it.
type countingBody struct {
	prefix []byte
	size   int64
	read   int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.read >= b.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if rest := b.size - b.read; n > rest {
		n = rest
	}
	for i := range p[:n] {
		if off := b.read + int64(i); off < int64(len(b.prefix)) {
			p[i] = b.prefix[off]
		} else {
			p[i] = 'x'
		}
	}
	b.read += n
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// serveCounting sends one request to the server in-process (no socket
// buffers between) with a counting body, and returns the status and how
// much of the body the server read.
func serveCounting(t *testing.T, a *webtest.Site, method, path, contentType string, size int64, declareLength bool,
	prefix string, cookies []*http.Cookie, header map[string]string) (int, int64) {
	t.Helper()
	body := &countingBody{prefix: []byte(prefix), size: size}
	req := httptest.NewRequest(method, path, nil)
	req.Body = body
	req.ContentLength = -1
	if declareLength {
		req.ContentLength = size
	}
	req.Header.Set("Content-Type", contentType)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.Web.Handler().ServeHTTP(rec, req)
	return rec.Code, body.read
}

// Anonymous requests are refused before their body is read; a form is read
// only once the session is known to hold a token, and every route class has
// its own limit, checked before any read.
func TestBodiesAreBoundedByRouteAndReadOnlyAfterTheCSRFCheck(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	token := testkit.Token(t, a.DB, u)
	const large = 64 << 20 // 64 MiB, well under the browser upload's limit
	const boundary = "b0undary"
	multipartCT := "multipart/form-data; boundary=" + boundary
	filePart := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.xml\"\r\nContent-Type: application/xml\r\n\r\n"
	const almostNothing = 4 << 10

	// A session from the sign-in page: it holds a token but nobody is signed in.
	anon := a.Client(t)
	resp, err := anon.Get(a.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	signinToken, _ := webtest.Doc(t, resp).Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
	base, _ := url.Parse(a.URL)
	anonCookies := anon.Jar.Cookies(base)

	c := a.Client(t)
	csrf := a.SignIn(t, c, u)
	cookies := c.Jar.Cookies(base)

	for _, tc := range []struct {
		name, method, path, contentType, prefix string
		size                                    int64
		declareLength                           bool
		cookies                                 []*http.Cookie
		header                                  map[string]string
		status                                  int
		maxRead                                 int64
	}{
		{"anonymous multipart upload, no session", "POST", "/upload", multipartCT, filePart, large, true, nil, nil, 403, almostNothing},
		{"anonymous multipart upload, chunked", "POST", "/upload", multipartCT, filePart, large, false, nil, nil, 403, almostNothing},
		{"multipart upload from a signed-out session with its token", "POST", "/upload", multipartCT,
			"--" + boundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + signinToken + "\r\n" + filePart,
			large, true, anonCookies, nil, 401, almostNothing},
		{"signed-in multipart upload without the token first", "POST", "/upload", multipartCT, filePart, large, true, cookies, nil, 403, almostNothing},
		{"anonymous form to a non-upload route", "POST", "/intake/1/reject", "application/x-www-form-urlencoded", "reason=", large, true, nil, nil, 413, 0},
		{"oversized form, declared", "POST", "/intake/1/reject", "application/x-www-form-urlencoded", "reason=", 1 << 20, true, cookies,
			map[string]string{"X-CSRF-Token": csrf}, 413, 0},
		{"oversized form, chunked", "POST", "/intake/1/reject", "application/x-www-form-urlencoded", "_csrf=" + csrf + "&reason=", 1 << 20, false, cookies,
			nil, 413, 512 << 10},
		{"oversized multipart form on a non-upload route", "POST", "/typewriter", multipartCT, filePart, 1 << 20, true, cookies,
			map[string]string{"X-CSRF-Token": csrf}, 413, 0},
		{"oversized JSON, declared", "POST", "/api/v1/journal-entries", "application/json", "{", 2 << 20, true, nil,
			map[string]string{"Authorization": "Bearer " + token}, 413, 0},
		{"API upload over the document limit, declared", "POST", "/api/v1/documents", "application/xml", "<a>", large, true, nil,
			map[string]string{"Authorization": "Bearer " + token}, 413, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, read := serveCounting(t, a, tc.method, tc.path, tc.contentType, tc.size, tc.declareLength, tc.prefix, tc.cookies, tc.header)
			if status != tc.status || read > tc.maxRead {
				t.Fatalf("status %d having read %d of %d bytes; want %d having read at most %d", status, read, tc.size, tc.status, tc.maxRead)
			}
		})
	}
}
