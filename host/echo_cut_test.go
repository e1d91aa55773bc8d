package host

import (
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

const echoCutConfig = `
tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
prompt "pick" {
  arg "color" {
    enum     = ["red", "blue"]
    required = false
  }
  message "user" { text = "Pick ${coalesce(arg.color, "red")}." }
}
`

// TestEchoedNamesShortened: a name or value a client chose that an error
// quotes (a prompt or tool name, a prompt argument's name or value, a
// parameter's name) is cut as URIs are, to maxQuotedURI bytes and "...":
// completion/complete with a prompt name of megabytes was once answered
// with a line as long.
func TestEchoedNamesShortened(t *testing.T) {
	p := startStdio(t, loadSource(t, echoCutConfig))
	p.initialize()
	// Under the test reader's line limit, so that a reply quoting it whole
	// is read, and refused for its length.
	huge := strings.Repeat("n", 300<<10)
	cut := `"` + strings.Repeat("n", maxQuotedURI) + `..."`
	tests := []struct {
		name, line string
		code       int64  // 0: a tool result with isError
		want       string // in the message, besides cut
	}{
		{"completion of a prompt", `{"jsonrpc":"2.0","id":0,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"` + huge + `"},"argument":{"name":"a","value":""}}}`,
			jsonrpc.CodeInvalidParams, "there is no prompt " + cut},
		{"prompts/get", `{"jsonrpc":"2.0","id":0,"method":"prompts/get","params":{"name":"` + huge + `"}}`,
			jsonrpc.CodeInvalidParams, "unknown prompt " + cut},
		{"tools/call", `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"` + huge + `","arguments":{}}}`,
			jsonrpc.CodeInvalidParams, "unknown tool " + cut},
		{"prompt argument name", `{"jsonrpc":"2.0","id":0,"method":"prompts/get","params":{"name":"pick","arguments":{"` + huge + `":"x"}}}`,
			jsonrpc.CodeInvalidParams, `prompt "pick" has no argument ` + cut},
		{"prompt argument value", `{"jsonrpc":"2.0","id":0,"method":"prompts/get","params":{"name":"pick","arguments":{"color":"` + huge + `"}}}`,
			jsonrpc.CodeInvalidParams, `argument "color" is ` + cut},
		{"tool parameter name", `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"hello","arguments":{"name":"a","` + huge + `":1}}}`,
			0, `invalid argument ` + cut},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := strconv.Itoa(i + 1)
			p.send(strings.Replace(tt.line, `"id":0`, `"id":`+id, 1))
			r := p.next()
			if len(r.line) > 2000 {
				t.Fatalf("the reply is %d bytes: %.300s", len(r.line), r.line)
			}
			if tt.code != 0 {
				wantError(t, r, id, tt.code, tt.want)
				return
			}
			if r.Error != nil || !strings.Contains(r.line, `"isError":true`) || !strings.Contains(r.line, strings.ReplaceAll(tt.want, `"`, `\"`)) {
				t.Fatalf("got %s\nwant a tool error containing %q", r.line, tt.want)
			}
		})
	}
}

// TestResourceNotFoundCode: a subscription to a URI that names nothing (a
// file a template cannot serve) is refused with -32602, as a read of it
// (or of a file not made yet) is: the code the MCP spec gives a
// resource not found since 2026-07-28 (SEP-2164; -32002 before), which
// the SDK sends, and which docs/protocol.md states.
func TestResourceNotFoundCode(t *testing.T) {
	p := startStdio(t, loadSource(t, subscribeSource(t)))
	p.initialize()
	for i, line := range []string{
		subscribeLine(1, "docs://other"),
		subscribeLine(2, "tree://../outside.md"),
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docs://other"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"notes:///missing.md"}}`,
	} {
		p.send(line)
		r := p.next()
		if r.Error == nil || r.Error.Code != -32602 || string(r.ID) != strconv.Itoa(i+1) {
			t.Errorf("got %s, want the error -32602", r.line)
		}
	}
}
