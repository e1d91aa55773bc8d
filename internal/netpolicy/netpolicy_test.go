package netpolicy

import (
	"net/netip"
	"testing"
)

func TestPrivateAddr(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		private bool
	}{
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"::1", true},
		{"10.1.2.3", true}, {"172.16.5.4", true}, {"172.31.255.255", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fd00::1", true},
		{"100.64.0.1", true}, {"0.0.0.0", true}, {"::", true}, {"224.0.0.1", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true},
		{"0.1.2.3", true}, {"192.0.0.170", true}, {"198.18.0.1", true}, {"198.19.255.255", true},
		{"240.0.0.1", true}, {"255.255.255.255", true}, {"fec0::1", true}, {"100::1", true},
		{"ff02::1", true}, {"fc00::1", true},
		// IPv6 carrying a private IPv4: compatible, NAT64, local NAT64, 6to4, Teredo server and client
		{"::127.0.0.1", true}, {"::a9fe:a9fe", true}, {"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::10.0.0.1", true},
		{"64:ff9b:1::1", true}, {"2002:7f00:1::1", true}, {"2002:a9fe:a9fe::", true},
		{"2001:0:0a00:0001::1", true}, {"2001:0:0808:0808::f5ff:fffe", true},
		{"8.8.8.8", false}, {"172.32.0.1", false}, {"100.128.0.1", false}, {"2001:4860:4860::8888", false},
		{"198.20.0.1", false}, {"192.0.1.1", false}, {"223.255.255.255", false},
		{"64:ff9b::808:808", false}, {"2002:808:808::1", false}, {"2001:0:0808:0808::f7f7:f7f7", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			_, got := privateAddr(netip.MustParseAddr(tc.addr))
			if got != tc.private {
				t.Errorf("privateAddr(%s) = %v, want %v", tc.addr, got, tc.private)
			}
		})
	}
}

func TestValidHostPattern(t *testing.T) {
	for _, tc := range []struct {
		p  string
		ok bool
	}{
		{"api.example.com", true}, {"*.example.com", true}, {"127.0.0.1", true}, {"::1", true}, {"[::1]", true},
		{"", false}, {"*.", false}, {"https://example.com", false}, {"example.com:443", false},
		{"example.com/path", false}, {"*.127.0.0.1", false}, {"a b", false}, {"*", false},
	} {
		if got := ValidHostPattern(tc.p); got != tc.ok {
			t.Errorf("ValidHostPattern(%q) = %v, want %v", tc.p, got, tc.ok)
		}
	}
}

func TestNetworkPolicyAllows(t *testing.T) {
	p := Policy{AllowHosts: []string{"api.example.com", "*.example.org", "127.0.0.1"}}
	for host, want := range map[string]bool{
		"api.example.com": true, "API.Example.com": true, "api.example.com.": true,
		"example.com": false, "evil-api.example.com": false,
		"a.example.org": true, "a.b.example.org": true, "example.org": false, "badexample.org": false,
		"127.0.0.1": true, "localhost": false,
	} {
		if got := p.allows(host); got != want {
			t.Errorf("allows(%q) = %v, want %v", host, got, want)
		}
	}
}
