package host

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutputCutNamesTheCap: output cut at the tool's size cap, which the
// result block or binary content cannot use, is an error that names the
// setting to raise.
func TestOutputCutNamesTheCap(t *testing.T) {
	src := `
tool "fields" {
  exec {
    command    = ["sh", "-c", "printf '{\"a\": \"%0200d\"}' 0"]
    max_output = 50
  }
  result {
    field "a" {
      path = "a"
      type = string
    }
  }
}

tool "bytes" {
  exec {
    command    = ["sh", "-c", "printf '\\211PNG\\r\\n\\032\\n'; head -c 200 /dev/zero"]
    binary     = true
    max_output = 50
  }
}
`
	r := loadSource(t, src)
	for _, tool := range []string{"fields", "bytes"} {
		t.Run(tool, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, "cut at 50 bytes") || !strings.Contains(text, "raise the cap (max_output in its exec block)") {
				t.Errorf("result = %q (isError %v), want an error naming max_output", text, res.IsError)
			}
		})
	}
}
