package host

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connCountingUpstream starts a loopback server that answers "pong" and
// counts the connections it is opened.
func connCountingUpstream(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	conns := new(atomic.Int32)
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("pong"))
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	return up.URL, conns
}

// pingConfig returns a config of an http tool "ping" calling url, and a
// template tool "other" whose description is desc.
func pingConfig(url string) func(desc string) string {
	return func(desc string) string {
		return fmt.Sprintf("tool \"ping\" {\n  description = \"ping\"\n  http { url = %q }\n}\ntool \"other\" {\n  description = %q\n  template { text = \"x\" }\n}\n", url, desc)
	}
}

// connectInMemory connects a client to srv over in-memory transports.
func connectInMemory(t *testing.T, srv *Server) *mcp.ClientSession {
	t.Helper()
	_, cs := connectInMemoryWith(t, srv, nil, nil)
	return cs
}

// connectInMemoryWith is connectInMemory with the client's options, which
// also returns the server's end of the session.
func connectInMemoryWith(t *testing.T, srv *Server, opts *mcp.ClientOptions, sessOpts *mcp.ClientSessionOptions) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, opts).Connect(ctx, ct, sessOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return ss, cs
}

// TestFailedReloadKeepsReusedBackendOpen: a reload that fails, with an
// unchanged http tool its load took from the registry in service, lets go
// of that tool's backend once. Were it released twice (by the failed
// load, then by the reloader closing what it gave), the backend in
// service would be closed: its idle connection dropped, the next call
// opening another.
func TestFailedReloadKeepsReusedBackendOpen(t *testing.T) {
	url, conns := connCountingUpstream(t)
	src := pingConfig(url)
	r, path := reloadFrom(t, src("one"), nil)
	cs := connectInMemory(t, r.Server)
	if got := callText(t, cs, "ping", nil); got != "pong" {
		t.Fatalf("ping = %q", got)
	}
	broken := strings.Replace(src("one"), `text = "x"`, `text = "${param.nope}"`, 1)
	for range 2 { // the second failure is the same, and must not count again
		if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		if res := r.Reload(context.Background()); res.Applied || !res.Diagnostics.HasErrors() {
			t.Fatalf("the broken edit: %+v", res)
		}
		if got := callText(t, cs, "ping", nil); got != "pong" {
			t.Fatalf("ping after a failed reload = %q", got)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the upstream saw %d connections, want 1: the failed reload closed the backend in service", n)
	}
	// The fix applied, ping is still the same backend, and still open.
	if err := os.WriteFile(path, []byte(src("two")), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := r.Reload(context.Background()); !res.Applied || !slices.Equal(res.Changes.ToolsChanged, []string{"other"}) {
		t.Fatalf("the fixed edit: %+v", res)
	}
	if got := callText(t, cs, "ping", nil); got != "pong" {
		t.Fatalf("ping after the fix = %q", got)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the upstream saw %d connections after the fix, want 1", n)
	}
}
