package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// brokenConfig is toolConfig("alpha") with an argument tool blocks do not
// take, on line 4.
const brokenConfig = "tool \"alpha\" {\n  description = \"tool alpha\"\n  template { text = \"I am alpha\" }\n  bogus = 1\n}\n"

// isLog matches a logging notification at level whose text has want.
func isLog(level, want string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		if m["method"] != "notifications/message" {
			return false
		}
		p, _ := m["params"].(map[string]any)
		data, _ := p["data"].(string)
		return p["level"] == level && strings.Contains(data, want)
	}
}

// TestServeBrokenStart: serve started on a config with errors, or on a
// path where no config is yet, answers initialize over stdio and lists no
// tools, tells the client the errors (place and fix) in a logging
// notification at level error, and again when a save brings other errors;
// a save that makes the config valid brings tools/list_changed and the
// tools.
func TestServeBrokenStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		initial string // "" for no file
		// want is what the first notification says, place and fix.
		want string
	}{
		{"errors", brokenConfig, `tools.hcl:4:3: error: Unsupported argument: An argument named "bogus" is not expected here.`},
		{"missing", "", "Config not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "tools.hcl")
			if tc.initial != "" {
				if err := os.WriteFile(cfg, []byte(tc.initial), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := startServe(t, cfg)
			init := s.initialize("2025-06-18")
			res, _ := init["result"].(map[string]any)
			if ins, _ := res["instructions"].(string); !strings.Contains(ins, "toolhost could not load its config: 1 error.") {
				t.Errorf("initialize's instructions %q do not say that the config has errors", ins)
			}
			s.until("the errors, at level error", isLog("error", tc.want))
			if got := s.toolNames(1); len(got) != 0 {
				t.Fatalf("tools/list with a broken config: %v, want none", got)
			}
			s.sendJSON(call(2, "alpha", nil))
			if reply := s.until("alpha reply", isID(2)); !strings.Contains(reply["error"].(map[string]any)["message"].(string), "this server declares no tools: the config has errors, and nothing is served until it is saved without them") {
				t.Errorf("calling a tool of the broken config: %v", reply)
			}
			// Other errors: the client hears them.
			writeAtomically(t, cfg, strings.Replace(brokenConfig, "bogus = 1", "also_bogus = 2", 1))
			s.until("the new errors", isLog("error", `tools.hcl:4:3: error: Unsupported argument: An argument named "also_bogus" is not expected here.`))
			writeAtomically(t, cfg, toolConfig("alpha", "beta"))
			s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
			if got := strings.Join(s.toolNames(3), ","); got != "alpha,beta" {
				t.Fatalf("tools after the save: %s", got)
			}
			s.sendJSON(call(4, "beta", nil))
			if text, _ := resultText(t, s.until("beta reply", isID(4))); text != "I am beta" {
				t.Fatalf("beta answered %q", text)
			}
			// The log reaches the test through stderr's pipe, on a
			// goroutine of its own: it may come after the answers.
			var log string
			testconfig.WaitFor(t, "the log says the config loaded", func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				log = s.stderr.String()
				return strings.Contains(log, `msg="loaded config; it is valid now" outcome=applied tools_added=alpha,beta`)
			})
			// Printed once: the watcher's first look finds the errors serve
			// printed at the start, and says nothing of them again.
			if n := strings.Count(log, `An argument named "bogus" is not expected here.`); tc.initial != "" && n != 1 {
				t.Errorf("the log has the first error %d times, want once:\n%s", n, log)
			}
			if tc.initial == "" && !strings.Contains(log, "path="+cfg) {
				t.Errorf("the log does not name the missing config's path %s:\n%s", cfg, log)
			}
			// The config loaded: the end of the session is a clean exit.
			_ = s.stdin.Close()
			if err := s.cmd.Wait(); err != nil {
				t.Errorf("serve exited with %v after the config loaded, want 0", err)
			}
		})
	}
}
