package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// The tests of this file are those of behaviour that matters on Windows
// and that the portable tests do not show there: programs of Windows,
// Windows paths in a config, and a config path spelled another way than
// the file system spells it.

// TestWindowsStdioCalls: over stdio, a template tool, an exec tool that
// runs cmd.exe with fixed text, and an exec tool whose argument is a
// param answer with their output.
func TestWindowsStdioCalls(t *testing.T) {
	p := startStdio(t, loadSource(t, `
tool "hello" {
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
tool "cmd_echo" {
  exec { command = ["cmd.exe", "/c", "echo", "fixed"] }
}
tool "helper_echo" {
  param "word" { type = string }
  exec {
    `+helperCommand(`"echo"`, `param.word`)+`
  }
}
`))
	p.initialize()
	for i, tc := range []struct{ tool, args, want string }{
		{"hello", `{"name":"world"}`, "hello world"},
		{"cmd_echo", `{}`, "fixed"},
		{"helper_echo", `{"word":"a \"quoted\" word & more"}`, `a "quoted" word & more`},
	} {
		id := string(rune('1' + i))
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + tc.args + `}}`)
		r := p.next()
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.Result, &res); err != nil || string(r.ID) != id || res.IsError || strings.TrimRight(testconfig.ResultText(&res), "\r\n") != tc.want {
			t.Errorf("%s: %s; want the text %q", tc.tool, r.line, tc.want)
		}
	}
}

// TestWindowsResourcePaths: a file resource and a resource template's
// dir, given as Windows paths (a drive, backslashes, forward slashes,
// relative with backslashes), serve their files; in a template's URI, a
// backslash is no separator, and ..\ does not leave its dir.
func TestWindowsResourcePaths(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{`docs\a.txt`: "a", `docs\sub\b.txt`: "b", "secret.txt": "s"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(dir, "docs", "a.txt")
	if filepath.VolumeName(abs) == "" {
		t.Fatalf("%s has no drive", abs)
	}
	src := `
resource "backslashes" {
  uri  = "docs://backslashes"
  file = ` + testconfig.HCLString(abs) + `
}
resource "slashes" {
  uri  = "docs://slashes"
  file = ` + testconfig.HCLString(filepath.ToSlash(abs)) + `
}
resource "relative" {
  uri  = "docs://relative"
  file = "docs\\sub\\b.txt"
}
resource_template "tree" {
  uri_template = "tree:///{+path}"
  dir          = ` + testconfig.HCLString(filepath.Join(dir, "docs")) + `
}
`
	cfg := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{cfg}, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	t.Cleanup(func() { _ = reg.Close() })
	p := startStdio(t, reg)
	p.initialize()
	for i, tc := range []struct {
		uri, want string
		err       string // why the read must fail; "" when it must not
	}{
		{"docs://backslashes", "a", ""},
		{"docs://slashes", "a", ""},
		{"docs://relative", "b", ""},
		{"tree:///a.txt", "a", ""},
		{"tree:///sub/b.txt", "b", ""},
		{`tree:///sub\b.txt`, "", "a backslash in a URI is no separator"},
		{`tree:///..\secret.txt`, "", "outside the dir"},
		{"tree:///../secret.txt", "", "outside the dir"},
	} {
		id := string(rune('1' + i))
		uri, _ := json.Marshal(tc.uri)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":` + string(uri) + `}}`)
		r := p.next()
		if tc.err != "" {
			if r.Error == nil || strings.Contains(r.line, `"text":"s"`) {
				t.Errorf("%s: %s; want an error", tc.uri, r.line)
			}
			continue
		}
		var res mcp.ReadResourceResult
		if err := json.Unmarshal(r.Result, &res); err != nil || r.Error != nil || len(res.Contents) != 1 || res.Contents[0].Text != tc.want {
			t.Errorf("%s: %s; want the text %q", tc.uri, r.line, tc.want)
		}
	}
}

// TestWindowsWatchPathSpelling: a config given with another case than the
// file system's, or with forward slashes, is watched: an edit of it, a
// save by rename and a delete then write are reloaded. File names on
// Windows are the same in any case.
func TestWindowsWatchPathSpelling(t *testing.T) {
	tool := func(name string) string {
		return "tool \"" + name + "\" {\n  description = \"A tool.\"\n  template { text = \"x\" }\n}\n"
	}
	for _, tc := range []struct {
		name  string
		spell func(path string) string
	}{
		{"as written", func(p string) string { return p }},
		{"upper case", strings.ToUpper},
		{"file name in upper case", func(p string) string { return filepath.Join(filepath.Dir(p), "TOOLS.HCL") }},
		{"forward slashes", filepath.ToSlash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(tool("alpha")), 0o644); err != nil {
				t.Fatal(err)
			}
			given := tc.spell(path)
			srv, results := watchConfig(t, given, func(r *Reloader) { r.Debounce = 50 * time.Millisecond })
			// Watch looks once at the start; let that pass before the edits.
			time.Sleep(300 * time.Millisecond)
			for _, edit := range []struct {
				name string
				save func(text string) error
			}{
				{"beta", func(text string) error { return os.WriteFile(path, []byte(text), 0o644) }},
				{"gamma", func(text string) error { // saved by rename, as editors do
					if err := os.WriteFile(path+".tmp", []byte(text), 0o644); err != nil {
						return err
					}
					return os.Rename(path+".tmp", path)
				}},
				{"delta", func(text string) error { // deleted, then written again
					if err := os.Remove(path); err != nil {
						return err
					}
					time.Sleep(200 * time.Millisecond)
					return os.WriteFile(path, []byte(text), 0o644)
				}},
			} {
				if err := edit.save(tool(edit.name)); err != nil {
					t.Fatal(err)
				}
				deadline := time.After(10 * time.Second)
			wait:
				for {
					select {
					case res := <-results:
						if res.Applied && srv.Registry().Tools[0].Name == edit.name {
							break wait
						}
					case <-deadline:
						t.Fatalf("the save of %s (tool %s), the config given as %s, is not reloaded within 10 s", path, edit.name, given)
					}
				}
			}
		})
	}
}

// TestWindowsShutdownAnswersCalls: a call stopped because the host is
// exiting is answered at once, on stdio and over HTTP (a POST's stream,
// an SSE stream), while its command has a kill_timeout far longer than a
// shutdown waits; the command is gone once the commands are killed.
func TestWindowsShutdownAnswersCalls(t *testing.T) {
	config := `
tool "long" {
  param "started" { type = string }
  exec {
    ` + helperCommand(`"touch"`, `param.started`, `"sleep"`, `"60"`) + `
    timeout      = "5m"
    kill_timeout = "20s"
  }
}
`
	for _, transport := range []string{"stdio", "http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			started := filepath.Join(t.TempDir(), "started")
			args := map[string]any{"started": started}
			running := func() {
				testconfig.WaitFor(t, "the command starts", func() bool { _, err := os.Stat(started); return err == nil })
			}
			if transport == "stdio" {
				p := startStdio(t, loadSource(t, config))
				p.initialize()
				stopStdioDuringCall(t, p, "long", args, running)
			} else {
				stopHTTPDuringCall(t, config, transport == "sse", "long", args, running)
			}
			adapters.KillCommands()
			wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if !adapters.WaitCommands(wait) {
				t.Error("a command still runs 10 s after KillCommands")
			}
		})
	}
}
