package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// unixServer and windowsServer are the entries the merge tests write: a
// binary and a config at absolute paths of each kind.
func unixServer(e Editor) Server {
	return BinaryServer(e, "/usr/local/bin/toolhost", "/home/me/tools & more/tools.hcl")
}

func windowsServer(e Editor) Server {
	return BinaryServer(e, `C:\Program Files\toolhost\toolhost.exe`, `C:\Users\me\tools.hcl`)
}

func editor(t *testing.T, name string) Editor {
	t.Helper()
	e, ok := Lookup(name)
	if !ok {
		t.Fatalf("no editor %q", name)
	}
	return e
}

// TestMergeGolden merges an entry into fixtures of each editor's real
// config format, with other servers, other settings and, where the editor
// reads JSONC, comments and trailing commas, and compares with the golden
// files (-update rewrites them). Beyond the golden bytes it checks that the
// result means the fixture plus the entry, nothing else changed: every
// other server and setting is still there, with its value.
func TestMergeGolden(t *testing.T) {
	tests := []struct {
		fixture, editor string
		server          func(Editor) Server
		name            string
		replaced        bool
	}{
		{fixture: "claude-desktop-other-servers.json", editor: "claude-desktop", server: unixServer},
		{fixture: "claude-desktop-no-servers.json", editor: "claude-desktop", server: windowsServer},
		{fixture: "cursor-replace.json", editor: "cursor", server: unixServer, replaced: true},
		{fixture: "cursor-minified.json", editor: "cursor", server: unixServer},
		{fixture: "cursor-empty-servers.json", editor: "cursor", server: unixServer},
		{fixture: "cursor-empty-file.json", editor: "cursor", server: windowsServer},
		{fixture: "vscode-comments.json", editor: "vscode", server: unixServer},
		{fixture: "vscode-commented-out.json", editor: "vscode", server: windowsServer, name: "my tools"},
		{fixture: "vscode-crlf-bom.json", editor: "vscode", server: unixServer},
		{fixture: "claude-code-user.json", editor: "claude-code", server: unixServer},
		{fixture: "windsurf-one-line.json", editor: "windsurf", server: unixServer},
		{fixture: "claude-desktop-inline-entry.json", editor: "claude-desktop", server: unixServer, replaced: true},
		{fixture: "vscode-replace-remote.json", editor: "vscode", server: unixServer, replaced: true},
		{fixture: "windsurf-replace-settings.json", editor: "windsurf", server: unixServer, replaced: true},
		{fixture: "windsurf-other-servers.json", editor: "windsurf", server: func(e Editor) Server { return must(NPXServer(e, "linux", "/home/me/tools.hcl")) }},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			e := editor(t, tt.editor)
			name := tt.name
			if name == "" {
				name = DefaultName
			}
			src, err := os.ReadFile(filepath.Join("testdata", "merge", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			s := tt.server(e)
			m, err := mergeEntry(src, e, name, s)
			if err != nil {
				t.Fatal(err)
			}
			if (m.old != nil) != tt.replaced {
				t.Errorf("replaced an entry: %v, want %v", m.old != nil, tt.replaced)
			}
			golden := filepath.Join("testdata", "merge", strings.TrimSuffix(tt.fixture, ".json")+".golden")
			if *update {
				if err := os.WriteFile(golden, m.out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(m.out, want) {
				t.Errorf("merged:\n%s\nwant (%s):\n%s", m.out, golden, want)
			}
			// The meaning: the fixture with the entry set, nothing else.
			wantDoc := decode(t, src)
			if wantDoc == nil {
				wantDoc = map[string]any{}
			}
			servers, _ := wantDoc[e.ServersKey].(map[string]any)
			if servers == nil {
				servers = map[string]any{}
				wantDoc[e.ServersKey] = servers
			}
			entry := decode(t, s.marshal("", ""))
			// The settings of a command's entry replaced stay (env,
			// disabled...); the ways to reach a server do not.
			if old, ok := servers[name].(map[string]any); ok && old["command"] != nil {
				for k, v := range old {
					if !replaced[k] {
						entry[k] = v
					}
				}
			}
			servers[name] = entry
			if got := decode(t, m.out); !reflect.DeepEqual(got, wantDoc) {
				t.Errorf("merged file means\n%v\nwant\n%v", got, wantDoc)
			}
			// Merging again changes nothing.
			again, err := mergeEntry(m.out, e, name, s)
			if err != nil {
				t.Fatal(err)
			}
			if !again.unchanged || !bytes.Equal(again.out, m.out) {
				t.Errorf("a second merge changed the file:\n%s", again.out)
			}
		})
	}
}

// decode is the JSON or JSONC document b as Go values; nil for a blank b.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	b = bytes.TrimPrefix(b, utf8BOM)
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		t.Fatalf("%v in:\n%s", err, b)
	}
	var v map[string]any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatalf("%v in:\n%s", err, b)
	}
	return v
}

// TestMergeKeepsBytes checks, beyond the golden files, that a merge into
// a file with comments leaves every line of it in place: the output is the
// input with lines inserted.
func TestMergeKeepsBytes(t *testing.T) {
	tests := []struct{ fixture, editor string }{
		{"vscode-comments.json", "vscode"},
		{"vscode-commented-out.json", "vscode"},
		{"claude-code-user.json", "claude-code"},
		{"windsurf-other-servers.json", "windsurf"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "merge", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			e := editor(t, tt.editor)
			m, err := mergeEntry(src, e, DefaultName, unixServer(e))
			if err != nil {
				t.Fatal(err)
			}
			in, out := strings.Split(string(src), "\n"), strings.Split(string(m.out), "\n")
			j := 0
			for _, line := range out {
				if j < len(in) && line == in[j] {
					j++
					continue
				}
				// A line of the input may gain the comma that now
				// separates it from the entry after it.
				if j < len(in) && gainedComma(line, in[j]) {
					j++
				}
			}
			if j != len(in) {
				t.Errorf("input line %d (%q) is not in the output, in order:\n%s", j+1, in[j], m.out)
			}
		})
	}
}

// gainedComma reports whether line is in with one comma added.
func gainedComma(line, in string) bool {
	for i := range len(line) {
		if line[i] == ',' && line[:i]+line[i+1:] == in {
			return true
		}
	}
	return false
}

// TestMergeRefuses covers files that setup does not write over: each
// error says where the problem is.
func TestMergeRefuses(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		problem   string
	}{
		{"missing comma", "{\n  \"mcpServers\": {\n    \"a\": {}\n    \"b\": {}\n  }\n}\n", 4, 5, "this is not valid JSON (invalid character '\"' after object value (expecting ',' or '}'))"},
		{"cut short", "{\n  \"mcpServers\": {\n", 3, 1, "this is not valid JSON (parsing value: unexpected EOF)"},
		{"single quotes", "{'mcpServers': {}}", 1, 2, "this is not valid JSON"},
		{"array at the top", "\n[1, 2]\n", 2, 1, `the file holds an array, where Cursor expects an object ("{...}") with a "mcpServers" member`},
		{"string at the top", `"servers"`, 1, 1, "the file holds a string"},
		{"servers an array", "{\n  \"mcpServers\": [\n    {\"command\": \"x\"}\n  ]\n}", 2, 17, `"mcpServers" is an array, where Cursor expects an object of servers by name`},
		{"last of two servers keys a number", `{"mcpServers": {}, "mcpServers": 1}`, 1, 34, `"mcpServers" is a number`},
	}
	e := editor(t, "cursor")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mergeEntry([]byte(tt.src), e, DefaultName, unixServer(e))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FileError", err)
			}
			if fe.Line != tt.line || fe.Column != tt.col {
				t.Errorf("place %d:%d, want %d:%d (%v)", fe.Line, fe.Column, tt.line, tt.col, err)
			}
			if !strings.HasPrefix(fe.Problem, tt.problem) {
				t.Errorf("problem %q, want it to start with %q", fe.Problem, tt.problem)
			}
			if !strings.Contains(fe.Fix, "never writes over") {
				t.Errorf("fix %q does not say the file is left alone", fe.Fix)
			}
		})
	}
}
