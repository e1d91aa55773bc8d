package host

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logOf returns the level and text of a logging notification, or ok false
// for any other line.
func logOf(r stdioReply) (level, text string, ok bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Level string `json:"level"`
			Data  string `json:"data"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(r.line), &m) != nil || m.Method != "notifications/message" {
		return "", "", false
	}
	return m.Params.Level, m.Params.Data, true
}

// wantLog fails unless the next line of p is a logging notification at
// level whose text has want.
func wantLog(t *testing.T, p *stdioPeer, level, want string) {
	t.Helper()
	r := p.next()
	if l, text, ok := logOf(r); !ok || l != level || !strings.Contains(text, want) {
		t.Fatalf("got %s, want a notifications/message at %s with %q", r.line, level, want)
	}
}

// wantToolsList sends tools/list with id and fails unless the next line
// is its answer, listing n tools: no notification comes first.
func wantToolsList(t *testing.T, p *stdioPeer, id string, n int) {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
	r := p.next()
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if string(r.ID) != id || json.Unmarshal(r.Result, &res) != nil || len(res.Tools) != n {
		t.Fatalf("got %s, want the answer to tools/list %s with %d tools", r.line, id, n)
	}
}

// configFile returns the path of a config file in a fresh directory, and
// a function that writes it.
func configFile(t *testing.T) (string, func(src string)) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	return path, func(src string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// brokenSource is a config of one tool, hello, with an argument tool
// blocks do not take; fixedSource is it without.
const brokenSource = `tool "hello" {
  description = "greets"
  bogus = 1
  template { text = "hello" }
}
`

var fixedSource = strings.Replace(brokenSource, "  bogus = 1\n", "", 1)

// TestNoticeOnceForEveryClient: the errors of a failed reload reach the
// clients connected then, by the broadcast, and each client that connects
// while they last once it is initialized; a client hears them once, and
// none after a reload that fixes them.
func TestNoticeOnceForEveryClient(t *testing.T) {
	path, write := configFile(t)
	write(fixedSource)
	reg, d := Load([]string{path}, nil)
	if d.HasErrors() {
		t.Fatal(d)
	}
	before := startStdio(t, reg)
	r := &Reloader{Paths: []string{path}, Server: before.srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	r.Prime(reg)
	t.Cleanup(func() { before.srv.Registry().Retire() })
	before.initialize()
	wantToolsList(t, before, "1", 1)

	write(brokenSource)
	if res := r.Reload(context.Background()); !res.Diagnostics.HasErrors() {
		t.Fatalf("the broken config reloaded: %+v", res)
	}
	const told = `toolhost: the config has errors; the previous tools stay in service.`
	wantLog(t, before, "error", told)
	wantToolsList(t, before, "2", 1)

	after := attachStdio(t, before.srv)
	after.initialize()
	wantLog(t, after, "error", "tools.hcl:3:3: error: Unsupported argument")
	wantToolsList(t, after, "1", 1)
	wantToolsList(t, after, "2", 1)

	write(fixedSource + "# fixed\n")
	if res := r.Reload(context.Background()); !res.Applied {
		t.Fatalf("the fixed config was not applied: %+v", res)
	}
	for _, p := range []*stdioPeer{before, after} {
		wantLog(t, p, "warning", "the config is valid again")
	}
	late := attachStdio(t, before.srv)
	late.initialize()
	wantToolsList(t, late, "1", 1)
}

// TestPlaceholderServes: a server of a PlaceholderRegistry answers
// initialize with instructions that say the config has errors, tells the
// client the errors once it is initialized, lists no tools, says why a
// call finds none, and says no tools are served when a reload finds other
// errors; the first reload without errors loads the tools, resources and
// prompts, with a list_changed for each.
func TestPlaceholderServes(t *testing.T) {
	path, write := configFile(t)
	write(brokenSource)
	failed, d := Load([]string{path}, nil)
	if !d.HasErrors() {
		t.Fatal("the broken config loaded")
	}
	ph := PlaceholderRegistry(failed, d)
	p := startStdio(t, ph)
	r := &Reloader{Paths: []string{path}, Server: p.srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	r.Prime(ph)
	t.Cleanup(func() { p.srv.Registry().Retire() })

	p.send(initializeLine(0))
	var init struct {
		Instructions string `json:"instructions"`
	}
	if res := p.next(); json.Unmarshal(res.Result, &init) != nil || !strings.Contains(init.Instructions, "toolhost could not load its config: 1 error.") || !strings.Contains(init.Instructions, "The first: "+path+":3:3: Unsupported argument.") {
		t.Fatalf("initialize: %s", res.line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	wantLog(t, p, "error", "toolhost: the config has errors; no tools, resources or prompts are served until it is saved without them.\n"+path+":3:3: error: Unsupported argument")
	wantToolsList(t, p, "1", 0)
	p.send(helloLine("2"))
	wantError(t, p.next(), "2", -32602, `unknown tool "hello"; this server declares no tools: the config has errors`)

	// The same errors again (Watch's first look): nothing new to tell.
	if res := r.Reload(context.Background()); res.Applied {
		t.Fatalf("the broken config was applied: %+v", res)
	}
	write(strings.Replace(brokenSource, "bogus", "also_bogus", 1))
	r.Reload(context.Background())
	wantLog(t, p, "error", "no tools, resources or prompts are served until it is saved without them.\n"+path+`:3:3: error: Unsupported argument: An argument named "also_bogus"`)

	notes := filepath.Join(filepath.Dir(path), "notes.txt")
	if err := os.WriteFile(notes, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(fixedSource + "resource \"notes\" {\n  uri  = \"file:///notes.txt\"\n  file = \"notes.txt\"\n}\nprompt \"p\" {\n  description = \"P\"\n  message \"user\" { text = \"hi\" }\n}\n")
	if res := r.Reload(context.Background()); !res.Applied || strings.Join(res.Changes.ToolsAdded, ",") != "hello" {
		t.Fatalf("the fixed config: %+v", res)
	}
	seen := map[string]bool{}
	for range 4 {
		r := p.next()
		if _, text, ok := logOf(r); ok {
			seen[text] = true
		} else {
			seen[r.line] = true
		}
	}
	for _, want := range []string{
		"toolhost: the config is valid now and was loaded; its tools are served.",
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`,
	} {
		if !seen[want] {
			t.Errorf("after the fix the client got %v, without %s", seen, want)
		}
	}
	wantToolsList(t, p, "3", 1)
	if p.srv.Registry().Placeholder() {
		t.Error("the registry in service is still the placeholder")
	}
}
