package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReloadSymlinkSwap updates a config the way Kubernetes updates a
// mounted ConfigMap: tools.hcl -> ..data/tools.hcl, and ..data is a symlink
// swapped atomically to a new directory.
func TestReloadSymlinkSwap(t *testing.T) {
	needSymlinks(t)
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
		replaceFile(t, tmp, filepath.Join(dir, "..data"))
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
	needSymlinks(t)
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
	replaceFile(t, tmp, real)
	s.until("tools/list_changed after a rename over the target", isMethod("notifications/tools/list_changed"))
	if got := strings.Join(s.toolNames(3), ","); got != "gamma" {
		t.Fatalf("tools after the rename: %s", got)
	}
}

// TestReloadSymlinkToNothing re-points a symlink on the config's path at
// what is not there yet (a release not yet unpacked): the config itself,
// or the directory holding it. The client and stderr are told where the
// link leads, not that the config was deleted, and the tools stay until
// the config is there again, which is then loaded.
func TestReloadSymlinkToNothing(t *testing.T) {
	needSymlinks(t)
	tests := []struct {
		name string
		// link is the symlink re-pointed, config the path served, and
		// v1 and v2 the files it leads to before and after, all
		// relative to the directory of the test.
		link, config, v1, v2 string
		// says is what the error says about the link.
		says string
	}{
		{"the config", "tools.hcl", "tools.hcl", "v1.hcl", "v2.hcl", " is a symbolic link to "},
		{"its directory", "current", filepath.Join("current", "tools.hcl"), filepath.Join("releases", "1", "tools.hcl"), filepath.Join("releases", "2", "tools.hcl"), " leads through a symbolic link to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, content string) {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// repoint points the link at the directory of v1 or v2, or at
			// the file itself, relative to the link, as ln -s does.
			repoint := func(to string) {
				if tt.link == tt.config {
					to = filepath.Base(to)
				} else {
					to = filepath.Dir(to)
				}
				tmp := filepath.Join(dir, tt.link+".new")
				if err := os.Symlink(to, tmp); err != nil {
					t.Fatal(err)
				}
				replaceFile(t, tmp, filepath.Join(dir, tt.link))
			}
			write(tt.v1, toolConfig("alpha"))
			repoint(tt.v1)
			cfg := filepath.Join(dir, tt.config)
			s := startServe(t, cfg)
			s.initialize("2025-06-18")
			s.toolNames(1)

			repoint(tt.v2)
			msg := s.until("error notification", isMethod("notifications/message"))
			want := cfg + tt.says + filepath.Join(dir, tt.v2) + ", which does not exist"
			if data := fmt.Sprint(msg["params"].(map[string]any)["data"]); !strings.Contains(data, want) || strings.Contains(data, "deleted or moved") {
				t.Fatalf("after the link was re-pointed at nothing the client heard %q, want %q", data, want)
			}
			s.waitStderr("the same on stderr", func(stderr string) bool { return strings.Contains(stderr, want) })
			if got := strings.Join(s.toolNames(2), ","); got != "alpha" {
				t.Fatalf("tools while the link leads nowhere: %s", got)
			}

			write(tt.v2, toolConfig("beta"))
			s.until("tools/list_changed once the config is there", isMethod("notifications/tools/list_changed"))
			if got := strings.Join(s.toolNames(3), ","); got != "beta" {
				t.Fatalf("tools after the config was written: %s", got)
			}
		})
	}
}
