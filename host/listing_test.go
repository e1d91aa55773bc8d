package host

import (
	"bytes"
	"encoding/json"
	"testing"
)

// listingConfig has tools whose schemas take each path of registration
// (see registrations): generated from params, with an output schema, and
// written by hand with an x-mcp-header annotation.
const listingConfig = `
tool "hello" {
  description = "Says hello."
  param "name" {
    type        = string
    description = "Who to greet."
  }
  param "times" {
    type    = integer
    default = 1
    minimum = 1
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "weather" {
  param "city" {
    type = string
  }
  http {
    url = "http://127.0.0.1:1/${param.city}"
  }
  result {
    field "temperature" {
      path = "current.temp"
      type = number
    }
    field "summary" {
      path     = "current.text"
      type     = string
      optional = true
    }
  }
}

tool "tagged" {
  input_schema = {
    type = "object"
    properties = {
      region = { type = "string", "x-mcp-header" = "Region" }
    }
  }
  template {
    text = "${param.region}"
  }
}
`

// TestToolsListedAsDeclared: tools/list on a new server shows every tool
// with the schemas it was declared with, and the registry keeps them as
// JSON. The SDK holds stand-ins for most tools (server_declared.go): this
// fails should tools/list show one.
func TestToolsListedAsDeclared(t *testing.T) {
	reg := loadSource(t, listingConfig)
	p := startStdio(t, reg)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r := p.next()
	if r.Error != nil {
		t.Fatalf("tools/list: %s", r.line)
	}
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(reg.Tools) {
		t.Fatalf("tools/list has %d tools, want %d: %s", len(list.Tools), len(reg.Tools), r.Result)
	}
	listed := map[string]int{}
	for i, lt := range list.Tools {
		listed[lt.Name] = i
	}
	registered := map[string]int{}
	for i, rt := range reg.Tools {
		registered[rt.Name] = i
	}
	// What the compiler rendered is what clients must see, and what the
	// registry must still hold (a reload compares the schemas as JSON).
	for _, decl := range reg.Config.Tools {
		t.Run(decl.Name, func(t *testing.T) {
			i, ok := listed[decl.Name]
			if !ok {
				t.Fatalf("%s is not listed: %s", decl.Name, r.Result)
			}
			if got := list.Tools[i].InputSchema; !sameCompact(t, got, decl.InputSchemaJSON) {
				t.Errorf("inputSchema listed:\n%s\ndeclared:\n%s", got, decl.InputSchemaJSON)
			}
			if got := list.Tools[i].OutputSchema; decl.OutputSchemaJSON == nil && got != nil {
				t.Errorf("outputSchema listed for a tool without one: %s", got)
			} else if decl.OutputSchemaJSON != nil && !sameCompact(t, got, decl.OutputSchemaJSON) {
				t.Errorf("outputSchema listed:\n%s\ndeclared:\n%s", got, decl.OutputSchemaJSON)
			}
			kept := reg.Tools[registered[decl.Name]]
			if in, ok := kept.InputSchema.(json.RawMessage); !ok || !bytes.Equal(in, decl.InputSchemaJSON) {
				t.Errorf("the registry's input schema is %T %s, not the declared JSON", kept.InputSchema, kept.InputSchema)
			}
			if decl.OutputSchemaJSON != nil {
				if out, ok := kept.OutputSchema.(json.RawMessage); !ok || !bytes.Equal(out, decl.OutputSchemaJSON) {
					t.Errorf("the registry's output schema is %T %s, not the declared JSON", kept.OutputSchema, kept.OutputSchema)
				}
			} else if kept.OutputSchema != nil {
				t.Errorf("the registry has an output schema for a tool without one: %v", kept.OutputSchema)
			}
		})
	}
	for _, name := range []string{"hello", "weather", "tagged"} {
		if _, ok := listed[name]; !ok {
			t.Errorf("%s is not listed", name)
		}
	}
	if i := listed["weather"]; len(list.Tools[i].OutputSchema) == 0 {
		t.Error("weather has no outputSchema: the test no longer covers an output schema shown in place of a stand-in")
	}
	if i := listed["tagged"]; !bytes.Contains(list.Tools[i].InputSchema, headerAnnotation) {
		t.Error("tagged's inputSchema has no x-mcp-header: the test no longer covers the SDK's own check")
	}
}

func sameCompact(t *testing.T, a, b []byte) bool {
	t.Helper()
	var ca, cb bytes.Buffer
	if err := json.Compact(&ca, a); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Compact(&cb, b); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
