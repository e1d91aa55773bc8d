package host

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNowIsPerCall checks that now() in a backend is the time of the call,
// not of the load, in each backend: the compiler must not take a value
// made with now() for a constant (an exec command with now() in it was run
// with the time of the load at every call).
func TestNowIsPerCall(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.URL.Query().Get("at"))
	}))
	defer up.Close()
	reg := loadSource(t, fmt.Sprintf(`
tool "exec_now" {
  description = "x"
  exec {
    `+helperCommand(`"print"`, `now()`)+`
  }
}
tool "http_now" {
  description = "x"
  http {
    url   = "%s/t"
    query = { at = timestamp() }
  }
}
tool "template_now" {
  description = "x"
  template { text = "at ${formatdate("hh:mm:ss", now())}" }
}
`, up.URL))
	text := func(name string) string {
		res, err := reg.CallTool(context.Background(), name, []byte(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", name, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	names := []string{"exec_now", "http_now", "template_now"}
	first := map[string]string{}
	for _, n := range names {
		first[n] = text(n)
	}
	time.Sleep(1100 * time.Millisecond) // the times have a resolution of a second
	for _, n := range names {
		if again := text(n); again == first[n] {
			t.Errorf("%s gave %q twice, 1.1 s apart: now() was evaluated once, at load", n, again)
		}
	}
}
