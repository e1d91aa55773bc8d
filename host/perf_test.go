package host

// Differential tests of the fast paths added for speed: each must give what
// the code it stands in for gives (the SDK's message decoding and encoding,
// the general argument decoder, the cty-based result conversion).

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	thcl "github.com/toolhost/toolhost/hcl"
)

var messageCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-7,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"","id":2}`,
	`{"jsonrpc":"2.0","id":77}`,
	`{"jsonrpc":"2.0","id":5,"result":{}}`,
	`{"jsonrpc":"2.0","id":5,"result":null}`,
	`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x","data":{"k":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":6,"error":null}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":2,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng","params":{"s":"\ud83d\ude00 \u0000 \"q\""}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,2,{"a":[]}]}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + deep(1001) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + deep(999) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":"` + deepString(1500) + `"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{}`,
	`[]`,
	`"str"`,
	`null`,
}

func deep(n int) string {
	return string(bytes.Repeat([]byte("["), n)) + string(bytes.Repeat([]byte("]"), n))
}

func deepString(n int) string { return string(bytes.Repeat([]byte("["), n)) }

// sameDecode checks decodeMessage against jsonrpc.DecodeMessage.
func sameDecode(t *testing.T, line []byte) {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(line)
	got, gotErr := decodeMessage(line)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: error %v, the SDK's %v", line, gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s: error %q, the SDK's %q", line, gotErr, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: decoded %#v, the SDK %#v", line, got, want)
	}
}

func TestDecodeMessageMatchesSDK(t *testing.T) {
	for _, s := range messageCorpus {
		sameDecode(t, []byte(s))
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range messageCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return // handleLine answers these before decoding
		}
		sameDecode(t, line)
	})
}

func TestEncodeLineMatchesSDK(t *testing.T) {
	results := []string{
		`{}`,
		`{"content":[{"type":"text","text":"hello <b>&amp;</b> \u2028"}]}`,
		`{"content":[],"structuredContent":{"a":[1,2,{"b":null}]},"isError":true}`,
		`[]`,
		`null`,
		`"x"`,
	}
	ids := []any{int64(1), int64(-3), int64(9007199254740993), int64(math.MinInt64), "abc", "<&>", nil}
	for _, res := range results {
		for _, raw := range ids {
			id, err := jsonrpc.MakeID(raw)
			if err != nil {
				id, _ = jsonrpc.MakeID(float64(raw.(int64)))
			}
			msgs := []jsonrpc.Message{
				&jsonrpc.Response{ID: id, Result: json.RawMessage(res)},
				&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32602, Message: "bad <params>"}},
				&jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(res)},
			}
			for _, m := range msgs {
				want, wantErr := jsonrpc.EncodeMessage(m)
				got, gotErr := encodeLine(m)
				if (wantErr == nil) != (gotErr == nil) {
					t.Fatalf("%#v: error %v, the SDK's %v", m, gotErr, wantErr)
				}
				if wantErr == nil && string(got) != string(want)+"\n" {
					t.Fatalf("%#v:\n got %s\nwant %s", m, got, want)
				}
			}
		}
	}
	// An id made from a large integer, as the SDK's decoder makes it.
	if m, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":123456789012,"method":"ping"}`)); err == nil {
		resp := &jsonrpc.Response{ID: m.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}
		want, _ := jsonrpc.EncodeMessage(resp)
		got, _ := encodeLine(resp)
		if string(got) != string(want)+"\n" {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

// generalArgs is the general decoder fastArgs stands in for.
func generalArgs(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.InputOffset() != int64(len(b)) {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

var argsCorpus = []string{
	`{}`,
	`{"name":"world"}`,
	` { "name" : "world" , "n" : -1.5e+3 , "ok" : true , "no" : false , "z" : null } `,
	`{"a":[],"b":{},"c":[1,"x",[2,[3]],{"d":{"e":null}}]}`,
	`{"a":1,"a":2}`,
	`{"s":"caf\u00e9"}`,
	`{"s":"line\nbreak"}`,
	`{"s":"\ud800"}`,
	"{\"s\":\"\xff\"}",
	"{\"s\":\"日本語\"}",
	`{"n":12345678901234567890123}`,
	`{"n":0.1,"m":1E-7,"k":-0}`,
	`{"k\"ey":1}`,
	`{"name":"world"} x`,
	`{"name":"world"}{}`,
	`[1,2]`,
	`"str"`,
	`{"a":`,
	`{"a":tru}`,
	"{\"s\":\"\x01\"}",
}

func sameArgs(t *testing.T, raw []byte) {
	t.Helper()
	raw = bytes.TrimSpace(raw) // as DecodeArgs does
	got, ok := fastArgs(raw)
	if !ok {
		return // left to the general decoder
	}
	want, wok := generalArgs(raw)
	if !wok {
		t.Fatalf("%q: fastArgs accepted what the general decoder refuses", raw)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: fastArgs %#v, general decoder %#v", raw, got, want)
	}
}

func TestFastArgsMatchesDecoder(t *testing.T) {
	accepted := 0
	for _, s := range argsCorpus {
		sameArgs(t, []byte(s))
		if _, ok := fastArgs([]byte(s)); ok {
			accepted++
		}
	}
	if accepted < 7 {
		t.Fatalf("fastArgs took only %d of the corpus", accepted)
	}
}

func FuzzFastArgs(f *testing.F) {
	for _, s := range argsCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameArgs(t, raw) })
}

// convertTypes are the declared types the conversion tests use.
var convertTypes = []string{
	`string`, `number`, `integer`, `bool`,
	`list(string)`, `list(integer)`, `list(number)`,
	`object({ title = string, hot = string, url = string, index = number })`,
	`list(object({ id = integer, name = string, score = optional(number) }))`,
	`object({ a = optional(string), b = list(object({ c = optional(bool) })) })`,
	`map(string)`, `set(string)`,
}

var convertCorpus = []string{
	`"x"`, `"a <b> & \"c\""`, `"caf\u00e9"`, `"café"`, "\"cafe\u0301\"", "\"\u2028\u2029\"", `""`, "\"a\xffb\"",
	`1`, `-0`, `0.5`, `1.0`, `1e2`, `-1.5E-3`, `12345678901234567890`, `123456789012345678`, `0.1`, `1e400`,
	`true`, `false`, `null`,
	`[]`, `["a","b"]`, `[1,2,3]`, `[1.5]`, `["1"]`, `[null]`, `[1,"a"]`,
	`{}`, `{"title":"t","hot":"1","url":"u","index":1,"extra":{"x":[1,{"y":"\n"}]}}`,
	`{"title":"t","hot":"1","url":"u"}`,
	`{"title":"t","hot":"1","url":"u","index":null}`,
	`{"title":"t","title":"u","hot":"1","url":"u","index":1}`,
	`{"title":"t","hot":"1","url":"u","index":1,"x":1,"x":2}`,
	`{"ti\u0074le":"t","hot":"1","url":"u","index":1}`,
	`[{"id":1,"name":"a"},{"id":2,"name":"b","score":2.5},{"id":3,"name":"c","score":null}]`,
	`[{"id":1.5,"name":"a"}]`,
	`[{"id":"1","name":"a"}]`,
	`{"b":[{"c":true},{},{"c":null}]}`,
	`{"a":"x","b":[]}`,
	`{"k":"v","j":"w"}`,
	` [ 1 , 2 ] `, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `tru`, `"\x"`, "\"\x01\"", `[1] [2]`,
}

// hugeExponent matches numbers whose decimal form has thousands of digits:
// both paths print them alike, in seconds (big.Float formatting).
var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

func sameConvert(t *testing.T, typ *thcl.Type, raw []byte) {
	t.Helper()
	if hugeExponent.Match(raw) {
		return
	}
	got, ok := convertFast(typ, raw)
	if !ok {
		return
	}
	want, err := convertGeneral(typ, raw, nil)
	if err != nil {
		t.Fatalf("%s as %s: the fast path gave %s, the general path an error: %v", raw, typ, got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s as %s:\n fast    %s\n general %s", raw, typ, got, want)
	}
}

func parseTypes(t testing.TB) []*thcl.Type {
	var out []*thcl.Type
	for _, src := range convertTypes {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "type.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		typ, diags := thcl.ParseType(expr)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		out = append(out, typ)
	}
	return out
}

func TestConvertFastMatchesGeneral(t *testing.T) {
	fast := 0
	for _, typ := range parseTypes(t) {
		for _, raw := range convertCorpus {
			sameConvert(t, typ, []byte(raw))
			if _, ok := convertFast(typ, []byte(raw)); ok {
				fast++
			}
		}
	}
	if fast < 20 {
		t.Fatalf("the fast path took only %d cases", fast)
	}
}

func FuzzConvertFast(f *testing.F) {
	for i := range convertTypes {
		for _, raw := range convertCorpus {
			f.Add(uint8(i), []byte(raw))
		}
	}
	types := parseTypes(f)
	f.Fuzz(func(t *testing.T, ti uint8, raw []byte) {
		sameConvert(t, types[int(ti)%len(types)], raw)
	})
}
