package http

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

func TestHTTPURLHelpers(t *testing.T) {
	positions := []struct {
		prefix string
		want   int
	}{
		{"", inAuthority},
		{"https", inAuthority},
		{"https://", inAuthority},
		{"https://api.example.com", inAuthority},
		{"https://user@api.example.com:8080", inAuthority},
		{"https://api.example.com/", inPath},
		{"https://api.example.com/a/b-", inPath},
		{"https://api.example.com?", inQuery},
		{"https://api.example.com/a?x=", inQuery},
		{"https://api.example.com/a#", inQuery},
	}
	for _, tc := range positions {
		t.Run("position "+tc.prefix, func(t *testing.T) {
			if got := urlPosition(tc.prefix); got != tc.want {
				t.Errorf("urlPosition(%q) = %d, want %d", tc.prefix, got, tc.want)
			}
		})
	}

	dots := []struct {
		name   string
		s      string
		ranges [][2]int
		want   string
	}{
		{"literal dot segments stay", "http://h/a/../b", nil, "http://h/a/../b"},
		{"param dot segment", "http://h/a/../b", [][2]int{{11, 13}}, "http://h/a/%2E%2E/b"},
		{"param completes a dot segment", "http://h/a/../b", [][2]int{{12, 13}}, "http://h/a/%2E%2E/b"},
		{"param single dot at the end", "http://h/a/.", [][2]int{{11, 12}}, "http://h/a/%2E"},
		{"param dots in a longer segment stay", "http://h/a/..x/b", [][2]int{{11, 14}}, "http://h/a/..x/b"},
		{"query untouched", "http://h/a/..?x=..", [][2]int{{11, 13}}, "http://h/a/%2E%2E?x=.."},
	}
	for _, tc := range dots {
		t.Run(tc.name, func(t *testing.T) {
			if got := escapeDotSegments(tc.s, tc.ranges); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTTPURLCheckedAtCallTime(t *testing.T) {
	srv, _ := testRecorder(t, "text/plain", "ok")
	tests := []struct {
		name  string
		url   string
		hosts string               // allow_hosts, if any
		vars  map[string]cty.Value // besides param; unknown when compiling
		param string
		want  string // error; "" for success
	}{
		{name: "whole expression with http", url: "param.p", hosts: `["127.0.0.1"]`, param: srv.URL + "/a", want: ""},
		{name: "whole expression to a host not allowed", url: "param.p", hosts: `["127.0.0.1"]`, param: "http://evil.example.com/a", want: "evil.example.com"},
		{name: "whole expression with ftp", url: "param.p", hosts: `["files.example.com"]`, param: "ftp://files.example.com/x", want: `url: the url scheme "ftp" is not supported`},
		{name: "whole expression without scheme", url: "param.p", hosts: `["files.example.com"]`, param: "files.example.com/x", want: "url: the url has no scheme"},
		{
			name:  "param in host found only at call time",
			url:   `"${upstream}${param.p}"`,
			vars:  map[string]cty.Value{"upstream": cty.StringVal(srv.URL)},
			param: ".evil.example.com/x",
			want:  "url: a parameter value would land in the scheme or host part",
		},
		{
			name:  "param in path after a value known at call time",
			url:   `"${upstream}/${param.p}"`,
			vars:  map[string]cty.Value{"upstream": cty.StringVal(srv.URL)},
			param: "a/b",
			want:  "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  url = %s\n}\n", tc.url)
			if tc.hosts != "" {
				src = fmt.Sprintf("http {\n  url = %s\n  allow_hosts = %s\n}\n", tc.url, tc.hosts)
			}
			file, diags := hclsyntax.ParseConfig([]byte(src), "tool.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "http"}}})
			paramType := cty.Object(map[string]cty.Type{"p": cty.String})
			compileVars := map[string]cty.Value{"param": cty.UnknownVal(paramType)}
			callVars := map[string]cty.Value{"param": cty.ObjectVal(map[string]cty.Value{"p": cty.StringVal(tc.param)})}
			for n, v := range tc.vars {
				compileVars[n] = cty.UnknownVal(v.Type())
				callVars[n] = v
			}
			b, diags := compile(content.Blocks[0], &adapters.CompileContext{
				Eval:   &hcl.EvalContext{Variables: compileVars},
				Params: map[string]adapters.ParamInfo{"p": {}},
			})
			if diags.HasErrors() {
				t.Fatalf("compile: %s", diags.Error())
			}
			defer b.Close()
			_, err := b.Call(context.Background(), &adapters.Input{Eval: &hcl.EvalContext{Variables: callVars}})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Call: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Call error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHTTPURLHostFromParamRefused checks that a url whose host a parameter
// could choose is refused at load, unless allow_hosts limits the hosts.
func TestHTTPURLHostFromParamRefused(t *testing.T) {
	tests := []struct {
		name  string
		attrs string
		want  string // summary of the error; "" for none
	}{
		{name: "bare reference", attrs: `url = param.p`, want: "URL chosen by a parameter"},
		{name: "template of one parameter", attrs: `url = "${param.p}"`, want: "URL chosen by a parameter"},
		{name: "parameter in the host", attrs: `url = "https://${param.p}.example.com/x"`, want: "Parameter in URL host"},
		{name: "format", attrs: `url = format("https://%s/x", param.p)`, want: "URL chosen by a parameter"},
		{name: "conditional", attrs: `url = param.p == "a" ? "https://a.example.com" : "https://b.example.com"`, want: "URL chosen by a parameter"},
		{name: "conditional template", attrs: `url = "${param.p == "a" ? "https://a.example.com" : "https://b.example.com"}/x"`, want: "Parameter in URL host"},
		{name: "bare reference with allow_hosts", attrs: "url = param.p\n  allow_hosts = [\"api.example.com\"]", want: ""},
		{name: "bare reference with deny_private only", attrs: "url = param.p\n  deny_private = true", want: "URL chosen by a parameter"},
		{name: "parameter in the path", attrs: `url = "https://api.example.com/items/${param.p}"`, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("http {\n  %s\n}\n", tc.attrs)
			file, diags := hclsyntax.ParseConfig([]byte(src), "tool.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "http"}}})
			paramType := cty.Object(map[string]cty.Type{"p": cty.String})
			b, diags := compile(content.Blocks[0], &adapters.CompileContext{
				Eval: &hcl.EvalContext{
					Variables: map[string]cty.Value{"param": cty.UnknownVal(paramType)},
					Functions: map[string]function.Function{"format": stdlib.FormatFunc},
				},
				Params: map[string]adapters.ParamInfo{"p": {}},
			})
			if b != nil {
				defer b.Close()
			}
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("compile: %s", diags.Error())
				}
				return
			}
			if !diags.HasErrors() || diags[0].Summary != tc.want {
				t.Fatalf("compile diagnostics = %v, want %q", diags, tc.want)
			}
			if d := diags[0]; d.Subject == nil || d.Subject.Start.Line != 2 {
				t.Errorf("subject = %v, want the url on line 2", d.Subject)
			}
		})
	}
}
