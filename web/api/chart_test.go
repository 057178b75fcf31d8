package api_test

import (
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Accounts and dimensions through the API: an admin creates an account
// (201, then 200 for the same, 409 for other facts) and sets a dimension's
// values (those not listed keep their state); any member lists them; a
// reviewer cannot write, and a reserved dimension name is refused saying why.
func TestChartAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	r := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleReviewer))
	ad := a.APIFor(t, testkit.User(t, a.DB, o, auth.RoleAdmin))

	account := `{"code": "6600", "name": "Hardware", "type": "expense"}`
	if status, body := r.PostJSON("/api/v1/accounts", account); status != 403 || webtest.ErrorOf(body)["code"] != "forbidden" {
		t.Fatalf("a reviewer creating an account: %d %v", status, body)
	}
	if status, body := ad.PostJSON("/api/v1/accounts", account); status != 201 || body["code"] != "6600" || body["active"] != true {
		t.Fatalf("create: %d %v", status, body)
	}
	if status, body := ad.PostJSON("/api/v1/accounts", account); status != 200 || body["name"] != "Hardware" {
		t.Fatalf("the same again: %d %v", status, body)
	}
	if status, body := ad.PostJSON("/api/v1/accounts", `{"code": "6600", "name": "Hardware", "type": "asset"}`); status != 409 || webtest.ErrorOf(body)["code"] != "invalid_state" {
		t.Fatalf("other facts: %d %v", status, body)
	}
	if status, body := ad.PostJSON("/api/v1/accounts", `{"code": "", "name": "x", "type": "expense"}`); status != 422 || webtest.ErrorOf(body)["reasons"] == nil {
		t.Fatalf("no code: %d %v", status, body)
	}
	status, body := r.Get("/api/v1/accounts")
	found := false
	for _, x := range body["accounts"].([]any) {
		found = found || x.(map[string]any)["code"] == "6600"
	}
	if status != 200 || !found {
		t.Fatalf("list: %d %v", status, body)
	}

	put := func(c *webtest.APIClient, name, values string) (int, map[string]any) {
		return c.Do("PUT", "/api/v1/dimensions/"+name, "application/json", []byte(`{"values": `+values+`}`))
	}
	if status, body := put(r, "cost_center", `[]`); status != 403 {
		t.Fatalf("a reviewer setting values: %d %v", status, body)
	}
	if status, body := put(ad, "cost_center", `[{"code": "OPS", "name": "Operations", "active": true}, {"code": "RND", "name": "Research"}]`); status != 200 ||
		body["name"] != "cost_center" || len(body["values"].([]any)) != 2 {
		t.Fatalf("put: %d %v", status, body)
	}
	if status, body := put(ad, "cost_center", `[{"code": "OPS", "name": "Operations", "active": false}]`); status != 200 || len(body["values"].([]any)) != 2 {
		t.Fatalf("deactivate one: %d %v", status, body)
	}
	status, body = r.Get("/api/v1/dimensions")
	ds, _ := body["dimensions"].([]any)
	if status != 200 || len(ds) != 1 {
		t.Fatalf("list: %d %v", status, body)
	}
	values := ds[0].(map[string]any)["values"].([]any)
	if ops, rnd := values[0].(map[string]any), values[1].(map[string]any); ops["active"] != false || rnd["active"] != true || rnd["name"] != "Research" {
		t.Fatalf("values: %v", values)
	}
	for _, name := range []string{"supplier", "vat_rate", "kind", "Cost-Center"} {
		status, body := put(ad, name, `[]`)
		if status != 422 || webtest.ErrorOf(body)["code"] != "invalid" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}
