package webtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// APIClient calls the JSON API with a bearer token.
type APIClient struct {
	T     *testing.T
	Base  string
	Token string
}

// API is an API client with the token of a new user of role, in a new org.
func (a *Site) API(t *testing.T, role auth.Role) (*APIClient, auth.User) {
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, role)
	return a.APIFor(t, u), u
}

// APIFor is an API client with a new API token of u.
func (a *Site) APIFor(t *testing.T, u auth.User) *APIClient {
	return &APIClient{T: t, Base: a.URL, Token: testkit.Token(t, a.DB, u)}
}

// Anonymous is an API client without a token.
func (a *Site) Anonymous(t *testing.T) *APIClient { return &APIClient{T: t, Base: a.URL} }

// Do sends a request with the token and reads the JSON it answers.
func (c *APIClient) Do(method, path, contentType string, body []byte) (int, map[string]any) {
	c.T.Helper()
	req, _ := http.NewRequest(method, c.Base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.T.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

// PostJSON posts a JSON body.
func (c *APIClient) PostJSON(path, body string) (int, map[string]any) {
	return c.Do("POST", path, "application/json", []byte(body))
}

// Get reads path.
func (c *APIClient) Get(path string) (int, map[string]any) { return c.Do("GET", path, "", nil) }

// Raw sends a request without a body and returns the body as it came.
func (c *APIClient) Raw(method, path string) (int, []byte) {
	c.T.Helper()
	req, _ := http.NewRequest(method, c.Base+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// WaitStatus polls the API until a document reaches a status (the pipeline
// runs in the background). Its bound is generous, for a loaded machine: a
// run that never ends fails here all the same.
func (c *APIClient) WaitStatus(id float64, want string) map[string]any {
	c.T.Helper()
	var doc map[string]any
	if err := testkit.Poll(60*time.Second, func() (bool, error) {
		_, doc = c.Get("/api/v1/intake/" + Itoa(int64(id)))
		return doc["status"] == want, nil
	}); err != nil {
		c.T.Fatalf("document %v is %v, want %s: %v", id, doc["status"], want, err)
	}
	return doc
}

// ErrorOf is the error envelope of an answer.
func ErrorOf(body map[string]any) map[string]any {
	e, _ := body["error"].(map[string]any)
	return e
}

// ListPage is one page of a listing as it came.
type ListPage struct {
	Documents  []json.RawMessage `json:"documents"`
	Entries    []json.RawMessage `json:"entries"`
	Questions  []json.RawMessage `json:"questions"`
	NextCursor *string           `json:"next_cursor"`
}

// Page reads one page of a listing.
func (c *APIClient) Page(path string) ListPage {
	c.T.Helper()
	status, body := c.Raw("GET", path)
	if status != 200 {
		c.T.Fatalf("GET %s: %d %s", path, status, body)
	}
	var p ListPage
	if err := json.Unmarshal(body, &p); err != nil {
		c.T.Fatalf("GET %s: %v: %s", path, err, body)
	}
	return p
}

// IDsOf are the ids of a page's items.
func IDsOf(t *testing.T, docs []json.RawMessage) []int64 {
	t.Helper()
	ids := make([]int64, 0, len(docs))
	for _, d := range docs {
		var x struct{ ID int64 }
		if err := json.Unmarshal(d, &x); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	return ids
}

// Pages follows next_cursor from path until null, handing each page to
// each, with a hook between pages.
func (c *APIClient) Pages(path string, between func(), each func(ListPage)) {
	c.T.Helper()
	next := path
	for pages := 0; ; pages++ {
		if pages > 1000 {
			c.T.Fatal("the listing never ends")
		}
		p := c.Page(next)
		each(p)
		if p.NextCursor == nil {
			return
		}
		if between != nil {
			between()
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		next = path + sep + "cursor=" + url.QueryEscape(*p.NextCursor)
	}
}

// ListAll follows the document listing from path, with a hook between pages.
func (c *APIClient) ListAll(path string, between func()) []int64 {
	c.T.Helper()
	var ids []int64
	c.Pages(path, between, func(p ListPage) { ids = append(ids, IDsOf(c.T, p.Documents)...) })
	return ids
}
