package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"greatbook/internal/apperr"
)

// MaxURLBytes bounds an endpoint's URL.
const MaxURLBytes = 2048

// blockedPrefixes are ranges that are not the public internet beyond what
// netip's predicates name: "this network", carrier-grade NAT, IETF protocol
// assignments, the old 6to4 relay anycast, benchmarking, reserved and
// broadcast, documentation, and the IPv6 prefixes that embed an IPv4
// address a gateway would reach on the caller's behalf (NAT64, 6to4,
// Teredo, the deprecated IPv4-compatible ::a.b.c.d).
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.88.99.0/24", "198.18.0.0/15", "240.0.0.0/4",
		"::/96", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2001:db8::/32", "2002::/16", "fc00::/7"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Blocked says why ip is not a public address a webhook may be sent to, or
// "" when it is.
func Blocked(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "not an address"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate():
		return "private"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return "reserved"
		}
	}
	return ""
}

// errBlocked is what the dialer answers for an address it refuses: the
// delivery fails permanently (the address will not become public by trying
// again soon), and the admin sees why.
var errBlocked = errors.New("webhooks: refused to connect")

// Resolver looks host names up (net.DefaultResolver; tests give their own).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL checks an endpoint URL before it is registered: http or https, a
// host, no credentials, and, unless allowPrivate, every address the host
// resolves to is public. The dialer checks the address again at every
// connection, since what a name resolves to can change.
func CheckURL(ctx context.Context, r Resolver, raw string, allowPrivate bool) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, invalidURL("is required")
	}
	if len(raw) > MaxURLBytes {
		return nil, invalidURL(fmt.Sprintf("is longer than %d bytes", MaxURLBytes))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalidURL("is not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, invalidURL("must start with http:// or https://")
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, invalidURL("has no host")
	}
	if u.User != nil {
		return nil, invalidURL("must not carry credentials (the signing secret authenticates greatbook)")
	}
	u.Fragment = ""
	if allowPrivate {
		return u, nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
		return nil, invalidURL(fmt.Sprintf("names a host that does not resolve (%s)", host))
	}
	for _, ip := range addrs {
		if why := Blocked(ip); why != "" {
			return nil, invalidURL(fmt.Sprintf("points at a %s address (%s); only public addresses are allowed unless the operator allows private ones", why, ip))
		}
	}
	return u, nil
}

func invalidURL(msg string) error {
	return apperr.New(apperr.Invalid, "the URL %s", msg).With("reasons", []map[string]string{{"field": "url", "message": msg}})
}

// dialControl refuses, at connect time, an address that is not public: a
// name that resolved to a public address at registration may resolve to
// 127.0.0.1 now.
func dialControl(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", errBlocked, address)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("%w: %s", errBlocked, address)
		}
		if why := Blocked(ip); why != "" {
			return fmt.Errorf("%w: %s is a %s address", errBlocked, ip, why)
		}
		return nil
	}
}
