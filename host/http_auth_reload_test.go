package host

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testoidc"
)

// TestHTTPOAuthAddedEndsSessions: a reload that puts in an auth block
// ends the sessions opened without a token (the SDK binds a session to
// the subject that opened it, none there, so any token would do in it,
// and its GET stream would go on getting notifications): their clients
// connect again with tokens.
func TestHTTPOAuthAddedEndsSessions(t *testing.T) {
	is := testoidc.Start(t, authAudience)
	const tool = `
tool "say_hello" {
  template { text = "hello" }
}
`
	e := startHTTPConfig(t, HTTPOptions{}, tool)
	init := postInit(t, e, "/mcp", "")
	sid := init.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize without a token: %s, no session", init.Status)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": sessionProtocol}
	rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr).Body.Close()
	// A GET stream of the session, open across the reload.
	req, _ := http.NewRequest(http.MethodGet, e.base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", sessionProtocol)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != 200 {
		t.Fatalf("GET stream: %s", stream.Status)
	}
	e.srv.Apply(loadHTTPRegistry(t, authServer(is)+tool))
	tok := is.Mint(testoidc.Token{Claims: is.Claims("eve", nil)})
	hdr["Authorization"] = "Bearer " + tok
	resp := rawPost(t, e.base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hdr)
	defer resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("eve's token in the session opened without one: status %d, want 404", resp.StatusCode)
	}
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Fatalf("the GET stream of the ended session: %v, want its end", err)
	}
	// A new session, with a token, works.
	tr := &bearerTransport{token: tok}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs2, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", HTTPClient: &http.Client{Transport: tr}}, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	if got := callText(t, cs2, "say_hello", nil); got != "hello" {
		t.Fatalf("say_hello with a token = %q", got)
	}
}
