package webtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
