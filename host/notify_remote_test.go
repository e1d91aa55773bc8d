package host

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
)

// TestClientText: a reload's diagnostics reach clients in full over stdio
// and over HTTP without auth, and as their first line over HTTP when the
// config in service, or the broken one not yet loaded, has an auth block (callers who are
// not the config's author must not read its lines).
func TestClientText(t *testing.T) {
	const msg = "toolhost: the config has errors; the tools in service are unchanged.\ntools.hcl:3:5: secret_reset: Unsupported argument"
	const short = "toolhost: the config has errors; the tools in service are unchanged. (the details are in the server's log)"
	open := loadSource(t, `tool "a" {
  template { text = "a" }
}`)
	authed := loadSource(t, `server {
  auth {
    issuer   = "https://login.example.com"
    audience = "https://tools.example.com/mcp"
  }
}
tool "a" {
  template { text = "a" }
}`)
	broken := func(src string) *Registry {
		p := filepath.Join(t.TempDir(), "tools.hcl")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		failed, diags := Load([]string{p}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
		if !diags.HasErrors() {
			t.Fatal("the broken config loaded")
		}
		return PlaceholderRegistry(failed, diags)
	}
	brokenAuthed := broken(`server {
  auth {
    audience = "https://tools.example.com/mcp"
  }
}`)
	brokenOpen := broken(`tool "a" {
  bogus = 1
}`)
	if strings.Contains(brokenAuthed.Config.Server.Instructions, "The first:") {
		t.Errorf("the instructions of a broken config with auth quote its first error: %s", brokenAuthed.Config.Server.Instructions)
	}
	for _, tc := range []struct {
		name   string
		reg    *Registry
		remote bool
		msg    string
		want   string
	}{
		{"stdio, auth", authed, false, msg, msg},
		{"http, no auth", open, true, msg, msg},
		{"http, auth", authed, true, msg, short},
		{"http, no valid config yet, auth", brokenAuthed, true, msg, short},
		{"http, no valid config yet, no auth", brokenOpen, true, msg, msg},
		{"http, auth, one line", authed, true, "toolhost: the config is valid again.", "toolhost: the config is valid again."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(tc.reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			s.remote.Store(tc.remote)
			if got := s.clientText(tc.msg); got != tc.want {
				t.Errorf("clientText = %q, want %q", got, tc.want)
			}
		})
	}
}
