package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// health GETs a health endpoint and returns its status code and body.
func (s *httpServe) health(path string) (int, string) {
	s.t.Helper()
	resp, err := http.Get(s.Base + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeHTTPBrokenStart: serve --listen started on a config with errors
// serves: /healthz is ok and /readyz 503 with the reason until a save makes
// the config valid, then 200; a streamable and an SSE client are told the
// errors at level error, list no tools, and get tools/list_changed and the
// tools after the save.
func TestServeHTTPBrokenStart(t *testing.T) {
	for _, mode := range []struct {
		name string
		args []string
	}{{"sessions", nil}, {"stateless", []string{"--stateless"}}} {
		stateless := mode.args != nil
		t.Run(mode.name, func(t *testing.T) {
			cfg := writeConfig(t, brokenConfig)
			s := startHTTPServe(t, nil, append(mode.args, cfg)...)
			if code, body := s.health("/healthz"); code != http.StatusOK {
				t.Errorf("/healthz with a broken config: %d %s, want 200", code, body)
			}
			code, body := s.health("/readyz")
			var st struct{ Status string }
			_ = json.Unmarshal([]byte(body), &st)
			if code != http.StatusServiceUnavailable || !strings.Contains(st.Status, "the config has errors and no valid config has loaded yet") {
				t.Errorf("/readyz with a broken config: %d %s, want 503 saying why", code, body)
			}
			if strings.Contains(body, cfg) {
				t.Errorf("/readyz, which answers without authentication, names the config's path: %s", body)
			}
			type client struct {
				name    string
				sse     bool
				version string
				// told says whether the client is told the errors and
				// tools/list_changed: a 2026-07-28 client asks for the
				// logs of its request in its _meta, and listens for
				// changes, on any server; an older one of a stateless
				// server has no logging level and no stream to hear
				// either on (the instructions tell it the errors).
				told    bool
				cs      *mcp.ClientSession
				logs    chan string
				changed chan struct{}
			}
			clients := []*client{
				{name: "streamable 2025-11-25", version: "2025-11-25", told: !stateless},
				{name: "sse", sse: !stateless, version: "2025-11-25", told: !stateless},
				{name: "streamable 2026-07-28", version: "2026-07-28", told: true},
			}
			for _, c := range clients {
				c.logs, c.changed = make(chan string, 10), make(chan struct{}, 10)
				c.cs = s.connectAt(c.sse, c.version, &mcp.ClientOptions{
					LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
						if r.Params.Level == "error" {
							c.logs <- r.Params.Data.(string)
						}
					},
					ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.changed <- struct{}{} },
				})
				if ins := c.cs.InitializeResult().Instructions; !strings.Contains(ins, "toolhost could not load its config") {
					t.Errorf("%s: instructions %q do not say the config has errors", c.name, ins)
				}
				res, err := c.cs.ListTools(context.Background(), &mcp.ListToolsParams{Meta: mcp.Meta{mcp.MetaKeyLogLevel: "error"}})
				if err != nil || len(res.Tools) != 0 {
					t.Fatalf("%s: tools/list with a broken config: %v, %v; want no tools", c.name, res, err)
				}
				if !c.told {
					continue
				}
				select {
				case msg := <-c.logs:
					if !strings.Contains(msg, `tools.hcl:4:3: error: Unsupported argument: An argument named "bogus" is not expected here.`) {
						t.Errorf("%s was told %q", c.name, msg)
					}
				case <-time.After(15 * time.Second):
					t.Fatalf("%s was not told the errors", c.name)
				}
			}
			writeAtomically(t, cfg, toolConfig("alpha"))
			// The 2026-07-28 client last: an older one of a stateless
			// server hears of no change (it has no stream to hear it on),
			// and lists the tools after the others heard it.
			for i := len(clients) - 1; i >= 0; i-- {
				c := clients[i]
				if c.told {
					select {
					case <-c.changed:
					case <-time.After(15 * time.Second):
						t.Fatalf("%s got no tools/list_changed", c.name)
					}
				}
				if got := toolText(t, c.cs, "alpha", nil); got != "I am alpha" {
					t.Fatalf("alpha = %q", got)
				}
			}
			if code, body := s.health("/readyz"); code != http.StatusOK {
				t.Errorf("/readyz once the config loaded: %d %s, want 200", code, body)
			}
		})
	}
}

// connectAt connects an SDK client as connect does, at a protocol version.
func (s *httpServe) connectAt(sse bool, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	s.t.Helper()
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: s.Base + "/mcp"}
	if sse {
		tr = &mcp.SSEClientTransport{Endpoint: s.Base + "/sse"}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		s.t.Fatalf("connect (sse=%v, %s): %v", sse, version, err)
	}
	s.t.Cleanup(func() { _ = cs.Close() })
	return cs
}
