package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	ident "github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/testconfig"
	"github.com/toolhost/toolhost/internal/testoidc"
)

const authAudience = "https://tools.example.com/mcp"

// authConfig is a config whose auth block trusts is, for audience, and
// requires the scope mcp.
func authConfig(is *testoidc.Issuer, audience string) string {
	return fmt.Sprintf(`
server {
  name    = "auth-test"
  version = "1.0.0"
  auth {
    issuer            = %q
    audience          = %q
    scopes            = ["mcp"]
    clock_skew        = "5s"
    introspection_url = "%s/introspect"
    resource_name     = "Team tools"
  }
}
tool "say_hello" {
  description = "Returns a friendly greeting"
  template { text = "hello" }
}
`, is.URL, audience, is.URL)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// postInit posts an initialize request to path with the Authorization
// header auth (none when empty) and returns the answer, its body read
// whole: when a client drops an initialize POST before its initialize
// has run, the SDK ends the new session, so a caller that closed the body
// at once and went on with the session would race that.
func postInit(t *testing.T, e *httpEnv, path, auth string) *http.Response {
	t.Helper()
	hdr := map[string]string{}
	if auth != "" {
		hdr["Authorization"] = auth
	}
	resp := rawPost(t, e.base+path, initializeBody, hdr)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer to initialize: %v", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

func TestHTTPOAuth(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	meta := `resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"`
	now := time.Now()
	valid := is.Claims("ana", map[string]any{"scope": "mcp read"})
	// with is a valid token's claims, with the scope mcp, changed by extra.
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{"scope": "mcp"}
		maps.Copy(m, extra)
		return is.Claims("ana", m)
	}
	bearer := func(tok testoidc.Token) string { return "Bearer " + is.Mint(tok) }
	for _, tc := range []struct {
		name, auth string
		status     int
		header     string // the WWW-Authenticate header, or a part of it after "..."
	}{
		{"no token", "", 401, `Bearer scope="mcp", ` + meta},
		{"basic credentials", "Basic YTpi", 401, `Bearer scope="mcp", ` + meta},
		{"valid", bearer(testoidc.Token{Claims: valid}), 200, ""},
		{"valid EC key", bearer(testoidc.Token{Kid: is.Published()[1], Claims: valid}), 200, ""},
		{"expired", bearer(testoidc.Token{Claims: with(map[string]any{"exp": now.Add(-time.Hour).Unix()})}), 401, `...error="invalid_token", error_description="the token expired at`},
		{"not yet valid", bearer(testoidc.Token{Claims: with(map[string]any{"nbf": now.Add(time.Hour).Unix()})}), 401, `...error="invalid_token", error_description="the token is not valid before`},
		{"wrong audience", bearer(testoidc.Token{Claims: with(map[string]any{"aud": "https://other.example.com/mcp"})}), 401, `...error_description="the token is for the audience 'https://other.example.com/mcp'`},
		{"wrong issuer", bearer(testoidc.Token{Claims: with(map[string]any{"iss": "https://evil.example.com"})}), 401, `...error_description="the token was issued by 'https://evil.example.com'`},
		{"alg none", bearer(testoidc.Token{Alg: "none", Claims: valid}), 401, `...error_description="the token is signed with 'none'`},
		{"HS256 with the public key", bearer(testoidc.Token{Alg: "HS256", Claims: valid}), 401, `...error_description="the token is signed with 'HS256'`},
		{"missing server scope", bearer(testoidc.Token{Claims: with(map[string]any{"scope": "read"})}), 403, `Bearer error="insufficient_scope", scope="mcp", error_description="the token lacks the scope mcp that every request to this server needs", ` + meta},
		{"opaque, active", "Bearer " + is.Opaque(map[string]any{"sub": "bob", "aud": authAudience, "scope": "mcp"}), 200, ""},
		{"opaque, inactive", "Bearer " + is.Opaque(map[string]any{"active": false}), 401, `...error_description="the issuer says the token is not active`},
		{"too long", "Bearer " + strings.Repeat("a", 9000), 401, `...error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/mcp", "/sse"} {
				if path == "/sse" && tc.status == 200 {
					continue // an SSE stream stays open
				}
				var resp *http.Response
				if path == "/sse" {
					resp = rawGetPath(t, e, path, tc.auth)
				} else {
					resp = postInit(t, e, path, tc.auth)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != tc.status {
					t.Fatalf("%s: status %d, want %d: %s", path, resp.StatusCode, tc.status, body)
				}
				got := resp.Header.Get("WWW-Authenticate")
				if want, ok := strings.CutPrefix(tc.header, "..."); ok {
					if !strings.Contains(got, want) || !strings.HasSuffix(got, meta) {
						t.Fatalf("%s: WWW-Authenticate %q, want it to hold %q and end with %s", path, got, want, meta)
					}
				} else if got != tc.header {
					t.Fatalf("%s: WWW-Authenticate %q, want %q", path, got, tc.header)
				}
			}
		})
	}
}

// rawGetPath sends GET path with the Authorization header auth.
func rawGetPath(t *testing.T, e *httpEnv, path, auth string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	mu    sync.Mutex
	token string
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	b.mu.Lock()
	r.Header.Set("Authorization", "Bearer "+b.token)
	b.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPOAuthCaller: the caller of a verified token reaches the
// handlers in req.Extra.TokenInfo, over streamable HTTP and SSE; a session
// is bound to the token's subject.
func TestHTTPOAuthCaller(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	seen := make(chan *ident.Caller, 1)
	e.hs.addReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				seen <- ident.FromTokenInfo(req.GetExtra().TokenInfo)
			}
			return next(ctx, method, req)
		}
	})
	for _, tc := range []struct {
		name      string
		transport func(*http.Client) mcp.Transport
		opts      *mcp.ClientSessionOptions
	}{
		{"streamable", func(c *http.Client) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: c}
		}, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol}},
		{"sse", func(c *http.Client) mcp.Transport {
			return &mcp.SSEClientTransport{Endpoint: e.base + "/sse", HTTPClient: c}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &bearerTransport{token: is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp", "email": "ana@example.com"})})}
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), tc.transport(&http.Client{Transport: tr}), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := callText(t, cs, "say_hello", nil); got != "hello" {
				t.Fatalf("say_hello = %q", got)
			}
			if c := <-seen; c == nil || c.Subject != "ana" || c.Claims["email"] != "ana@example.com" {
				t.Fatalf("the handler's caller: %+v", c)
			}
			// Another subject's token cannot use ana's session.
			tr.mu.Lock()
			tr.token = is.Mint(testoidc.Token{Claims: is.Claims("eve", map[string]any{"scope": "mcp"})})
			tr.mu.Unlock()
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "say_hello"}); err == nil {
				t.Fatal("eve's token was taken in ana's session")
			}
		})
	}
}

func TestHTTPProtectedResourceMetadata(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	for _, path := range []string{prmPath, prmPath + "/mcp"} {
		t.Run(path, func(t *testing.T) {
			resp, err := http.Get(e.base + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var doc map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d: %v", resp.StatusCode, err)
			}
			want := map[string]any{"resource": authAudience, "authorization_servers": []any{is.URL}, "scopes_supported": []any{"mcp"},
				"bearer_methods_supported": []any{"header"}, "resource_name": "Team tools"}
			if fmt.Sprint(doc) != fmt.Sprint(want) {
				t.Fatalf("metadata %v, want %v", doc, want)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Fatalf("Access-Control-Allow-Origin %q", got)
			}
		})
	}
	t.Run("no auth block", func(t *testing.T) {
		plain := startHTTP(t, HTTPOptions{})
		resp, err := http.Get(plain.base + prmPath)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

// TestHTTPOAuthReload: a reload that changes the audience applies to the
// next request and to the metadata.
func TestHTTPOAuthReload(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	other := "https://other.example.com/mcp"
	tokFor := func(aud string) string {
		return "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp", "aud": aud})})
	}
	if resp := postInit(t, e, "/mcp", tokFor(authAudience)); resp.StatusCode != 200 {
		t.Fatalf("before the reload: %d", resp.StatusCode)
	}
	old, _ := e.srv.Apply(loadHTTPRegistry(t, authConfig(is, other)))
	old.Retire()
	if resp := postInit(t, e, "/mcp", tokFor(authAudience)); resp.StatusCode != 401 {
		t.Fatalf("the old audience after the reload: %d", resp.StatusCode)
	}
	if resp := postInit(t, e, "/mcp", tokFor(other)); resp.StatusCode != 200 {
		t.Fatalf("the new audience after the reload: %d", resp.StatusCode)
	}
	resp, err := http.Get(e.base + prmPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct{ Resource string }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.Resource != other {
		t.Fatalf("metadata after the reload: %+v, %v", doc, err)
	}
	// Without the auth block, no token is needed.
	old, _ = e.srv.Apply(loadHTTPRegistry(t, httpTestConfig))
	old.Retire()
	if resp := postInit(t, e, "/mcp", ""); resp.StatusCode != 200 {
		t.Fatalf("after the auth block is removed: %d", resp.StatusCode)
	}
}

// TestHTTPOAuthRotation: a token signed by a key the issuer has not
// published yet is refused; once published, it is taken.
func TestHTTPOAuthRotation(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	if resp := postInit(t, e, "/mcp", "Bearer "+is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})); resp.StatusCode != 200 {
		t.Fatalf("first token: %d", resp.StatusCode)
	}
	kid := is.AddKey("ES256", false)
	tok := "Bearer " + is.Mint(testoidc.Token{Kid: kid, Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})
	resp := postInit(t, e, "/mcp", tok)
	if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(h, kid) {
		t.Fatalf("unknown key: %d %q", resp.StatusCode, h)
	}
	is.Rotate("RS256")
	is.Publish(kid)
	if resp := postInit(t, e, "/mcp", tok); resp.StatusCode != 200 {
		t.Fatalf("after the key is published: %d", resp.StatusCode)
	}
}

// TestHTTPOAuthIssuerDown: an issuer that cannot be reached at start
// does not stop serving: requests get 503 until it answers.
func TestHTTPOAuthIssuerDown(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	is.SetDown(true)
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience))
	tok := "Bearer " + is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})
	resp := postInit(t, e, "/mcp", tok)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "cannot check the token now") {
		t.Fatalf("issuer down: %d %s", resp.StatusCode, body)
	}
	if resp, err := http.Get(e.base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz while the issuer is down: %v", err)
	}
	is.SetDown(false)
	testconfig.WaitFor(t, "the issuer is reached again", func() bool {
		resp := postInit(t, e, "/mcp", tok)
		return resp.StatusCode == 200
	})
}

// TestHTTPOAuthWithStaticToken: with both, the auth block applies and
// the static token is refused, as the log says.
func TestHTTPOAuthWithStaticToken(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	e := startHTTPConfig(t, HTTPOptions{AuthToken: "static-secret"}, authConfig(is, authAudience))
	if resp := postInit(t, e, "/mcp", "Bearer static-secret"); resp.StatusCode != 401 {
		t.Fatalf("the static token: %d", resp.StatusCode)
	}
	if resp := postInit(t, e, "/mcp", "Bearer "+is.Mint(testoidc.Token{Claims: is.Claims("ana", map[string]any{"scope": "mcp"})})); resp.StatusCode != 200 {
		t.Fatalf("an OAuth token: %d", resp.StatusCode)
	}
	if !strings.Contains(e.log.String(), "--auth-token-env is ignored while the config has an auth block") {
		t.Fatalf("no warning in the log:\n%s", e.log.String())
	}
}

// TestHTTPOAuthTokenNotForwarded: a token from the client_credentials
// grant reaches an http tool's call, and the upstream never sees it.
func TestHTTPOAuthTokenNotForwarded(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	is.AddClient("agent", "agent-secret")
	got := make(chan http.Header, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "upstream answer")
	}))
	defer upstream.Close()
	e := startHTTPConfig(t, HTTPOptions{}, authConfig(is, authAudience)+fmt.Sprintf(`
tool "fetch" {
  description = "reads the upstream"
  http { url = %q }
}
`, upstream.URL))
	resp, err := http.PostForm(is.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"agent"},
		"client_secret": {"agent-secret"}, "scope": {"mcp"}, "resource": {authAudience}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.AccessToken == "" {
		t.Fatalf("token endpoint: %d %v", resp.StatusCode, err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp",
		HTTPClient: &http.Client{Transport: &bearerTransport{token: tok.AccessToken}}}, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text := callText(t, cs, "fetch", nil); text != "upstream answer" {
		t.Fatalf("fetch = %q", text)
	}
	h := <-got
	if a := h.Get("Authorization"); a != "" {
		t.Fatalf("the upstream got Authorization: %q", a)
	}
	for name, vals := range h {
		for _, v := range vals {
			if strings.Contains(v, tok.AccessToken) {
				t.Fatalf("the upstream got the caller's token in %s", name)
			}
		}
	}
}
