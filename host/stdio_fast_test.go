package host

import (
	"strconv"
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

// TestStdioDirectCalls2026: a 2026-07-28 client, which sends no initialize
// and the protocol's _meta in every call, takes the direct path once the
// SDK has taken one call with that very _meta to receive, and its answers
// are those the SDK gives the same call with the same _meta written in
// another order (which takes the SDK's path). A _meta of other keys never
// takes it, nor does one that differs from the one learnt. A tool that
// confirms asks an elicitation-capable client on both paths alike.
func TestStdioDirectCalls2026(t *testing.T) {
	const (
		learnt = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
		same   = `{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	)
	p := startStdio(t, loadSource(t, directConfig+mrtrConfig))
	call := func(params, meta string) (stdioReply, int64) {
		t.Helper()
		before := directTaken.Load()
		p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":` + meta + `,` + strings.TrimPrefix(params, "{") + `}`)
		r := p.next()
		return r, directTaken.Load() - before
	}
	// Learnt from the first call, which the SDK takes.
	if _, n := call(`{"name":"fixed"}`, learnt); n != 0 {
		t.Fatalf("the first call took the direct path")
	}
	for _, tt := range []struct{ name, params string }{
		{"template", `{"name":"hello","arguments":{"name":"world"}}`},
		{"number and default", `{"arguments":{"n":41},"name":"count"}`},
		{"argument of the wrong type", `{"name":"count","arguments":{"n":"many"}}`},
		{"no arguments", `{"name":"fixed"}`},
		{"template error", `{"name":"broken","arguments":{"s":"abc"}}`},
		{"unknown tool", `{"name":"helo","arguments":{}}`},
		{"escaped name and argument", `{"name":"hel\u006co","arguments":{"name":"w\u00f6rld \"q\""}}`},
		{"missing argument", `{"name":"count","arguments":{}}`},
		{"unknown argument", `{"name":"hello","arguments":{"name":"a","nme":"b"}}`},
		{"null arguments", `{"name":"fixed","arguments":null}`},
		{"arguments not an object", `{"name":"hello","arguments":[1]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			direct, n := call(tt.params, learnt)
			if n != 1 {
				t.Errorf("the direct path took %d calls, want 1", n)
			}
			viaSDK, n := call(tt.params, same)
			if n != 0 {
				t.Errorf("a call with another _meta took the direct path")
			}
			if direct.line != viaSDK.line {
				t.Errorf("answers differ:\ndirect: %s\nSDK:    %s", direct.line, viaSDK.line)
			}
			if direct.Error == nil && !strings.Contains(direct.line, `"io.modelcontextprotocol/serverInfo"`) {
				t.Errorf("the answer has no serverInfo in its _meta: %s", direct.line)
			}
		})
	}
	t.Run("confirm asks on both paths", func(t *testing.T) {
		for _, meta := range []string{learnt, same} {
			r, _ := call(`{"name":"deploy","arguments":{"env":"prod"}}`, meta)
			if !strings.Contains(r.line, `"resultType":"input_required"`) || !strings.Contains(r.line, `"requestState"`) {
				t.Errorf("with _meta %s: %s, want an input-required result", meta, r.line)
			}
		}
	})
	t.Run("other _meta keys", func(t *testing.T) {
		for _, meta := range []string{
			strings.TrimSuffix(learnt, "}") + `,"progressToken":1}`,
			strings.TrimSuffix(learnt, "}") + `,"io.modelcontextprotocol/logLevel":"debug"}`,
		} {
			if r, n := call(`{"name":"fixed"}`, meta); n != 0 || r.Error != nil {
				t.Errorf("with _meta %s: direct %d, answer %s", meta, n, r.line)
			}
		}
	})
}

// TestStdioNoLearningAfterInitialize: a client that initialized (an earlier
// protocol) and then sends calls with the 2026-07-28 _meta never has them
// taken by the direct path on the strength of that _meta.
func TestStdioNoLearningAfterInitialize(t *testing.T) {
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	p := startStdio(t, loadSource(t, directConfig))
	p.initialize()
	for i := range 3 {
		before := directTaken.Load()
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":{"name":"fixed","_meta":` + meta + `}}`)
		p.next()
		if n := directTaken.Load() - before; n != 0 {
			t.Fatalf("call %d took the direct path", i)
		}
	}
}
