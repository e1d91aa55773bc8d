package host

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestResourceListMIMEType: a file resource without mime_type is listed
// with the media type its name gives, the one a read of it returns; a file
// whose name does not tell is listed without one (its content tells, when
// read).
func TestResourceListMIMEType(t *testing.T) {
	reg := loadSourceWith(t, `
resource "json" {
  uri  = "file:///data.json"
  file = "data.json"
}
resource "md" {
  uri  = "file:///notes.md"
  file = "notes.md"
}
resource "readme" {
  uri  = "file:///README"
  file = "README"
}
resource "typed" {
  uri       = "file:///typed.txt"
  file      = "typed.txt"
  mime_type = "text/x-custom"
}
`, map[string]string{"data.json": `{"a":1}`, "notes.md": "# hi", "README": "plain words", "typed.txt": "x"})
	want := map[string]string{
		"file:///data.json": "application/json",
		"file:///notes.md":  "text/markdown",
		"file:///README":    "",
		"file:///typed.txt": "text/x-custom",
	}
	for _, r := range reg.Resources {
		t.Run(r.URI, func(t *testing.T) {
			if r.MIMEType != want[r.URI] {
				t.Errorf("listed with mimeType %q, want %q", r.MIMEType, want[r.URI])
			}
			res, err := reg.ReadResource(context.Background(), r.URI)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Contents[0].MIMEType; r.MIMEType != "" && got != r.MIMEType {
				t.Errorf("listed as %q, read as %q", r.MIMEType, got)
			}
		})
	}
}

// TestPromptResourceFromArguments: a prompt whose embedded resource's URI
// is made of the arguments, naming no file, is the client's error
// (-32602, as any argument that does not fit), not an internal one: a
// missing file, a value with a "/" the template cannot serve, and an empty
// value that leaves no file name alike.
func TestPromptResourceFromArguments(t *testing.T) {
	reg := loadSourceWith(t, `
resource_template "notes" {
  uri_template = "notes:///{path}"
  dir          = "notes"
}
prompt "review" {
  description = "reviews a note"
  arg "n" {}
  message "user" {
    resource { uri = "notes:///${arg.n}" }
  }
}
`, map[string]string{"notes/a.md": "note a", "notes/sub/b.md": "note b"})
	p := startStdio(t, reg)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"review","arguments":{"n":"a.md"}}}`)
	if r := p.next(); r.Error != nil || !strings.Contains(string(r.Result), "note a") {
		t.Fatalf("prompts/get of a.md: %s", r.line)
	}
	for i, tc := range []struct{ name, value, want string }{
		{"missing file", "missing.md", "notes:///missing.md"},
		{"value with a slash", "sub/b.md", `"sub/b.md"`},
		{"traversal", "../secret", `"../secret"`},
		{"empty value", "", `"notes:///"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strconv.Itoa(i + 2)
			p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"prompts/get","params":{"name":"review","arguments":{"n":` + strconv.Quote(tc.value) + `}}}`)
			wantError(t, p.next(), id, jsonrpc.CodeInvalidParams, tc.want)
		})
	}
}

// TestTemplateBackendRefusedValue: a resource template served by exec
// refuses a URI whose value would start an option; that is the client's
// URI to correct, an invalid-params error (-32602) naming the variable, not
// an internal error (-32603) as if the server had failed.
func TestTemplateBackendRefusedValue(t *testing.T) {
	reg := loadSourceWith(t, `
resource_template "man" {
  uri_template = "man:///{page}"
  mime_type    = "text/plain"
  exec {
    `+helperCommand(`"echo"`, `"page:"`, `param.page`)+`
  }
}
`, nil)
	p := startStdio(t, reg)
	p.initialize()
	for i, tc := range []struct {
		name, uri string
		code      int64
		want      string
	}{
		{"plain value", "man:///ls", 0, "page: ls"},
		{"value like an option", "man:///-x", jsonrpc.CodeInvalidParams, `"page"`},
		{"encoded option", "man:///%2Dx", jsonrpc.CodeInvalidParams, `"page"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strconv.Itoa(i + 1)
			p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":` + strconv.Quote(tc.uri) + `}}`)
			r := p.next()
			if tc.code == 0 {
				if r.Error != nil || !strings.Contains(string(r.Result), tc.want) {
					t.Fatalf("read %s: %s", tc.uri, r.line)
				}
				return
			}
			wantError(t, r, id, tc.code, tc.want)
		})
	}
}

// TestResourceTooLarge: a file over the 10 MiB cap, declared as a resource
// or found in a template's dir, is an error that names the URI read, as a
// backend's failure does, so that whoever reads the log or the client's
// message knows which resource to shrink.
func TestResourceTooLarge(t *testing.T) {
	big := strings.Repeat("a", 10<<20+1)
	reg := loadSourceWith(t, `
resource "big" {
  uri  = "file:///big.txt"
  file = "big.txt"
}
resource_template "d" {
  uri_template = "d:///{name}"
  dir          = "d"
}
`, map[string]string{"big.txt": big, "d/big.txt": big})
	for _, uri := range []string{"file:///big.txt", "d:///big.txt"} {
		t.Run(uri, func(t *testing.T) {
			_, err := reg.ReadResource(context.Background(), uri)
			if err == nil || !strings.Contains(err.Error(), uri) || !strings.Contains(err.Error(), "10 MiB") {
				t.Fatalf("read of %s: %v; want an error naming the URI and the 10 MiB cap", uri, err)
			}
		})
	}
}
