package hcl

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

func parseTypeSrc(t *testing.T, src string) (*Type, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "type.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", src, diags)
	}
	return ParseType(expr)
}

func TestParseType(t *testing.T) {
	tests := []struct {
		src    string
		kind   TypeKind
		str    string
		cty    cty.Type
		schema string
	}{
		{"string", KindString, "string", cty.String, `{"type":"string"}`},
		{"number", KindNumber, "number", cty.Number, `{"type":"number"}`},
		{"integer", KindInteger, "integer", cty.Number, `{"type":"integer"}`},
		{"bool", KindBool, "bool", cty.Bool, `{"type":"boolean"}`},
		{"any", KindAny, "any", cty.DynamicPseudoType, `true`},
		{"list(string)", KindList, "list(string)", cty.List(cty.String), `{"type":"array","items":{"type":"string"}}`},
		{"set(integer)", KindSet, "set(integer)", cty.Set(cty.Number), `{"type":"array","items":{"type":"integer"},"uniqueItems":true}`},
		{"map(bool)", KindMap, "map(bool)", cty.Map(cty.Bool), `{"type":"object","additionalProperties":{"type":"boolean"}}`},
		{"tuple([string, integer])", KindTuple, "tuple([string, integer])", cty.Tuple([]cty.Type{cty.String, cty.Number}),
			`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2,"maxItems":2}`},
		{"object({ b = string, a = optional(number) })", KindObject, "object({ b = string, a = optional(number) })",
			cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a": cty.Number, "b": cty.String}, []string{"a"}),
			`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"number"}},"required":["b"],"additionalProperties":false}`},
		{"list(object({ t = list(map(string)) }))", KindList, "list(object({ t = list(map(string)) }))",
			cty.List(cty.Object(map[string]cty.Type{"t": cty.List(cty.Map(cty.String))})),
			`{"type":"array","items":{"type":"object","properties":{"t":{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"}}}},"required":["t"],"additionalProperties":false}}`},
		{"object({})", KindObject, "object({  })", cty.EmptyObject, `{"type":"object","properties":{},"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			ty, diags := parseTypeSrc(t, tt.src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if ty.Kind != tt.kind {
				t.Errorf("kind = %v, want %v", ty.Kind, tt.kind)
			}
			if got := ty.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := ty.Cty(); !got.Equals(tt.cty) {
				t.Errorf("Cty() = %#v, want %#v", got, tt.cty)
			}
			if got := string(SchemaJSON(ty.Schema(true))); got != tt.schema && !(tt.schema == "true" && got == "{}") {
				t.Errorf("Schema(true) = %s, want %s", got, tt.schema)
			}
			// String renders the type as written: it parses back to itself.
			if tt.src != "object({})" {
				back, diags := parseTypeSrc(t, ty.String())
				if diags.HasErrors() || back.String() != ty.String() {
					t.Errorf("String() %q does not parse back: %s", ty.String(), diags)
				}
			}
		})
	}
}

func TestParseTypeErrors(t *testing.T) {
	tests := []struct{ src, detail string }{
		{"strng", `Did you mean "string"?`},
		{"bol", `Did you mean "bool"?`},
		{"float", `"float" is not a type here: write number.`},
		{"int", `"int" is not a type here: write integer.`},
		{"boolean", `"boolean" is not a type here: write bool.`},
		{"Integer", `Did you mean "integer"?`},
		{"array", `write list(T), such as list(string).`},
		{"list(int)", `write integer.`},
		{`"string"`, "write string, not \"string\""},
		{`"list(string)"`, "without quotes: write list(string)"},
		{`"strng"`, "not a type expression"},
		{"list", `"list" is not a type on its own: it needs the type of its elements, as in list(string).`},
		{"map", "as in map(string)"},
		{"set", "as in set(string)"},
		{"tuple", "as in tuple([string, number])"},
		{"lst(string)", "Did you mean list(...)?"},
		{"list()", "exactly one argument"},
		{"map(string, number)", "exactly one argument"},
		{"optional(string)", "only allowed for an attribute of an object type"},
		{"list(optional(string))", "only allowed for an attribute of an object type"},
		{"object(string)", "map of attribute types"},
		{"tuple(string)", "list of element types"},
		{`object({ "a b" = string })`, `"a b" is not one: for keys such as it, declare map(T); or, in a result field, give the key a name in the path`},
		{`object({ "x-y" = string })`, "Write x-y without quotes."},
		{`object({ (k) = string })`, "is a bare identifier (letters, digits, _ and -), as in { title = string }."},
		{"list(strng)", `Did you mean "string"?`},
		{"object({ a = string, a = number })", `"a" is declared twice`},
		{"1", "not a type expression"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			ty, diags := parseTypeSrc(t, tt.src)
			if !diags.HasErrors() {
				t.Fatalf("ParseType(%s) = %v, want an error", tt.src, ty)
			}
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without a range: %s", d.Summary)
				}
			}
			if tt.detail != "" && !strings.Contains(diags[0].Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", diags[0].Detail, tt.detail)
			}
		})
	}
}
