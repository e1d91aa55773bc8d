package host

import (
	"context"
	"encoding/base64"
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

// TestMediaItemFileSwapped: a content item's file that is no longer a
// regular file when it is read (a FIFO, a directory or a socket put in its
// place, a folder of its path made a file) is an error that says what it
// is, not that it is missing, in tool results and prompts alike; and a
// file that is gone is missing.
func TestMediaItemFileSwapped(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	src := `
tool "pic" {
  template { text = "x" }
  result {
    image { file = "img/pic.png" }
  }
}

tool "doc" {
  template { text = "x" }
  result {
    resource {
      uri  = "docs://doc"
      file = "img/doc.txt"
    }
  }
}

prompt "show" {
  message "user" {
    image { file = "img/pic.png" }
  }
}
`
	for _, tc := range append(specialFileSwaps, []fileSwap{
		{"directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "the file is a directory, not a regular file"},
		{"missing", func(*testing.T, string) {}, "the file is missing"},
	}...) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "img"), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := base64.StdEncoding.DecodeString(png)
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range map[string][]byte{"tools.hcl": []byte(src), "img/pic.png": data, "img/doc.txt": []byte("a doc\n")} {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, diags := Load([]string{filepath.Join(dir, "tools.hcl")}, nil)
			if len(diags) > 0 {
				t.Fatalf("Load:\n%s", thcl.FormatDiagnostics(diags))
			}
			defer r.Close()
			for _, name := range []string{"pic.png", "doc.txt"} {
				if err := os.Remove(filepath.Join(dir, "img", name)); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range []string{"pic.png", "doc.txt"} {
				tc.swap(t, filepath.Join(dir, "img", name))
			}
			for tool, item := range map[string]string{"pic": "the image item at tools.hcl:5", "doc": "the resource item at tools.hcl:12"} {
				res, err := r.CallTool(context.Background(), tool, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := item + ": cannot read its file: " + tc.want
				if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(text, want) {
					t.Errorf("%s: result = %q (isError %v), want an error that starts %q", tool, text, res.IsError, want)
				}
			}
			_, err = r.GetPrompt(context.Background(), "show", nil)
			if want := "the image item at tools.hcl:21: cannot read its file: " + tc.want; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("prompt: error %v, want one that says %q", err, want)
			}
		})
	}
}

// fileSwap puts something in the place of a content item's file: name
// names the case, swap does it to path, want is the error it must give.
type fileSwap struct {
	name string
	swap func(t *testing.T, path string)
	want string
}
