package host

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOriginPolicy(t *testing.T) {
	p, err := newOriginPolicy("0.0.0.0:8080", []string{"mcp.example.com", "proxy.internal:9443", "tls.example.com:443"}, []string{"https://app.example.com/", "http://dev.example.com:80", "https://ui.example.com:443"})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"localhost:8080", true},
		{"LOCALHOST:8080", true},
		{"[::1]:8080", true},
		{"localhost:9090", false}, // another port: another server
		{"0.0.0.0:8080", false},   // the wildcard is no name
		{"mcp.example.com", true}, // no port: any
		{"mcp.example.com:443", true},
		{"proxy.internal:9443", true},
		{"proxy.internal:9444", false},
		// A client omits the default port of its scheme (RFC 9110 7.2),
		// which the Host does not name: 80 or 443.
		{"tls.example.com", true},
		{"tls.example.com:443", true},
		{"tls.example.com:8443", false},
		{"evil.example.com:8080", false},
		{"evil.example.com", false},
	}
	for _, tt := range hosts {
		t.Run("host "+tt.host, func(t *testing.T) {
			if got := p.hostAllowed(tt.host); got != tt.ok {
				t.Fatalf("hostAllowed(%q) = %v, want %v", tt.host, got, tt.ok)
			}
		})
	}
	origins := []struct {
		origin string
		ok     bool
	}{
		{"http://localhost:8080", true},
		{"http://127.0.0.1:8080", true},
		{"https://app.example.com", true},
		{"HTTPS://APP.EXAMPLE.COM", true},
		{"https://mcp.example.com", true}, // an allowed host's own pages
		// Browsers leave the scheme's default port out of Origin: an
		// origin allowed with it is the same origin.
		{"http://dev.example.com", true},
		{"http://dev.example.com:80", true},
		{"https://dev.example.com", false},
		{"https://ui.example.com", true},
		{"http://ui.example.com", false},
		{"https://tls.example.com", true},
		{"http://localhost:3000", false},
		{"http://evil.example.com", false},
		{"null", false},
		{"file://", false},
		{"https://app.example.com.evil.com", false},
	}
	for _, tt := range origins {
		t.Run("origin "+tt.origin, func(t *testing.T) {
			if got := p.originAllowed(tt.origin); got != tt.ok {
				t.Fatalf("originAllowed(%q) = %v, want %v", tt.origin, got, tt.ok)
			}
		})
	}

	bad := []struct {
		hosts, origins []string
		err            string
	}{
		{hosts: []string{"https://mcp.example.com"}, err: "--allowed-hosts"},
		{origins: []string{"app.example.com"}, err: "--allowed-origins"},
		{origins: []string{"https://app.example.com/path"}, err: "--allowed-origins"},
		// A pattern would be taken as a name that nothing matches.
		{hosts: []string{"*.example.com"}, err: `--allowed-hosts "*.example.com": patterns are not supported`},
		{origins: []string{"https://*.example.com"}, err: `--allowed-origins "https://*.example.com": patterns are not supported`},
		{hosts: []string{"mcp.example.com:https"}, err: "the port is not a number"},
	}
	for _, tt := range bad {
		t.Run("invalid "+tt.err, func(t *testing.T) {
			opts := HTTPOptions{Addr: "127.0.0.1:8080", AllowedHosts: tt.hosts, AllowedOrigins: tt.origins}
			if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tt.err)
			}
		})
	}
	t.Run("wildcards", func(t *testing.T) {
		p, err := newOriginPolicy("127.0.0.1:8080", []string{"*"}, []string{"*"})
		if err != nil {
			t.Fatal(err)
		}
		if !p.hostAllowed("anything:1") || !p.originAllowed("https://anything") {
			t.Fatal("* should allow any host and origin")
		}
	})
}

// TestHTTPGuard: Host, Origin and bearer token checks on every MCP
// endpoint, none on the health endpoints, CORS for allowed origins, and an
// access log line per request that never holds the token.
func TestHTTPGuard(t *testing.T) {
	const token = "s3cret-t0ken"
	e := startHTTP(t, HTTPOptions{
		AuthToken:      token,
		AllowedHosts:   []string{"mcp.example.com"},
		AllowedOrigins: []string{"https://app.example.com"},
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.base, "http://"))
	initBody := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	auth := "Bearer " + token
	tests := []struct {
		name   string
		method string
		path   string
		hdr    map[string]string
		code   int
		body   string // in the response
	}{
		{"bad host", "POST", "/mcp", map[string]string{"Host": "evil.example.com:" + port, "Authorization": auth}, 403, "--allowed-hosts evil.example.com"},
		{"bad host, sse", "GET", "/sse", map[string]string{"Host": "evil.example.com"}, 403, "not allowed"},
		{"bad host, messages", "POST", "/messages?session_id=x", map[string]string{"Host": "evil.example.com"}, 403, "not allowed"},
		{"bad origin", "POST", "/mcp", map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, 403, "--allowed-origins http://evil.example.com"},
		{"null origin", "POST", "/mcp", map[string]string{"Origin": "null", "Authorization": auth}, 403, "serve the page from an http(s) origin"},
		{"bad origin, sse", "GET", "/sse", map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, 403, "not allowed"},
		{"no token", "POST", "/mcp", nil, 401, "Authorization: Bearer"},
		{"no token, sse", "GET", "/sse", nil, 401, "Authorization: Bearer"},
		{"no token, messages", "POST", "/messages?session_id=x", nil, 401, "Authorization: Bearer"},
		{"wrong token", "POST", "/mcp", map[string]string{"Authorization": "Bearer nope"}, 401, "not the one"},
		{"wrong scheme", "POST", "/mcp", map[string]string{"Authorization": "Basic " + token}, 401, "Authorization: Bearer"},
		{"token without scheme", "POST", "/mcp", map[string]string{"Authorization": token}, 401, "has no scheme: send the token as Authorization: Bearer TOKEN"},
		{"empty bearer token", "POST", "/mcp", map[string]string{"Authorization": "Bearer "}, 401, "no token after Bearer"},
		{"token", "POST", "/mcp", map[string]string{"Authorization": auth}, 200, ""},
		{"token, lower-case scheme", "POST", "/mcp", map[string]string{"Authorization": "bearer " + token}, 200, ""},
		{"own origin", "POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:" + port}, 200, ""},
		{"allowed origin", "POST", "/mcp", map[string]string{"Authorization": auth, "Origin": "https://app.example.com"}, 200, ""},
		{"allowed host", "POST", "/mcp", map[string]string{"Authorization": auth, "Host": "mcp.example.com"}, 200, ""},
		{"preflight", "OPTIONS", "/mcp", map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"}, 204, ""},
		{"healthz needs nothing", "GET", "/healthz", map[string]string{"Host": "10.1.2.3:" + port}, 200, "ok"},
		{"readyz needs nothing", "GET", "/readyz", map[string]string{"Host": "10.1.2.3:" + port}, 200, `"status":"ready"`},
		{"unknown path", "GET", "/nope", nil, 404, "/mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.method == "POST" {
				body = strings.NewReader(initBody)
			}
			// A deadline, so that a regression that lets a stream (GET
			// /sse) through fails the test instead of hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, tt.method, e.base+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if resp.StatusCode != tt.code || !strings.Contains(string(b), tt.body) {
				t.Fatalf("%s %s: %s %q, want %d with %q", tt.method, tt.path, resp.Status, b, tt.code, tt.body)
			}
			switch tt.code {
			case 401:
				if strings.Contains(string(b), token) {
					t.Fatalf("the answer repeats the token: %q", b)
				}
				got := resp.Header.Get("WWW-Authenticate")
				if !strings.HasPrefix(got, `Bearer realm="toolhost"`) {
					t.Fatalf("WWW-Authenticate %q", got)
				}
				// RFC 6750 3.1: an error code only when a bearer token
				// was sent; none for no credentials or another scheme.
				f := strings.Fields(tt.hdr["Authorization"])
				sentBearer := len(f) == 2 && strings.EqualFold(f[0], "bearer")
				if strings.Contains(got, `error="invalid_token"`) != sentBearer {
					t.Fatalf("WWW-Authenticate %q for Authorization %q", got, tt.hdr["Authorization"])
				}
			case 204:
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example.com" {
					t.Fatalf("Access-Control-Allow-Origin %q", got)
				}
				if !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
					t.Fatalf("Access-Control-Allow-Headers %q", resp.Header.Get("Access-Control-Allow-Headers"))
				}
			}
		})
	}

	t.Run("SDK client with the token", func(t *testing.T) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		hc := &http.Client{Transport: bearer{token: token}}
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if got := callText(t, cs, "say_hello", map[string]any{"name": "auth"}); got != "hello auth" {
			t.Fatalf("say_hello = %q", got)
		}
		sc, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: e.base + "/sse", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		if got := callText(t, sc, "say_hello", map[string]any{"name": "auth sse"}); got != "hello auth sse" {
			t.Fatalf("say_hello = %q", got)
		}
	})

	log := e.log.String()
	for _, want := range []string{`msg="http request" method=POST path=/mcp status=403`, `refused="origin not allowed"`, `refused="host not allowed"`, `refused=unauthorized`, `path=/mcp status=200`} {
		if !strings.Contains(log, want) {
			t.Errorf("access log lacks %q", want)
		}
	}
	if strings.Contains(log, token) {
		t.Error("the token is in the log")
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPSlowBody: a body that stops arriving is answered 408 once the
// body read timeout passes, and the connection is closed: the server does
// not wait, with no deadline, for the rest of a body that may never come.
func TestHTTPSlowBody(t *testing.T) {
	e := startHTTP(t, HTTPOptions{BodyReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := strings.TrimPrefix(e.base, "http://")
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{", host)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply, err := io.ReadAll(conn) // to the close
	if err != nil {
		t.Fatalf("reading the answer: %v (got %q)", err, reply)
	}
	if !strings.HasPrefix(string(reply), "HTTP/1.1 408 ") || !strings.Contains(string(reply), "did not arrive within 300ms") {
		t.Fatalf("answer to a stalled body: %q", reply)
	}
}

// TestHTTPBodyLimit: bodies over the limit are refused with 413, whether
// their length is declared or not, on /mcp and on /messages.
func TestHTTPBodyLimit(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{MaxBodyBytes: 1024, Stateless: stateless})
			big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"` + strings.Repeat("x", 2000) + `"}}}`
			small := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"}}}`
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-06-18"}
			if stateless {
				if resp := rawPost(t, e.base+"/mcp", small, hdr); resp.StatusCode != http.StatusOK {
					t.Fatalf("small body: %s", resp.Status)
				}
			}
			resp := rawPost(t, e.base+"/mcp", big, hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "--max-message-size") {
				t.Fatalf("declared length: %s %q, want 413 naming --max-message-size", resp.Status, b)
			}
			// Chunked: no length to check up front.
			req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", io.MultiReader(strings.NewReader(big)))
			req.ContentLength = -1
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			cresp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			cb, _ := io.ReadAll(cresp.Body)
			cresp.Body.Close()
			if cresp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(cb), "--max-message-size") {
				t.Fatalf("chunked: %s %q, want 413 naming --max-message-size", cresp.Status, cb)
			}
		})
	}
	t.Run("messages", func(t *testing.T) {
		e := startHTTP(t, HTTPOptions{MaxBodyBytes: 1024})
		resp, err := http.Get(e.base + "/sse")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		ev, _ := newSSEReader(resp.Body).next()
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("x", 2000) + `"}}}`
		req, _ := http.NewRequest(http.MethodPost, e.base+ev.data, io.MultiReader(strings.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		mresp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if mresp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(mb), "--max-message-size") {
			t.Fatalf("chunked POST /messages: %s %q, want 413 naming --max-message-size", mresp.Status, mb)
		}
	})
}

// TestHTTPDeepBody: a POST nested two million levels deep (under the 4 MiB
// body limit) gets the SDK's nesting error, and the server goes on: the
// params check peeks at bodies with a parser that recurses once per level
// and would overflow the stack.
func TestHTTPDeepBody(t *testing.T) {
	forEachMode(t, func(t *testing.T, e *httpEnv, hdr map[string]string) {
		const depth = 2_000_000
		body := `{"jsonrpc":"2.0","id":2,"method":"ping","params":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
		resp := rawPost(t, e.base+"/mcp", body, hdr)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), "depth") {
			t.Fatalf("%s %.200s: want the SDK's nesting error", resp.Status, b)
		}
		resp = rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"still here"}}}`, hdr)
		if r := newSSEReader(resp.Body).message(t); !strings.Contains(fmt.Sprint(r["result"]), "hello still here") {
			t.Fatalf("the call after the deep body: %v", r)
		}
	})
}
