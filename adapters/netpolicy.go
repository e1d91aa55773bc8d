package adapters

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"
)

// NetworkPolicy limits where http tools may connect. The server block sets
// defaults for every tool; an http block can narrow them.
type NetworkPolicy struct {
	// AllowHosts, when not empty, lists the hosts requests and redirects may
	// go to: exact names or IP addresses, or "*.example.com" for any
	// subdomain of example.com.
	AllowHosts []string
	// DenyPrivate refuses connections to loopback, private, link-local
	// (cloud metadata included), CGNAT, multicast and unspecified addresses.
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

// allows reports whether host (a name or an address, without port) may be
// contacted.
func (p NetworkPolicy) allows(host string) bool {
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

// checkHost returns an error when the policy does not allow host.
func (p NetworkPolicy) checkHost(host string) error {
	if p.allows(host) {
		return nil
	}
	return &NetworkPolicyError{Msg: fmt.Sprintf("requests to %s are not allowed: the host is not in allow_hosts (%s)", host, strings.Join(p.AllowHosts, ", "))}
}

// NetworkPolicyError is a request refused by the network policy.
type NetworkPolicyError struct{ Msg string }

func (e *NetworkPolicyError) Error() string { return e.Msg }

// privateAddr reports whether ip is an address deny_private refuses, and
// what kind it is.
func privateAddr(ip netip.Addr) (string, bool) {
	ip = ip.Unmap()
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
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
	case cgnat.Contains(ip):
		return "carrier-grade NAT", true
	}
	return "", false
}

// denyPrivateControl is a net.Dialer Control hook: it runs on the address
// about to be dialed, after resolution.
func denyPrivateControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return &NetworkPolicyError{Msg: fmt.Sprintf("refusing to connect to %s: not an IP address", address)}
	}
	if kind, bad := privateAddr(ip); bad {
		return &NetworkPolicyError{Msg: fmt.Sprintf("refusing to connect to %s: it is a %s address and deny_private is set", ip, kind)}
	}
	return nil
}

var (
	denyPrivateOnce      sync.Once
	denyPrivateTransport *http.Transport
)

// transportFor returns the shared transport for a policy: the ordinary one,
// or one whose dialer refuses private addresses. The latter uses no proxy,
// since the check must see the real destination.
func transportFor(p NetworkPolicy) *http.Transport {
	if !p.DenyPrivate {
		return httpTransport
	}
	denyPrivateOnce.Do(func() {
		t := httpTransport.Clone()
		t.Proxy = nil
		t.DialContext = (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
			Control:   denyPrivateControl,
		}).DialContext
		denyPrivateTransport = t
	})
	return denyPrivateTransport
}
