package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputSchemaCalls calls a tool whose arguments are declared by a
// hand-written 2020-12 schema with $defs and $ref: arguments are checked
// against it (refs followed) before the template runs, and absent
// properties are null.
func TestInputSchemaCalls(t *testing.T) {
	r := loadRegistry(t, "inputschema.hcl")
	tests := []struct {
		name, args string
		want       string // the text, when the call succeeds
		err        string // what the error says, when it fails
	}{
		{name: "all given", args: `{"name":"Ann","address":{"city":"Paris"},"tags":["a","b"]}`, want: "Ann|Paris|a,b"},
		{name: "optional absent", args: `{"name":"Bo"}`, want: "Bo|-|-"},
		{name: "required missing", args: `{}`, err: `missing properties: ["name"]`},
		{name: "wrong type", args: `{"name":5}`, err: `/properties/name: type: 5 has type "integer", want "string"`},
		{name: "through the ref", args: `{"name":"a","address":{"city":""}}`, err: `/$defs/address/properties/city: minLength`},
		{name: "ref's required", args: `{"name":"a","address":{}}`, err: `missing properties: ["city"]`},
		{name: "extra property", args: `{"name":"a","x":1}`, err: `unexpected additional properties ["x"]`},
		{name: "too many items", args: `{"name":"a","tags":["1","2","3"]}`, err: `maxItems`},
		{name: "huge number", args: `{"name":"a","x":1e1000000}`, err: `"x": is out of range`},
		{name: "not an object", args: `[1]`, err: `must be a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), "greet", json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			text := contentString(res.Content)
			if tt.err != "" {
				if !res.IsError || !strings.Contains(text, tt.err) {
					t.Errorf("got %q (isError %v), want an error containing %q", text, res.IsError, tt.err)
				}
				return
			}
			if res.IsError || text != tt.want {
				t.Errorf("got %q (isError %v), want %q", text, res.IsError, tt.want)
			}
		})
	}
	var schema map[string]any
	if err := json.Unmarshal(r.Tools[0].InputSchema.(json.RawMessage), &schema); err != nil {
		t.Fatal(err)
	}
	if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || schema["$defs"] == nil || schema["additionalProperties"] != false {
		t.Errorf("the listed schema lost keywords: %v", schema)
	}
}

// contentString joins the text items of a result.
func contentString(items []mcp.Content) string {
	var b strings.Builder
	for _, c := range items {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
