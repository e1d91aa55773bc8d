package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFailingCommands: a command that hangs past its timeout, exits with
// a status and a message, prints more than its cap, or is not installed
// ends as a result that says so, with programs every system has (the test
// binary re-executed); TestFailingBackends, on unix, has the rest.
func TestFailingCommands(t *testing.T) {
	reg := loadSource(t, `
tool "hang" {
  exec {
    `+helperCommand(`"sleep"`, `"60"`)+`
    timeout = "300ms"
  }
}
tool "flood" {
  exec {
    `+helperCommand(`"repeat"`, `"10000000"`, `"x"`)+`
    timeout    = "20s"
    max_output = 1024
  }
}
tool "fails" {
  exec {
    `+helperCommand(`"stderr"`, `"disk full"`, `"exit"`, `"3"`)+`
  }
}
tool "missing" {
  exec { command = ["toolhost-no-such-program"] }
}
`)
	for _, tc := range []struct {
		tool, want string // want: in the result's text
		isError    bool
	}{
		{"hang", "timed out after 300ms", true},
		{"flood", "truncated", false},
		{"fails", "status 3: disk full", true},
		{"missing", `"toolhost-no-such-program" not found`, true},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			start := time.Now()
			res, err := reg.CallTool(context.Background(), tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
				t.Fatalf("isError=%v %.300q; want isError=%v containing %q", res.IsError, text, tc.isError, tc.want)
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("the call took %s", took)
			}
		})
	}
}
