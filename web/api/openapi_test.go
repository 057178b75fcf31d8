package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"greatbook/web/api"
	"greatbook/web/webtest"
)

// The document is served without a token, is what the binary embeds, and is
// itself a valid OpenAPI 3.1 document.
func TestOpenAPIDocumentIsServedAndValid(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
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
	doc, err := libopenapi.NewDocument(api.OpenAPIDocument())
	if err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("openapi.json: %v", errs)
	}
	ok, verrs := v.ValidateDocument()
	if !ok {
		for _, e := range verrs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s", se.Reason, se.FieldPath)
			}
		}
	}
}
