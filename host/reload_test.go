package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// reloadFrom serves the config src from a file, beside files named
// others, and returns a Reloader of it whose diagnostics go to diags.
func reloadFrom(t *testing.T, src string, diags io.Writer, others ...string) (*Reloader, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range others {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, d := Load([]string{path}, nil)
	if d.HasErrors() {
		t.Fatalf("the first config does not load: %s", d)
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	r := &Reloader{Paths: []string{path}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: diags}
	r.Prime(reg)
	return r, path
}

// TestReloadChanges saves edits and checks what each reload says changed:
// what clients see (added, removed, changed: list_changed is sent), and
// the definitions that changed behind a declaration clients see unchanged
// (redefined: logged, nothing sent).
func TestReloadChanges(t *testing.T) {
	tool := func(name, desc, text string) string {
		return "tool \"" + name + "\" {\n  description = \"" + desc + "\"\n  template { text = \"" + text + "\" }\n}\n"
	}
	prompt := func(desc, text string) string {
		return "prompt \"p\" {\n  description = \"" + desc + "\"\n  message \"user\" { text = \"" + text + "\" }\n}\n"
	}
	resource := func(file string) string {
		return "resource \"r\" {\n  uri  = \"file:///r.txt\"\n  file = \"" + file + "\"\n}\n"
	}
	server := func(limit string) string {
		return "server {\n  max_concurrent_calls = " + limit + "\n}\n"
	}
	base := tool("a", "A", "old") + tool("b", "B", "b")
	for _, tc := range []struct {
		name     string
		old, new string
		want     Changes
	}{
		{"template text", base, tool("a", "A", "new") + tool("b", "B", "b"),
			Changes{ToolsRedefined: []string{"a"}}},
		{"description", base, tool("a", "A2", "old") + tool("b", "B", "b"),
			Changes{ToolsChanged: []string{"a"}}},
		{"blocks reordered, comment between them", base, tool("b", "B", "b") + "# b first now\n" + tool("a", "A", "old"),
			Changes{}},
		{"added and removed", base, tool("c", "C", "c") + tool("a", "A", "new"),
			Changes{ToolsAdded: []string{"c"}, ToolsRemoved: []string{"b"}, ToolsRedefined: []string{"a"}}},
		{"prompt message", base + prompt("P", "hi"), base + prompt("P", "hello"),
			Changes{PromptsRedefined: []string{"p"}}},
		{"prompt description", base + prompt("P", "hi"), base + prompt("P2", "hi"),
			Changes{PromptsChanged: true}},
		{"resource file", base + resource("one.txt"), base + resource("two.txt"),
			Changes{ResourcesRedefined: []string{"r"}}},
		{"server block", server("4") + base, server("8") + base,
			Changes{ServerChanged: true}},
		{"server block added", base, server("4") + base,
			Changes{ServerChanged: true}},
		{"server block removed", server("4") + base, base,
			Changes{ServerChanged: true}},
		{"icon", base, strings.Replace(base, "description = \"A\"", "description = \"A\"\n  icon { src = \"https://example.com/a.png\" }", 1),
			Changes{ToolsChanged: []string{"a"}}},
		{"comment inside a block", base, strings.Replace(base, "  template { text = \"old\" }", "  # says old\n  template { text = \"old\" } // still\n  /* and */", 1),
			Changes{}},
		{"layout inside a block", base, strings.Replace(base, "  template { text = \"old\" }", "\n  template {\n    text   =   \"old\"\n  }\n", 1),
			Changes{}},
		{"comment and a real edit", base, strings.Replace(base, "  template { text = \"old\" }", "  # says new\n  template { text = \"new\" }", 1),
			Changes{ToolsRedefined: []string{"a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, path := reloadFrom(t, tc.old, io.Discard, "one.txt", "two.txt")
			if err := os.WriteFile(path, []byte(tc.new), 0o644); err != nil {
				t.Fatal(err)
			}
			res := r.Reload(context.Background())
			if !res.Applied {
				t.Fatalf("not applied: %+v", res)
			}
			if !reflect.DeepEqual(res.Changes, tc.want) {
				t.Errorf("changes = %+v\nwant      %+v", res.Changes, tc.want)
			}
		})
	}
}

// TestReloadDiagnosticsRendered: a reload prints its diagnostics as serve
// does at startup, with the source line and carets under the place: the
// errors of a broken save, and the warnings of one that is applied.
func TestReloadDiagnosticsRendered(t *testing.T) {
	good := "tool \"a\" {\n  description = \"a\"\n  template { text = \"a\" }\n}\n"
	for _, tc := range []struct {
		name, src   string
		wantApplied bool
		want        []string
	}{
		{"warning", "tool \"a\" {\n  description = \"a\"\n  template { text = env(\"TOOLHOST_TEST_UNSET_VAR\") }\n}\n", true, []string{
			"Warning: Environment variable not set\n",
			"on tools.hcl line 3, in tool \"a\":\n",
			"   3:   template { text = env(\"TOOLHOST_TEST_UNSET_VAR\") }\n                          " + strings.Repeat("^", len(`env("TOOLHOST_TEST_UNSET_VAR")`)) + "\n",
		}},
		{"error", "tool \"a\" {\n  description = \"a\"\n  template { text = param.nope }\n}\n", false, []string{
			"Error: Undeclared parameter\n",
			"on tools.hcl line 3, in tool \"a\":\n",
			"   3:   template { text = param.nope }\n                          ^^^^^^^^^^\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			r, path := reloadFrom(t, good, &out)
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			res := r.Reload(context.Background())
			if res.Applied != tc.wantApplied {
				t.Fatalf("applied = %v, want %v", res.Applied, tc.wantApplied)
			}
			got := strings.ReplaceAll(out.String(), filepath.Dir(path)+string(filepath.Separator), "")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the diagnostics printed lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestReloadEmptyFile: in a config directory, a file emptied holds the
// reload back (an editor may be mid-save) only until it has stayed empty
// for EmptyGrace; a file that was empty already (a placeholder) holds
// nothing back; and a config whose files are all empty is never loaded.
func TestReloadEmptyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(name string) string {
		return "tool \"" + name + "\" {\n  template { text = \"" + name + "\" }\n}\n"
	}
	write("a.hcl", tool("a"))
	write("b.hcl", tool("b"))
	reg, d := Load([]string{dir}, nil)
	if d.HasErrors() {
		t.Fatal(d)
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	r := &Reloader{Paths: []string{dir}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard}
	r.Prime(reg)
	names := func() string {
		var n []string
		for _, t := range srv.Registry().Tools {
			n = append(n, t.Name)
		}
		return strings.Join(n, ",")
	}

	// b.hcl emptied, a.hcl edited: held back, then loaded as it is.
	write("b.hcl", "")
	write("a.hcl", tool("a")+tool("a2"))
	res := r.Reload(context.Background())
	if !res.Skipped || res.RetryAfter <= 0 || res.RetryAfter > EmptyGrace {
		t.Fatalf("first reload with b.hcl empty: %+v", res)
	}
	deadline := time.Now().Add(5 * EmptyGrace)
	for !res.Applied {
		if time.Now().After(deadline) {
			t.Fatalf("b.hcl empty for %s: still not loaded; last %+v", 5*EmptyGrace, res)
		}
		// What Watch does: try again when the result says to.
		time.Sleep(res.RetryAfter)
		res = r.Reload(context.Background())
	}
	if got := names(); got != "a,a2" {
		t.Fatalf("tools = %s", got)
	}

	// b.hcl empty in service: an edit of a.hcl is loaded at once.
	write("a.hcl", tool("a"))
	if res := r.Reload(context.Background()); !res.Applied {
		t.Fatalf("edit beside an empty placeholder: %+v", res)
	}
	if got := names(); got != "a" {
		t.Fatalf("tools = %s", got)
	}

	// Every file empty: never loaded, however long it stays so.
	write("a.hcl", "")
	if res := r.Reload(context.Background()); !res.Skipped || res.RetryAfter != 0 {
		t.Fatalf("all files empty: %+v", res)
	}
	if got := names(); got != "a" {
		t.Fatalf("tools after emptying every file = %s", got)
	}
}

// TestBlockChangesBudget: a changed block source is lexed to tell a
// comment or layout edit from a real one only while the reload's budget
// lasts; past it, the change counts as a redefinition (only logged).
func TestBlockChangesBudget(t *testing.T) {
	key := blockKey{"tool", "a"}
	old := map[blockKey]blockDef{key: {dir: "d", src: []byte("tool \"a\" {\n  template { text = \"x\" }\n}")}}
	commented := map[blockKey]blockDef{key: {dir: "d", src: []byte("tool \"a\" {\n  # note\n  template { text = \"x\" }\n}")}}
	edited := map[blockKey]blockDef{key: {dir: "d", src: []byte("tool \"a\" {\n  template { text = \"y\" }\n}")}}
	moved := map[blockKey]blockDef{key: {dir: "e", src: old[key].src}}
	for _, tc := range []struct {
		name   string
		new    map[blockKey]blockDef
		budget int
		want   bool
	}{
		{"comment", commented, maxLexedPerReload, false},
		{"edit", edited, maxLexedPerReload, true},
		{"other directory", moved, maxLexedPerReload, true},
		{"comment, budget spent", commented, 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newBlockChanges(old, tc.new)
			c.lexBudget = tc.budget
			if got := c.redefined(key); got != tc.want {
				t.Fatalf("redefined = %v, want %v", got, tc.want)
			}
		})
	}
	var none *blockChanges // the first Apply: nothing to compare
	if none.redefined(key) {
		t.Fatal("a nil blockChanges reports a redefinition")
	}
}

// TestInitializeAfterReload: a client that connects after a reload is told
// the server block in service (name, title, version, instructions), not
// the one the server started with.
func TestInitializeAfterReload(t *testing.T) {
	server := func(name, version, instructions string) string {
		return "server {\n  name = \"" + name + "\"\n  title = \"T " + name + "\"\n  version = \"" + version + "\"\n  instructions = \"" + instructions + "\"\n}\n" + stdioIDConfig
	}
	p := startStdio(t, loadSource(t, server("before", "1.0.0", "old words")))
	old, _ := p.srv.Apply(loadSource(t, server("after", "2.0.0", "new words")))
	old.Retire()
	p.send(initializeLine(0))
	r := p.next()
	var res struct {
		ServerInfo   mcp.Implementation `json:"serverInfo"`
		Instructions string             `json:"instructions"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("initialize: %s", r.line)
	}
	want := mcp.Implementation{Name: "after", Title: "T after", Version: "2.0.0"}
	if !reflect.DeepEqual(res.ServerInfo, want) || res.Instructions != "new words" {
		t.Fatalf("initialize told %+v and %q, want %+v and %q", res.ServerInfo, res.Instructions, want, "new words")
	}
}

// TestSessionLevelsForgotten: the logging level a session set is kept for
// NotifyCleared only while the session exists; sessions that come and go
// (HTTP clients) leave nothing behind.
func TestSessionLevelsForgotten(t *testing.T) {
	reg := loadRegistry(t, "args.hcl")
	srv := NewServer(reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	count := func() int {
		n := 0
		srv.levels.Range(func(any, any) bool { n++; return true })
		return n
	}
	func() {
		ctx := context.Background()
		for range 3 {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.MCP().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "levels"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
				t.Fatal(err)
			}
			if v, ok := srv.levels.Load(weak.Make(ss)); !ok || v != mcp.LoggingLevel("error") {
				t.Fatalf("the level the session set is %v (kept: %v), want error", v, ok)
			}
			_ = cs.Close()
			_ = ss.Wait()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for count() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d levels still kept 10 s after their sessions ended", count())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchLinkRepointedBeforeFirstLook: the config is a symlink, and it
// is re-pointed at a file not there yet after Watch has worked out what to
// watch but before it watches it, so that no event says so (serve starts
// the watcher once the first answer is out, while a client may already
// act). Its first look finds the link leading nowhere, and the file's
// creation afterwards must still be seen and loaded.
func TestWatchLinkRepointedBeforeFirstLook(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine 8 has no symbolic links: os.Symlink returns nil and makes nothing")
	}
	dir := t.TempDir()
	v1, v2, cfg := filepath.Join(dir, "v1.hcl"), filepath.Join(dir, "v2.hcl"), filepath.Join(dir, "tools.hcl")
	tool := func(name string) string {
		return "tool \"" + name + "\" {\n  description = \"A tool.\"\n  template { text = \"x\" }\n}\n"
	}
	if err := os.WriteFile(v1, []byte(tool("alpha")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("v1.hcl", cfg); err != nil {
		t.Fatal(err)
	}
	srv, results := watchConfig(t, cfg, func(r *Reloader) {
		r.afterWatchSet = func() {
			if err := os.Symlink("v2.hcl", cfg+".new"); err != nil {
				t.Error(err)
			}
			if err := os.Rename(cfg+".new", cfg); err != nil {
				t.Error(err)
			}
		}
	})

	next := func(what string) ReloadResult {
		t.Helper()
		select {
		case res := <-results:
			return res
		case <-time.After(10 * time.Second):
			t.Fatalf("no reload within 10 s: %s", what)
			return ReloadResult{}
		}
	}
	if res := next("the first look, at the link leading nowhere"); !res.Diagnostics.HasErrors() {
		t.Fatalf("the first look found no error: %+v", res)
	}
	if err := os.WriteFile(v2, []byte(tool("beta")), 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		res := next("the config written where the link leads")
		if res.Applied {
			if got := srv.Registry().Tools[0].Name; got != "beta" {
				t.Fatalf("tool in service %q, want beta", got)
			}
			return
		}
	}
}

// watchConfig serves the config at path and watches it until the test
// ends, with a Reloader that setup may change before Watch starts. It
// returns the server and the results of the reloads.
func watchConfig(t *testing.T, path string, setup func(*Reloader)) (*Server, <-chan ReloadResult) {
	t.Helper()
	reg, d := Load([]string{path}, nil)
	if d.HasErrors() {
		t.Fatal(d)
	}
	srv := NewServer(reg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { srv.Registry().Retire() })
	results := make(chan ReloadResult, 16)
	r := &Reloader{Paths: []string{path}, Server: srv, Logger: slog.New(slog.DiscardHandler), Diagnostics: io.Discard,
		OnReload: func(res ReloadResult) { results <- res }}
	r.Prime(reg)
	if setup != nil {
		setup(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv, results
}

// TestWatchDirGoneBeforeAdd: the config's directory is renamed away after
// Watch has looked at it and before it adds it to the watcher, and a new
// one is put in its place a moment later (a deploy swapping folders just
// as serve starts its watcher). Watch keeps going, and the new folder's
// config is loaded; it used to give up, leaving hot reload off.
func TestWatchDirGoneBeforeAdd(t *testing.T) {
	root := t.TempDir()
	proj, next := filepath.Join(root, "proj"), filepath.Join(root, "proj.new")
	tool := func(name string) string {
		return "tool \"" + name + "\" {\n  description = \"A tool.\"\n  template { text = \"x\" }\n}\n"
	}
	for dir, name := range map[string]string{proj: "alpha", next: "beta"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tools.hcl"), []byte(tool(name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(proj, "tools.hcl")
	swapped := make(chan struct{})
	var once sync.Once
	srv, results := watchConfig(t, cfg, func(r *Reloader) {
		r.beforeAdd = func(dir string) {
			if !sameDir(dir, proj) {
				return
			}
			once.Do(func() { renameAway(t, proj, filepath.Join(root, "proj.old"), next, swapped) })
		}
	})
	select {
	case <-swapped:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not add the config's directory within 10 s")
	}
	awaitTool(t, srv, results, "beta", "the config of the new folder")
}

// awaitTool waits up to 10 s for a reload that puts the tool named name in
// service, failing the test with what otherwise.
func awaitTool(t *testing.T, srv *Server, results <-chan ReloadResult, name, what string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case res := <-results:
			if res.Applied && srv.Registry().Tools[0].Name == name {
				return
			}
		case <-deadline:
			t.Fatalf("%s was not loaded within 10 s; tool in service: %s", what, srv.Registry().Tools[0].Name)
		}
	}
}

// sameDir reports whether a and b name one directory, comparing their real
// paths (the watcher is given symlinks resolved).
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return ra == rb
}

// renameAway renames dir to old, and next to dir 200 ms later, then closes
// done.
func renameAway(t *testing.T, dir, old, next string, done chan struct{}) {
	if err := os.Rename(dir, old); err != nil {
		t.Error(err)
	}
	go func() {
		defer close(done)
		time.Sleep(200 * time.Millisecond)
		if err := os.Rename(next, dir); err != nil {
			t.Error(err)
		}
	}()
}
