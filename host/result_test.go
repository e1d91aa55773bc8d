package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// hotlistBody is the shape of https://api.vvhan.com/api/hotlist/baiduRD,
// with the attributes the result block does not ask for.
const hotlistBody = `{
  "success": true,
  "title": "百度热点",
  "subtitle": "指数",
  "update_time": "2024-05-01 12:00:00",
  "data": [
    {"index": 1, "title": "第一条", "desc": "d1", "pic": "p1", "hot": "492万", "url": "https://www.baidu.com/s?wd=1", "mobilUrl": "m1"},
    {"index": 2, "title": "Second \"quoted\"", "desc": "d2", "pic": "p2", "hot": "401万", "url": "https://www.baidu.com/s?wd=2", "mobilUrl": "m2"},
    {"index": 3, "title": "第三条", "desc": "d3", "pic": "p3", "hot": "388万", "url": "https://www.baidu.com/s?wd=3", "mobilUrl": "m3"},
    {"index": 4, "title": "第四条", "desc": "d4", "pic": "p4", "hot": "300万", "url": "https://www.baidu.com/s?wd=4", "mobilUrl": "m4"},
    {"index": 5, "title": "第五条", "desc": "d5", "pic": "p5", "hot": "250万", "url": "https://www.baidu.com/s?wd=5", "mobilUrl": "m5"}
  ]
}`

// wttrBody is the part of https://wttr.in/CITY?format=j1 the weather tool
// reads: numbers come as strings.
const wttrBody = `{
  "current_condition": [{"temp_C": "21", "temp_F": "70", "humidity": "64", "weatherDesc": [{"value": "Sunny"}]}],
  "nearest_area": [{"areaName": [{"value": "Beijing"}]}]
}`

// callEval decodes args for tool and returns the evaluation context of the
// call, as Registry.callTool builds it.
func callEval(t *testing.T, tool *thcl.Tool, args string) *hcl.EvalContext {
	t.Helper()
	params, err := DecodeArgs(tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("DecodeArgs(%s): %v", args, err)
	}
	return &hcl.EvalContext{
		Functions: thcl.Functions(nil),
		Variables: map[string]cty.Value{"param": params},
	}
}

// checkOutputSchema validates structured content against the tool's
// outputSchema, as a client does.
func checkOutputSchema(t *testing.T, tool *thcl.Tool, out json.RawMessage) {
	t.Helper()
	rs, err := tool.OutputSchema().Resolve(nil)
	if err != nil {
		t.Fatalf("resolve output schema: %v", err)
	}
	var instance any
	if err := json.Unmarshal(out, &instance); err != nil {
		t.Fatalf("output is not JSON: %s", out)
	}
	if err := rs.Validate(instance); err != nil {
		t.Errorf("output %s does not fit the outputSchema: %v", out, err)
	}
}

func TestMapResultHotlist(t *testing.T) {
	r := loadRegistry(t, "result.hcl")
	tool := mustTool(t, r, "hotlist")
	tests := []struct {
		args   string
		titles []string
	}{
		{`{"limit":3}`, []string{"第一条", `Second "quoted"`, "第三条"}},
		{`{"limit":1}`, []string{"第一条"}},
		{`{}`, []string{"第一条", `Second "quoted"`, "第三条", "第四条", "第五条"}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			out, err := MapResult(tool.Result, []byte(hotlistBody), callEval(t, tool, tt.args))
			if err != nil {
				t.Fatalf("MapResult: %v", err)
			}
			checkOutputSchema(t, tool, out)
			var got struct {
				UpdatedAt string           `json:"updated_at"`
				Topics    []map[string]any `json:"topics"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.UpdatedAt != "2024-05-01 12:00:00" {
				t.Errorf("updated_at = %q", got.UpdatedAt)
			}
			if len(got.Topics) != len(tt.titles) {
				t.Fatalf("%d topics, want %d: %s", len(got.Topics), len(tt.titles), out)
			}
			for i, topic := range got.Topics {
				if topic["title"] != tt.titles[i] {
					t.Errorf("topic %d title = %v, want %q", i, topic["title"], tt.titles[i])
				}
				if topic["index"] != float64(i+1) {
					t.Errorf("topic %d index = %v, want %d", i, topic["index"], i+1)
				}
				if len(topic) != 4 {
					t.Errorf("topic %d has attributes %v, want title, hot, url, index", i, topic)
				}
			}
		})
	}
}

func TestMapResultWeather(t *testing.T) {
	r := loadRegistry(t, "result.hcl")
	tool := mustTool(t, r, "weather")
	tests := []struct {
		args, body, want string
	}{
		{`{}`, wttrBody, `{"city":"Beijing","temperature":21,"humidity":64}`},
		{`{"unit":"fahrenheit"}`, wttrBody, `{"city":"Beijing","temperature":70,"humidity":64}`},
		// The optional city is left out when the area is missing.
		{`{}`, `{"current_condition":[{"temp_C":"-3.5","humidity":"90"}]}`, `{"temperature":-3.5,"humidity":90}`},
	}
	for _, tt := range tests {
		t.Run(tt.args+" "+tt.want, func(t *testing.T) {
			out, err := MapResult(tool.Result, []byte(tt.body), callEval(t, tool, tt.args))
			if err != nil {
				t.Fatalf("MapResult: %v", err)
			}
			// Byte for byte: the fields in the order they are declared.
			if string(out) != tt.want {
				t.Errorf("got %s, want %s", out, tt.want)
			}
			checkOutputSchema(t, tool, out)
		})
	}
}

func TestMapResult(t *testing.T) {
	r := loadRegistry(t, "result.hcl")
	tool := mustTool(t, r, "fields")
	eval := callEval(t, tool, `{}`)
	tests := []struct {
		name string
		body string
		want string
		// errs are texts the error must hold, when the body does not fit.
		errs []string
	}{
		{name: "only the required field", body: `{"name":"a"}`, want: `{"name":"a"}`},
		{name: "extra top-level attributes ignored", body: `{"name":"a","other":[1,2]}`, want: `{"name":"a"}`},
		{name: "number in a string becomes a number", body: `{"name":"a","score":"12.5","count":"7"}`, want: `{"name":"a","score":12.5,"count":7}`},
		{name: "bool in a string becomes a bool", body: `{"name":"a","ok":"true"}`, want: `{"name":"a","ok":true}`},
		{name: "number for a string becomes a string", body: `{"name":42}`, want: `{"name":"42"}`},
		{name: "extra object attributes dropped", body: `{"name":"a","item":{"title":"t","url":"u","extra":{"deep":1}}}`, want: `{"name":"a","item":{"title":"t","url":"u"}}`},
		{name: "optional object attribute missing", body: `{"name":"a","item":{"title":"t"}}`, want: `{"name":"a","item":{"title":"t"}}`},
		{name: "list of integers", body: `{"name":"a","ids":[1,"2",3]}`, want: `{"name":"a","ids":[1,2,3]}`},
		{name: "map of numbers", body: `{"name":"a","counts":{"x":1,"y":"2.5"}}`, want: `{"name":"a","counts":{"x":1,"y":2.5}}`},
		{name: "any passes through", body: `{"name":"a","raw":{"k":[1,null,"x"]}}`, want: `{"name":"a","raw":{"k":[1,null,"x"]}}`},
		{name: "unicode kept", body: `{"name":"北京 \"quoted\""}`, want: `{"name":"北京 \"quoted\""}`},
		{name: "top-level array body", body: `[1,2]`, errs: []string{`"name"`, "matched nothing"}},
		{name: "empty body", body: ``, errs: []string{"the output is empty", "JSON body"}},
		{name: "blank body", body: " \r\n", errs: []string{"the output is empty"}},
		{name: "not JSON", body: `<html>`, errs: []string{"not JSON", `it begins: "<html>"`}},

		{name: "optional null is left out", body: `{"name":"a","count":null}`, want: `{"name":"a"}`},
		{name: "required null", body: `{"name":null}`, errs: []string{`"name"`}},
		{name: "null list element", body: `{"name":"a","ids":[1,null]}`, errs: []string{`result field "ids"`, "[1] is null", "an element of a list, set, map or tuple cannot be null", "declare the element type any"}},
		{name: "null map value", body: `{"name":"a","counts":{"x":null}}`, errs: []string{`result field "counts"`, "cannot be null", "element type any"}},
		{name: "null object attribute", body: `{"name":"a","item":{"title":null}}`, errs: []string{`result field "item"`, "title is null", "declare it optional(...) in an object type"}},
		{name: "string field given an object", body: `{"name":{"first":"a"}}`, errs: []string{`result field "name"`, "expected string"}},
		{name: "string field given an array", body: `{"name":["a"]}`, errs: []string{`result field "name"`, "expected string"}},
		{name: "integer field given a fraction", body: `{"name":"a","count":1.5}`, errs: []string{`result field "count"`, "integer", "1.5"}},
		{name: "integer list element a fraction", body: `{"name":"a","ids":[1,2.5]}`, errs: []string{`result field "ids"`, "[1]", "2.5"}},
		{name: "number field given a word", body: `{"name":"a","score":"high"}`, errs: []string{`result field "score"`, `expected number, got "high":`}},
		{name: "object missing a required attribute", body: `{"name":"a","item":{"url":"u"}}`, errs: []string{`result field "item"`, "title"}},
		{name: "required field missing", body: `{"title":"a"}`, errs: []string{`result field "name"`, `path "name"`, "matched nothing"}},
		{name: "HTML body", body: "<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>", errs: []string{"not JSON", "<!DOCTYPE html>"}},
		{name: "truncated JSON", body: `{"name":"a"`, errs: []string{"not JSON"}},
		{name: "plain text", body: `hello`, errs: []string{"not JSON"}},
		// A byte order mark before the JSON (Windows PowerShell, .NET, and
		// every UTF-16 response once decoded) does not hide the JSON.
		{name: "byte order mark before JSON", body: "\ufeff{\"name\":\"a\"}", want: `{"name":"a"}`},
		{name: "byte order mark alone", body: "\ufeff", errs: []string{"the output is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := MapResult(tool.Result, []byte(tt.body), eval)
			if tt.errs != nil {
				if err == nil {
					t.Fatalf("MapResult(%s) = %s, want an error", tt.body, out)
				}
				for _, e := range tt.errs {
					if !strings.Contains(err.Error(), e) {
						t.Errorf("error does not contain %q: %v", e, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("MapResult(%s): %v", tt.body, err)
			}
			if !jsonEqual(t, out, []byte(tt.want)) {
				t.Errorf("MapResult(%s)\n got: %s\nwant: %s", tt.body, out, tt.want)
			}
			checkOutputSchema(t, tool, out)
		})
	}
}

func TestConvertJSON(t *testing.T) {
	typ := func(src string) *thcl.Type {
		t.Helper()
		expr, diags := hclsyntax.ParseExpression([]byte(src), "type.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("parse %s: %s", src, diags)
		}
		ty, diags := thcl.ParseType(expr)
		if diags.HasErrors() {
			t.Fatalf("ParseType(%s): %s", src, diags)
		}
		return ty
	}
	tests := []struct {
		typ, in, want, err string
	}{
		{"string", `"a"`, `"a"`, ""},
		{"string", `12`, `"12"`, ""},
		{"string", `true`, `"true"`, ""},
		{"number", `"1e3"`, `1000`, ""},
		{"number", `"0x10"`, ``, "expected number"},
		{"integer", `"42"`, `42`, ""},
		{"integer", `42.0`, `42`, ""},
		{"integer", `4.2`, ``, "expected an integer"},
		{"bool", `"false"`, `false`, ""},
		{"bool", `"yes"`, ``, "expected bool"},
		{"list(string)", `["a",1]`, `["a","1"]`, ""},
		{"list(integer)", `[1,2.5]`, ``, "[1]"},
		{"set(string)", `["b","a","b"]`, `["a","b"]`, ""},
		{"map(integer)", `{"a":"1"}`, `{"a":1}`, ""},
		{"map(integer)", `{"a":1.5}`, ``, "at a"},
		{"tuple([string, integer])", `["a","2"]`, `["a",2]`, ""},
		{"tuple([string, integer])", `["a"]`, ``, "expected tuple"},
		{"object({ a = string })", `{"a":"x","b":"y"}`, `{"a":"x"}`, ""},
		{"object({ a = object({ n = integer }) })", `{"a":{"n":0.5}}`, ``, "at a.n"},
		{"list(object({ title = string }))", `[{"title":"x"},{}]`, ``, "title"},
		{"any", `{"a":[1,"x"]}`, `{"a":[1,"x"]}`, ""},
		{"string", `{}`, ``, "expected string"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			out, err := ConvertJSON(typ(tt.typ), []byte(tt.in))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("ConvertJSON = %s, want an error", out)
				}
				if !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error does not contain %q: %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ConvertJSON: %v", err)
			}
			if !jsonEqual(t, out, []byte(tt.want)) {
				t.Errorf("got %s, want %s", out, tt.want)
			}
		})
	}
}

// TestCallToolResult runs a template tool whose output is JSON through the
// registry: the result block shapes it into structured content.
func TestCallToolResult(t *testing.T) {
	dir := t.TempDir()
	src := `
tool "topics" {
  param "limit" {
    type    = integer
    default = 2
  }
  template {
    text = jsonencode({ data = [for i in range(1, 6) : { index = i, title = "t${i}", hot = "${i}0", url = "u${i}", extra = true }] })
  }
  result {
    field "topics" {
      path = "data.#(index<=${param.limit})#"
      type = list(object({ title = string, hot = number, index = integer }))
    }
  }
}

tool "not_json" {
  template {
    text = "<html>oops</html>"
  }
  result {
    field "x" {
      path = "x"
    }
  }
}
`
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if len(diags) > 0 {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	defer r.Close()

	res, err := r.CallTool(context.Background(), "topics", json.RawMessage(`{"limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	want := `{"topics":[{"title":"t1","hot":10,"index":1},{"title":"t2","hot":20,"index":2},{"title":"t3","hot":30,"index":3}]}`
	if !jsonEqual(t, structured, []byte(want)) {
		t.Errorf("structured content = %s, want %s", structured, want)
	}

	res, err = r.CallTool(context.Background(), "not_json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.StructuredContent != nil {
		t.Fatalf("want an error result without structured content, got %+v", res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "not JSON") {
		t.Errorf("error = %q, want it to say the output is not JSON", text)
	}

	res, err = r.CallTool(context.Background(), "topics", json.RawMessage(`{"limit":"3"}`))
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, `"limit"`) {
		t.Errorf("want an argument error naming limit, got %+v %q", res, text)
	}
}

// TestMapResultAnyValues: a value of type any is the upstream's as gjson
// found it: it is compacted, and one that is not JSON (gjson's @fromstr of
// a string that is not JSON) is an error, not a result the SDK cannot send.
func TestMapResultAnyValues(t *testing.T) {
	reg := loadHTTPRegistry(t, `
tool "r" {
  template {
    text = "{}"
  }
  result {
    field "o" {
      path = "o"
      type = any
    }
    field "b" {
      path     = "b|@fromstr"
      type     = any
      optional = true
    }
  }
}
`)
	tool := mustTool(t, reg, "r")
	eval := callEval(t, tool, `{}`)
	out, err := MapResult(tool.Result, []byte("{\"o\": {\n  \"x\": [1, 2]\n}, \"b\": \"{\\\"y\\\": 1}\"}"), eval)
	if err != nil || string(out) != `{"o":{"x":[1,2]},"b":{"y":1}}` {
		t.Fatalf("got %s, %v; want the values compacted", out, err)
	}
	for _, body := range []string{`{"o": 1, "b": "{\"y\":1"}`, `{"o": 1, "b": "12abc"}`} {
		out, err := MapResult(tool.Result, []byte(body), eval)
		if err == nil || !strings.Contains(err.Error(), `result field "b": the path "b|@fromstr" gave a value that is not JSON`) {
			t.Errorf("%s: got %s, %v; want an error naming the field", body, out, err)
		}
	}
}

// TestCallToolResultAfterBOM: output that starts with a byte order mark,
// as Windows servers send JSON and as a UTF-16 response decodes, feeds
// both the fields and the content items' paths.
func TestCallToolResultAfterBOM(t *testing.T) {
	r := loadSource(t, `
tool "bom" {
  template {
    text = "\ufeff{\"city\":\"Paris\",\"temp\":\"21\"}"
  }
  result {
    field "temp" {
      path = "temp"
      type = number
    }
    text {
      path = "city"
    }
  }
}
`)
	res, err := r.CallTool(context.Background(), "bom", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("call failed: %s", res.Content[0].(*mcp.TextContent).Text)
	}
	if got := string(res.StructuredContent.(json.RawMessage)); got != `{"temp":21}` {
		t.Errorf("structuredContent = %s, want {\"temp\":21}", got)
	}
	if got := res.Content[1].(*mcp.TextContent).Text; got != "Paris" {
		t.Errorf("text item = %q, want Paris", got)
	}
}

// TestUnescapeHTML: the HTML escapes of encoding/json become the
// characters again, in keys and values; an escaped backslash followed by
// "u0026" stays as it is; the result decodes to the same value.
func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"url":"https://x.test/?a=1\u0026b=2"}`, `{"url":"https://x.test/?a=1&b=2"}`},
		{`{"\u003ctag\u003e":"\u003cb\u003e"}`, `{"<tag>":"<b>"}`},
		{`["a\\u0026b"]`, `["a\\u0026b"]`},
		{`["a\\\u0026b"]`, `["a\\&b"]`},
		{`["\u00e9\u0026"]`, `["\u00e9&"]`},
		{`{"n":1,"s":"plain"}`, `{"n":1,"s":"plain"}`},
	} {
		got := string(UnescapeHTML([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("UnescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
		var a, b any
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got), &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("UnescapeHTML(%s) decodes to %v, not %v (%v)", tc.in, b, a, err)
		}
	}
}

// TestCallToolTextItemKeepsAmpersand: the text item of a structured result,
// which models read, writes a URL's "&" as itself; structuredContent is the
// same value.
func TestCallToolTextItemKeepsAmpersand(t *testing.T) {
	r := loadSource(t, `
tool "link" {
  template {
    text = "{\"url\":\"https://x.test/?a=1&b=<2>\"}"
  }
  result {
    field "url" {
      path = "url"
      type = string
    }
  }
}
`)
	res, err := r.CallTool(context.Background(), "link", json.RawMessage(`{}`))
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `{"url":"https://x.test/?a=1&b=<2>"}` {
		t.Errorf("text item = %s", got)
	}
	var v struct{ URL string }
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &v); err != nil || v.URL != "https://x.test/?a=1&b=<2>" {
		t.Errorf("structuredContent = %s (%v)", res.StructuredContent, err)
	}
}

// TestConvertJSONLargeNumbers: a whole number is an integer whatever its
// size, as a parameter is (JSON Schema's integer has no range), and is
// written exactly; a number beyond float64 is an error, as it is in a
// parameter. The output is compared as text, as a client reads it.
func TestConvertJSONLargeNumbers(t *testing.T) {
	for _, tc := range []struct{ typ, in, want, err string }{
		{"integer", `1234567890123456789`, `1234567890123456789`, ""},
		{"integer", `123456789012345678901234567890`, `123456789012345678901234567890`, ""},
		{"integer", `"123456789012345678901234567890"`, `123456789012345678901234567890`, ""},
		{"list(integer)", `[1, 123456789012345678901234567890]`, `[1,123456789012345678901234567890]`, ""},
		{"integer", `1.5e30`, `1500000000000000000000000000000`, ""},
		{"integer", `123456789012345678901234567890.5`, ``, "expected an integer"},
		{"number", `1234567890123456789`, `1234567890123456789`, ""},
		{"number", `1e100`, `1` + strings.Repeat("0", 100), ""},
		{"number", `0.1000000000000000055511151231257827`, `0.1000000000000000055511151231257827`, ""},
		// Wider than 512 bits: the shortest form, not the rounding's digits.
		{"number", `1e300`, `1e+300`, ""},
		{"integer", `-1e300`, `-1e+300`, ""},
		// Beyond float64, which clients read numbers as (and which
		// parameters hold to): the field says so, and how to keep it.
		{"number", `1e400`, ``, "beyond what a 64-bit number holds"},
		{"number", `"-1e400"`, ``, "declare it string"},
		{"number", `1e-400`, ``, "the number, 1e-400, is beyond"},
		{"list(number)", `[1, 1e400]`, ``, "the number at [1], 1e+400, is beyond"},
		{"object({ n = integer })", `{"n": 1e400}`, ``, "at n"},
		{"any", `1e400`, `1e400`, ""},
	} {
		t.Run(tc.typ+" "+tc.in, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte(tc.typ), "type.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			ty, diags := thcl.ParseType(expr)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			out, err := ConvertJSON(ty, []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ConvertJSON = %s, %v; want an error containing %q", out, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ConvertJSON: %v", err)
			}
			if string(out) != tc.want {
				t.Errorf("got %s, want %s", out, tc.want)
			}
		})
	}
}

// TestMapResultPathArguments checks that an argument interpolated into a
// result path is taken literally: it cannot rewrite the path to read what
// the result block leaves out.
func TestMapResultPathArguments(t *testing.T) {
	r := loadRegistry(t, "result.hcl")
	const body = `{
  "users": {
    "alice": {"email": "a@example.com", "password_hash": "SECRET"},
    "a.b": {"email": "dotted@example.com"},
    "bob": {"email": "b@example.com"}
  },
  "list": [
    {"n": 1, "name": "x\"y", "email": "quote@example.com"},
    {"n": 2, "name": "c\\d", "email": "backslash@example.com", "secret": "SECRET"},
    {"n": 3, "name": "p.q", "email": "pq@example.com"}
  ]
}`
	tests := []struct {
		name string
		tool string
		args string
		want string // "" when the path must match nothing
	}{
		{name: "plain key", tool: "lookup", args: `{"user":"alice"}`, want: `{"email":"a@example.com"}`},
		{name: "key with a dot", tool: "lookup", args: `{"user":"a.b"}`, want: `{"email":"dotted@example.com"}`},
		{name: "multipath injection", tool: "lookup", args: `{"user":"{\"email\":alice.password_hash}"}`},
		{name: "pipe to a multipath", tool: "lookup", args: `{"user":"alice|{\"email\":password_hash}"}`},
		{name: "pipe injection", tool: "lookup", args: `{"user":"alice|@this"}`},
		{name: "wildcard", tool: "lookup", args: `{"user":"*"}`},
		{name: "query value with a quote", tool: "query", args: `{"name":"x\"y"}`, want: `{"email":"quote@example.com"}`},
		{name: "query value with a backslash", tool: "query", args: `{"name":"c\\d"}`, want: `{"email":"backslash@example.com"}`},
		{name: "query value with a dot", tool: "query", args: `{"name":"p.q"}`, want: `{"email":"pq@example.com"}`},
		{name: "conditional chooses the author's text", tool: "chosen", args: `{"nested":true}`, want: `{"email":"dotted@example.com"}`},
		{name: "number argument is path syntax", tool: "limited", args: `{"limit":2}`, want: `{"titles":["x\"y","c\\d"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, r, tt.tool)
			out, err := MapResult(tool.Result, []byte(body), callEval(t, tool, tt.args))
			if strings.Contains(string(out), "SECRET") || (err != nil && strings.Contains(err.Error(), "SECRET")) {
				t.Fatalf("MapResult(%s) read a field the result leaves out: %s, %v", tt.args, out, err)
			}
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "matched nothing") {
					t.Fatalf("MapResult(%s) = %s, %v; want the path to match nothing", tt.args, out, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("MapResult(%s): %v", tt.args, err)
			}
			if !jsonEqual(t, out, []byte(tt.want)) {
				t.Errorf("MapResult(%s)\n got: %s\nwant: %s", tt.args, out, tt.want)
			}
		})
	}
}

// TestMapResultJSONLines: output of a JSON value on each line (as many
// commands print) is read with gjson's paths for JSON Lines, which start
// with ".."; a path of another kind, which would read the first line
// only, is an error that says what to write; a line that is not JSON
// makes the output not JSON.
func TestMapResultJSONLines(t *testing.T) {
	r := loadSource(t, `
tool "lines" {
  description = "Reads JSON Lines."
  param "path" {
    type    = string
    default = "..#.name"
  }
  template { text = "x" }
  result {
    field "value" {
      path = param.path
      type = any
    }
  }
}
`)
	tool := mustTool(t, r, "lines")
	const body = "{\"name\":\"a\",\"n\":1}\r\n\n{\"name\":\"b\",\"n\":2}\n{\"name\":\"c\",\"n\":3}\n"
	tests := []struct {
		name, body, path, want, err string
	}{
		{"every line's name", body, "..#.name", `{"value":["a","b","c"]}`, ""},
		{"the number of lines", body, "..#", `{"value":3}`, ""},
		{"the second line", body, "..1", `{"value":{"name":"b","n":2}}`, ""},
		{"a query over the lines", body, `..#(n>1)#.name`, `{"value":["b","c"]}`, ""},
		{"a path for one value", body, "name", "", `the output is JSON Lines (a JSON value on each line), and the path "name" reads only its first line; write a path for JSON Lines, which starts with ..`},
		{"a line that is not JSON", "{\"name\":\"a\"}\nnot json\n", "..#.name", "", "the output is not JSON"},
		{"one value, read with ..", `{"name":"a"}`, "..#.name", `{"value":["a"]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": tt.path})
			out, err := MapResult(tool.Result, []byte(tt.body), callEval(t, tool, string(args)))
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("MapResult = %s, %v; want the error %q", out, err, tt.err)
			case tt.err == "" && err != nil:
				t.Fatalf("MapResult: %v", err)
			case tt.err == "" && string(out) != tt.want:
				t.Errorf("MapResult = %s, want %s", out, tt.want)
			}
		})
	}
}

// TestContentPathJSONLines: a text item's path reads JSON Lines output as
// a result field's does, and a path that would read the first line only
// is an error that says what to write.
func TestContentPathJSONLines(t *testing.T) {
	r := loadSource(t, `
tool "lines" {
  description = "Names from JSON Lines."
  param "path" {
    type = string
  }
  exec {
    `+helperCommand(`"print"`, `"{\"name\":\"a\"}\n{\"name\":\"b\"}\n"`)+`
  }
  result {
    text { path = param.path }
  }
}
`)
	for _, tt := range []struct {
		path, want string
		isError    bool
	}{
		{"..#.name", `["a","b"]`, false},
		{"..1.name", "b", false},
		{"name", `the output is JSON Lines (a JSON value on each line), and the path "name" reads only its first line`, true},
	} {
		t.Run(tt.path, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": tt.path})
			res, err := r.CallTool(context.Background(), "lines", args)
			if err != nil {
				t.Fatal(err)
			}
			if got := testconfig.ResultText(res); res.IsError != tt.isError || !strings.Contains(got, tt.want) {
				t.Errorf("result: isError %v, %q; want isError %v and %q", res.IsError, got, tt.isError, tt.want)
			}
		})
	}
}
