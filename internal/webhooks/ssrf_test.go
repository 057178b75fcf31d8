package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/webhooks"
)

// names is a resolver over a fixed table.
type names map[string][]string

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range n[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

var world = names{
	"hooks.example.com": {"93.184.216.34"},
	"localhost":         {"127.0.0.1", "::1"},
	"rebound.example":   {"93.184.216.34", "10.1.2.3"}, // one public, one private answer
	"metadata.internal": {"169.254.169.254"},
}

func TestEndpointURLsThatPointInsideAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ url, want string }{
		{"http://127.0.0.1:8080/hook", "loopback"},
		{"http://localhost/hook", "loopback"},
		{"http://[::1]/hook", "loopback"},
		{"http://[::ffff:127.0.0.1]/hook", "loopback"},
		{"http://10.0.0.7/hook", "private"},
		{"http://192.168.1.1/hook", "private"},
		{"http://172.16.0.1/hook", "private"},
		{"http://[fd00::1]/hook", "private"},
		{"http://169.254.169.254/latest/meta-data", "link-local"},
		{"http://metadata.internal/", "link-local"},
		{"http://[fe80::1]/hook", "link-local"},
		{"http://0.0.0.0/hook", "unspecified"},
		{"http://239.1.2.3/hook", "multicast"},
		{"http://100.64.0.1/hook", "reserved"},
		{"http://[::127.0.0.1]/hook", "reserved"},
		{"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", "reserved"},
		{"http://192.88.99.1/hook", "reserved"},
		{"http://[2001:db8::1]/hook", "reserved"},
		{"http://rebound.example/hook", "private"},
		{"ftp://hooks.example.com/hook", "http:// or https://"},
		{"file:///etc/passwd", "http:// or https://"},
		{"https://user:pw@hooks.example.com/hook", "credentials"},
		{"https:///hook", "no host"},
		{"https://nowhere.example/hook", "does not resolve"},
		{"", "required"},
	} {
		_, err := webhooks.CheckURL(ctx, world, tc.url, false)
		if !apperr.Is(err, apperr.Invalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an invalid naming %q", tc.url, err, tc.want)
		}
	}
	for _, ok := range []string{"https://hooks.example.com/hook", "http://93.184.216.34:8443/x"} {
		if _, err := webhooks.CheckURL(ctx, world, ok, false); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// The operator's allowance lets private addresses through, never other schemes.
	if _, err := webhooks.CheckURL(ctx, world, "http://127.0.0.1:8080/hook", true); err != nil {
		t.Errorf("allowed loopback refused: %v", err)
	}
	if _, err := webhooks.CheckURL(ctx, world, "ftp://127.0.0.1/", true); err == nil {
		t.Error("ftp accepted with the allowance")
	}
}

func TestRegistrationRefusesAnInsideURLUnlessTheOperatorAllowsIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.svc.AllowPrivate = false
	_, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/hook"}, admin)
	if !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("loopback registered: %v", err)
	}
	f.svc.AllowPrivate = true
	ep, secret, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/hook",
		EventTypes: []string{"document.posted, job.failed"}}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "whsec_") || len(secret) < 40 {
		t.Fatalf("generated secret %q", secret)
	}
	if len(ep.EventTypes) != 2 || !ep.Wants("job.failed") || ep.Wants("document.received") {
		t.Fatalf("types %v", ep.EventTypes)
	}
	if _, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/", Secret: "short"}, admin); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("a short secret: %v", err)
	}
	if _, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/", EventTypes: []string{"DROP TABLE"}}, admin); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("a bad type: %v", err)
	}
	// Well formed but not a type the feed shows: a typo would never be
	// delivered, so it is refused with the list of types.
	if _, _, err := f.svc.Register(ctx, f.orgID, webhooks.Registration{URL: "http://127.0.0.1:9/", EventTypes: []string{"document.aproved"}}, admin); !apperr.Is(err, apperr.Invalid) || !strings.Contains(err.Error(), "document.approved") {
		t.Fatalf("a misspelt type: %v", err)
	}
}

// A name that resolved to a public address at registration may resolve to
// 127.0.0.1 later: the dialer checks every connection's address.
func TestTheDialerRefusesAnInsideAddressAtConnectTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.AllowPrivate = false
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	id := f.delivery(t, f.endpoint(t, srv.URL, "whsec_0123456789abcdef"), "ev-1", `{}`)
	f.deliverOne(t)
	if hits.Load() != 0 {
		t.Fatal("the request reached a loopback address")
	}
	if r := f.row(t, id); r.Status != "dead" || !strings.Contains(r.LastError, "loopback") {
		t.Fatalf("after a refused dial: %+v", r)
	}
}
