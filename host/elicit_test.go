package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestElicitTimeout: a client that never answers a confirmation or a form
// does not keep the call open for ever: after elicitTimeout the tool
// refuses, saying nobody answered, and did not run.
func TestElicitTimeout(t *testing.T) {
	old := elicitTimeout
	elicitTimeout = 300 * time.Millisecond
	t.Cleanup(func() { elicitTimeout = old })
	e := startHTTPConfig(t, HTTPOptions{}, httpFeatureConfig)
	asked := make(chan string, 4)
	// The user never answers: the handler returns only when the request
	// is cancelled or the test ends (the client session's Close waits for
	// its handlers).
	release := make(chan struct{})
	opts := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- r.Params.Message
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-release:
			return nil, context.Canceled
		}
	}}
	cs := e.connect(opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	t.Cleanup(func() { close(release) }) // runs before connect's Close
	for _, tc := range []struct {
		tool, want string
	}{
		{"delete_file", `nobody answered the confirmation ("Delete it?") within 300ms, so the tool delete_file did not run`},
		{"book", `nobody answered the form ("When?") within 300ms, so the tool book did not run`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-asked:
			default:
				t.Fatal("the user was never asked")
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, tc.want) {
				t.Fatalf("isError %v, %q; want an error containing %q", res.IsError, text, tc.want)
			}
		})
	}
}
