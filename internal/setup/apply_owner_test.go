package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestApplyReadOnly: a file its owner made read-only is not written over
// (a rename would replace it all the same), and says how to go on; a dry
// run still shows the result.
func TestApplyReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	before := readFile(t, filepath.Join("testdata", "merge", "cursor-replace.json"))
	if err := os.WriteFile(path, before, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	e := editor(t, "cursor")
	if _, err := Apply(path, e, DefaultName, unixServer(e), true); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	_, err := Apply(path, e, DefaultName, unixServer(e), false)
	if err == nil || !strings.Contains(err.Error(), "is read-only") || !strings.Contains(err.Error(), "chmod u+w") {
		t.Fatalf("got %v, want a refusal that says how to make it writable", err)
	}
	if got := readFile(t, path); !bytes.Equal(got, before) {
		t.Errorf("the read-only file changed:\n%s", got)
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Errorf("a backup was written for a file left alone")
	}
	noTempFiles(t, dir)
}

// TestApplyKeepsOwner: run as root (sudo), setup gives what it writes the
// owner of the file it replaces, or of the folder a new one goes in, so
// that the editor, run by its user, can still read it.
func TestApplyKeepsOwner(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows files take their permissions from their folder; there is no owner to keep")
	}
	if testconfig.UnderWine() || os.Geteuid() != 0 {
		t.Skip("only root can give files to another user: this machine runs the tests as another user")
	}
	const uid, gid = 65534, 65534
	e := editor(t, "cursor")
	t.Run("replaced", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "mcp.json")
		if err := os.WriteFile(path, readFile(t, filepath.Join("testdata", "merge", "cursor-replace.json")), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, uid, gid); err != nil {
			t.Fatal(err)
		}
		if _, err := Apply(path, e, DefaultName, unixServer(e), false); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + ".bak"} {
			checkOwner(t, p, uid, gid)
		}
	})
	t.Run("created", func(t *testing.T) {
		home := t.TempDir()
		if err := os.Chown(home, uid, gid); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, ".cursor", "mcp.json")
		if _, err := Apply(path, e, DefaultName, unixServer(e), false); err != nil {
			t.Fatal(err)
		}
		checkOwner(t, filepath.Dir(path), uid, gid)
		checkOwner(t, path, uid, gid)
	})
}

// TestApplyChangedMeanwhile: another program (a second setup, the editor)
// writes the file between setup's read and its rename: setup merges again
// into what that program wrote, so that both changes are kept.
func TestApplyChangedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"b\": {\"command\": \"b\"}\n  }\n}\n"
	tries := 0
	beforeRename = func(p string) {
		if p != path {
			return
		}
		if tries++; tries == 1 {
			if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { beforeRename = nil })
	e := editor(t, "cursor")
	r, err := Apply(path, e, DefaultName, unixServer(e), false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(readFile(t, path))
	for _, name := range []string{`"a"`, `"b"`, `"toolhost"`} {
		if !strings.Contains(got, name) {
			t.Errorf("the file lost %s:\n%s", name, got)
		}
	}
	if tries != 2 {
		t.Errorf("%d renames tried, want 2 (the first refused, the file having changed)", tries)
	}
	if string(readFile(t, r.Backup)) != other {
		t.Errorf("the backup is not the content the write replaced")
	}
	noTempFiles(t, dir)
}

// TestMergeShapes: files setup could once not handle, handled or refused
// with the fix.
func TestMergeShapes(t *testing.T) {
	e := editor(t, "cursor")
	t.Run("servers null", func(t *testing.T) {
		m, err := mergeEntry([]byte("{\n  \"mcpServers\": null\n}\n"), e, DefaultName, unixServer(e))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(m.out), `"toolhost": {`) || strings.Contains(string(m.out), "null") {
			t.Errorf("got:\n%s", m.out)
		}
	})
	t.Run("UTF-16", func(t *testing.T) {
		src := []byte{0xff, 0xfe, '{', 0, '}', 0}
		_, err := mergeEntry(src, e, DefaultName, unixServer(e))
		if err == nil || !strings.Contains(err.Error(), "UTF-16") || !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("got %v, want a refusal that says to save it as UTF-8", err)
		}
	})
}
