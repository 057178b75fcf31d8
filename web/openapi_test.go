package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/helpers"

	"greatbook/web/api"
)

var (
	apiValidatorOnce sync.Once
	apiValidator     validator.Validator
	apiValidatorErr  error
	// apiValidatorMu serialises validation: the validator's caches are
	// shared, and every parallel test's responses go through it.
	apiValidatorMu sync.Mutex
)

// openAPIValidator is the response validator built from the served document,
// once per test binary.
func openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	apiValidatorOnce.Do(func() {
		doc, err := libopenapi.NewDocument(api.OpenAPIDocument())
		if err != nil {
			apiValidatorErr = fmt.Errorf("openapi.json does not parse: %w", err)
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			apiValidatorErr = fmt.Errorf("openapi.json: %v", errs)
			return
		}
		apiValidator = v
	})
	if apiValidatorErr != nil {
		t.Fatal(apiValidatorErr)
	}
	return apiValidator
}

// validateAPIResponse checks one /api/v1 response against the document. A
// path the document does not describe is skipped here: the coverage test
// says whether the route exists (tests add failing routes of their own, and
// unknown paths answer 404 in the error envelope).
func validateAPIResponse(t *testing.T, req *http.Request, resp *http.Response) error {
	v := openAPIValidator(t)
	apiValidatorMu.Lock()
	defer apiValidatorMu.Unlock()
	ok, errs := v.ValidateHttpResponse(req, resp)
	if ok {
		return nil
	}
	var msgs []string
	for _, e := range errs {
		if e.ValidationType == helpers.PathValidation {
			return nil
		}
		msg := e.Message + ": " + e.Reason
		for _, se := range e.SchemaValidationErrors {
			msg += fmt.Sprintf("; %s at %s", se.Reason, se.FieldPath)
		}
		msgs = append(msgs, msg)
	}
	return fmt.Errorf("%s %s answered %d, which the OpenAPI document does not allow:\n  %s",
		req.Method, req.URL.Path, resp.StatusCode, strings.Join(msgs, "\n  "))
}

// validatingAPI serves h and checks every /api/v1 response against the
// OpenAPI document before the client sees it, so every API test validates
// the responses it receives; a response the document does not allow fails
// the test that provoked it.
func validatingAPI(t *testing.T, h http.Handler) http.Handler {
	openAPIValidator(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v1/") {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		res := rec.Result()
		body := rec.Body.Bytes()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if err := validateAPIResponse(t, r, res); err != nil {
			t.Errorf("%v\n  body: %.600s", err, body)
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

var echoParam = regexp.MustCompile(`:([a-zA-Z_]+)`)

// Every /api/v1 route the server registers is described by the document, and
// every described route exists.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	registered := map[string]bool{}
	for _, r := range a.srv.Echo().Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") || r.Method == "echo_route_not_found" || strings.HasSuffix(r.Path, "*") {
			continue
		}
		registered[r.Method+" "+echoParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				described[strings.ToUpper(method)+" "+path] = true
			}
		}
	}
	for route := range registered {
		if !described[route] {
			t.Errorf("%s is served but web/api/openapi.json does not describe it", route)
		}
	}
	for route := range described {
		if !registered[route] {
			t.Errorf("web/api/openapi.json describes %s, which the server does not serve", route)
		}
	}
	if len(registered) < 10 {
		t.Fatalf("only %d /api/v1 routes found: the walk is broken", len(registered))
	}
}

// The document is served without a token, is what the binary embeds, and is
// itself a valid OpenAPI 3.1 document.
func TestOpenAPIDocumentIsServedAndValid(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	resp, err := http.Get(a.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		!bytes.Equal(got, api.OpenAPIDocument()) {
		t.Fatalf("GET /api/v1/openapi.json without a token: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var head struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(got, &head); err != nil || !strings.HasPrefix(head.OpenAPI, "3.1.") {
		t.Fatalf("openapi version %q (%v), want 3.1.x", head.OpenAPI, err)
	}
	v := openAPIValidator(t)
	apiValidatorMu.Lock()
	ok, errs := v.ValidateDocument()
	apiValidatorMu.Unlock()
	if !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s", se.Reason, se.FieldPath)
			}
		}
	}
}

// The validation the API tests go through refuses responses that break the
// contract: money as a JSON number, a missing field, an undocumented status,
// an error outside the envelope.
func TestOpenAPIValidationRefusesAWrongResponse(t *testing.T) {
	t.Parallel()
	entry := func(debit string) string {
		return `{"id": 41, "source_type": "payroll", "source_id": "run-1", "entry_set": "main", "date": "2026-11-30",
			"currency": "EUR", "description": "", "fingerprint": null, "reverses_id": null,
			"lines": [{"account": "6000", "debit": ` + debit + `, "credit": "0.00", "dimensions": null}]}`
	}
	respond := func(status int, body string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body))}
	}
	get := httptest.NewRequest("GET", "/api/v1/journal-entries/41", nil)
	for _, tc := range []struct {
		name   string
		resp   *http.Response
		wantOK bool
	}{
		{"the contract's entry", respond(200, entry(`"100.00"`)), true},
		{"the contract's not-found error", respond(404, `{"error": {"code": "not_found", "message": "not found"}}`), true},
		{"money as a JSON number", respond(200, entry(`100.00`)), false},
		{"money with a thousands separator", respond(200, entry(`"1,000.00"`)), false},
		{"an entry without its lines", respond(200, `{"id": 41}`), false},
		{"an id as a string", respond(200, strings.Replace(entry(`"1.00"`), `"id": 41`, `"id": "41"`, 1)), false},
		{"a status the operation does not document", respond(418, `{"error": {"code": "internal", "message": "x"}}`), false},
		{"an error code that does not go with its status", respond(404, `{"error": {"code": "invalid", "message": "x"}}`), false},
		{"an error outside the envelope", respond(404, `{"code": "not_found", "message": "x"}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validateAPIResponse(t, get, tc.resp)
			if (err == nil) != tc.wantOK {
				t.Fatalf("validation error %v, want ok=%v", err, tc.wantOK)
			}
		})
	}
}
