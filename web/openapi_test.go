package web_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"greatbook/web/api"
	"greatbook/web/webtest"
)

var echoParam = regexp.MustCompile(`:([a-zA-Z_]+)`)

// Every /api/v1 route the server registers is described by the document, and
// every described route exists.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	registered := map[string]bool{}
	for _, r := range a.Web.Echo().Routes() {
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
