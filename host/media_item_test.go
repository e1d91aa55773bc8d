package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestMediaItemFromText: an image item over output that is text and not
// base64 is an error that names the item's place and the fix that fits the
// output.
func TestMediaItemFromText(t *testing.T) {
	src := `
tool "json_out" {
  template {
    text      = jsonencode({ png = "not base64!" })
    mime_type = "application/json"
  }
  result {
    image {}
  }
}

tool "text_out" {
  template {
    text = "a picture of a cat"
  }
  result {
    image {}
  }
}
`
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if len(diags) > 0 {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	defer r.Close()
	for _, tc := range []struct{ tool, want string }{
		{"json_out", "the image item at tools.hcl:8: the output is text (application/json), not an image or sound, and not base64; give the item a path"},
		{"text_out", "the image item at tools.hcl:17: the output is text (text/plain), not an image or sound, and not base64; have the backend give base64"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := r.CallTool(context.Background(), tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, tc.want) {
				t.Fatalf("result = %+v, want an error containing %q", res.Content[0], tc.want)
			}
		})
	}
}

// TestMediaItemDataInHeredoc: base64 data written in a heredoc, in lines,
// ends with a line break after its padding. It loads, and a call returns
// the image it encodes.
func TestMediaItemDataInHeredoc(t *testing.T) {
	src := `
tool "pixel" {
  description = "a 1x1 PNG"
  result {
    image {
      data = <<-EOT
        iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk
        YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==
        EOT
      mime_type = "image/png"
    }
  }
}
`
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if len(diags) > 0 {
		t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
	}
	defer r.Close()
	res, err := r.CallTool(context.Background(), "pixel", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result = %+v, want one image", res.Content)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG\r\n") || len(img.Data) != 70 {
		t.Fatalf("content = %+v, want the 70-byte PNG", res.Content[0])
	}
}
