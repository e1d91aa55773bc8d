package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

// TestTemplateCompletionsCanBeRead: every value completion/complete offers
// for a resource template's variable, expanded into the template as RFC
// 6570 says (as clients do), is a URI that resources/read serves. A simple
// {path} encodes the "/" of a file in a subfolder as %2F, which reads
// refuse, so such files are offered only by a reserved {+path}; a {/path}
// template serves the files its URIs name.
func TestTemplateCompletionsCanBeRead(t *testing.T) {
	reg := loadSourceWith(t, `
resource_template "simple" {
  uri_template = "notes:///{path}"
  dir          = "notes"
}
resource_template "reserved" {
  uri_template = "docs://{+path}"
  dir          = "notes"
}
resource_template "segment" {
  uri_template = "seg:{/path}"
  dir          = "notes"
}
tool "embed" {
  description = "embeds a note"
  param "uri" { type = string }
  result {
    resource { uri = param.uri }
  }
  template { text = "" }
}
`, map[string]string{"notes/a.md": "top", "notes/sub/b.md": "nested"})
	p := startStdio(t, reg)
	p.initialize()
	id := 1
	for _, tc := range []struct {
		tmpl string
		want []string
	}{
		{"notes:///{path}", []string{"a.md"}},
		{"docs://{+path}", []string{"a.md", "sub/b.md"}},
		{"seg:{/path}", []string{"a.md"}},
	} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":%q},"argument":{"name":"path","value":""}}}`, id, tc.tmpl))
		id++
		r := p.next()
		var res struct {
			Completion struct{ Values []string }
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
			t.Fatalf("completion of %s: %s", tc.tmpl, r.line)
		}
		if !slices.Equal(res.Completion.Values, tc.want) {
			t.Errorf("completion of %s offers %q, want %q", tc.tmpl, res.Completion.Values, tc.want)
		}
		tpl := uritemplate.MustNew(tc.tmpl)
		for _, v := range tc.want {
			uri, err := tpl.Expand(uritemplate.Values{"path": uritemplate.String(v)})
			if err != nil {
				t.Fatal(err)
			}
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, id, uri))
			id++
			if r := p.next(); r.Error != nil {
				t.Errorf("%s completes %q, but reading its URI %s fails: %s", tc.tmpl, v, uri, r.line)
			}
		}
	}
	// A tool's result embeds only what a client could read too.
	for _, tc := range []struct{ uri, want string }{
		{"notes:///a.md", "top"},
		{"docs://sub/b.md", "nested"},
		{"notes:///sub/b.md", "{+path}"},
	} {
		res, err := reg.CallTool(context.Background(), "embed", json.RawMessage(fmt.Sprintf(`{"uri":%q}`, tc.uri)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.Content)
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("embedding %s: %s, want it to mention %q", tc.uri, got, tc.want)
		}
	}
}
