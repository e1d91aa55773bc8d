package host

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestDeeplyNestedOutput: an upstream whose JSON nests arrays millions of
// levels deep (a 10 MiB body, the default max_response, holds five
// million), is an isError result that says so. It used to overflow the
// stack of the result mapping (which skips a dropped attribute
// recursively) or of gjson's validator: a fatal error that ends the
// server, not a panic a call recovers from.
func TestDeeplyNestedOutput(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	bodies := map[string]string{
		// 12 MB, under the test's max_response.
		"/millions": `{"name":"a","item":{"title":"t","extra":` + nest(6_000_000) + `}}`,
		"/limit":    `{"name":"a","item":{"title":"t","extra":` + nest(10_000-2) + `}}`,
		"/over":     `{"name":"a","item":{"title":"t","extra":` + nest(10_000) + `}}`,
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, bodies[r.URL.Path])
	}))
	defer upstream.Close()
	cfg := fmt.Sprintf(`
tool "fields" {
  param "path" { type = string }
  http {
    url          = "%[1]s/${param.path}"
    max_response = 16000000
  }
  result {
    field "item" {
      path = "item"
      type = object({ title = string })
    }
  }
}
tool "text" {
  param "path" { type = string }
  http {
    url          = "%[1]s/${param.path}"
    max_response = 16000000
  }
  result {
    text {
      path = "name"
    }
  }
}
`, upstream.URL)
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	defer r.Close()
	for _, tc := range []struct {
		tool, path string
		want       string // the text of the first content item
		isError    bool
	}{
		{"fields", "millions", "nests arrays and objects more than 10000 levels deep", true},
		{"fields", "over", "nests arrays and objects more than 10000 levels deep", true},
		{"fields", "limit", `{"item":{"title":"t"}}`, false},
		{"text", "millions", "nests arrays and objects more than 10000 levels deep", true},
		{"text", "limit", "a", false},
	} {
		t.Run(tc.tool+"/"+tc.path, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), tc.tool, []byte(`{"path":"`+tc.path+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
				t.Fatalf("result = %v %.200q, want isError %v and %q", res.IsError, text, tc.isError, tc.want)
			}
		})
	}
}
