package http

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/zclconf/go-cty/cty"
)

// policyBackend compiles an http block with a server-level policy.
func policyBackend(t *testing.T, src string, network netpolicy.Policy) (adapters.Backend, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	block := f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock()
	return compile(block, &adapters.CompileContext{
		Eval:    &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.EmptyObject)}},
		Network: network,
	})
}

func callPolicy(b adapters.Backend) error {
	_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}})
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
	// Windows dials an unspecified address as the loopback one (as Go's
	// net does there), and the policy judges the address dialed.
	unspecified := "it is an unspecified address and deny_private is set"
	if runtime.GOOS == "windows" {
		unspecified = "it is a loopback address and deny_private is set"
	}
	for _, tc := range []struct {
		name, url string
		block     bool // deny_private in the block (else in the server policy)
		want      string
	}{
		{"loopback address", srv.URL, true, "loopback address and deny_private is set"},
		{"name resolving to loopback", "http://localhost:" + u.Port(), true, "loopback address and deny_private is set"},
		{"server-level policy", srv.URL, false, "loopback address and deny_private is set"},
		{"unspecified address", "http://0.0.0.0:" + u.Port(), true, unspecified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %q\n}\n", tc.url)
			network := netpolicy.Policy{DenyPrivate: true}
			if tc.block {
				src = fmt.Sprintf("http {\n  url = %q\n  deny_private = true\n}\n", tc.url)
				network = netpolicy.Policy{}
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
	b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n}\n", srv.URL), netpolicy.Policy{})
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
		_, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"api.example.com\"]\n}\n", target.URL), netpolicy.Policy{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Host not allowed") {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("server policy applies", func(t *testing.T) {
		_, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n}\n", target.URL), netpolicy.Policy{AllowHosts: []string{"*.example.com"}})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "not in allow_hosts") {
			t.Fatalf("diags = %v", diags)
		}
	})
	t.Run("allowed host answers", func(t *testing.T) {
		b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"127.0.0.1\"]\n}\n", target.URL), netpolicy.Policy{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if err := callPolicy(b); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("redirect to a host not allowed", func(t *testing.T) {
		b, diags := policyBackend(t, fmt.Sprintf("http {\n  url = %q\n  allow_hosts = [\"127.0.0.1\"]\n}\n", redirector.URL), netpolicy.Policy{})
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
		_, diags := policyBackend(t, src, netpolicy.Policy{})
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
