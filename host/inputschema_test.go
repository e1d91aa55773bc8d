package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
		{name: "required missing", args: `{}`, err: `invalid argument "name": is required but missing (required)`},
		{name: "wrong type", args: `{"name":5}`, err: `invalid argument "name": must be a string, not an integer (type)`},
		{name: "through the ref", args: `{"name":"a","address":{"city":""}}`, err: `invalid argument "address" at address.city: is 0 characters long, shorter than the minimum 1 (minLength)`},
		{name: "ref's required", args: `{"name":"a","address":{}}`, err: `invalid argument "address" at address.city: is required but missing (required)`},
		{name: "extra property", args: `{"name":"a","x":1}`, err: `invalid argument "x": this tool has no such parameter; its parameters are address, name, tags (additionalProperties)`},
		{name: "an item", args: `{"name":"a","tags":["x",2]}`, err: `invalid argument "tags" at tags[1]: must be a string, not an integer (type)`},
		{name: "too many items", args: `{"name":"a","tags":["1","2","3"]}`, err: `invalid argument "tags": has 3 items, more than the maximum 2 (maxItems)`},
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

// TestInputSchema2020Calls calls a tool whose input_schema uses the 2020-12
// vocabulary (testdata/inputschema2020.hcl): allOf with anyOf inside,
// if/then/else, $ref to $defs by pointer and by $anchor, dependentRequired,
// dependentSchemas, prefixItems, const, format and unevaluatedProperties.
// A refusal names the parameter, the place inside it and the keyword.
func TestInputSchema2020Calls(t *testing.T) {
	r := loadRegistry(t, "inputschema2020.hcl")
	tests := []struct {
		name, args string
		want       string   // the text, when the call succeeds
		errs       []string // what the error says, when it fails
	}{
		{name: "phone by if/then", args: `{"contactMethod":"phone","phone":"555"}`, want: "555|-|-"},
		{name: "email by else", args: `{"email":"a@b.example"}`, want: "a@b.example|-|-"},
		{name: "then refuses", args: `{"contactMethod":"phone","email":"a@b.example"}`,
			errs: []string{`invalid argument "phone": is required but missing (required, in then)`}},
		{name: "else refuses", args: `{"contactMethod":"email","phone":"555"}`,
			errs: []string{`invalid argument "email": is required but missing (required, in else)`}},
		{name: "anyOf in allOf refuses", args: `{}`,
			errs: []string{`invalid arguments: matches none of the alternatives, and must match one: (1) "phone" is required but missing (required); or (2) "email" is required but missing (required) (anyOf)`}},
		{name: "ref by pointer", args: `{"contactMethod":"phone","phone":"1","address":{"city":"Paris"}}`, want: "1|Paris|-"},
		{name: "ref by pointer refuses", args: `{"contactMethod":"phone","phone":"1","address":{"city":""}}`,
			errs: []string{`invalid argument "address" at address.city: is 0 characters long, shorter than the minimum 1 (minLength)`}},
		{name: "ref by anchor", args: `{"contactMethod":"phone","phone":"1","billing":{"city":"Oslo"}}`, want: "1|-|Oslo"},
		{name: "ref by anchor refuses", args: `{"contactMethod":"phone","phone":"1","billing":{"street":"x"}}`,
			errs: []string{`invalid argument "billing" at billing.city: is required but missing (required)`}},
		{name: "ref to a pattern", args: `{"contactMethod":"phone","phone":"1","country":"fr"}`,
			errs: []string{`invalid argument "country": "fr" does not match the pattern "^[A-Z]{2}$" (pattern)`}},
		// format is an annotation in 2020-12, not checked.
		{name: "format", args: `{"email":"not an address"}`, want: "not an address|-|-"},
		{name: "enum", args: `{"email":"e@x.example","contactMethod":"fax"}`,
			errs: []string{`invalid argument "contactMethod": "fax" is not one of the allowed values "phone", "email" (enum)`}},
		{name: "const", args: `{"contactMethod":"phone","phone":"1","version":3}`,
			errs: []string{`invalid argument "version": 3 is not the one allowed value, 2 (const)`}},
		{name: "prefixItems", args: `{"contactMethod":"phone","phone":"1","point":[1,"a"]}`,
			errs: []string{`invalid argument "point" at point[1]: must be a number, not a string (type)`}},
		{name: "no more items", args: `{"contactMethod":"phone","phone":"1","point":[1,2,3]}`,
			errs: []string{`invalid argument "point" at point[2]: is one item too many: there may be 2 items (items)`}},
		{name: "dependentRequired", args: `{"contactMethod":"phone","phone":"1","card":"4242"}`,
			errs: []string{`invalid argument "cvc": is required when "card" is given, but missing (dependentRequired)`}},
		{name: "dependentSchemas", args: `{"contactMethod":"phone","phone":"1","card":"4242","cvc":"1"}`,
			errs: []string{`invalid argument "cvc": is 1 character long, shorter than the minimum 3 (minLength)`}},
		{name: "unevaluatedProperties", args: `{"contactMethod":"phone","phone":"1","extra":true}`,
			errs: []string{`invalid argument "extra": this tool has no such parameter; its parameters are address, billing, card, contactMethod, country, cvc, email, name, phone, point, version (unevaluatedProperties)`}},
		{name: "two undeclared", args: `{"contactMethod":"phone","phone":"1","nmae":1,"a":2}`,
			errs: []string{"2 problems with the arguments:", `invalid argument "a": this tool has no such parameter;`, `invalid argument "nmae": this tool has no such parameter (did you mean "name"?);`}},
		{name: "undeclared inside", args: `{"contactMethod":"phone","phone":"1","address":{"city":"x","zip":"1"}}`, want: "1|x|-"},
		{name: "huge number", args: `{"contactMethod":"phone","phone":"1","version":1e1000000}`, errs: []string{`"version": is out of range`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), "contact", json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			text := contentString(res.Content)
			if tt.errs == nil {
				if res.IsError || text != tt.want {
					t.Errorf("got %q (isError %v), want %q", text, res.IsError, tt.want)
				}
				return
			}
			if !res.IsError {
				t.Fatalf("got %q, want an error", text)
			}
			for _, e := range tt.errs {
				if !strings.Contains(text, e) {
					t.Errorf("the error does not say %q:\n%s", e, text)
				}
			}
		})
	}
}

// TestInputSchema2020Listed: tools/list gives the input_schema exactly as
// the config writes it, every keyword (vendor ones too) in the order
// written, byte for byte as testdata/inputschema2020.json has it.
func TestInputSchema2020Listed(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "inputschema2020.json"))
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.TrimSpace(want)
	p := startStdio(t, loadRegistry(t, "inputschema2020.hcl"))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	reply := p.next()
	if reply.Error != nil {
		t.Fatalf("tools/list: %s", reply.line)
	}
	var list struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reply.Result, &list); err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list: %v: %s", err, reply.Result)
	}
	var got bytes.Buffer
	if err := json.Compact(&got, list.Tools[0].InputSchema); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("inputSchema listed:\n%s\nwritten:\n%s", got.Bytes(), want)
	}
}
