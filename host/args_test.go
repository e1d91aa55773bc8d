package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	thcl "github.com/toolhost/toolhost/hcl"
)

// loadRegistry compiles a testdata config and fails the test on any error.
// Warnings are allowed: args.hcl has map and tuple params on purpose, which
// get a warning about clients that reject their schemas.
func loadRegistry(t *testing.T, name string) *Registry {
	t.Helper()
	r, diags := Load([]string{filepath.Join("testdata", name)}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatalf("Load(%s):\n%s", name, thcl.FormatDiagnostics(diags))
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func mustTool(t *testing.T, r *Registry, name string) *thcl.Tool {
	t.Helper()
	tool, ok := r.Tool(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}

// jsonEqual reports whether two JSON texts are the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("invalid JSON %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestDecodeArgs(t *testing.T) {
	r := loadRegistry(t, "args.hcl")
	const weatherDefaults = `"unit":"celsius","days":3,"ratio":null,"code":null,"verbose":null`
	const batchDefaults = `"labels":null,"point":null,"ids":null,"tags":null,"filter":{"field":"title","value":null}`
	tests := []struct {
		name string
		tool string
		args string
		// want is the "param" object as JSON, when the call is valid.
		want string
		// param is the parameter the error names; errs are texts the
		// message must hold.
		param string
		errs  []string
	}{
		// Several problems: all are reported, one a line; the first is
		// the one errors.As finds (unknown names first, then the params
		// in their declared order).
		{name: "every problem at once", tool: "weather", args: `{"cty":"Rio","unit":"kelvin","days":"3","code":"abc"}`, param: "cty",
			errs: []string{"5 problems with the arguments:\n- ", `invalid argument "cty": this tool has no such parameter (did you mean "city"?)`,
				`invalid argument "city": required`, `invalid argument "unit": `, `invalid argument "days": `, `invalid argument "code": `, ";\n- "}},
		{name: "two unknown names", tool: "weather", args: `{"city":"a","dayz":1,"unti":"celsius"}`, param: "dayz",
			errs: []string{"2 problems", `"dayz": this tool has no such parameter (did you mean "days"?)`, `"unti": this tool has no such parameter (did you mean "unit"?)`}},
		// Valid calls: defaults and nulls fill in what is absent.
		{name: "defaults applied", tool: "weather", args: `{"city":"北京"}`, want: `{"city":"北京",` + weatherDefaults + `}`},
		{name: "all given", tool: "weather", args: `{"city":"Rio","unit":"fahrenheit","days":7,"ratio":0.5,"code":"ABC","verbose":true}`,
			want: `{"city":"Rio","unit":"fahrenheit","days":7,"ratio":0.5,"code":"ABC","verbose":true}`},
		{name: "null for optional is null", tool: "weather", args: `{"city":"a","ratio":null}`, want: `{"city":"a",` + weatherDefaults + `}`},
		{name: "null for defaulted is the default", tool: "weather", args: `{"city":"a","days":null,"unit":null}`, want: `{"city":"a",` + weatherDefaults + `}`},
		{name: "whole number written with a fraction", tool: "weather", args: `{"city":"a","days":2.0}`, want: `{"city":"a","unit":"celsius","days":2,"ratio":null,"code":null,"verbose":null}`},
		{name: "integer in exponent form", tool: "weather", args: `{"city":"a","days":5e0}`, want: `{"city":"a","unit":"celsius","days":5,"ratio":null,"code":null,"verbose":null}`},
		{name: "bounds inclusive", tool: "weather", args: `{"city":"abc","days":1,"ratio":1}`, want: `{"city":"abc","unit":"celsius","days":1,"ratio":1,"code":null,"verbose":null}`},
		{name: "length counts code points", tool: "weather", args: `{"city":"北京市"}`, want: `{"city":"北京市",` + weatherDefaults + `}`},
		{name: "no params, empty object", tool: "nothing", args: `{}`, want: `{}`},
		{name: "no params, empty arguments", tool: "nothing", args: ``, want: `{}`},
		{name: "no params, null arguments", tool: "nothing", args: `null`, want: `{}`},
		{name: "no params, blank arguments", tool: "nothing", args: " \n\t", want: `{}`},
		{name: "optional only, null arguments", tool: "anything", args: `null`, want: `{"v":null}`},
		{name: "any takes an object", tool: "anything", args: `{"v":{"a":[1,"x",true]}}`, want: `{"v":{"a":[1,"x",true]}}`},
		{name: "nested objects", tool: "batch", args: `{"items":[{"title":"a"},{"title":"b","tags":["x"],"meta":{"rank":2}}]}`,
			want: `{"items":[{"title":"a","tags":null,"meta":null},{"title":"b","tags":["x"],"meta":{"rank":2}}],` + batchDefaults + `}`},
		{name: "empty list", tool: "batch", args: `{"items":[]}`, want: `{"items":[],` + batchDefaults + `}`},
		{name: "map tuple set", tool: "batch", args: `{"items":[],"labels":{"k":"v"},"point":[1.5,"p"],"ids":[3,1]}`,
			want: `{"items":[],"labels":{"k":"v"},"point":[1.5,"p"],"ids":[1,3],"tags":null,"filter":{"field":"title","value":null}}`},
		{name: "object param given", tool: "batch", args: `{"items":[],"filter":{"field":"f","value":"v"}}`,
			want: `{"items":[],"labels":null,"point":null,"ids":null,"tags":null,"filter":{"field":"f","value":"v"}}`},

		// Missing and unknown parameters.
		{name: "missing required", tool: "weather", args: `{}`, param: "city", errs: []string{"required", "string"}},
		{name: "null for required", tool: "weather", args: `{"city":null}`, param: "city", errs: []string{"required"}},
		{name: "empty arguments, required param", tool: "weather", args: ``, param: "city", errs: []string{"required"}},
		{name: "null arguments, required param", tool: "weather", args: `null`, param: "city", errs: []string{"required"}},
		{name: "unknown property lists the parameters", tool: "weather", args: `{"city":"a","cty":"b"}`, param: "cty",
			errs: []string{"no such parameter", "city, unit, days, ratio, code, verbose"}},
		{name: "unknown property on a tool without params", tool: "nothing", args: `{"x":1}`, param: "x", errs: []string{"takes no arguments"}},

		// Wrong types.
		{name: "string for integer", tool: "weather", args: `{"city":"a","days":"5"}`, param: "days", errs: []string{"must be an integer", `the string "5"`}},
		{name: "fraction for integer", tool: "weather", args: `{"city":"a","days":1.5}`, param: "days", errs: []string{"whole number", "1.5"}},
		// Numbers no float64 holds are refused before anything formats
		// them (1e1000000 took seconds to render into a template).
		{name: "huge exponent", tool: "weather", args: `{"city":"a","ratio":1e1000000}`, param: "ratio", errs: []string{"out of range", "1e1000000"}},
		{name: "tiny exponent", tool: "weather", args: `{"city":"a","ratio":1e-1000000}`, param: "ratio", errs: []string{"out of range"}},
		{name: "huge integer", tool: "weather", args: `{"city":"a","days":1e400}`, param: "days", errs: []string{"out of range"}},
		{name: "largest float64 is fine", tool: "anything", args: `{"v":1.7e308}`, want: `{"v":1.7e+308}`},
		{name: "any keeps a huge number as text", tool: "anything", args: `{"v":1e1000000}`, want: `{"v":"1e1000000"}`},
		{name: "object for string", tool: "weather", args: `{"city":{"name":"x"}}`, param: "city", errs: []string{"must be a string", "an object"}},
		{name: "number for string", tool: "weather", args: `{"city":5}`, param: "city", errs: []string{"must be a string", "the number 5"}},
		{name: "string for bool", tool: "weather", args: `{"city":"a","verbose":"true"}`, param: "verbose", errs: []string{"must be a boolean"}},
		{name: "array for number", tool: "weather", args: `{"city":"a","ratio":[1]}`, param: "ratio", errs: []string{"must be a number", "an array"}},
		{name: "string for list", tool: "batch", args: `{"items":"a"}`, param: "items", errs: []string{"must be an array"}},
		{name: "tuple too short", tool: "batch", args: `{"items":[],"point":[1]}`, param: "point", errs: []string{"exactly 2 elements"}},
		{name: "tuple element type", tool: "batch", args: `{"items":[],"point":["x","y"]}`, param: "point", errs: []string{"point[0]", "must be a number"}},
		{name: "map element type", tool: "batch", args: `{"items":[],"labels":{"k":1}}`, param: "labels", errs: []string{"labels.k", "must be a string"}},

		// Constraints.
		{name: "enum violation", tool: "weather", args: `{"city":"a","unit":"kelvin"}`, param: "unit", errs: []string{`"kelvin"`, `["celsius", "fahrenheit"]`}},
		{name: "below minimum", tool: "weather", args: `{"city":"a","days":0}`, param: "days", errs: []string{"minimum 1"}},
		{name: "above maximum", tool: "weather", args: `{"city":"a","days":8}`, param: "days", errs: []string{"maximum 7"}},
		{name: "number above maximum", tool: "weather", args: `{"city":"a","ratio":1.01}`, param: "ratio", errs: []string{"maximum 1"}},
		{name: "too short", tool: "weather", args: `{"city":""}`, param: "city", errs: []string{"min_length 1"}},
		{name: "too long in code points", tool: "weather", args: `{"city":"北京市区"}`, param: "city", errs: []string{"max_length 3"}},
		{name: "pattern", tool: "weather", args: `{"city":"a","code":"abc"}`, param: "code", errs: []string{"pattern", "^[A-Z]{3}$"}},
		{name: "too many items", tool: "batch", args: `{"items":[],"tags":["a","b","c"]}`, param: "tags", errs: []string{"max_items 2"}},
		{name: "too few items", tool: "batch", args: `{"items":[],"tags":[]}`, param: "tags", errs: []string{"min_items 1"}},

		// Nested objects: the message has the path from the parameter.
		{name: "nested missing attribute", tool: "batch", args: `{"items":[{"title":"a"},{"tags":[]}]}`, param: "items", errs: []string{"items[1].title", "required"}},
		{name: "nested extra attribute", tool: "batch", args: `{"items":[{"title":"a"},{"title":"b","colour":"red"}]}`, param: "items", errs: []string{"items[1]", `"colour"`, "title, tags, meta"}},
		{name: "nested wrong type", tool: "batch", args: `{"items":[{"title":"a","meta":{"rank":"1"}}]}`, param: "items", errs: []string{"items[0].meta.rank", "must be an integer"}},
		{name: "object param extra attribute", tool: "batch", args: `{"items":[],"filter":{"field":"f","op":"eq"}}`, param: "filter", errs: []string{`"op"`}},

		// Arguments that are not an object.
		{name: "array arguments", tool: "weather", args: `[1]`, errs: []string{"must be a JSON object", "an array"}},
		{name: "string arguments", tool: "weather", args: `"city"`, errs: []string{"must be a JSON object", "string"}},
		{name: "number arguments", tool: "nothing", args: `5`, errs: []string{"must be a JSON object", "number"}},
		{name: "invalid JSON", tool: "weather", args: `{"city":`, errs: []string{"not valid JSON"}},
		{name: "trailing data after the object", tool: "weather", args: `{"city":"a"} {"days":9}`, errs: []string{"not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, r, tt.tool)
			got, err := DecodeArgs(tool, json.RawMessage(tt.args))
			if tt.want != "" {
				if err != nil {
					t.Fatalf("DecodeArgs(%s): %v", tt.args, err)
				}
				b, merr := ctyjson.Marshal(got, got.Type())
				if merr != nil {
					t.Fatal(merr)
				}
				if !jsonEqual(t, b, []byte(tt.want)) {
					t.Errorf("DecodeArgs(%s)\n got: %s\nwant: %s", tt.args, b, tt.want)
				}
				return
			}
			if err == nil {
				b, _ := ctyjson.Marshal(got, got.Type())
				t.Fatalf("DecodeArgs(%s) = %s, want an error", tt.args, b)
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is %T, want *ArgumentError", err, err)
			}
			msg := err.Error()
			if ae.Param != tt.param {
				t.Errorf("error names parameter %q, want %q: %s", ae.Param, tt.param, msg)
			}
			if tt.param != "" && !strings.Contains(msg, `"`+tt.param+`"`) {
				t.Errorf("message does not name %q: %s", tt.param, msg)
			}
			for _, e := range tt.errs {
				if !strings.Contains(msg, e) {
					t.Errorf("message does not contain %q: %s", e, msg)
				}
			}
		})
	}
}

// TestDecodeArgsValueCap checks that a call's arguments hold at most
// MaxArgValues JSON values in all, counted on the text before anything is
// decoded (a long array of small numbers takes many times its text's size
// as cty values), and
// that the refusal names the parameter in which the count passed the cap.
func TestDecodeArgsValueCap(t *testing.T) {
	r := loadRegistry(t, "args.hcl")
	rawSchema := loadRegistry(t, "inputschema.hcl")
	zeros := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }
	// The object and the array count one each.
	atCap := MaxArgValues - 2
	tests := []struct {
		name  string
		reg   *Registry
		tool  string
		args  string
		param string // "" when the call is within the cap
	}{
		{name: "any list at the cap", tool: "anything", args: `{"v":` + zeros(atCap) + `}`},
		{name: "any list one over", tool: "anything", args: `{"v":` + zeros(atCap+1) + `}`, param: "v"},
		{name: "any list far over", tool: "anything", args: `{"v":` + zeros(4*MaxArgValues) + `}`, param: "v"},
		{name: "any object members", tool: "anything", args: `{"v":{` + strings.Repeat(`"k":1,`, MaxArgValues) + `"z":1}}`, param: "v"},
		{name: "any nested empty arrays", tool: "anything", args: `{"v":[` + strings.Repeat(`[],`, MaxArgValues) + `[]]}`, param: "v"},
		{name: "typed list of strings", tool: "batch", args: `{"items":[],"tags":[` + strings.Repeat(`"a",`, MaxArgValues) + `"a"]}`, param: "tags"},
		{name: "all parameters together", tool: "batch", args: `{"ids":` + zeros(MaxArgValues/2) + `,"tags":` + zeros(MaxArgValues/2) + `}`, param: "tags"},
		{name: "escaped key is named", tool: "batch", args: `{"items":[],"t\u0061gs":` + zeros(MaxArgValues) + `}`, param: "tags"},
		{name: "key with an escaped quote", tool: "anything", args: `{"a\"b":1,"v":` + zeros(MaxArgValues) + `}`, param: "v"},
		{name: "commas in strings do not count", tool: "anything", args: `{"v":"` + strings.Repeat(`,[{\"`, MaxArgValues) + `"}`},
		{name: "unknown parameter", tool: "weather", args: `{"city":"a","` + strings.Repeat("x", 5000) + `":` + zeros(MaxArgValues) + `}`, param: strings.Repeat("x", maxQuotedURI) + "..."},
		{name: "input_schema tool", reg: rawSchema, tool: "greet", args: `{"name":"a","extra":` + zeros(MaxArgValues) + `}`, param: "extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tt.reg
			if reg == nil {
				reg = r
			}
			_, err := DecodeArgs(mustTool(t, reg, tt.tool), json.RawMessage(tt.args))
			if tt.param == "" {
				var ae *ArgumentError
				if errors.As(err, &ae) && strings.Contains(ae.Msg, "JSON values") {
					t.Fatalf("refused within the cap: %v", err)
				}
				return
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("DecodeArgs = %v, want an *ArgumentError", err)
			}
			if ae.Param != tt.param {
				t.Errorf("error names parameter %q, want %q", ae.Param, tt.param)
			}
			if want := fmt.Sprintf("more than %d JSON values", MaxArgValues); !strings.Contains(ae.Msg, want) {
				t.Errorf("message does not say %q: %v", want, err)
			}
			if len(err.Error()) > 600 {
				t.Errorf("message is %d bytes long", len(err.Error()))
			}
		})
	}
}

// TestDecodeArgsAgreesWithSchema checks that DecodeArgs accepts exactly the
// arguments the advertised inputSchema accepts, so that a client validating
// against the schema and the host agree. (DecodeArgs also takes null for an
// optional parameter, which the schema does not; those cases are left out.)
func TestDecodeArgsAgreesWithSchema(t *testing.T) {
	r := loadRegistry(t, "args.hcl")
	tests := []struct {
		tool, args string
	}{
		{"weather", `{"city":"北京"}`},
		{"weather", `{}`},
		{"weather", `{"city":"a","extra":1}`},
		{"weather", `{"city":"a","days":2.0}`},
		{"weather", `{"city":"a","days":1.5}`},
		{"weather", `{"city":"a","days":"3"}`},
		{"weather", `{"city":"a","days":0}`},
		{"weather", `{"city":"a","days":7}`},
		{"weather", `{"city":"北京市区"}`},
		{"weather", `{"city":"北京市"}`},
		{"weather", `{"city":""}`},
		{"weather", `{"city":"a","unit":"kelvin"}`},
		{"weather", `{"city":"a","code":"ABCD"}`},
		{"weather", `{"city":"a","code":"xABC"}`},
		{"weather", `{"city":"a","code":"ABC"}`},
		{"weather", `{"city":"a","ratio":-0.1}`},
		{"batch", `{"items":[]}`},
		{"batch", `{"items":[{"title":"a","extra":1}]}`},
		{"batch", `{"items":[{"title":"a","meta":{"rank":1.5}}]}`},
		{"batch", `{"items":[{"title":"a","meta":{}}]}`},
		{"batch", `{"items":[],"tags":["a","b","c"]}`},
		{"batch", `{"items":[],"tags":[]}`},
		{"batch", `{"items":[],"tags":["a"]}`},
		{"batch", `{"items":[],"ids":[1,1]}`},
		{"batch", `{"items":[],"ids":[1,2]}`},
		{"batch", `{"items":[],"point":[1,"a"]}`},
		{"batch", `{"items":[],"point":[1]}`},
		{"batch", `{"items":[],"point":[1,"a",3]}`},
		{"batch", `{"items":[],"labels":{"a":"b"}}`},
		{"batch", `{"items":[],"labels":{"a":2}}`},
		{"batch", `{"items":[],"filter":{"value":"x"}}`},
		{"nothing", `{}`},
		{"nothing", `{"a":1}`},
		{"anything", `{"v":[1,{"a":null}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			tool := mustTool(t, r, tt.tool)
			rs, err := tool.InputSchema().Resolve(nil)
			if err != nil {
				t.Fatalf("resolve input schema: %v", err)
			}
			var instance any
			if err := json.Unmarshal([]byte(tt.args), &instance); err != nil {
				t.Fatal(err)
			}
			schemaErr := rs.Validate(instance)
			_, argsErr := DecodeArgs(tool, json.RawMessage(tt.args))
			if (schemaErr == nil) != (argsErr == nil) {
				t.Errorf("schema and DecodeArgs disagree on %s\n  schema: %v\n    args: %v", tt.args, schemaErr, argsErr)
			}
		})
	}
}

// TestInputSchemaOfArgsFixture pins what a client is told about the fixture's
// parameters, next to what DecodeArgs enforces.
func TestInputSchemaOfArgsFixture(t *testing.T) {
	r := loadRegistry(t, "args.hcl")
	tool := mustTool(t, r, "weather")
	if got := strings.Join(tool.InputSchema().Required, ","); got != "city" {
		t.Errorf("required = %s, want city", got)
	}
	var s *jsonschema.Schema = tool.InputSchema().Properties["city"]
	if s == nil || s.MaxLength == nil || *s.MaxLength != 3 {
		t.Errorf("city schema = %+v, want maxLength 3", s)
	}
}

// TestDecodeArgsSensitive: an argument of a sensitive parameter that does
// not fit is refused with a message that names the parameter and the rule,
// never the value the client sent (docs/reference.md: sensitive values stay out of
// error messages).
func TestDecodeArgsSensitive(t *testing.T) {
	r := loadSource(t, `
tool "login" {
  description = "logs in"
  param "token" {
    type      = string
    sensitive = true
    pattern   = "^[a-f0-9]{8}$"
  }
  param "pin" {
    type      = string
    sensitive = true
    enum      = ["1111", "2222"]
    default   = "1111"
  }
  param "codes" {
    type      = list(number)
    sensitive = true
    default   = []
  }
  template { text = "ok" }
}
`)
	tool := mustTool(t, r, "login")
	for _, tc := range []struct{ args, secret, want string }{
		{`{"token":"MY-REAL-API-KEY-123"}`, "MY-REAL-API-KEY", `invalid argument "token": (sensitive value) does not match the pattern`},
		{`{"token":"abcdef12","pin":"9876"}`, "9876", `invalid argument "pin": (sensitive value) is not one of the allowed values`},
		{`{"token":987654321}`, "987654321", `invalid argument "token": (sensitive value) does not fit the parameter's type, string`},
		{`{"token":"abcdef12","codes":[1,"s3cr3t"]}`, "s3cr3t", `invalid argument "codes" at codes[1]: (sensitive value) does not fit`},
	} {
		_, err := DecodeArgs(tool, json.RawMessage(tc.args))
		if err == nil || strings.Contains(err.Error(), tc.secret) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeArgs(%s) = %v; want %q, without %q", tc.args, err, tc.want, tc.secret)
		}
	}
}
