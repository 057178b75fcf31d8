package webtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
