package host

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestHTTPSessionlessBesideSessions: a server that keeps sessions (no
// --stateless) serves clients of the sessionless 2026-07-28 protocol on the
// same endpoint, side by side with clients of earlier versions, which keep
// their sessions: each client gets the version it asks for, and calls work
// for both.
func TestHTTPSessionlessBesideSessions(t *testing.T) {
	e := startHTTP(t, HTTPOptions{})
	ctx := context.Background()

	for _, tc := range []struct {
		name    string
		version string // asked for; "" for the client's default
		want    string // negotiated
		session bool   // whether it gets an Mcp-Session-Id
	}{
		{name: "client default", version: "", want: "2026-07-28", session: false},
		{name: "2025-11-25", version: "2025-11-25", want: "2025-11-25", session: true},
		{name: "2025-06-18", version: "2025-06-18", want: "2025-06-18", session: true},
		{name: "2024-11-05", version: "2024-11-05", want: "2024-11-05", session: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "side-by-side", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tc.want {
				t.Errorf("negotiated %q, want %q", got, tc.want)
			}
			if got := cs.ID() != ""; got != tc.session {
				t.Errorf("session ID %q: want a session: %v", cs.ID(), tc.session)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "say_hello" }) {
				t.Fatalf("tools/list lacks say_hello: %v", tools.Tools)
			}
			if got := callText(t, cs, "say_hello", map[string]any{"name": tc.name}); got != "hello "+tc.name {
				t.Fatalf("say_hello = %q", got)
			}
		})
	}
}

// TestHTTPDiscoverWithSessions: server/discover on a server that keeps
// sessions lists the sessionless protocol among the versions it serves, as
// it does with --stateless, so that a client that probes first can choose
// it.
func TestHTTPDiscoverWithSessions(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "sessions", true: "stateless"}[stateless], func(t *testing.T) {
			e := startHTTP(t, HTTPOptions{Stateless: stateless})
			resp := rawPost(t, e.base+"/mcp",
				`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("server/discover: %s %s", resp.Status, body)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("server/discover opened a session %q", resp.Header.Get("Mcp-Session-Id"))
			}
			for _, v := range []string{"2026-07-28", "2025-11-25"} {
				if !strings.Contains(string(body), `"`+v+`"`) {
					t.Errorf("server/discover does not list %s: %s", v, body)
				}
			}
		})
	}
}

// TestHTTPMaxSessionsCountsSessionsOnly: on a server that keeps sessions,
// the one-request sessions of 2026-07-28 calls in flight do not count
// against --max-sessions: a client of an earlier version still gets a
// session while they run, and the limit still holds for sessions.
func TestHTTPMaxSessionsCountsSessionsOnly(t *testing.T) {
	e := startHTTP(t, HTTPOptions{MaxSessions: 2})
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "new", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 2}})
			done <- err
		}()
	}
	testconfig.WaitFor(t, "three 2026-07-28 calls are in flight", func() bool { return e.hs.InFlight() == 3 })
	first := e.connect(nil, nil)
	if first.ID() == "" {
		t.Fatal("the first session has no ID")
	}
	e.connect(nil, nil)
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"third","version":"1"}}}`, nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third session with --max-sessions 2: %s, want 503", resp.Status)
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("a 2026-07-28 call: %v", err)
		}
	}
}
