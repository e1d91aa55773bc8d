package adapters

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
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
	p := NetworkPolicy{AllowHosts: []string{"api.example.com", "*.example.org", "127.0.0.1"}}
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

// policyBackend compiles an http block with a server-level policy.
func policyBackend(t *testing.T, src string, network NetworkPolicy) (Backend, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	block := f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock()
	return compileHTTP(block, &CompileContext{
		Eval:    &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.EmptyObject)}},
		Network: network,
	})
}

func callPolicy(b Backend) error {
	_, err := b.Call(context.Background(), &Input{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}})
	return err
}

func TestHTTPDenyPrivate(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		fmt.Fprint(w, "secret metadata")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	for _, tc := range []struct {
		name, url string
		block     bool // deny_private in the block (else in the server policy)
		want      string
	}{
		{"loopback address", srv.URL, true, "loopback address and deny_private is set"},
		{"name resolving to loopback", "http://localhost:" + u.Port(), true, "loopback address and deny_private is set"},
		{"server-level policy", srv.URL, false, "loopback address and deny_private is set"},
		{"unspecified address", "http://0.0.0.0:" + u.Port(), true, "it is an unspecified address and deny_private is set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %q\n}\n", tc.url)
			network := NetworkPolicy{DenyPrivate: true}
			if tc.block {
				src = fmt.Sprintf("http {\n  url = %q\n  deny_private = true\n}\n", tc.url)
				network = NetworkPolicy{}
			}
			b, diags := policyBackend(t, src, network)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			err := callPolicy(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if hits != 0 {
		t.Errorf("the private server was reached %d times", hits)
	}
	// Without the policy the same server answers: the refusal above is the
	// policy's doing.
	b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n}\n", srv.URL), NetworkPolicy{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := callPolicy(b); err != nil || hits != 1 {
		t.Fatalf("without deny_private: err %v, hits %d", err, hits)
	}
}

func TestHTTPAllowHosts(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer target.Close()
	tu, _ := url.Parse(target.URL)
	// The redirector sends every request to the same server under the name
	// localhost, which is not in the allow list.
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+tu.Port()+"/", http.StatusFound)
	}))
	defer redirector.Close()

	t.Run("url host not allowed is a config error", func(t *testing.T) {
		_, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"api.example.com\"]\n}\n", target.URL), NetworkPolicy{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Host not allowed") {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("server policy applies", func(t *testing.T) {
		_, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n}\n", target.URL), NetworkPolicy{AllowHosts: []string{"*.example.com"}})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "not in allow_hosts") {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("allowed host answers", func(t *testing.T) {
		b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"127.0.0.1\"]\n}\n", target.URL), NetworkPolicy{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if err := callPolicy(b); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("redirect to a host not allowed", func(t *testing.T) {
		b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"127.0.0.1\"]\n}\n", redirector.URL), NetworkPolicy{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		err := callPolicy(b)
		if err == nil || !strings.Contains(err.Error(), "redirected to localhost, which is not in allow_hosts") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("invalid entry", func(t *testing.T) {
		src := "http {\n  url = \"https://a.example.com\"\n  allow_hosts = [\"a.example.com\", \"https://a.example.com/x\"]\n}\n"
		_, diags := policyBackend(t, src, NetworkPolicy{})
		if !diags.HasErrors() || diags[0].Summary != "Invalid allow_hosts entry" {
			t.Fatalf("diags = %v", diags)
		}
		// The entry is named and pointed at, with the one to write.
		if want := `"https://a.example.com/x" is not a host name.`; !strings.Contains(diags[0].Detail, want) {
			t.Errorf("detail = %q, want it to contain %q", diags[0].Detail, want)
		}
		if want := `Write "a.example.com".`; !strings.HasSuffix(diags[0].Detail, want) {
			t.Errorf("detail = %q, want it to end with %q", diags[0].Detail, want)
		}
		if got := string(diags[0].Subject.SliceBytes([]byte(src))); got != `"https://a.example.com/x"` {
			t.Errorf("subject covers %s, want the entry", got)
		}
	})
}
