package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestReloadDirectory serves a directory of *.hcl files: adding a file
// (written in place or renamed into place) and removing one are reloaded;
// other files in it, backups and subdirectories are not read.
func TestReloadDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(t *testing.T, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(t, "a.hcl", toolConfig("alpha"))
	s := startServe(t, dir)
	s.initialize("2025-06-18")
	if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
		t.Fatalf("tools at the start: %s", got)
	}
	const garbage = "this is { not HCL\n"
	for i, step := range []struct {
		name string
		edit func(t *testing.T)
		want string
	}{
		{"file added", func(t *testing.T) { write(t, "b.hcl", toolConfig("beta")) }, "alpha,beta"},
		{"file renamed into place", func(t *testing.T) {
			write(t, ".c.hcl.tmp", toolConfig("gamma"))
			replaceFile(t, filepath.Join(dir, ".c.hcl.tmp"), filepath.Join(dir, "c.hcl"))
		}, "alpha,beta,gamma"},
		{"other files ignored", func(t *testing.T) {
			// Were any of these read, the reload that the removal of
			// a.hcl makes would fail on it.
			write(t, "notes.txt", garbage)
			write(t, "b.hcl~", garbage)
			write(t, ".b.hcl.swp", garbage)
			// Editors' lock and backup files: Emacs's lock is a
			// symlink to nowhere, and macOS's ._ files are not HCL.
			if err := os.Symlink("user@host.1234:1700000000", filepath.Join(dir, ".#b.hcl")); err != nil {
				t.Fatal(err)
			}
			write(t, "._b.hcl", garbage)
			if err := os.Mkdir(filepath.Join(dir, "nested"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join("nested", "x.hcl"), garbage)
			if err := os.Remove(filepath.Join(dir, "a.hcl")); err != nil {
				t.Fatal(err)
			}
		}, "beta,gamma"},
		{"file removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "b.hcl")); err != nil {
				t.Fatal(err)
			}
		}, "gamma"},
	} {
		ok := t.Run(step.name, func(t *testing.T) {
			s.t = t
			step.edit(t)
			// The first message is the reload's: list_changed, not an
			// error.
			first := s.until("a notification", func(m map[string]any) bool { return m["method"] != nil })
			if first["method"] != "notifications/tools/list_changed" {
				t.Fatalf("the server sent %v", first)
			}
			if got := strings.Join(s.toolNames(10+i), ","); got != step.want {
				t.Fatalf("tools = %s, want %s", got, step.want)
			}
		})
		if !ok {
			break
		}
	}
	s.t = t
	if e := s.stderrText(); strings.Contains(e, "reload failed") {
		t.Errorf("a reload failed:\n%s", e)
	}
}

// TestReloadDirectoryReplaced replaces the config's directory as deploy
// tools do, with no event in the directory watched at the start: a
// "current" symlink swapped to a new release (the config given as a file
// under it, or as the directory), and a directory renamed over by a new
// one. Each change is reloaded, and so are edits made in the new
// directory afterwards.
func TestReloadDirectoryReplaced(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	swapLink := func(t *testing.T, link, target string) {
		t.Helper()
		tmp := link + ".tmp"
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		replaceFile(t, tmp, link)
	}
	for _, tc := range []struct {
		name string
		// setup writes the first config under root and returns what to
		// serve and the config file that replace makes.
		setup   func(t *testing.T, root string) (serve string)
		replace func(t *testing.T, root string) (newFile string)
	}{
		{"symlink swap, config file", func(t *testing.T, root string) string {
			needSymlinks(t)
			write(t, filepath.Join(root, "releases", "1", "tools.hcl"), toolConfig("alpha"))
			if err := os.Symlink(filepath.Join("releases", "1"), filepath.Join(root, "current")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "current", "tools.hcl")
		}, func(t *testing.T, root string) string {
			p := filepath.Join(root, "releases", "2", "tools.hcl")
			write(t, p, toolConfig("beta"))
			swapLink(t, filepath.Join(root, "current"), filepath.Join("releases", "2"))
			return p
		}},
		{"symlink swap, config directory", func(t *testing.T, root string) string {
			needSymlinks(t)
			write(t, filepath.Join(root, "releases", "1", "a.hcl"), toolConfig("alpha"))
			if err := os.Symlink(filepath.Join("releases", "1"), filepath.Join(root, "current")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "current")
		}, func(t *testing.T, root string) string {
			p := filepath.Join(root, "releases", "2", "a.hcl")
			write(t, p, toolConfig("beta"))
			swapLink(t, filepath.Join(root, "current"), filepath.Join("releases", "2"))
			return p
		}},
		{"directory renamed over", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, "conf", "a.hcl"), toolConfig("alpha"))
			return filepath.Join(root, "conf")
		}, func(t *testing.T, root string) string {
			write(t, filepath.Join(root, "conf.new", "a.hcl"), toolConfig("beta"))
			replaceFile(t, filepath.Join(root, "conf"), filepath.Join(root, "conf.old"))
			replaceFile(t, filepath.Join(root, "conf.new"), filepath.Join(root, "conf"))
			return filepath.Join(root, "conf", "a.hcl")
		}},
		{"config file's directory deleted and re-created", func(t *testing.T, root string) string {
			p := filepath.Join(root, "proj", "tools.hcl")
			write(t, p, toolConfig("alpha"))
			return p
		}, func(t *testing.T, root string) string {
			removeTree(t, filepath.Join(root, "proj"))
			// Not a wait for the server: a gap long enough for a reload
			// to find the config gone (and report it) before it is back.
			time.Sleep(300 * time.Millisecond)
			p := filepath.Join(root, "proj", "tools.hcl")
			write(t, p, toolConfig("beta"))
			return p
		}},
		{"config file's directory renamed over", func(t *testing.T, root string) string {
			p := filepath.Join(root, "proj", "tools.hcl")
			write(t, p, toolConfig("alpha"))
			return p
		}, func(t *testing.T, root string) string {
			write(t, filepath.Join(root, "proj.new", "tools.hcl"), toolConfig("beta"))
			replaceFile(t, filepath.Join(root, "proj"), filepath.Join(root, "proj.old"))
			replaceFile(t, filepath.Join(root, "proj.new"), filepath.Join(root, "proj"))
			return filepath.Join(root, "proj", "tools.hcl")
		}},
		{"config directory's parent deleted and re-created", func(t *testing.T, root string) string {
			if testconfig.UnderWine() {
				// Go deletes with POSIX semantics on Windows (the name goes
				// at once, handles or not); wine 8 lacks them, and the
				// overlay falls back to the older call, which leaves the
				// watched directory pending deletion while toolhost's
				// watch holds it open: its parent can never be removed.
				t.Skip("wine 8 cannot delete a directory another process holds open (no POSIX delete semantics)")
			}
			write(t, filepath.Join(root, "proj", "conf", "a.hcl"), toolConfig("alpha"))
			return filepath.Join(root, "proj", "conf")
		}, func(t *testing.T, root string) string {
			removeTree(t, filepath.Join(root, "proj"))
			time.Sleep(300 * time.Millisecond) // as above
			p := filepath.Join(root, "proj", "conf", "a.hcl")
			write(t, p, toolConfig("beta"))
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s := startServe(t, tc.setup(t, root))
			s.initialize("2025-06-18")
			if got := strings.Join(s.toolNames(1), ","); got != "alpha" {
				t.Fatalf("tools at the start: %s", got)
			}
			newFile := tc.replace(t, root)
			s.until("tools/list_changed after the replacement", isMethod("notifications/tools/list_changed"))
			if got := strings.Join(s.toolNames(2), ","); got != "beta" {
				t.Fatalf("tools after the replacement: %s", got)
			}
			write(t, newFile, toolConfig("beta", "gamma"))
			s.until("tools/list_changed after an edit in the new directory", isMethod("notifications/tools/list_changed"))
			if got := strings.Join(s.toolNames(3), ","); got != "beta,gamma" {
				t.Fatalf("tools after the edit: %s", got)
			}
		})
	}
}

// TestReloadEmptiedFileInDirectory empties one file of a config directory
// for good and saves another: the empty file holds the reload back only
// for a moment (it could be a save in progress), then the config is
// loaded as it is, with no further event; and later saves are not held
// back at all.
func TestReloadEmptiedFileInDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.hcl", toolConfig("alpha"))
	write("b.hcl", toolConfig("beta"))
	s := startServe(t, dir)
	s.initialize("2025-06-18")
	if got := strings.Join(s.toolNames(1), ","); got != "alpha,beta" {
		t.Fatalf("tools at the start: %s", got)
	}
	write("b.hcl", "")
	write("a.hcl", toolConfig("alpha", "gamma"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(2), ","); got != "alpha,gamma" {
		t.Fatalf("tools after emptying b.hcl: %s", got)
	}
	s.waitStderr("the log saying the empty file was loaded", func(e string) bool {
		return strings.Contains(e, "has stayed empty") && strings.Contains(e, "b.hcl")
	})
	before := len(s.stderrText())
	write("a.hcl", toolConfig("alpha", "delta"))
	s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(3), ","); got != "alpha,delta" {
		t.Fatalf("tools after the next save: %s", got)
	}
	if after := s.stderrText()[before:]; strings.Contains(after, "empty") {
		t.Errorf("the save beside the empty file was held back:\n%s", after)
	}
}

// TestReloadMissingFileCreated saves a config that names a file or
// directory not made yet: the reload fails with an error that says to
// create it, and creating it, with no other save, reloads the config, puts
// it in service and tells the client the config is valid again.
func TestReloadMissingFileCreated(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		create      func(t *testing.T, dir string)
		summary     string
	}{
		{"a resource's file", "resource \"notes\" {\n  uri  = \"notes:///all\"\n  file = \"notes.md\"\n}\n",
			func(t *testing.T, dir string) { writeAtomically(t, filepath.Join(dir, "notes.md"), "# notes\n") }, "Missing file"},
		{"a template's dir, two levels down", "resource_template \"notes\" {\n  uri_template = \"notes:///{path}\"\n  dir = \"data/notes\"\n}\n",
			func(t *testing.T, dir string) {
				if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
					t.Fatal(err)
				}
				// Not a wait for the server: a person makes one, then
				// the other.
				time.Sleep(300 * time.Millisecond)
				if err := os.Mkdir(filepath.Join(dir, "data", "notes"), 0o755); err != nil {
					t.Fatal(err)
				}
			}, "Missing directory"},
		{"an icon's file", "tool \"b\" {\n  icon { file = \"b.svg\" }\n  template { text = \"b\" }\n}\n",
			func(t *testing.T, dir string) {
				writeAtomically(t, filepath.Join(dir, "b.svg"), `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>`)
			}, "Missing file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, toolConfig("alpha"))
			s := startServe(t, cfg)
			s.initialize("2025-06-18")
			s.toolNames(1)

			writeAtomically(t, cfg, toolConfig("alpha")+tc.block)
			msg := s.until("error notification", isMethod("notifications/message"))
			if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, tc.summary) {
				t.Fatalf("after the save the client heard %q, want %q", data, tc.summary)
			}
			tc.create(t, filepath.Dir(cfg))
			msg = s.until("all-clear notification", isMethod("notifications/message"))
			if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, "valid again and was reloaded") {
				t.Fatalf("after the creation the client heard %q", data)
			}
		})
	}
}
