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
    ` + helperCommand(`"print"`, `"{\"a\": \"`+strings.Repeat("0", 200)+`\"}"`) + `
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
    ` + helperCommand(`"bytes"`, `"89504e470d0a1a0a`+strings.Repeat("00", 200)+`"`) + `
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
