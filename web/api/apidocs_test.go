package api_test

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"greatbook/web/api"
)

// apiReferencePath is the HTTP API reference written for the product's users.
const apiReferencePath = "../../docs/api.md"

// apiReferenceRoute is how docs/api.md gives each route a section of its own:
// a level-3 heading holding only the method and the path, as in
// "### `GET /api/v1/intake/{id}`".
var apiReferenceRoute = regexp.MustCompile("(?m)^### `([A-Z]+) (/api/v1/[^`\\s]*)`[ \t]*$")

// The API reference documents every route the OpenAPI document describes,
// and no route the document does not describe, so that a route added to,
// changed in or removed from the API cannot leave the reference behind.
func TestAPIReferenceCoversEveryRoute(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	described := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				described[strings.ToUpper(method)+" "+path] = true
			}
		}
	}
	if len(described) == 0 {
		t.Fatal("openapi.json describes no route")
	}

	reference, err := os.ReadFile(apiReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range apiReferenceRoute.FindAllSubmatch(reference, -1) {
		documented[string(m[1])+" "+string(m[2])] = true
	}

	var missing, unknown []string
	for route := range described {
		if !documented[route] {
			missing = append(missing, route)
		}
	}
	for route := range documented {
		if !described[route] {
			unknown = append(unknown, route)
		}
	}
	sort.Strings(missing)
	sort.Strings(unknown)
	for _, route := range missing {
		t.Errorf("docs/api.md has no section for %s (a heading \"### `%s`\")", route, route)
	}
	for _, route := range unknown {
		t.Errorf("docs/api.md documents %s, which web/api/openapi.json does not describe", route)
	}
}
