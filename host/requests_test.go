package host

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sjson "github.com/segmentio/encoding/json"
)

// TestRequestChecks: requests the SDK would answer without a fix (a log
// level that is not one, a tool or prompt that is not declared) get
// -32602 with one, over a real stdio session, from clients of the
// protocols before 2026-07-28 and of that one; good ones pass through.
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
		{"tool without a name", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`,
			`params.name is missing or empty: give the name of the tool; the tools are: hello, linger`},
		{"unknown prompt", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"sumarize"}}`,
			`unknown prompt "sumarize" (did you mean "summarize"?); the prompts are: summarize`},
		{"no prompts", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}`,
			`unknown prompt "x"; this server declares no prompts`},
		{"declared prompt", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize"}}`, ""},
		{"prompt argument not a string", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize","arguments":{"count":5}}}`,
			`invalid params of prompts/get: "arguments.count" must be a string, not a number; MCP sends every prompt argument as a string`},
		{"prompt arguments an array", withPrompt, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize","arguments":["a"]}}`,
			`invalid params of prompts/get: "arguments" must be an object of strings, not an array`},
		{"resource uri a number", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}`,
			`invalid params of resources/read: "uri" must be a string, not a number`},
		{"log level a boolean", stdioIDConfig, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":true}}`,
			`invalid params of logging/setLevel: "level" must be a string, not a boolean`},
	}
	// A client of the 2026-07-28 protocol sends no initialize, and the
	// protocol's _meta in every request.
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},`
	for _, tt := range tests {
		for _, newProtocol := range []bool{false, true} {
			if newProtocol && strings.Contains(tt.line, "logging/setLevel") {
				continue // not in the 2026-07-28 protocol: -32601
			}
			name := tt.name
			if newProtocol {
				name += "/2026-07-28"
			}
			t.Run(name, func(t *testing.T) {
				p := startStdio(t, loadSource(t, tt.config))
				line := tt.line
				if newProtocol {
					line = strings.Replace(line, `"params":{`, `"params":{`+meta, 1)
				} else {
					p.initialize()
				}
				p.send(line)
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
}

// TestParamsProblem: params with a value of the wrong JSON type get a
// message naming the parameter and both types; params that decode, and
// mistakes that are not of type, get none (the SDK answers those).
func TestParamsProblem(t *testing.T) {
	tests := []struct {
		method, params string
		want           string // "" for no problem
	}{
		{"prompts/get", `{"name":"p","arguments":{"count":"5"}}`, ""},
		{"prompts/get", `{"name":"p","arguments":{"count":5}}`, `invalid params of prompts/get: "arguments.count" must be a string, not a number; MCP sends every prompt argument as a string`},
		{"prompts/get", `{"name":"p","arguments":{"flag":true}}`, `"arguments.flag" must be a string, not a boolean`},
		{"prompts/get", `{"name":"p","arguments":{"o":{"a":[1]}}}`, `"arguments.o" must be a string, not an object`},
		{"prompts/get", `{"name":"p","arguments":{"s":"x\"y"}}`, ""},
		{"prompts/get", `{"name":7}`, `invalid params of prompts/get: "name" must be a string, not a number`},
		{"prompts/get", `"p"`, `invalid params of prompts/get: params must be an object, not a string`},
		{"prompts/get", `{"name":"p","_meta":[1]}`, `"_meta" must be an object, not an array`},
		// The SDK matches field names by case: "Arguments" is not one.
		{"prompts/get", `{"name":"p","Arguments":5}`, ""},
		{"resources/read", `{"uri":"file:///x"}`, ""},
		{"resources/read", `{"uri":["a"]}`, `"uri" must be a string, not an array`},
		{"resources/subscribe", `{"uri":null}`, ""},
		{"completion/complete", `{"ref":"x","argument":{"name":"a","value":"b"}}`, `"ref" must be an object, not a string`},
		{"tools/list", `{"cursor":7}`, `invalid params of tools/list: "cursor" must be a string, not a number`},
		{"initialize", `{"protocolVersion":20250618}`, `invalid params of initialize: "protocolVersion" must be a string, not a number`},
		// tools/call: the top level is checked; its arguments are left to
		// toolhost's argument validation, which names the one at fault.
		{"tools/call", `{"name":"t","arguments":{"a":[1,{"b":2}]},"_meta":{"progressToken":1}}`, ""},
		{"tools/call", `{"name":"t","arguments":[1]}`, ""},
		{"tools/call", `{"name":5,"arguments":{}}`, `invalid params of tools/call: "name" must be a string, not a number`},
		{"tools/call", `{"name":"t","_meta":5}`, `invalid params of tools/call: "_meta" must be an object, not a number`},
		{"tools/call", `{"name":"t","_meta":null,"name2":5}`, ""},
		{"tools/call", `[1]`, `invalid params of tools/call: params must be an object, not an array`},
		{"tools/call", `"t"`, `invalid params of tools/call: params must be an object, not a string`},
		{"tools/call", `null`, ""},
		{"no/such/method", `{"x":1}`, ""},
		{"prompts/get", ``, ""},
		// Not JSON of the right shape at all: the SDK's words.
		{"prompts/get", `{"name":"p",}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			got := paramsProblem(tt.method, []byte(tt.params))
			if tt.want == "" {
				if got != "" {
					t.Fatalf("got %q, want no problem", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestStdioParamsBeforeInitialize: before initialize, a request with
// wrong-typed params gets the SDK's refusal, which says to initialize
// first, not the params error.
func TestStdioParamsBeforeInitialize(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":7}}`)
	wantError(t, p.next(), "1", jsonrpc.CodeInvalidRequest, "initialize")
}

// TestStdioParamsErrorFreesID: a request refused for its params does not
// keep its id: the next request may use it.
func TestStdioParamsErrorFreesID(t *testing.T) {
	p := startStdio(t, loadSource(t, stdioIDConfig))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":7}}`)
	wantError(t, p.next(), "1", jsonrpc.CodeInvalidParams, `"cursor" must be a string`)
	p.send(helloLine("1"))
	wantHello(t, p.next(), "1")
}

// TestBeforeWork: the BeforeWork function runs after initialize is
// answered, not before (the answer does not wait for it), and it has
// returned before any other request is handled.
func TestBeforeWork(t *testing.T) {
	var mu sync.Mutex
	var calls int
	var done bool
	release := make(chan struct{})
	once := sync.Once{}
	before := func() {
		mu.Lock()
		calls++
		mu.Unlock()
		once.Do(func() {
			<-release // the work takes until the test says
			mu.Lock()
			done = true
			mu.Unlock()
		})
	}
	p := startStdio(t, loadSource(t, stdioIDConfig), BeforeWork(before))
	p.send(initializeLine(0))
	if r := p.next(); string(r.ID) != "0" || r.Error != nil {
		t.Fatalf("initialize: %s", r.line)
	}
	// The answer came while the work is held: it did not wait for it. The
	// work was started for the answer.
	waitFor := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := calls
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(waitFor) {
			t.Fatal("BeforeWork was not called after initialize")
		}
		time.Sleep(time.Millisecond)
	}
	p.send(helloLine("1"))
	select {
	case r := <-p.lines:
		t.Fatalf("a call was answered before BeforeWork returned: %s", r.line)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	r := p.next()
	wantHello(t, r, "1")
	mu.Lock()
	defer mu.Unlock()
	if !done {
		t.Fatal("the call was answered before BeforeWork returned")
	}
}

// FuzzParamsCheck feeds POST bodies to peekMessages and the params of each
// message to paramsProblem: neither may panic, and a problem is only
// reported for params that the SDK's decoding (segmentio, case-sensitive)
// refuses too. A body rewritten without null arguments must still be the
// same messages, with the same methods, and have no null argument left.
func FuzzParamsCheck(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"count":5}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":7}}]`,
		`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":1,"capabilities":{"roots":true}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","Params":{"uri":5},"params":{"uri":"\u0000"}}`,
		`{"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":1}}}`,
		`[[[[[[[[[[`,
		`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"count":null,"x":"y"}}}`,
		`[{"method":"completion/complete","params":{"context":{"arguments":{"a":null}}}},{"method":"ping"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, ok := peekMessages(body)
		if !ok {
			return
		}
		if out, changed := withoutNullArgumentsInBody(body, msgs, batch); changed {
			if len(out) > len(body) {
				t.Fatalf("%s rewritten to %s: longer than it was", body, out)
			}
			got, gotBatch, ok := peekMessages(out)
			if !ok || gotBatch != batch || len(got) != len(msgs) {
				t.Fatalf("%s rewritten to %s: no longer the same messages", body, out)
			}
			for i, m := range got {
				if m.Method != msgs[i].Method {
					t.Fatalf("%s rewritten to %s: method %q became %q", body, out, msgs[i].Method, m.Method)
				}
				if p, again := withoutNullArguments(m.Method, m.Params); again {
					t.Fatalf("%s rewritten to %s: params %s still have null arguments (%s)", body, out, m.Params, p)
				}
			}
		}
		for _, m := range msgs {
			msg := paramsProblem(m.Method, m.Params)
			if msg == "" {
				continue
			}
			newParams := paramTypes[m.Method]
			if _, err := sjson.Parse(m.Params, newParams(), sjson.DontMatchCaseInsensitiveStructFields); err == nil {
				t.Fatalf("%s %s: reported %q, but the params decode", m.Method, m.Params, msg)
			}
		}
	})
}

// TestWithoutNullArguments: null prompt arguments (and completion context
// arguments) are left out, as if the client had not sent them; everything
// else comes back as it was.
func TestWithoutNullArguments(t *testing.T) {
	tests := []struct {
		name, method, params string
		want                 string // "" when unchanged
	}{
		{"null argument", "prompts/get", `{"name":"p","arguments":{"count":null,"topic":"x"}}`, `{"arguments":{"topic":"x"},"name":"p"}`},
		{"all null", "prompts/get", `{"name":"p","arguments":{"count": null }}`, `{"arguments":{},"name":"p"}`},
		{"no HTML escaping", "prompts/get", `{"name":"p","arguments":{"count":null,"t":"<a & b>"}}`, `{"arguments":{"t":"<a & b>"},"name":"p"}`},
		{"empty string kept", "prompts/get", `{"name":"p","arguments":{"count":""}}`, ""},
		{"the word null in a value", "prompts/get", `{"name":"p","arguments":{"count":"null"}}`, ""},
		{"null arguments", "prompts/get", `{"name":"p","arguments":null}`, ""},
		{"null _meta", "prompts/get", `{"name":"p","_meta":null,"arguments":{"a":"b"}}`, ""},
		{"case-sensitive key", "prompts/get", `{"name":"p","Arguments":{"count":null}}`, ""},
		{"not an object", "prompts/get", `{"name":"p","arguments":[null]}`, ""},
		{"invalid JSON", "prompts/get", `{"name":"p","arguments":{"count":null,}}`, ""},
		{"completion context", "completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""},"context":{"arguments":{"b":null,"c":"d"}}}`,
			`{"argument":{"name":"a","value":""},"context":{"arguments":{"c":"d"}},"ref":{"type":"ref/prompt","name":"p"}}`},
		{"other method", "tools/call", `{"name":"t","arguments":{"x":null}}`, ""},
		{"no params", "prompts/get", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := withoutNullArguments(tt.method, []byte(tt.params))
			if tt.want == "" {
				if changed || string(got) != tt.params {
					t.Fatalf("got %s (changed %v), want the params unchanged", got, changed)
				}
				return
			}
			if !changed || string(got) != tt.want {
				t.Fatalf("got %s (changed %v), want %s", got, changed, tt.want)
			}
		})
	}
	t.Run("body", func(t *testing.T) {
		one := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"count":null}}}`
		rewrite := func(body string) ([]byte, bool) {
			msgs, batch, ok := peekMessages([]byte(body))
			if !ok {
				t.Fatalf("peekMessages(%s) failed", body)
			}
			return withoutNullArgumentsInBody([]byte(body), msgs, batch)
		}
		got, changed := rewrite(one)
		if want := `{"id":1,"jsonrpc":"2.0","method":"prompts/get","params":{"arguments":{},"name":"p"}}`; !changed || string(got) != want {
			t.Fatalf("one message: got %s (changed %v), want %s", got, changed, want)
		}
		batch := `[{"jsonrpc":"2.0","id":1,"method":"ping","params":null},` + one + `]`
		got, changed = rewrite(batch)
		if want := `[{"jsonrpc":"2.0","id":1,"method":"ping","params":null},{"id":1,"jsonrpc":"2.0","method":"prompts/get","params":{"arguments":{},"name":"p"}}]`; !changed || string(got) != want {
			t.Fatalf("batch: got %s (changed %v), want %s", got, changed, want)
		}
		for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, `{"jsonrpc":"2.0","id":null}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"x":null}}}`} {
			if got, changed := rewrite(body); changed || string(got) != body {
				t.Errorf("%s: got %s (changed %v), want it unchanged", body, got, changed)
			}
		}
	})
}

// nullArgConfig has a prompt whose optional argument has a default.
const nullArgConfig = `
tool "say_hello" {
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
prompt "summarize" {
  arg "count" { required = false }
  message "user" { text = "limit ${coalesce(arg.count, "10")}" }
}
`

// TestStdioNullPromptArgument: over stdio, a prompt argument sent as null
// gets its default, as if left out; one sent as "" stays "".
func TestStdioNullPromptArgument(t *testing.T) {
	p := startStdio(t, loadSource(t, nullArgConfig))
	p.initialize()
	for i, tc := range []struct{ args, want string }{
		{`{"count":null}`, "limit 10"},
		{`{}`, "limit 10"},
		{`{"count":"5"}`, "limit 5"},
		{`{"count":""}`, "limit "},
	} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"summarize","arguments":%s}}`, i+1, tc.args))
		r := p.next()
		if r.Error != nil || !strings.Contains(r.line, `"text":"`+tc.want+`"`) {
			t.Errorf("arguments %s: got %s, want the text %q", tc.args, r.line, tc.want)
		}
	}
}
