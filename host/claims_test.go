package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// claimsAuth is the auth block of the configs of these tests: claim()
// needs one.
const claimsAuth = `
server {
  auth {
    issuer   = "https://login.example.com"
    audience = "https://tools.example.com/mcp"
  }
}
`

// upstreamRecorder is a loopback upstream that records the requests it
// gets.
type upstreamRecorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	srv  *httptest.Server
}

// newUpstreamRecorder starts one, closed when the test ends.
func newUpstreamRecorder(t *testing.T) *upstreamRecorder {
	u := &upstreamRecorder{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.reqs = append(u.reqs, r)
		u.mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// last is the last request the upstream got.
func (u *upstreamRecorder) last(t *testing.T) *http.Request {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return u.reqs[len(u.reqs)-1]
}

// claimsConfig is a config whose tools read claims in each backend.
func claimsConfig(upstream string) string {
	return claimsAuth + claimsTools(upstream)
}

// claimsTools are the tools of claimsConfig.
func claimsTools(upstream string) string {
	return `
tool "whoami" {
  template {
    text = "${claim("email")} in ${join(",", claim("groups"))}, level ${claim("level") + 1}, org ${claim("org").name}"
  }
}

tool "argv" {
  exec {
    command = ` + testconfig.ProgramList(`"args"`, `claim("email")`) + `
  }
}

tool "upstream" {
  http {
    url     = "` + upstream + `/users/${claim("email")}/items"
    headers = { "X-User" = claim("email") }
    query   = { group = claim("groups") }
  }
}

tool "confirmed" {
  confirm          = "Run as ${claim("email")}?"
  confirm_fallback = "allow"
  template {
    text = "done for ${claim("sub")}"
  }
}

tool "plain" {
  param "x" {}
  template {
    text = "x is ${param.x}"
  }
}

tool "result" {
  template {
    text = "{\"n\": 1}"
  }
  result {
    text {
      text = "n for ${claim("email")}:"
    }
  }
}
`
}

// TestClaimCalls calls tools that read claims with a Caller on the
// context, and without one: the values are the token's, in every
// backend, and a call whose token lacks a claim, or that has no token,
// is refused before the backend runs.
func TestClaimCalls(t *testing.T) {
	up := newUpstreamRecorder(t)
	r := loadSource(t, claimsConfig(up.srv.URL))
	full := &ident.Caller{Subject: "u1", Claims: map[string]any{
		"sub":    "u1",
		"email":  "ann@example.com",
		"groups": []any{"ops", "dev team"},
		"level":  float64(2),
		"org":    map[string]any{"name": "acme"},
	}}
	noGroups := &ident.Caller{Subject: "u2", Claims: map[string]any{"sub": "u2", "email": "bob@example.com", "level": float64(1), "org": map[string]any{"name": "x"}}}
	dash := &ident.Caller{Subject: "u3", Claims: map[string]any{"email": "-rf"}}
	huge := &ident.Caller{Subject: "u4", Claims: map[string]any{"email": strings.Repeat("a", 70<<10)}}
	slash := &ident.Caller{Subject: "u5", Claims: map[string]any{"email": "../../admin?x=1#", "groups": []any{"a&b=c"}}}
	tests := []struct {
		name, tool string
		caller     *ident.Caller
		args       string
		want       string // in the text
		isErr      bool
	}{
		{"template", "whoami", full, `{}`, "ann@example.com in ops,dev team, level 3, org acme", false},
		{"exec argv", "argv", full, `{}`, `["ann@example.com"]`, false},
		{"confirm and template", "confirmed", full, `{}`, "done for u1", false},
		{"http", "upstream", full, `{}`, "ok", false},
		{"result content", "result", full, `{}`, "n for ann@example.com:", false},
		{"no caller", "whoami", nil, `{}`, `reads the claim "email" of the caller's token (claim() in its config), and this call comes with no token`, true},
		{"no caller, exec", "argv", nil, `{}`, "the local user has none", true},
		{"missing claim", "whoami", noGroups, `{}`, `the caller's token has no claim "groups", which the tool "whoami" reads`, true},
		{"option-like claim in exec", "argv", dash, `{}`, `the claim "email" of the caller's token has a value that starts with "-"`, true},
		{"claim over the cap", "whoami", huge, `{}`, `the claim "email" of the caller's token has more than the 65536 bytes a tool reads`, true},
		{"escaped in the url", "upstream", slash, `{}`, "ok", false},
		{"a tool without claims needs no caller", "plain", nil, `{"x": "1"}`, "x is 1", false},
		{"a model cannot set a claim", "whoami", full, `{"email": "eve@example.com"}`, `invalid argument "email": this tool takes no arguments`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ident.NewContext(context.Background(), tc.caller)
			res, err := r.CallTool(ctx, tc.tool, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			text := testconfig.ResultText(res)
			if res.IsError != tc.isErr || !strings.Contains(text, tc.want) {
				t.Fatalf("got isError=%v %q, want isError=%v with %q", res.IsError, text, tc.isErr, tc.want)
			}
		})
	}
	// The requests the upstream got: the claims escaped by place, and no
	// token of the caller's.
	up.mu.Lock()
	reqs := append([]*http.Request(nil), up.reqs...)
	up.mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("the upstream got %d requests, want 2", len(reqs))
	}
	for _, want := range []struct{ path, user, query string }{
		{"/users/ann@example.com/items", "ann@example.com", "group=ops&group=dev+team"},
		{"/users/..%2F..%2Fadmin%3Fx=1%23/items", "../../admin?x=1#", "group=a%26b%3Dc"},
	} {
		got := reqs[0]
		reqs = reqs[1:]
		if got.URL.EscapedPath() != want.path || got.Header.Get("X-User") != want.user || got.URL.RawQuery != want.query {
			t.Errorf("upstream got path %q, X-User %q, query %q; want %q, %q, %q", got.URL.EscapedPath(), got.Header.Get("X-User"), got.URL.RawQuery, want.path, want.user, want.query)
		}
		if a := got.Header.Get("Authorization"); a != "" {
			t.Errorf("upstream got Authorization %q: the caller's token must not be forwarded", a)
		}
	}
}

// TestClaimsNotInInputSchema: a tool's claims are no arguments: its
// input schema has none of them.
func TestClaimsNotInInputSchema(t *testing.T) {
	r := loadSource(t, claimsConfig("https://api.example.com"))
	for _, name := range []string{"whoami", "upstream", "argv"} {
		tool := mustTool(t, r, name)
		if s := string(tool.InputSchemaJSON); strings.Contains(s, "email") || strings.Contains(s, "groups") {
			t.Errorf("%s: input schema %s names a claim", name, s)
		}
		if len(tool.Claims) == 0 {
			t.Errorf("%s: no claims found at load", name)
		}
	}
	if got := mustTool(t, r, "whoami").Claims; strings.Join(got, ",") != "email,groups,level,org" {
		t.Errorf("whoami reads claims %q, want email, groups, level and org", got)
	}
}

// TestClaimExamples: validate runs the examples of a tool that reads
// claims with the example's claims as the caller's, and says what is
// missing or left over.
func TestClaimExamples(t *testing.T) {
	tests := []struct {
		name, example string
		summary       string // of the one diagnostic; "" for none
	}{
		{"claims given", `claims = { email = "ann@example.com", groups = ["ops", "dev"] }
    result = "ann@example.com (ops dev)"`, ""},
		{"a missing claim expected", `claims = { email = "ann@example.com" }
    error  = "has no claim \"groups\""`, ""},
		{"a missing claim", `claims = { email = "ann@example.com" }
    result = "x"`, "Example refused"},
		{"no claims", `result = "x"`, "Missing claims"},
		{"wrong result", `claims = { email = "bob@example.com", groups = [] }
    result = "ann@example.com ()"`, "Example result mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := checkExamplesOf(t, claimsAuth+`
tool "whoami" {
  template {
    text = "${claim("email")} (${join(" ", claim("groups"))})"
  }
  example "e" {
    `+tc.example+`
  }
}
`)
			var got []string
			for _, d := range rep.Diagnostics {
				got = append(got, d.Summary+": "+d.Detail)
			}
			if tc.summary == "" && len(got) > 0 || tc.summary != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.summary)) {
				t.Fatalf("diagnostics %q, want %q", got, tc.summary)
			}
		})
	}
	rep, _ := checkExamplesOf(t, claimsAuth+`
tool "plain" {
  template {
    text = "hi"
  }
  example "e" {
    claims = { email = "ann@example.com" }
    result = "hi"
  }
}
`)
	if len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Summary != "Claims without claim()" {
		t.Errorf("claims of a tool that reads none: %v", rep.Diagnostics)
	}
}

// TestClaimPrompts: a prompt's messages read the caller's claims, and a
// prompts/get without them is refused.
func TestClaimPrompts(t *testing.T) {
	r := loadSource(t, claimsAuth+`
prompt "greet" {
  arg "topic" {}
  message "user" {
    text = "I am ${claim("name")} of ${join("+", claim("groups"))}; tell me about ${arg.topic}."
  }
}
`)
	ann := &ident.Caller{Claims: map[string]any{"name": "Ann", "groups": []any{"ops", "dev"}}}
	tests := []struct {
		name   string
		caller *ident.Caller
		want   string
		isErr  bool
	}{
		{"claims", ann, "I am Ann of ops+dev; tell me about cats.", false},
		{"no caller", nil, `the prompt "greet" reads the claim "groups" of the caller's token`, true},
		{"a claim missing", &ident.Caller{Claims: map[string]any{"groups": []any{}}}, `the caller's token has no claim "name", which the prompt "greet" reads`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := r.GetPrompt(ident.NewContext(context.Background(), tc.caller), "greet", map[string]string{"topic": "cats"})
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case len(res.Messages) == 1:
				got = res.Messages[0].Content.(*mcp.TextContent).Text
			}
			if (err != nil) != tc.isErr || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q (error %v), want %q", got, err != nil, tc.want)
			}
		})
	}
}

// TestClaimsOverStdio: over stdio, where the local user has no token, a
// tool that reads claims is listed, and a call of it is refused with a
// message that says why.
func TestClaimsOverStdio(t *testing.T) {
	p := startStdio(t, loadSource(t, claimsConfig("https://api.example.com")))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r := p.next(); r.Error != nil || !strings.Contains(string(r.Result), `"name":"whoami"`) {
		t.Fatalf("tools/list: %s", r.line)
	}
	if text := stdioToolError(t, p, 2, "whoami"); !strings.Contains(text, "this call comes with no token") || !strings.Contains(text, "over stdio") {
		t.Fatalf("tools/call: %q", text)
	}
}

// BenchmarkCallToolClaims is a call of a template tool that reads a
// claim, with a caller on the context: what claim() costs a tool that
// uses it (BenchmarkCallTool/say_hello is the same call without).
func BenchmarkCallToolClaims(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(p, []byte(claimsAuth+`
tool "say_hello" {
  param "name" {}
  template {
    text = "hello ${param.name}, from ${claim("email")}"
  }
}
`), 0o644); err != nil {
		b.Fatal(err)
	}
	r, diags := Load([]string{p}, nil)
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	ctx := ident.NewContext(context.Background(), &ident.Caller{Claims: map[string]any{"email": "ann@example.com"}})
	args := json.RawMessage(`{"name": "world"}`)
	b.ReportAllocs()
	for b.Loop() {
		if res, err := r.CallTool(ctx, "say_hello", args); err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
