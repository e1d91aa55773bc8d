package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestEmptyContentsOnTheWire: resource contents that are empty (a command
// with binary = true that prints nothing, a resource item over empty
// output or with text = "", an empty file) still carry "text" or "blob"
// in the JSON a client gets: the schema requires one, and the official
// TypeScript SDK refuses a whole result without it.
func TestEmptyContentsOnTheWire(t *testing.T) {
	dir := t.TempDir()
	src := `
resource "empty" {
  uri  = "docs://empty"
  file = "empty.txt"
}

tool "binary_nothing" {
  exec {
    ` + helperCommand() + `
    binary  = true
  }
}

tool "item_over_nothing" {
  exec {
    ` + helperCommand() + `
  }
  result {
    resource { uri = "out://x" }
  }
}

tool "item_empty_text" {
  template { text = "" }
  result {
    resource {
      uri  = "out://y"
      text = ""
    }
  }
}

tool "item_declared_empty" {
  template { text = "" }
  result {
    resource { uri = "docs://empty" }
  }
}
`
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if len(diags) > 0 {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	defer r.Close()

	// hasBody reports whether the wire form of rc has "text" or "blob".
	hasBody := func(t *testing.T, wire []byte) {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(wire, &m); err != nil {
			t.Fatal(err)
		}
		_, text := m["text"]
		_, blob := m["blob"]
		if !text && !blob {
			t.Errorf("resource contents %s have neither text nor blob", wire)
		}
	}
	for _, tool := range []string{"binary_nothing", "item_over_nothing", "item_empty_text", "item_declared_empty"} {
		t.Run(tool, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("isError: %+v", res.Content[0])
			}
			er, ok := res.Content[0].(*mcp.EmbeddedResource)
			if !ok {
				t.Fatalf("content = %T, want an embedded resource", res.Content[0])
			}
			wire, err := json.Marshal(er.Resource)
			if err != nil {
				t.Fatal(err)
			}
			hasBody(t, wire)
		})
	}
	t.Run("resources/read", func(t *testing.T) {
		res, err := r.ReadResource(context.Background(), "docs://empty")
		if err != nil {
			t.Fatal(err)
		}
		wire, err := json.Marshal(res.Contents[0])
		if err != nil {
			t.Fatal(err)
		}
		hasBody(t, wire)
	})
}
