package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// scopesItems has items with and without scopes, and two groups.
const scopesItems = `
tool "status" {
  template { text = "up" }
}
tool "restart" {
  scopes = ["ops:write"]
  template { text = "restarted" }
}
resource "public" {
  uri = "docs://public"
  template { text = "public" }
}
resource "runbook" {
  uri    = "docs://runbook"
  scopes = ["ops:read"]
  template { text = "book" }
}
resource_template "logs" {
  uri_template = "logs:///{name}"
  scopes       = ["ops:read"]
  template { text = "log ${param.name}" }
}
prompt "hello" {
  message "user" { text = "hi" }
}
prompt "triage" {
  scopes = ["ops:read"]
  arg "service" {
    completions = ["api", "db"]
  }
  message "user" { text = "triage" }
}
group "ops" {
  tools     = ["status", "restart"]
  resources = ["runbook", "logs"]
  prompts   = ["triage"]
  scopes    = ["ops"]
}
group "open" {
  tools = ["status"]
}
`

// oidcServer is a server block whose auth block trusts the issuer is,
// for authAudience, and requires no scope of every request.
func oidcServer(is *testoidc.Issuer) string {
	return fmt.Sprintf(`
server {
  auth {
    issuer   = %q
    audience = %q
  }
}
`, is.URL, authAudience)
}

// mintFor mints a token of is for sub with the claims extra (scope: the
// scopes, space-separated).
func mintFor(is *testoidc.Issuer, sub string, extra map[string]any) string {
	return is.Mint(testoidc.Token{Claims: is.Claims(sub, extra)})
}

// scopedEnv serves scopesItems behind an auth block that trusts is;
// tokens are the bearer tokens of the tests' callers, by name: none (no
// scope), reader (ops:read), writer (ops:write) and ops (every scope).
type scopedEnv struct {
	*httpEnv
	is     *testoidc.Issuer
	tokens map[string]string
}

// startScoped starts a scopedEnv, the server made with sopts.
func startScoped(t *testing.T, sopts ...ServerOption) *scopedEnv {
	t.Helper()
	is := testoidc.Start(t, authAudience)
	return &scopedEnv{
		httpEnv: startHTTPConfig(t, HTTPOptions{}, oidcServer(is)+scopesItems, sopts...),
		is:      is,
		tokens: map[string]string{
			"none":   mintFor(is, "nobody", nil),
			"reader": mintFor(is, "reader", map[string]any{"scope": "ops:read"}),
			"writer": mintFor(is, "writer", map[string]any{"scope": "ops:write"}),
			"ops":    mintFor(is, "operator", map[string]any{"scope": "ops ops:read ops:write"}),
		},
	}
}

// scopeMetadata is the resource_metadata of the 403s of scopedEnv: the
// one document of the auth block's audience, whatever the path.
const scopeMetadata = "https://tools.example.com/.well-known/oauth-protected-resource/mcp"

// connectAs connects an SDK client to url with token (none when empty),
// over legacy SSE when url's path starts with /sse.
func connectAs(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	hc := http.DefaultClient
	if token != "" {
		hc = &http.Client{Transport: bearer{token}}
	}
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if strings.Contains(url, "/sse") {
		tr = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "scopes", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol})
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// listed is what a session's four lists show, as names (templates by
// name too), each list sorted.
func listed(t *testing.T, cs *mcp.ClientSession) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tools.Tools {
		out["tools"] = append(out["tools"], x.Name)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res.Resources {
		out["resources"] = append(out["resources"], x.Name)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tmpl.ResourceTemplates {
		out["templates"] = append(out["templates"], x.Name)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range prompts.Prompts {
		out["prompts"] = append(out["prompts"], x.Name)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// lists spells the four lists for a table: tools | resources | templates
// | prompts, each comma-separated.
func lists(s string) map[string][]string {
	out := map[string][]string{}
	for i, part := range strings.Split(s, "|") {
		if f := strings.Fields(strings.ReplaceAll(part, ",", " ")); len(f) > 0 {
			slices.Sort(f)
			out[[]string{"tools", "resources", "templates", "prompts"}[i]] = f
		}
	}
	return out
}

func sameLists(a, b map[string][]string) bool {
	for _, k := range []string{"tools", "resources", "templates", "prompts"} {
		if !slices.Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}

// TestScopesFilterLists lists what each caller sees, on every path:
// the server's own and the groups', streamable HTTP and legacy SSE.
func TestScopesFilterLists(t *testing.T) {
	e := startScoped(t)
	base := e.base
	const all = "status, restart | public, runbook | logs | hello, triage"
	tests := []struct {
		name, url, token, want string
	}{
		{"no scopes", base + "/mcp", "none", "status | public | | hello"},
		{"reader", base + "/mcp", "reader", "status | public, runbook | logs | hello, triage"},
		{"writer", base + "/mcp", "writer", "status, restart | public | | hello"},
		{"every scope", base + "/mcp", "ops", all},
		{"reader over SSE", base + "/sse", "reader", "status | public, runbook | logs | hello, triage"},
		{"every scope over SSE", base + "/sse", "ops", all},
		{"group", base + "/mcp/ops", "ops", "status, restart | runbook | logs | triage"},
		{"group over SSE", base + "/sse/ops", "ops", "status, restart | runbook | logs | triage"},
		{"open group", base + "/mcp/open", "none", "status | | |"},
		{"open group over SSE", base + "/sse/open", "none", "status | | |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connectAs(t, tt.url, e.tokens[tt.token])
			if err != nil {
				t.Fatal(err)
			}
			if got, want := listed(t, cs), lists(tt.want); !sameLists(got, want) {
				t.Fatalf("lists %v, want %v", got, want)
			}
		})
	}
}

// rawInit starts a streamable HTTP session at url as token's caller and
// returns the headers of its requests.
func rawInit(t *testing.T, url, token string) map[string]string {
	t.Helper()
	auth := map[string]string{"Authorization": "Bearer " + token}
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+sessionProtocol+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, auth)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, Mcp-Session-Id %q", resp.Status, sid)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": sessionProtocol, "Authorization": "Bearer " + token}
	if resp := rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s, want 202", resp.Status)
	}
	return hdr
}

// TestScopesRefuseOverHTTP sends calls, reads, gets and completions of
// items with scopes: a caller without them gets 403 with the
// insufficient_scope challenge naming the scopes; one with them, the
// answer.
func TestScopesRefuseOverHTTP(t *testing.T) {
	e := startScoped(t)
	base := e.base
	sessions := map[string]map[string]string{}
	for _, tok := range []string{"none", "reader", "ops"} {
		sessions[tok] = rawInit(t, base+"/mcp", e.tokens[tok])
	}
	tests := []struct {
		name, token, method, params string
		scope                       string // the scope the 403 names; "" for 200
	}{
		{"call", "reader", "tools/call", `{"name":"restart","arguments":{}}`, "ops:write"},
		{"call allowed", "ops", "tools/call", `{"name":"restart","arguments":{}}`, ""},
		{"call without scopes", "none", "tools/call", `{"name":"status","arguments":{}}`, ""},
		{"read", "none", "resources/read", `{"uri":"docs://runbook"}`, "ops:read"},
		{"read allowed", "reader", "resources/read", `{"uri":"docs://runbook"}`, ""},
		{"read of a template", "none", "resources/read", `{"uri":"logs:///api"}`, "ops:read"},
		{"read of a template allowed", "reader", "resources/read", `{"uri":"logs:///api"}`, ""},
		{"subscribe", "none", "resources/subscribe", `{"uri":"docs://runbook"}`, "ops:read"},
		{"get", "none", "prompts/get", `{"name":"triage"}`, "ops:read"},
		{"get allowed", "reader", "prompts/get", `{"name":"triage","arguments":{"service":"api"}}`, ""},
		{"complete", "none", "completion/complete", `{"ref":{"type":"ref/prompt","name":"triage"},"argument":{"name":"service","value":"a"}}`, "ops:read"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": tt.method, "params": json.RawMessage(tt.params)})
			resp := rawPost(t, base+"/mcp", string(body), sessions[tt.token])
			data, _ := io.ReadAll(resp.Body)
			if tt.scope == "" {
				if resp.StatusCode != http.StatusOK || strings.Contains(string(data), `"error"`) {
					t.Fatalf("%s: %s", resp.Status, data)
				}
				return
			}
			challenge := resp.Header.Get("WWW-Authenticate")
			want := `Bearer error="insufficient_scope", scope="` + tt.scope + `", resource_metadata="` + scopeMetadata + `"`
			if resp.StatusCode != http.StatusForbidden || challenge != want {
				t.Fatalf("%s, WWW-Authenticate %q; want 403 and %q", resp.Status, challenge, want)
			}
			var msg struct {
				Error jsonrpc.Error `json:"error"`
			}
			if err := json.Unmarshal(data, &msg); err != nil || msg.Error.Code != codeInsufficientScope || !strings.Contains(msg.Error.Message, `"`+tt.scope+`"`) {
				t.Fatalf("body %s", data)
			}
		})
	}
}

// TestScopesRefuseWithoutStatus calls over legacy SSE, whose answers come
// on the stream: a call the caller lacks scopes for, or of an item outside
// the group, is a JSON-RPC error that names the scope, or the group.
func TestScopesRefuseWithoutStatus(t *testing.T) {
	e := startScoped(t)
	base := e.base
	ctx := context.Background()
	tests := []struct {
		name, url, token string
		call             func(cs *mcp.ClientSession) error
		code             int64
		says             string
	}{
		{"call", base + "/sse", "reader", func(cs *mcp.ClientSession) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "restart"})
			return err
		}, codeInsufficientScope, `"ops:write"`},
		{"read", base + "/sse", "writer", func(cs *mcp.ClientSession) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "logs:///db"})
			return err
		}, codeInsufficientScope, `"ops:read"`},
		{"get", base + "/sse", "none", func(cs *mcp.ClientSession) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "triage"})
			return err
		}, codeInsufficientScope, `"ops:read"`},
		{"tool outside the group", base + "/sse/open", "ops", func(cs *mcp.ClientSession) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "restart"})
			return err
		}, jsonrpc.CodeInvalidParams, `The group "open" served here has no tool "restart"`},
		{"tool outside the group over streamable HTTP", base + "/mcp/open", "ops", func(cs *mcp.ClientSession) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "restart"})
			return err
		}, jsonrpc.CodeInvalidParams, `has no tool "restart"`},
		{"resource outside the group", base + "/mcp/open", "ops", func(cs *mcp.ClientSession) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://runbook"})
			return err
		}, mcp.CodeResourceNotFound, `has no resource "docs://runbook"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connectAs(t, tt.url, e.tokens[tt.token])
			if err != nil {
				t.Fatal(err)
			}
			err = tt.call(cs)
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != tt.code || !strings.Contains(rpcErr.Message, tt.says) {
				t.Fatalf("error %v, want code %d saying %s", err, tt.code, tt.says)
			}
		})
	}
}

// TestGroupPaths checks what the paths of groups answer before any MCP
// message: 403 for a token without the group's scopes, 404 for a group
// the config does not have, with the closest name.
func TestGroupPaths(t *testing.T) {
	e := startScoped(t)
	base := e.base
	tests := []struct {
		name, path, token string
		status            int
		header, body      string
	}{
		{"group scopes missing", "/mcp/ops", "writer", http.StatusForbidden,
			`Bearer error="insufficient_scope", scope="ops", resource_metadata="` + scopeMetadata + `"`, `the group "ops" needs a token that grants "ops"`},
		{"group scopes missing over SSE", "/sse/ops", "reader", http.StatusForbidden, `scope="ops"`, `"ops"`},
		{"unknown group", "/mcp/opz", "ops", http.StatusNotFound, "", `no group "opz". Did you mean "ops"?`},
		{"unknown group over SSE", "/sse/opn", "ops", http.StatusNotFound, "", `Did you mean "open"?`},
		{"path below a group", "/mcp/ops/more", "ops", http.StatusNotFound, "", "404 page not found"},
		{"client's group header ignored", "/mcp", "none", http.StatusOK, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+e.tokens[tt.token])
			req.Header.Set("Accept", "text/event-stream")
			if tt.status == http.StatusOK {
				// A client that names a group in the header the server
				// uses gets the server's own path all the same.
				hdr := rawInit(t, base+"/mcp", e.tokens[tt.token])
				hdr[groupHeader] = "ops"
				body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
				resp := rawPost(t, base+"/mcp", body, hdr)
				data, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), `"status"`) || strings.Contains(string(data), `"restart"`) {
					t.Fatalf("%s: %s", resp.Status, data)
				}
				return
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(resp.Header.Get("WWW-Authenticate"), tt.header) || !strings.Contains(string(data), tt.body) {
				t.Fatalf("%s, WWW-Authenticate %q, body %s", resp.Status, resp.Header.Get("WWW-Authenticate"), data)
			}
		})
	}
}

// TestGroupsFollowReload changes, adds and removes groups by applying a
// new config, as a reload does: the paths serve the groups in service.
func TestGroupsFollowReload(t *testing.T) {
	e := startScoped(t)
	base := e.base
	next := strings.Replace(oidcServer(e.is)+scopesItems, `group "open" {
  tools = ["status"]
}`, `group "public" {
  tools   = ["status"]
  prompts = ["hello"]
}`, 1)
	next = strings.Replace(next, `tools     = ["status", "restart"]`, `tools     = ["restart"]`, 1)
	// A client of the group is told its tools changed, though no tool's
	// declaration did.
	changed := make(chan struct{}, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "scopes", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/ops", HTTPClient: &http.Client{Transport: bearer{e.tokens["ops"]}}}, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	old, _ := e.srv.Apply(loadHTTPRegistry(t, next))
	old.Retire()
	<-changed
	tests := []struct {
		name, path, want string
		status           int
	}{
		{"changed group", "/mcp/ops", "restart | runbook | logs | triage", 0},
		{"added group", "/mcp/public", "status | | | hello", 0},
		{"removed group", "/mcp/open", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connectAs(t, base+tt.path, e.tokens["ops"])
			if tt.status != 0 {
				if err == nil || !strings.Contains(err.Error(), "Not Found") {
					t.Fatalf("connected to a removed group: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := listed(t, cs), lists(tt.want); !sameLists(got, want) {
				t.Fatalf("lists %v, want %v", got, want)
			}
		})
	}
}

// TestServeGroupOverHTTP serves one group as serve --group does: /mcp
// shows it, with its scopes required, and the other groups' paths are
// not served.
func TestServeGroupOverHTTP(t *testing.T) {
	e := startScoped(t, ServeGroup("ops"))
	base := e.base
	cs, err := connectAs(t, base+"/mcp", e.tokens["ops"])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listed(t, cs), lists("status, restart | runbook | logs | triage"); !sameLists(got, want) {
		t.Fatalf("lists %v, want %v", got, want)
	}
	if _, err := connectAs(t, base+"/mcp", e.tokens["reader"]); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("a token without the group's scope connected: %v", err)
	}
	if _, err := connectAs(t, base+"/mcp/open", e.tokens["ops"]); err == nil || !strings.Contains(err.Error(), "Not Found") {
		t.Fatalf("another group's path is served: %v", err)
	}
}

// TestScopesWithoutAuth: without an auth block, an HTTP request has no
// caller and scopes fail closed: what has them is hidden and refused,
// and validation warns.
func TestScopesWithoutAuth(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(p, []byte(scopesItems), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{p}, nil)
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "Scopes without auth" {
		t.Fatalf("diagnostics %v, want the one warning of scopes without auth", diags)
	}
	e := startHTTPRegistry(t, HTTPOptions{}, reg)
	for _, tt := range []struct{ name, path, want string }{
		{"server's path", "/mcp", "status | public | | hello"},
		{"open group", "/mcp/open", "status | | |"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connectAs(t, e.base+tt.path, "")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := listed(t, cs), lists(tt.want); !sameLists(got, want) {
				t.Fatalf("lists %v, want %v", got, want)
			}
			if tt.path != "/mcp" {
				return
			}
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "restart"})
			if err == nil || !strings.Contains(err.Error(), `"ops:write"`) {
				t.Fatalf("restart without a caller: %v, want it refused", err)
			}
		})
	}
	t.Run("group with scopes", func(t *testing.T) {
		if _, err := connectAs(t, e.base+"/mcp/ops", ""); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Fatalf("connected to a group with scopes: %v", err)
		}
	})
}
