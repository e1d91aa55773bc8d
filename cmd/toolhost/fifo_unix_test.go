//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO at p; with writer, the test holds it open for
// writing too, as a process that writes nothing would, so that a read of
// it would wait for good (without one, a read that got past the open would
// find its end).
func mkfifo(t *testing.T, p string, writer bool) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if writer {
		w, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
	}
}

// TestFIFOConfigRefused: validate, serve and fmt refuse at once a FIFO
// where the config names a file they read: the config itself, an icon
// file, a file() of an example. They once waited in open() for good. Each
// exits 1, saying which path is a FIFO.
func TestFIFOConfigRefused(t *testing.T) {
	tool := func(inner string) string {
		return "tool \"t\" {\n" + inner + "  template {\n    text = \"x\"\n  }\n}\n"
	}
	for _, tc := range []struct {
		name string
		// config is tools.hcl; "" when the FIFO (pipe.hcl) is the config.
		config, fifo string
		args         []string
		want         string
	}{
		{name: "validate a FIFO config", fifo: "pipe.hcl", args: []string{"validate"}, want: "Config not a regular file"},
		{name: "serve a FIFO config", fifo: "pipe.hcl", args: []string{"serve", "--watch=false"}, want: "Config not a regular file"},
		{name: "fmt a FIFO config", fifo: "pipe.hcl", args: []string{"fmt"}, want: "give the path of a config file, which is a regular file"},
		{name: "validate a FIFO icon", config: tool("  icon {\n    file = \"icon.png\"\n  }\n"), fifo: "icon.png", args: []string{"validate"}, want: "Icon not a regular file"},
		{name: "serve a FIFO icon", config: tool("  icon {\n    file = \"icon.png\"\n  }\n"), fifo: "icon.png", args: []string{"serve", "--watch=false"}, want: "Icon not a regular file"},
		{name: "validate a FIFO in file()", config: tool("  example \"e\" {\n    response = file(\"r.json\")\n    result   = \"x\"\n  }\n"), fifo: "r.json", args: []string{"validate"}, want: `file() cannot read "r.json": r.json is a FIFO (named pipe), not a regular file`},
		{name: "validate a FIFO resource file", config: "resource \"notes\" {\n  uri  = \"file:///notes.txt\"\n  file = \"notes.txt\"\n}\n", fifo: "notes.txt", args: []string{"validate"}, want: "Not a regular file"},
	} {
		for _, writer := range []bool{false, true} {
			name := tc.name
			if writer {
				name += " with a writer"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				fifo := filepath.Join(dir, tc.fifo)
				mkfifo(t, fifo, writer)
				path := fifo
				if tc.config != "" {
					path = filepath.Join(dir, "tools.hcl")
					if err := os.WriteFile(path, []byte(tc.config), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				cmd := exec.Command(binPath, append(tc.args, path)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				cmd.Stdin = strings.NewReader("")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				select {
				case err := <-exited:
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 1 {
						t.Errorf("toolhost %s exited with %v, want status 1\n%s", tc.args[0], err, stderr.String())
					}
				case <-time.After(10 * time.Second):
					_ = cmd.Process.Kill()
					<-exited
					t.Fatalf("toolhost %s still running after 10s\n%s", tc.args[0], stderr.String())
				}
				for _, w := range []string{tc.want, fifo, "FIFO (named pipe)"} {
					if tc.name == "validate a FIFO in file()" && w == fifo {
						continue // file() names the path as written
					}
					if !strings.Contains(stderr.String(), w) {
						t.Errorf("stderr does not say %q:\n%s", w, stderr.String())
					}
				}
			})
		}
	}
}

// TestReloadFIFO: a config replaced by a FIFO (with a writer that writes
// nothing, or none) is a failed reload, at once: the tools in service stay
// and answer, the next good save is applied, and closing stdin or SIGTERM
// still ends the server promptly. The reload once waited in open() for
// good, and with it every later reload and the shutdown.
func TestReloadFIFO(t *testing.T) {
	for _, writer := range []bool{false, true} {
		for _, end := range []string{"stdin closed", "SIGTERM"} {
			name := end
			if writer {
				name = "with a writer/" + end
			}
			t.Run(name, func(t *testing.T) {
				cfg := writeConfig(t, toolConfig("alpha"))
				s := startServe(t, cfg)
				s.initialize("2025-06-18")
				s.toolNames(1)

				// Put in place by a rename, as a save is: the watcher
				// sees it at once.
				tmp := cfg + ".fifo~"
				mkfifo(t, tmp, writer)
				if err := os.Rename(tmp, cfg); err != nil {
					t.Fatal(err)
				}
				s.waitStderr("the failed reload", func(e string) bool {
					return strings.Contains(e, "reload failed") && strings.Contains(e, cfg+" is a FIFO (named pipe), not a regular file")
				})
				s.sendJSON(call(2, "alpha", nil))
				if text, _ := resultText(t, s.until("alpha reply", isID(2))); text != "I am alpha" {
					t.Fatalf("alpha answered %q while the config was a FIFO", text)
				}

				writeAtomically(t, cfg, toolConfig("alpha", "beta"))
				s.until("tools/list_changed", isMethod("notifications/tools/list_changed"))
				if got := strings.Join(s.toolNames(3), ","); got != "alpha,beta" {
					t.Fatalf("tools after the good save: %s", got)
				}

				// Once more a FIFO, and then the end: the watcher is not
				// stuck in it.
				mkfifo(t, tmp, writer)
				if err := os.Rename(tmp, cfg); err != nil {
					t.Fatal(err)
				}
				s.waitStderr("the second failed reload", func(e string) bool { return strings.Count(e, "reload failed") == 2 })
				if end == "SIGTERM" {
					if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
						t.Fatal(err)
					}
				} else {
					s.stdin.Close()
				}
				exited := make(chan error, 1)
				go func() { exited <- s.cmd.Wait() }()
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					t.Fatalf("serve still running 10s after %s", end)
				}
			})
		}
	}
}
