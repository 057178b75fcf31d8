package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// hostileCorpus is the repository's hostile-input corpus: each NAME.EXT beside a NAME.EXT.want.json
// saying what must happen to it (testdata/hostile/README.md).
const hostileCorpus = "../testdata/hostile"

// hostileWant is a sidecar. Every field is optional; a field this harness does not know makes it skip
// the file, naming the field, rather than pass without checking it.
type hostileWant struct {
	Via         string `json:"via"`          // "api" (the default): the bytes as the body; "upload_filename": a multipart upload
	ContentType string `json:"content_type"` // the request's (api) or the file part's (upload_filename) Content-Type
	Filename    string `json:"filename"`     // upload_filename: the part's filename, sent as it is
	Status      int    `json:"status"`       // the HTTP status of the upload; any 2xx when absent
	ErrorCode   string `json:"error_code"`   // the API error code of a refused upload
	FinalStatus string `json:"final_status"` // the document's status once its run has ended
	FlagReason  string `json:"flag_reason"`
	Finding     string `json:"finding"`      // the code of one of its findings
	NoPage      bool   `json:"no_page"`      // do not open /intake/{id} (a slice that cannot render it yet)
	MaxMillis   int    `json:"max_ms"`       // the whole upload, run and page; 10 s when absent
	MaxAllocMB  int    `json:"max_alloc_mb"` // bytes the process allocated meanwhile; 256 MB when absent
	PageMustNot string `json:"page_must_not_contain"`
	Note        string `json:"note"`
}

// hostileSlack stretches a sidecar's max_ms into the test's bound: the figure is what the upload, run and
// page take on an unloaded machine, and a loaded 2-core machine under -race is several times slower. The
// bound catches runaway work (the quadratic object stream took hours), far beyond either; the caps
// themselves are proven by the findings (input_cap), the einvoice tests' work counts and the allocation
// bound, which a slow machine does not stretch.
const hostileSlack = 10

var hostileWantFields = []string{"via", "content_type", "filename", "status", "error_code", "final_status",
	"flag_reason", "finding", "no_page", "max_ms", "max_alloc_mb", "page_must_not_contain", "note"}

// TestHostileCorpus uploads every file of the corpus through the API as its sidecar says and checks the
// answer, the state its run ends in, that its page opens, and bounds on the time and the memory all that
// took. Not parallel: the allocation is measured process-wide.
func TestHostileCorpus(t *testing.T) {
	sidecars, err := filepath.Glob(filepath.Join(hostileCorpus, "*.want.json"))
	if err != nil || len(sidecars) == 0 {
		t.Fatalf("no sidecars in %s: %v", hostileCorpus, err)
	}
	sort.Strings(sidecars)
	a := webtest.NewSite(t)
	for _, sidecar := range sidecars {
		name := strings.TrimSuffix(filepath.Base(sidecar), ".want.json")
		t.Run(name, func(t *testing.T) {
			// An org of its own: no corpus file is a duplicate of another.
			c, u := a.API(t, auth.RoleReviewer)
			browser := a.Client(t)
			a.SignIn(t, browser, u)
			want := readHostileWant(t, sidecar)
			content, err := os.ReadFile(strings.TrimSuffix(sidecar, ".want.json"))
			if err != nil {
				t.Fatal(err)
			}
			req := hostileRequest(t, c, want, content)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			started := time.Now()
			bound := time.Duration(cmpOr(want.MaxMillis, 10_000)) * time.Millisecond * hostileSlack

			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			switch {
			case want.Status != 0 && resp.StatusCode != want.Status,
				want.Status == 0 && resp.StatusCode/100 != 2:
				t.Fatalf("upload: %d %s, want %d (%s)", resp.StatusCode, clip(raw), want.Status, want.Note)
			}
			if want.ErrorCode != "" && webtest.ErrorOf(body)["code"] != want.ErrorCode {
				t.Fatalf("upload: error %v, want code %s", body, want.ErrorCode)
			}
			if resp.StatusCode/100 == 2 {
				id, ok := body["intake_id"].(float64)
				if !ok {
					t.Fatalf("upload answered %d without an intake_id: %s", resp.StatusCode, clip(raw))
				}
				doc := waitFiled(t, c, id, bound-time.Since(started))
				if want.FinalStatus != "" && doc["status"] != want.FinalStatus ||
					want.FlagReason != "" && doc["flag_reason"] != want.FlagReason {
					t.Fatalf("filed %v / %v, want %s / %s (%s)", doc["status"], doc["flag_reason"], want.FinalStatus, want.FlagReason, want.Note)
				}
				if want.Finding != "" && !hasFinding(doc, want.Finding) {
					t.Fatalf("findings %v, want one with code %s", doc["findings"], want.Finding)
				}
				if !want.NoPage {
					page := getPage(t, browser, a.URL+"/intake/"+webtest.Itoa(int64(id)))
					if want.PageMustNot != "" && strings.Contains(page, want.PageMustNot) {
						t.Fatalf("the page shows %q", want.PageMustNot)
					}
				}
			}

			elapsed := time.Since(started)
			runtime.ReadMemStats(&after)
			allocMB := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
			t.Logf("%d bytes: %d in %v, %.1f MB allocated", len(content), resp.StatusCode, elapsed.Round(time.Millisecond), allocMB)
			if elapsed > bound {
				t.Errorf("took %v, bound %v (%d× the sidecar's max_ms)", elapsed, bound, hostileSlack)
			}
			if limit := float64(cmpOr(want.MaxAllocMB, 256)) * raceAllocFactor; allocMB > limit {
				t.Errorf("allocated %.1f MB, bound %.0f MB", allocMB, limit)
			}
		})
	}
}

func readHostileWant(t *testing.T, path string) hostileWant {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("sidecar %s: %v", path, err)
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(hostileWantFields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		t.Skipf("the sidecar names %v, which this harness cannot check yet", unknown)
	}
	var want hostileWant
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("sidecar %s: %v", path, err)
	}
	return want
}

// hostileRequest builds the upload a sidecar asks for.
func hostileRequest(t *testing.T, c *webtest.APIClient, want hostileWant, content []byte) *http.Request {
	t.Helper()
	var body []byte
	contentType := want.ContentType
	switch want.Via {
	case "", "api":
	case "upload_filename":
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		h := textproto.MIMEHeader{}
		// The filename goes out as a client's multipart writer sends it: quotes and backslashes escaped,
		// every other byte (NULs, control characters, invalid UTF-8) as it is, for that is the attack.
		quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(want.Filename)
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+quoted+`"`)
		h.Set("Content-Type", cmpOr(want.ContentType, "application/octet-stream"))
		part, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = part.Write(content)
		_ = w.Close()
		body, contentType = buf.Bytes(), w.FormDataContentType()
	default:
		t.Skipf("via %q: this harness cannot send that yet", want.Via)
	}
	if body == nil {
		body = content
	}
	req, err := http.NewRequest("POST", c.Base+"/api/v1/documents", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// waitFiled polls a document until its run has filed it, for at most within (a run that never ends
// fails here).
func waitFiled(t *testing.T, c *webtest.APIClient, id float64, within time.Duration) map[string]any {
	t.Helper()
	var doc map[string]any
	err := testkit.Poll(within, func() (bool, error) {
		status, got := c.Get("/api/v1/intake/" + webtest.Itoa(int64(id)))
		if status != 200 {
			return false, fmt.Errorf("GET document %v: %d %v", id, status, got)
		}
		doc = got
		return doc["status"] != "received", nil
	})
	if err != nil {
		t.Fatalf("document %v still %v (its run never ended): %v", id, doc["status"], err)
	}
	return doc
}

func hasFinding(doc map[string]any, code string) bool {
	findings, _ := doc["findings"].([]any)
	for _, f := range findings {
		if m, ok := f.(map[string]any); ok && m["code"] == code {
			return true
		}
	}
	return false
}

func getPage(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, clip(raw))
	}
	return string(raw)
}

func clip(b []byte) string {
	if len(b) > 300 {
		return fmt.Sprintf("%s... (%d bytes)", b[:300], len(b))
	}
	return string(b)
}

func cmpOr[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}
