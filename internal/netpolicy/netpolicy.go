// Package netpolicy holds the server block's network policy for outgoing
// requests: which hosts http tools and remote resources may reach
// (allow_hosts) and whether private addresses are refused (deny_private),
// with the dialer hook that checks the address actually connected to.
package netpolicy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Policy limits where http tools may connect. The server block sets
// defaults for every tool; an http block can narrow them.
type Policy struct {
	// AllowHosts, when not empty, lists the hosts requests and redirects may
	// go to: exact names or IP addresses, or "*.example.com" for any
	// subdomain of example.com.
	AllowHosts []string
	// DenyPrivate refuses connections to loopback, private, link-local
	// (cloud metadata included), CGNAT, multicast, unspecified and reserved
	// addresses, and to IPv6 addresses that carry one of those IPv4 ones.
	// It is checked on the address actually dialed, after DNS resolution, so
	// a name that resolves to such an address is refused too.
	DenyPrivate bool
}

// ValidHostPattern reports whether p can be an allow_hosts entry: a host
// name, an IP address, or "*." and a domain.
func ValidHostPattern(p string) bool {
	h, wildcard := strings.CutPrefix(p, "*.")
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return !wildcard
	}
	return !strings.ContainsAny(h, "/:@?#*[] ")
}

// InvalidHostPatternDetail is the detail of the error for an allow_hosts
// entry p that ValidHostPattern refuses: it quotes the entry and, for a
// URL or a host with a port, the entry to write instead.
func InvalidHostPatternDetail(p string) string {
	detail := fmt.Sprintf("%q is not a host name. Each entry is a host name (api.example.com), an IP address, or \"*.\" and a domain (*.example.com), without scheme, port or path.", p)
	host := strings.TrimSpace(p)
	if strings.Contains(host, "://") {
		if u, err := url.Parse(host); err == nil {
			host = u.Hostname()
		}
	} else {
		host, _, _ = strings.Cut(host, "/")
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	if host != p && ValidHostPattern(host) {
		detail += fmt.Sprintf(" Write %q.", host)
	}
	return detail
}

// AllowHosts reads the host patterns of an allow_hosts attribute a, whose
// value v is a known list of strings: the valid patterns, in order, and an
// error at each entry that is not one (null, a URL, a port, a bad
// wildcard), with what to write instead. The server block and http blocks
// read it alike.
func AllowHosts(a *hcl.Attribute, v cty.Value) ([]string, hcl.Diagnostics) {
	var hosts []string
	var diags hcl.Diagnostics
	for it := v.ElementIterator(); it.Next(); {
		i, e := it.Element()
		if e.IsNull() || !ValidHostPattern(e.AsString()) {
			entry := "null"
			if !e.IsNull() {
				entry = e.AsString()
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid allow_hosts entry",
				Detail:   InvalidHostPatternDetail(entry),
				Subject:  listElementRange(a.Expr, i).Ptr(),
			})
			continue
		}
		hosts = append(hosts, e.AsString())
	}
	return hosts, diags
}

// listElementRange is the range of element i (a cty number) of a list
// written out as [...], or the whole expression's for any other.
func listElementRange(expr hcl.Expression, i cty.Value) hcl.Range {
	tuple, ok := expr.(*hclsyntax.TupleConsExpr)
	if !ok {
		return expr.Range()
	}
	n, _ := i.AsBigFloat().Int64()
	if n < 0 || int(n) >= len(tuple.Exprs) {
		return expr.Range()
	}
	return tuple.Exprs[n].Range()
}

// allows reports whether host (a name or an address, without port) may be
// contacted.
func (p Policy) allows(host string) bool {
	if len(p.AllowHosts) == 0 {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	for _, pat := range p.AllowHosts {
		pat = strings.TrimSuffix(strings.ToLower(strings.Trim(pat, "[]")), ".")
		if suffix, ok := strings.CutPrefix(pat, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
			continue
		}
		if host == pat {
			return true
		}
	}
	return false
}

// CheckHost returns an error when the policy does not allow host.
func (p Policy) CheckHost(host string) error {
	if p.allows(host) {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("requests to %s are not allowed: the host is not in allow_hosts (%s)", host, strings.Join(p.AllowHosts, ", "))}
}

// Error is a request refused by the network policy.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// reservedPrefixes are the ranges deny_private refuses beyond what netip
// classifies (loopback, private, link-local, multicast, unspecified): none
// of them reaches a public service, and several reach internal ones.
var reservedPrefixes = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network" (0.0.0.0/8)`},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking (198.18.0.0/15)"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (240.0.0.0/4) or broadcast"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
}

// privateAddr reports whether ip is an address deny_private refuses, and
// what kind it is. An IPv6 address that carries an IPv4 one (IPv4-mapped,
// IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) is judged by
// the IPv4 address too, since a gateway may deliver it there.
func privateAddr(ip netip.Addr) (string, bool) {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback", true
	case ip.IsPrivate():
		return "private", true
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local (cloud metadata lives here)", true
	case ip.IsUnspecified():
		return "unspecified", true
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast", true
	}
	for _, r := range reservedPrefixes {
		if r.prefix.Contains(ip) {
			return r.kind, true
		}
	}
	for _, v4 := range embeddedIPv4(ip) {
		if kind, bad := privateAddr(v4); bad {
			return kind + " (" + v4.String() + ", carried in an IPv6 address)", true
		}
	}
	return "", false
}

var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
)

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries by a
// standard translation or tunnel scheme; none for other addresses.
func embeddedIPv4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() {
		return nil
	}
	b := ip.As16()
	v4 := func(p []byte) netip.Addr { return netip.AddrFrom4([4]byte(p)) }
	switch {
	case ipv4Compatible.Contains(ip), nat64.Contains(ip):
		return []netip.Addr{v4(b[12:16])}
	case sixToFour.Contains(ip):
		return []netip.Addr{v4(b[2:6])}
	case teredo.Contains(ip):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]} // stored inverted
		return []netip.Addr{v4(b[4:8]), netip.AddrFrom4(client)}
	}
	return nil
}

// DenyPrivateControl is a net.Dialer Control hook: it runs on the address
// about to be dialed, after resolution.
func DenyPrivateControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return &Error{Msg: fmt.Sprintf("refusing to connect to %s: not an IP address", address)}
	}
	if kind, bad := privateAddr(ip); bad {
		article := "a"
		if strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
			article = "an"
		}
		return &Error{Msg: fmt.Sprintf("refusing to connect to %s: it is %s %s address and deny_private is set", ip, article, kind)}
	}
	return nil
}
