package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRequestChecks: requests the SDK would answer without a fix (a log
// level that is not one, a tool or prompt that is not declared) get
// -32602 with one, over a real stdio session; good ones pass through.
func TestRequestChecks(t *testing.T) {
	var many strings.Builder
	for i := range 25 {
		fmt.Fprintf(&many, "tool \"t%02d\" {\n  template { text = \"x\" }\n}\n", i)
	}
	withPrompt := stdioIDConfig + `
prompt "summarize" {
  message "user" { text = "Summarize." }
}
`
	tests := []struct {
		name   string
		config string
		line   string // with id 1
		want   string // in the error; "" for a success
	}{
		{"bad log level", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"verbose"}}`,
			`invalid log level "verbose": use one of debug, info, notice, warning, error, critical, alert, emergency`},
		{"good log level", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"notice"}}`, ""},
		{"unknown tool, close to one", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"helo","arguments":{}}}`,
			`unknown tool "helo" (did you mean "hello"?); the tools are: hello, linger`},
		{"unknown tool among many", many.String(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zzz","arguments":{}}}`,
			`unknown tool "zzz"; the tools include t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19 and 5 more (tools/list has them all)`},
		{"declared tool", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":"world"}}}`, ""},
		{"unknown prompt", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"sumarize"}}`,
			`unknown prompt "sumarize" (did you mean "summarize"?); the prompts are: summarize`},
		{"no prompts", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}`,
			`unknown prompt "x"; this server declares no prompts`},
		{"declared prompt", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startStdio(t, loadSource(t, tt.config))
			p.initialize()
			p.send(tt.line)
			r := p.next()
			if tt.want == "" {
				if r.Error != nil || string(r.ID) != "1" {
					t.Fatalf("got %s, want a result", r.line)
				}
				return
			}
			wantError(t, r, "1", jsonrpc.CodeInvalidParams, tt.want)
		})
	}
}
