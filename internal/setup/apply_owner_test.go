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
