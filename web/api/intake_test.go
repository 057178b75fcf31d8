package api_test

import (
	"bytes"
	"mime/multipart"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

func multipartBody(t *testing.T, filename, contentType string, content []byte) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + filename + `"`}
	h["Content-Type"] = []string{contentType}
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

func TestIntakeAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSiteWith(t, app.Config{MaxUploadBytes: 64 << 10})
	c, _ := a.API(t, auth.RoleReviewer)
	ubl := webtest.Sample(t, "ubl-invoice-multirate.xml")

	status, body := c.Do("POST", "/api/v1/documents", "application/xml", ubl)
	if status != 202 || body["status"] != "received" || body["run_id"] == "" {
		t.Fatalf("new document: %d %v", status, body)
	}
	id := body["intake_id"].(float64)
	doc := c.WaitStatus(id, "pending")
	fields := doc["fields"].(map[string]any)
	if doc["doc_type"] != "invoice" || doc["source_ref"] == nil || doc["flag_reason"] != nil || doc["duplicate_of"] != nil ||
		fields["number"] == nil || len(doc["content_hash"].(string)) != 64 || doc["job"] != nil || doc["result_entry_id"] != nil {
		t.Fatalf("document: %v", doc)
	}
	if g := doc["group"].([]any); len(g) != 1 || g[0].(map[string]any)["id"] != id {
		t.Fatalf("group of a lone document: %v", g)
	}

	status, body = c.Do("POST", "/api/v1/documents", "application/xml", ubl)
	if status != 200 || body["intake_id"] != id || body["status"] != "pending" || body["run_id"] != nil {
		t.Fatalf("same bytes again: %d %v", status, body)
	}

	// The same invoice as other bytes, sent as a multipart form.
	mp, ct := multipartBody(t, "copy.xml", "application/xml", append([]byte("<!-- copy -->\n"), ubl...))
	status, body = c.Do("POST", "/api/v1/documents", ct, mp)
	if status != 202 {
		t.Fatalf("multipart: %d %v", status, body)
	}
	dup := c.WaitStatus(body["intake_id"].(float64), "flagged")
	if dup["flag_reason"] != "duplicate" || dup["duplicate_of"] != id || dup["duplicate_reason"] != "same_reference" || dup["filename"] != "copy.xml" {
		t.Fatalf("copy: %v", dup)
	}
	if g := dup["group"].([]any); len(g) != 2 || g[0].(map[string]any)["id"] != id || g[1].(map[string]any)["status"] != "flagged" {
		t.Fatalf("group: %v", g)
	}

	for _, tc := range []struct {
		name, ct string
		body     []byte
		status   int
		code     string
	}{
		{"too large", "application/xml", append([]byte("<Invoice>"), make([]byte, 64<<10)...), 413, "too_large"},
		{"too large in a form", "", nil, 413, "too_large"},
		{"unsupported", "text/plain", []byte("hello"), 415, "unsupported_media_type"},
		{"unknown JSON field", "application/json", webtest.Sample(t, "json-unknown-field.json"), 422, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := tc.body, tc.ct
			if ct == "" {
				body, ct = multipartBody(t, "big.xml", "application/xml", append([]byte("<Invoice>"), make([]byte, 64<<10)...))
			}
			status, resp := c.Do("POST", "/api/v1/documents", ct, body)
			if status != tc.status || webtest.ErrorOf(resp)["code"] != tc.code {
				t.Fatalf("got %d %v", status, resp)
			}
		})
	}
	if n := webtest.CountRows(t, a, "intake_documents"); n != 2 {
		t.Fatalf("%d documents after refused uploads, want 2", n)
	}

	other, _ := a.API(t, auth.RoleReviewer)
	if status, body := other.Get("/api/v1/intake/" + webtest.Itoa(int64(id))); status != 404 || webtest.ErrorOf(body)["code"] != "not_found" {
		t.Fatalf("another org: %d %v", status, body)
	}
	// The same bytes in another org are that org's own document.
	if status, body := other.Do("POST", "/api/v1/documents", "application/xml", ubl); status != 202 || body["intake_id"] == id {
		t.Fatalf("another org uploading the same bytes: %d %v", status, body)
	}
}
