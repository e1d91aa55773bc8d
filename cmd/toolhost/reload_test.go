package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
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

// TestReloadSymlinkSwap updates a config the way Kubernetes updates a
// mounted ConfigMap: tools.hcl -> ..data/tools.hcl, and ..data is a symlink
// swapped atomically to a new directory.
func TestReloadSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	write := func(version, content string) {
		vdir := filepath.Join(dir, "..v"+version)
		if err := os.Mkdir(vdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vdir, "tools.hcl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "..data_tmp")
		if err := os.Symlink("..v"+version, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	write("1", toolConfig("alpha"))
	cfg := filepath.Join(dir, "tools.hcl")
	if err := os.Symlink(filepath.Join("..data", "tools.hcl"), cfg); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
		t.Fatalf("tools before: %s", got)
	}
	write("2", toolConfig("alpha", "delta"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(2), ","); got != "alpha,delta" {
		t.Fatalf("tools after: %s", got)
	}
}

// TestReloadSymlinkElsewhere: the config is a symlink to a file in another
// directory (dotfiles, stow); editing the target in place and renaming a
// new file over it are both seen.
func TestReloadSymlinkElsewhere(t *testing.T) {
	other := t.TempDir()
	real := filepath.Join(other, "real.hcl")
	if err := os.WriteFile(real, []byte(toolConfig("alpha")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.Symlink(real, cfg); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
		t.Fatalf("tools before: %s", got)
	}
	if err := os.WriteFile(real, []byte(toolConfig("alpha", "beta")), 0o644); err != nil {
		t.Fatal(err)
	}
	s.until("tools/list_changed after an edit of the target", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(2), ","); got != "alpha,beta" {
		t.Fatalf("tools after the edit: %s", got)
	}
	tmp := filepath.Join(other, ".real.hcl.swp")
	if err := os.WriteFile(tmp, []byte(toolConfig("gamma")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, real); err != nil {
		t.Fatal(err)
	}
	s.until("tools/list_changed after a rename over the target", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(3), ","); got != "gamma" {
		t.Fatalf("tools after the rename: %s", got)
	}
}

// TestReloadBrokenSaveKeepsTools saves a broken config: the client is told
// at level error with the file and line, the old tools keep working, and the
// next good save is applied.
func TestReloadBrokenSaveKeepsTools(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.toolNames(1)

	writeAtomically(t, cfg, toolConfig("alpha")+"tool \"broken\" {\n  template { text = param.nope }\n}\n")
	msg := s.until("error notification", isMethod("notifications/message"))
	params := msg["params"].(map[string]any)
	if params["level"] != "error" || !strings.Contains(fmt.Sprint(params["data"]), "tools.hcl:6:21: error: Undeclared parameter") {
		t.Fatalf("notification = %v", params)
	}
	s.sendJSON(call(2, "alpha", nil))
	if text, isErr := resultText(t, s.until("alpha reply", isID(2))); text != "I am alpha" || isErr {
		t.Fatalf("alpha after a broken save: %q", text)
	}

	// Saved back to the config in service: the client hears it is fixed.
	writeAtomically(t, cfg, toolConfig("alpha"))
	msg = s.until("all-clear notification", isMethod("notifications/message"))
	if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, "valid again") {
		t.Fatalf("after reverting the broken save the client heard %q", data)
	}

	// Deleted: keep serving the last good set.
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	s.until("error notification for the missing file", isMethod("notifications/message"))
	s.sendJSON(call(3, "alpha", nil))
	if text, _ := resultText(t, s.until("alpha reply", isID(3))); text != "I am alpha" {
		t.Fatalf("alpha after delete: %q", text)
	}

	// Empty for a moment, then restored with a new tool.
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(250 * time.Millisecond)
	writeAtomically(t, cfg, toolConfig("alpha", "omega"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(4), ","); got != "alpha,omega" {
		t.Fatalf("tools after restore: %s", got)
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

func TestReloadOff(t *testing.T) {
	cfg := writeConfig(t, toolConfig("alpha"))
	s := startServe(t, "--watch=false", cfg)
	s.initialize("2025-06-18")
	writeAtomically(t, cfg, toolConfig("beta"))
	// Give a watcher, were there one, several debounce periods.
	time.Sleep(500 * time.Millisecond)
	if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
		t.Fatalf("with --watch=false the tools changed to %s", got)
	}
}

// TestReloadRunningCallFinishes removes a tool while a call of it runs: the
// call finishes on the definition it started with, and new calls see the
// new config.
func TestReloadRunningCallFinishes(t *testing.T) {
	slow := `tool "slow" {
  description = "sleeps"
  exec {
    command = ["sh", "-c", "sleep 1; printf done"]
    timeout = "20s"
  }
}
`
	cfg := writeConfig(t, slow+toolConfig("alpha"))
	s := startServe(t, cfg)
	s.initialize("2025-06-18")
	s.sendJSON(call(1, "slow", nil))
	writeAtomically(t, cfg, toolConfig("alpha"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	s.sendJSON(call(2, "slow", nil))
	if resp := s.until("call after the reload", isID(2)); resp["error"] == nil {
		t.Fatalf("slow is still callable after it was removed: %v", resp)
	}
	if text, isErr := resultText(t, s.until("the running call", isID(1))); text != "done" || isErr {
		t.Fatalf("the call running across the reload answered %q (isError %v)", text, isErr)
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
