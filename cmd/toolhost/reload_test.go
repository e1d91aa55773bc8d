package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// toolConfig is a config of template tools named by names.
func toolConfig(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "tool %q {\n  description = \"tool %s\"\n  template { text = \"I am %s\" }\n}\n", n, n, n)
	}
	return b.String()
}

// until reads messages until one satisfies ok, and returns it. Messages that
// do not are kept in skipped. It fails after the deadline.
func (s *session) until(what string, ok func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case line, open := <-s.lines:
			if !open {
				s.t.Fatalf("server closed stdout while waiting for %s", what)
			}
			m := map[string]any{}
			if err := jsonUnmarshal(line, &m); err != nil {
				s.t.Fatalf("stdout line is not JSON: %q", line)
			}
			if ok(m) {
				return m
			}
		case <-deadline:
			s.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func isMethod(method string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["method"] == method }
}

func isID(id int) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == float64(id) }
}

// toolNames lists the tools the server offers now.
func (s *session) toolNames(id int) []string {
	s.t.Helper()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list"})
	resp := s.until("tools/list reply", isID(id))
	var names []string
	for _, t := range resp["result"].(map[string]any)["tools"].([]any) {
		names = append(names, t.(map[string]any)["name"].(string))
	}
	return names
}

// writeAtomically saves like vim or JetBrains: write a temp file, rename it
// over the original.
func writeAtomically(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	replaceFile(t, tmp, path)
}

func TestReload(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, path string, content string)
	}{
		{"in place", func(t *testing.T, path, content string) {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"rename over", writeAtomically},
		{"delete and re-create", func(t *testing.T, path, content string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			// Not a wait for the server: the gap an editor leaves between
			// deleting the file and writing the new one, during which the
			// watcher sees the file missing.
			time.Sleep(20 * time.Millisecond)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, toolConfig("alpha", "beta"))
			s := startServe(t, cfg)
			s.initialize("2025-06-18")
			if got := strings.Join(s.toolNames(1), ","); got != "alpha,beta" {
				t.Fatalf("tools before: %s", got)
			}
			tc.edit(t, cfg, toolConfig("alpha", "gamma"))
			s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
			if got := strings.Join(s.toolNames(2), ","); got != "alpha,gamma" {
				t.Fatalf("tools after: %s", got)
			}
			s.sendJSON(call(3, "gamma", nil))
			if text, _ := resultText(t, s.until("gamma reply", isID(3))); text != "I am gamma" {
				t.Fatalf("gamma answered %q", text)
			}
		})
	}
}

// TestReloadEditBeforeInitialize: the watcher starts once initialize is
// answered; a save made after the load and before that is not lost. The
// client is told once it is initialized, and lists the new tools.
func TestReloadEditBeforeInitialize(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha", "beta"))
	s := startServe(t, cfg)
	s.waitStderr("the config loaded", func(e string) bool { return strings.Contains(e, "serving over stdio") })
	writeAtomically(t, cfg, toolConfig("alpha", "gamma"))
	s.initialize("2025-06-18")
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(1), ","); got != "alpha,gamma" {
		t.Fatalf("tools after the save: %s", got)
	}
}

// TestReloadWithoutClient: over stdio with no client initialized (serve
// tried in a terminal), a save is still reloaded, and a client that comes
// later lists the new tools.
func TestReloadWithoutClient(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha", "beta"))
	s := startServe(t, cfg)
	s.waitStderr("the config loaded", func(e string) bool { return strings.Contains(e, "serving over stdio") })
	writeAtomically(t, cfg, toolConfig("alpha", "gamma"))
	s.waitStderr("the reload", func(e string) bool { return strings.Contains(e, "reloaded config") })
	s.initialize("2025-06-18")
	if got := strings.Join(s.toolNames(1), ","); got != "alpha,gamma" {
		t.Fatalf("tools after the save: %s", got)
	}
}

// TestReloadSameErrorsToldOnce: once told of a broken config, clients are
// not told again of the same errors when the file is touched or saved
// unchanged (stderr still shows each attempt); the next thing they hear
// is the fix.
func TestReloadSameErrorsToldOnce(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)

	broken := toolConfig("alpha") + "tool \"broken\" {\n"
	if err := os.WriteFile(cfg, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := s.until("error notification", isMethod("notifications/message"))
	if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, "Unclosed configuration block") {
		t.Fatalf("after the broken save the client heard %q", data)
	}
	e := s.waitStderr("the first failed reload", func(e string) bool {
		return strings.Count(e, "reload failed") == 1 && strings.Contains(e, "There is no closing brace")
	})
	// stderr says each diagnostic once, rendered as at startup; the log
	// line names the first, with its place.
	if n := strings.Count(e, "There is no closing brace"); n != 1 {
		t.Errorf("the diagnostic's detail is on stderr %d times, want once:\n%s", n, e)
	}
	// slog quotes the value as strconv does (a Windows path's backslashes
	// doubled).
	if !strings.Contains(e, "first="+strings.TrimSuffix(strconv.Quote(cfg+":5:"), "\"")) {
		t.Errorf("the log line does not name the first error's place (%s:5:...):\n%s", cfg, e)
	}
	if testconfig.UnderWine() {
		t.Skip("the rest is not checked: wine 8 reports no change to a directory watcher when a file is touched (SetFileTime)")
	}
	now := time.Now()
	if err := os.Chtimes(cfg, now, now); err != nil {
		t.Fatal(err)
	}
	s.waitStderr("a reload after the touch", func(e string) bool { return strings.Count(e, "reload failed") == 2 })
	writeAtomically(t, cfg, broken)
	s.waitStderr("a reload after the unchanged save", func(e string) bool { return strings.Count(e, "reload failed") == 3 })

	// Other errors are news.
	writeAtomically(t, cfg, toolConfig("alpha")+"tool \"x\" {\n  descriptio = \"x\"\n  template { text = \"x\" }\n}\n")
	msg = s.until("notification of the new error", isMethod("notifications/message"))
	if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, "Unsupported argument") {
		t.Fatalf("after a save with another error the client heard %q, want the new error", data)
	}

	writeAtomically(t, cfg, toolConfig("alpha"))
	msg = s.until("all-clear notification", isMethod("notifications/message"))
	if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, "valid again") {
		t.Fatalf("after the fix the client heard %q", data)
	}
	if level := msg["params"].(map[string]any)["level"]; level != "warning" {
		t.Errorf("the all-clear came at level %v, want warning (the default level)", level)
	}
}

// TestReloadAllClearAtClientLevel: a client that set its logging level to
// error hears a broken config's error and then, once the config is fixed,
// the all-clear, at error; a client at critical hears neither.
func TestReloadAllClearAtClientLevel(t *testing.T) {
	for _, tt := range []struct {
		level    string
		hearsAll bool
	}{
		{"error", true},
		{"critical", false},
	} {
		t.Run(tt.level, func(t *testing.T) {
			cfg := writeConfig(t, toolConfig("alpha"))
			s := startServe(t, cfg)
			s.initialize("2025-06-18")
			s.send(`{"jsonrpc":"2.0","id":50,"method":"logging/setLevel","params":{"level":"` + tt.level + `"}}`)
			s.until("the answer to logging/setLevel", func(m map[string]any) bool { return m["id"] == float64(50) })

			if err := os.WriteFile(cfg, []byte(toolConfig("alpha")+"tool \"broken\" {\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.hearsAll {
				msg := s.until("error notification", isMethod("notifications/message"))
				if p := msg["params"].(map[string]any); p["level"] != "error" || !strings.Contains(fmt.Sprint(p["data"]), "has errors") {
					t.Fatalf("after the broken save the client heard %v", p)
				}
			} else {
				s.waitStderr("the failed reload", func(e string) bool { return strings.Contains(e, "reload failed") })
			}
			writeAtomically(t, cfg, toolConfig("beta"))
			// The SDK sends tools/list_changed a little after the reload has
			// registered the tools, and the all-clear goes out right after
			// that registration; tools/list's answer comes after both.
			var heard []map[string]any
			collect := func(until func(map[string]any) bool) func(map[string]any) bool {
				return func(m map[string]any) bool {
					if m["method"] == "notifications/message" {
						heard = append(heard, m["params"].(map[string]any))
					}
					return until(m)
				}
			}
			s.until("tools/list_changed", collect(isMethod("notifications/tools/list_changed")))
			s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 51, "method": "tools/list"})
			s.until("the answer to tools/list", collect(isID(51)))
			switch {
			case !tt.hearsAll && len(heard) > 0:
				t.Fatalf("a client at level %s heard %v", tt.level, heard)
			case tt.hearsAll && (len(heard) != 1 || heard[0]["level"] != tt.level || !strings.Contains(fmt.Sprint(heard[0]["data"]), "valid again")):
				t.Fatalf("after the fix a client at level %s heard %v, want the all-clear at %s", tt.level, heard, tt.level)
			}
		})
	}
}

// TestReloadRapidSaves saves about thirty times a second for three
// seconds, the ways editors do (in place, rename over, half-written then
// completed, briefly empty), while calls keep arriving: every call is
// answered, and the server settles on the last save.
func TestReloadRapidSaves(t *testing.T) {
	cfg := writeConfig(t, toolConfig("stable", "v0"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)

	// One reader records every reply by id.
	var mu sync.Mutex
	replies := map[float64]map[string]any{}
	go func() {
		for line := range s.lines {
			var m map[string]any
			if jsonUnmarshal(line, &m) != nil {
				continue
			}
			if id, ok := m["id"].(float64); ok {
				mu.Lock()
				replies[id] = m
				mu.Unlock()
			}
		}
	}()
	var sendMu sync.Mutex
	send := func(v any) {
		sendMu.Lock()
		defer sendMu.Unlock()
		s.sendJSON(v)
	}

	stop := make(chan struct{})
	sent := make(chan int, 10000)
	go func() {
		defer close(sent)
		for id := 1000; ; id++ {
			select {
			case <-stop:
				return
			case <-time.After(7 * time.Millisecond):
			}
			send(call(id, "stable", nil))
			sent <- id
		}
	}()

	saves := 0
	end := time.Now().Add(3 * time.Second)
	for i := 1; time.Now().Before(end); i++ {
		content := toolConfig("stable", fmt.Sprintf("v%d", i))
		switch i % 4 {
		case 0:
			if err := os.WriteFile(cfg, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		case 1:
			writeAtomically(t, cfg, content)
		case 2: // half-written, then completed
			if err := os.WriteFile(cfg, []byte(content[:len(content)/2]), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * time.Millisecond)
			if err := os.WriteFile(cfg, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		case 3: // briefly empty
			if err := os.WriteFile(cfg, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * time.Millisecond)
			if err := os.WriteFile(cfg, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		saves = i
		time.Sleep(30 * time.Millisecond)
	}
	close(stop)
	var ids []int
	for id := range sent {
		ids = append(ids, id)
	}
	if saves < 50 || len(ids) < 100 {
		t.Fatalf("only %d saves and %d calls; the test did not exercise what it should", saves, len(ids))
	}
	want := fmt.Sprintf("stable,v%d", saves)
	deadline := time.Now().Add(15 * time.Second)
	for id := 1; ; id++ {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list"})
		var got string
		for time.Now().Before(deadline) {
			mu.Lock()
			m := replies[float64(id)]
			mu.Unlock()
			if m != nil {
				var names []string
				for _, tl := range m["result"].(map[string]any)["tools"].([]any) {
					names = append(names, tl.(map[string]any)["name"].(string))
				}
				got = strings.Join(names, ",")
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d saves the tools are %q, want %q", saves, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, id := range ids {
		for {
			mu.Lock()
			m := replies[float64(id)]
			mu.Unlock()
			if m != nil {
				if text, isErr := resultText(t, m); text != "I am stable" || isErr {
					t.Fatalf("call %d during the saves answered %v", id, m)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("call %d sent during the saves was never answered", id)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.Logf("%d saves, %d calls, all answered", saves, len(ids))
}

// TestReloadListChangedCapability: the capabilities advertise listChanged
// for tools, resources and prompts only when the config is watched.
func TestReloadListChangedCapability(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha")+"prompt \"p\" {\n  message \"user\" { text = \"hi\" }\n}\n")
	for _, tc := range []struct {
		watch string
		want  bool
	}{
		{"--watch=true", true},
		{"--watch=false", false},
	} {
		t.Run(tc.watch, func(t *testing.T) {
			s := startServe(t, tc.watch, cfg)
			caps := s.initialize("2025-06-18")["result"].(map[string]any)["capabilities"].(map[string]any)
			for _, kind := range []string{"tools", "resources", "prompts"} {
				c, _ := caps[kind].(map[string]any)
				if got, _ := c["listChanged"].(bool); got != tc.want {
					t.Errorf("%s: capabilities.%s = %v, want listChanged %v", tc.watch, kind, c, tc.want)
				}
			}
		})
	}
}

func TestReloadOff(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	s := startServe(t, "--watch=false", cfg)
	s.initialize("2025-06-18")
	writeAtomically(t, cfg, toolConfig("beta"))
	// Give a watcher, were there one, several debounce periods: nothing is
	// to happen, so there is no event to wait for.
	time.Sleep(500 * time.Millisecond)
	if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
		t.Fatalf("with --watch=false the tools changed to %s", got)
	}
}

// TestReloadNotifiesPerKind changes only a prompt, then only a tool: each
// reload sends one notification, of the kind that changed.
func TestReloadNotifiesPerKind(t *testing.T) {
	prompt := func(text string) string {
		return fmt.Sprintf("prompt \"p\" {\n  description = %q\n  message \"user\" { text = \"hi\" }\n}\n", text)
	}
	cfg := writeConfig(t, toolConfig("alpha")+prompt("one"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)

	// Every message up to the reply to a later request is collected: the
	// notifications of one reload are sent before the server reads on.
	collect := func(id int) []string {
		var methods []string
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "ping"})
		s.until("ping reply", func(m map[string]any) bool {
			if method, ok := m["method"].(string); ok {
				methods = append(methods, method)
			}
			return m["id"] == float64(id)
		})
		return methods
	}

	writeAtomically(t, cfg, toolConfig("alpha")+prompt("two"))
	first := s.until("prompts/list_changed", func(m map[string]any) bool { return m["method"] != nil })
	if first["method"] != "notifications/prompts/list_changed" {
		t.Fatalf("a prompt change sent %v", first["method"])
	}
	time.Sleep(100 * time.Millisecond) // room for a wrong second notification to arrive
	if extra := collect(2); len(extra) > 0 {
		t.Fatalf("a prompt change also sent %v", extra)
	}

	writeAtomically(t, cfg, toolConfig("alpha", "beta")+prompt("two"))
	first = s.until("tools/list_changed", func(m map[string]any) bool { return m["method"] != nil })
	if first["method"] != "notifications/tools/list_changed" {
		t.Fatalf("a tool change sent %v", first["method"])
	}
	time.Sleep(100 * time.Millisecond)
	if extra := collect(3); len(extra) > 0 {
		t.Fatalf("a tool change also sent %v", extra)
	}
}

// TestReloadNotifiesSubscribers: a reload that changes where a subscribed
// resource's content comes from tells its subscribers, though clients list
// it as before: a resource's file, and the directory of the resource
// template that serves a subscribed URI. An unsubscribed URI is not told.
func TestReloadNotifiesSubscribers(t *testing.T) {
	config := func(file, dir string) string {
		return toolConfig("alpha") + fmt.Sprintf(`
resource "report" {
  uri  = "docs://report"
  file = %q
}
resource_template "notes" {
  uri_template = "notes:///{path}"
  dir          = %q
}
`, file, dir)
	}
	cfg := writeConfig(t, config("r1.md", "notes"))
	base := filepath.Dir(cfg)
	for name, content := range map[string]string{"r1.md": "one", "r2.md": "two", "notes/a.md": "a1", "notes2/a.md": "a2"} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	for id, uri := range map[int]string{2: "docs://report", 3: "notes:///a.md"} {
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": map[string]any{"uri": uri}})
		if m := s.until("subscribe reply", isID(id)); m["error"] != nil {
			t.Fatalf("subscribe %s: %v", uri, m["error"])
		}
	}
	// updated collects the URIs of resources/updated up to the reply to a
	// ping sent once the reload has been logged.
	nextID := 10
	updated := func(reloads int) []string {
		t.Helper()
		s.waitStderr("the reload", func(stderr string) bool { return strings.Count(stderr, "reloaded config") >= reloads })
		time.Sleep(100 * time.Millisecond) // room for a notification to arrive
		nextID++
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": nextID, "method": "ping"})
		var uris []string
		s.until("ping reply", func(m map[string]any) bool {
			if m["method"] == "notifications/resources/updated" {
				uris = append(uris, fmt.Sprint(m["params"].(map[string]any)["uri"]))
			}
			return m["id"] == float64(nextID)
		})
		sort.Strings(uris)
		return uris
	}

	writeAtomically(t, cfg, config("r2.md", "notes"))
	if got := strings.Join(updated(1), ","); got != "docs://report" {
		t.Fatalf("after the resource's file changed, updated: %q", got)
	}
	writeAtomically(t, cfg, config("r2.md", "notes2"))
	if got := strings.Join(updated(2), ","); got != "notes:///a.md" {
		t.Fatalf("after the template's directory changed, updated: %q", got)
	}
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": map[string]any{"uri": "notes:///a.md"}})
	s.until("unsubscribe reply", isID(4))
	writeAtomically(t, cfg, config("r2.md", "notes")+"# a comment changes nothing\n")
	if got := strings.Join(updated(3), ","); got != "" {
		t.Fatalf("after unsubscribing, updated: %q", got)
	}
}

// waitStderr waits until the server's stderr so far satisfies ok, and
// returns it. It fails after the deadline.
func (s *session) waitStderr(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if stderr := s.stderrText(); ok(stderr) {
			return stderr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s on stderr", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stderrText is what the server has written to stderr so far.
func (s *session) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// TestReloadWarnings saves a config that is valid but has a warning: it
// is applied, stderr shows the warning exactly as startup prints it for
// the same file, and the client is told at level warning.
func TestReloadWarnings(t *testing.T) {
	const unset = "TOOLHOST_E2E_NEVER_SET"
	t.Setenv(unset, "") // restores it after the test, should it be set
	os.Unsetenv(unset)
	warned := toolConfig("alpha") + "tool \"a\" {\n  description = \"a\"\n  template { text = env(\"" + unset + "\") }\n}\n"
	cfg := writeConfig(t, toolConfig("alpha"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)

	writeAtomically(t, cfg, warned)
	msg := s.until("warning notification", isMethod("notifications/message"))
	params := msg["params"].(map[string]any)
	if params["level"] != "warning" || !strings.Contains(fmt.Sprint(params["data"]), "tools.hcl:7:21: warning: Environment variable not set") {
		t.Fatalf("notification = %v", params)
	}
	if got := strings.Join(s.toolNames(2), ","); got != "a,alpha" {
		t.Fatalf("a config with warnings was not applied: tools %s", got)
	}
	reloaded := warningBlock(s.waitStderr("the warning", func(e string) bool { return warningBlock(e) != "" }))

	// The same file at startup.
	s2 := startServe(t, cfg)
	atStart := warningBlock(s2.waitStderr("the warning at startup", func(e string) bool { return warningBlock(e) != "" }))
	if reloaded != atStart {
		t.Errorf("the reload printed:\n%s\nstartup prints:\n%s", reloaded, atStart)
	}
	if !strings.Contains(reloaded, "^^^^^") {
		t.Errorf("no carets under the warning:\n%s", reloaded)
	}
}

// warningBlock is the rendered warning in stderr, from "Warning:" up to
// the next log line, once it is complete.
func warningBlock(stderr string) string {
	i := strings.Index(stderr, "Warning: ")
	if i < 0 {
		return ""
	}
	j := strings.Index(stderr[i:], "\ntime=")
	if j < 0 {
		return ""
	}
	return stderr[i : i+j]
}

// TestReloadRedefinedTool changes only how a tool runs: the new text is
// served and the log names the tool as redefined, but clients get no
// list_changed, having nothing new to list.
func TestReloadRedefinedTool(t *testing.T) {
	tool := func(text string) string {
		return "tool \"a\" {\n  description = \"a\"\n  template { text = \"" + text + "\" }\n}\n"
	}
	cfg := writeConfig(t, tool("old"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)
	var listChanged int
	count := func(m map[string]any) {
		if m["method"] == "notifications/tools/list_changed" {
			listChanged++
		}
	}

	writeAtomically(t, cfg, tool("new"))
	s.waitStderr("the reload log naming a as redefined", func(e string) bool {
		return strings.Contains(e, `tools_changed="" tools_redefined=a `)
	})
	s.sendJSON(call(2, "a", nil))
	reply := s.until("a reply", func(m map[string]any) bool { count(m); return m["id"] == float64(2) })
	if text, _ := resultText(t, reply); text != "new" {
		t.Fatalf("after the reload a answered %q", text)
	}

	// A change clients see: exactly one list_changed, this one's (had
	// the redefinition sent one, it would have come first, a debounce
	// period earlier).
	writeAtomically(t, cfg, tool("new")+toolConfig("b"))
	s.until("tools/list_changed", func(m map[string]any) bool { count(m); return m["method"] == "notifications/tools/list_changed" })
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "ping"})
	s.until("ping reply", func(m map[string]any) bool { count(m); return m["id"] == float64(3) })
	if listChanged != 1 {
		t.Fatalf("got %d tools/list_changed for a redefinition and an addition, want 1", listChanged)
	}
}

// TestReloadToolIcon changes only a tool's icon, which clients show: the
// tool is changed (not redefined), list_changed is sent and tools/list
// gives the new icon.
func TestReloadToolIcon(t *testing.T) {
	tool := func(src string) string {
		return "tool \"a\" {\n  description = \"a\"\n  icon { src = \"" + src + "\" }\n  template { text = \"a\" }\n}\n"
	}
	cfg := writeConfig(t, tool("https://example.com/one.png"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)
	writeAtomically(t, cfg, tool("https://example.com/two.png"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	resp := s.until("tools/list reply", isID(2))
	tools := resp["result"].(map[string]any)["tools"].([]any)
	icons, _ := tools[0].(map[string]any)["icons"].([]any)
	if len(icons) != 1 || icons[0].(map[string]any)["src"] != "https://example.com/two.png" {
		t.Fatalf("icons after the reload: %v", icons)
	}
	s.waitStderr("the reload log naming a as changed", func(e string) bool {
		return strings.Contains(e, `tools_changed=a tools_redefined="" `)
	})
}

// TestReloadToolIconFile edits the file a tool's icon is read from at load
// (its data goes inline into tools/list): the edit is a change of the
// config, reloaded like an edit of tools.hcl.
func TestReloadToolIconFile(t *testing.T) {
	cfg := writeConfig(t, "tool \"a\" {\n  description = \"a\"\n  icon { file = \"icon.svg\" }\n  template { text = \"a\" }\n}\n")
	icon := filepath.Join(filepath.Dir(cfg), "icon.svg")
	svg := func(color string) []byte {
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="` + color + `"/></svg>`)
	}
	if err := os.WriteFile(icon, svg("red"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	iconData := func(id int) string {
		t.Helper()
		s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list"})
		tools := s.until("tools/list reply", isID(id))["result"].(map[string]any)["tools"].([]any)
		icons, _ := tools[0].(map[string]any)["icons"].([]any)
		if len(icons) != 1 {
			t.Fatalf("icons: %v", icons)
		}
		src := fmt.Sprint(icons[0].(map[string]any)["src"])
		data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/svg+xml;base64,"))
		if err != nil {
			t.Fatalf("icon src %q: %v", src, err)
		}
		return string(data)
	}
	if got := iconData(1); !strings.Contains(got, "red") {
		t.Fatalf("icon at the start: %s", got)
	}
	writeAtomically(t, icon, string(svg("blue")))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := iconData(2); !strings.Contains(got, "blue") {
		t.Fatalf("icon after the edit: %s", got)
	}
}
