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
			if ok {
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
		if len(b) == 0 || !utf8.Valid(b) || !json.Valid(b) {
			return // handleLine refuses these first
		}
		if p, ok := plainRequest(b); ok {
			checkPlainAgrees(t, b, p)
		}
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
}
