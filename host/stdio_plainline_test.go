package host

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// plainLineSeeds are lines plainRequest reads, and lines it leaves to the
// general path.
var plainLineSeeds = []struct {
	line  string
	plain bool
}{
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"world"}}}`, true},
	{` { "params" : { "arguments" : { "a" : [1, {"b": "}"}], "c": "\"x\\\\" } , "name" : "t" } , "method" : "tools/call" , "id" : 0 , "jsonrpc" : "2.0" } `, true},
	{`{"jsonrpc":"2.0","id":123456789012345,"method":"tools/call","params":{"name":"t"}}`, true},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":[1]}}`, true},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":"s"}}`, true},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":12.5e3}}`, true},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":null}}`, false},
	{`{"jsonrpc":"2.0","id":1234567890123456,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":-1,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","ID":1,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\u0020"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{}}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","Name":"u"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","name":"u"}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"extra":1}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}`, false},
	{`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}]`, false},
	{`{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{"name":"t"}}`, false},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\x00", false},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{}}}\x00garbage{[", false},
	{`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"t\tu"}}`, false},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\x01\"}}", false},
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":}}}`, true},
}

// TestPlainRequest: a line plainRequest reads gives the request, name and
// arguments the general path (decodeChecked, then plainCall) gives.
func TestPlainRequest(t *testing.T) {
	for _, tt := range plainLineSeeds {
		t.Run(tt.line, func(t *testing.T) {
			p, ok := plainRequest([]byte(tt.line))
			if ok != tt.plain {
				t.Fatalf("read as plain: %v, want %v", ok, tt.plain)
			}
			// Arguments that are not JSON are left to handleLine's
			// check of the whole line (TestStdioPlainLineParseErrors).
			if ok && (p.args == nil || json.Valid(p.args)) {
				checkPlainAgrees(t, []byte(tt.line), p)
			}
		})
	}
}

// FuzzPlainRequest: whatever plainRequest reads, the general path reads
// alike.
func FuzzPlainRequest(f *testing.F) {
	for _, s := range plainLineSeeds {
		f.Add(s.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		b := bytes.TrimSpace([]byte(line))
		if len(b) == 0 || !utf8.Valid(b) {
			return // handleLine refuses these first
		}
		p, ok := plainRequest(b)
		if !ok || p.args != nil && !json.Valid(p.args) {
			return // json.Valid checks the whole line
		}
		// handleLine checks no more than the arguments of a line read
		// as plain: the rest must be valid JSON.
		if !json.Valid(b) {
			t.Fatalf("read as plain, arguments valid, but the line is not JSON: %q", b)
		}
		checkPlainAgrees(t, b, p)
	})
}

// checkPlainAgrees fails unless p is what the general path reads of line.
func checkPlainAgrees(t *testing.T, line []byte, p plainLine) {
	t.Helper()
	msg, err := decodeChecked(line)
	if err != nil {
		t.Fatalf("the general path refuses the line: %v", err)
	}
	req, isReq := msg.(*jsonrpc.Request)
	if !isReq || req.ID != p.req.ID || req.Method != p.req.Method || !bytes.Equal(req.Params, p.req.Params) {
		t.Fatalf("read as %#v\nthe general path reads %#v", p.req, msg)
	}
	name, args, ok := plainCall(req.Params)
	if !ok || name != p.name || !bytes.Equal(args, p.args) {
		t.Fatalf("read name %q, arguments %s; plainCall reads %q, %s (ok %v)", p.name, p.args, name, args, ok)
	}
	if p.args != nil && &p.args[0] == &line[bytes.Index(line, p.args)] {
		t.Fatal("the arguments share the line's buffer")
	}
	// admit takes a plain line's params as they are (stdio.go): nothing
	// in them is refused or dropped on the general path.
	if msg := paramsProblem(req.Method, req.Params); msg != "" {
		t.Fatalf("paramsProblem refuses the params of a plain line: %s", msg)
	}
	if _, changed := withoutNullArguments(req.Method, req.Params); changed {
		t.Fatal("withoutNullArguments changes the params of a plain line")
	}
}

// TestStdioPlainLineParseErrors: a tools/call that looks plain but is not
// JSON (its arguments, a control character in a string, a leading zero)
// is refused as a parse error with id null, as any line that is not JSON,
// and the session goes on; the same call written right is answered.
func TestStdioPlainLineParseErrors(t *testing.T) {
	reg := loadSource(t, stdioIDConfig)
	p := startStdio(t, reg)
	p.initialize()
	for _, tc := range []struct{ name, line string }{
		{"arguments cut short", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":}}}`},
		{"arguments with a bad string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":"wo` + "\x01" + `rld"}}}`},
		{"arguments with a bad number", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":01}}}`},
		{"tab in the name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hel` + "\t" + `lo","arguments":{"name":"world"}}}`},
		{"leading zero in the id", `{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{"name":"hello","arguments":{"name":"world"}}}`},
		{"NUL after the message", helloLine("1") + "\x00"},
		{"NUL and more after the message", helloLine("1") + "\x00garbage{["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.send(tc.line)
			wantError(t, p.next(), "null", jsonrpc.CodeParseError, "not valid JSON")
			p.send(helloLine("2"))
			wantHello(t, p.next(), "2")
		})
	}
}
