package host

import (
	"strings"
	"testing"
)

// directConfig has tools whose answers differ in every way a call's can:
// text, an isError result for arguments that do not fit, a template that
// fails, a constant text, another MIME type.
const directConfig = `
tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello ${param.name} <&>" }
}
tool "count" {
  description = "counts"
  param "n" { type = number }
  param "tag" {
    type    = string
    default = "x"
  }
  template {
    text      = "${param.tag}: ${param.n + 1}"
    mime_type = "text/markdown"
  }
}
tool "fixed" {
  description = "a constant"
  template { text = "always" }
}
tool "broken" {
  description = "fails as it renders"
  param "s" { type = string }
  template { text = "${tonumber(param.s)}" }
}
`

// TestStdioDirectCallsAsSDK: a plain tools/call, which the stdio connection
// runs itself (stdio_fast.go), is answered byte for byte as the SDK answers
// the same call with an empty _meta, which makes it take the SDK's path;
// params the direct path does not take are answered by the SDK either way.
func TestStdioDirectCallsAsSDK(t *testing.T) {
	tests := []struct {
		name   string
		params string // a JSON object after "params":, without _meta
		direct bool   // the plain form takes the direct path
	}{
		{"template", `{"name":"hello","arguments":{"name":"world"}}`, true},
		{"escaped name and argument", `{"name":"hel\u006co","arguments":{"name":"w\u00f6rld \"q\""}}`, true},
		{"number and default", `{"arguments":{"n":41},"name":"count"}`, true},
		{"argument of the wrong type", `{"name":"count","arguments":{"n":"many"}}`, true},
		{"missing argument", `{"name":"count","arguments":{}}`, true},
		{"unknown argument", `{"name":"hello","arguments":{"name":"a","nme":"b"}}`, true},
		{"no arguments", `{"name":"fixed"}`, true},
		{"null arguments", `{"name":"fixed","arguments":null}`, true},
		{"template error", `{"name":"broken","arguments":{"s":"abc"}}`, true},
		{"unknown tool", `{"name":"helo","arguments":{}}`, true},
		{"arguments not an object", `{"name":"hello","arguments":[1]}`, true},
		{"name a number", `{"name":5,"arguments":{}}`, false},
		{"name in another case", `{"Name":"hello","arguments":{"name":"x"}}`, false},
		{"request state", `{"name":"hello","arguments":{"name":"x"},"requestState":"s"}`, false},
	}
	p := startStdio(t, loadSource(t, directConfig))
	p.initialize()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := directTaken.Load()
			p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + tt.params + `}`)
			plain := p.next()
			taken := directTaken.Load() - before
			if want := map[bool]int64{true: 1, false: 0}[tt.direct]; taken != want {
				t.Errorf("the direct path took %d calls, want %d", taken, want)
			}
			withMeta := `{"_meta":{},` + strings.TrimPrefix(tt.params, "{")
			before = directTaken.Load()
			p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + withMeta + `}`)
			viaSDK := p.next()
			if n := directTaken.Load() - before; n != 0 {
				t.Errorf("a call with _meta took the direct path")
			}
			if plain.line != viaSDK.line {
				t.Errorf("answers differ:\ndirect: %s\nSDK:    %s", plain.line, viaSDK.line)
			}
		})
	}
}
