package setup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// readFile is the content of path, failing the test when it cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noTempFiles fails when a temporary file of writeAtomic is left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestApply writes real files: create, merge with a backup, replace,
// unchanged, dry run and a file it refuses, each checked on disk.
func TestApply(t *testing.T) {
	e := editor(t, "cursor")
	s := unixServer(e)
	other := BinaryServer(e, "/opt/toolhost/toolhost", "/srv/tools.hcl")
	fixture := func(name string) []byte {
		return readFile(t, filepath.Join("testdata", "merge", name))
	}
	tests := []struct {
		name   string
		before []byte // nil: no file
		dryRun bool
		server Server
		// want
		err        bool
		created    bool
		replaced   bool
		unchanged  bool
		backup     bool
		wantGolden string // the file after, from testdata/merge; "" when unchanged
	}{
		{name: "create file and directory", server: windowsServer(e), created: true, wantGolden: "cursor-empty-file.golden"},
		{name: "merge", before: fixture("cursor-minified.json"), server: s, backup: true, wantGolden: "cursor-minified.golden"},
		{name: "replace", before: fixture("cursor-replace.json"), server: s, replaced: true, backup: true, wantGolden: "cursor-replace.golden"},
		{name: "unchanged", before: fixture("cursor-replace.golden"), server: s, replaced: true, unchanged: true},
		{name: "empty file, no backup", before: []byte{}, server: windowsServer(e), wantGolden: "cursor-empty-file.golden"},
		{name: "dry run writes nothing", before: fixture("cursor-minified.json"), server: s, dryRun: true},
		{name: "dry run creates nothing", server: other, dryRun: true, created: true},
		{name: "not JSON", before: []byte("{\n  \"mcpServers\": {,}\n}\n"), server: s, err: true},
		{name: "servers not an object", before: []byte(`{"mcpServers": []}`), server: s, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".cursor")
			path := filepath.Join(dir, "mcp.json")
			if tt.before != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tt.before, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Apply(path, e, DefaultName, tt.server, tt.dryRun)
			if tt.err {
				var fe *FileError
				if !errors.As(err, &fe) || fe.Path != path {
					t.Fatalf("error %v, want a *FileError on %s", err, path)
				}
				if got := readFile(t, path); !bytes.Equal(got, tt.before) {
					t.Errorf("the file changed:\n%s", got)
				}
				if _, err := os.Stat(path + ".bak"); err == nil {
					t.Error("a backup was written")
				}
				noTempFiles(t, dir)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Created != tt.created || (r.Old != nil) != tt.replaced || r.Unchanged != tt.unchanged {
				t.Errorf("created %v, replaced %v, unchanged %v; want %v, %v, %v", r.Created, r.Old != nil, r.Unchanged, tt.created, tt.replaced, tt.unchanged)
			}
			if tt.dryRun || tt.unchanged {
				if tt.before == nil {
					if _, err := os.Stat(dir); err == nil {
						t.Errorf("%s was created", dir)
					}
				} else if got := readFile(t, path); !bytes.Equal(got, tt.before) {
					t.Errorf("the file changed:\n%s", got)
				}
				if _, err := os.Stat(path + ".bak"); err == nil {
					t.Error("a backup was written")
				}
				if r.Backup != "" {
					t.Errorf("reports the backup %s", r.Backup)
				}
				if len(r.Content) == 0 {
					t.Error("no content to show")
				}
				return
			}
			got := readFile(t, path)
			if !bytes.Equal(got, r.Content) {
				t.Errorf("the file is not what Apply reports:\n%s", got)
			}
			if tt.wantGolden != "" {
				if want := fixture(tt.wantGolden); !bytes.Equal(got, want) {
					t.Errorf("the file:\n%s\nwant:\n%s", got, want)
				}
			}
			if tt.backup {
				if r.Backup != path+".bak" {
					t.Errorf("backup %q, want %s", r.Backup, path+".bak")
				}
				if b := readFile(t, path+".bak"); !bytes.Equal(b, tt.before) {
					t.Errorf("the backup holds:\n%s\nwant the old content:\n%s", b, tt.before)
				}
			} else if _, err := os.Stat(path + ".bak"); err == nil || r.Backup != "" {
				t.Errorf("a backup was written (%q)", r.Backup)
			}
			// The mode: an existing file's is kept (the backup gets it
			// too), a new file is 0644. Windows has no such bits.
			if runtime.GOOS != "windows" {
				want := os.FileMode(0o600)
				if tt.created {
					want = 0o644
				}
				for _, p := range []string{path, r.Backup} {
					if p == "" {
						continue
					}
					if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
						t.Errorf("%s: mode %v, want %v (%v)", p, info.Mode().Perm(), want, err)
					}
				}
			}
			noTempFiles(t, dir)
		})
	}
}

// TestApplyLink: a config file that is a symbolic link (a dotfiles
// checkout) is written where the link leads, and stays a link.
func TestApplyLink(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine cannot make symbolic links")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join("testdata", "merge", "cursor-replace.json"))
	if err := os.WriteFile(target, before, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	e := editor(t, "cursor")
	r, err := Apply(link, e, DefaultName, unixServer(e), false)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link (%v)", link, err)
	}
	if got, want := readFile(t, target), readFile(t, filepath.Join("testdata", "merge", "cursor-replace.golden")); !bytes.Equal(got, want) {
		t.Errorf("the target holds:\n%s", got)
	}
	if r.Backup != target+".bak" || !bytes.Equal(readFile(t, r.Backup), before) {
		t.Errorf("backup %s, want %s with the old content", r.Backup, target+".bak")
	}
	var out bytes.Buffer
	r.Report(&out, &out)
	if !strings.Contains(out.String(), "(a link to "+target+")") {
		t.Errorf("the report does not say where the link leads:\n%s", out.String())
	}
}

// TestReport checks what setup prints: the file, the entry, what was
// replaced, the backup and the next step; on a dry run stdout is the file
// and nothing else.
func TestReport(t *testing.T) {
	e := editor(t, "windsurf")
	s := unixServer(e)
	base := Result{Editor: e, Name: DefaultName, Path: "/h/mcp_config.json", Target: "/h/mcp_config.json", Entry: s, Content: []byte("{}\n")}
	entry := "  \"toolhost\": {\n    \"command\": \"/usr/local/bin/toolhost\",\n    \"args\": [\n      \"serve\",\n      \"/home/me/tools & more/tools.hcl\"\n    ]\n  }\n"
	next := "Next: " + e.Next + "\n"
	with := func(f func(*Result)) Result { r := base; f(&r); return r }
	tests := []struct {
		name           string
		r              Result
		stdout, stderr string
	}{
		{"created", with(func(r *Result) { r.Created = true }), "Created /h/mcp_config.json with the \"toolhost\" server:\n" + entry + next, ""},
		{"added", with(func(r *Result) { r.Backup = "/h/mcp_config.json.bak" }),
			"Added the \"toolhost\" server to /h/mcp_config.json:\n" + entry + "The old content is in /h/mcp_config.json.bak.\n" + next, ""},
		{"replaced", with(func(r *Result) {
			r.Old = []byte("{\"command\": \"old\", // was\n \"args\": []}")
			r.Backup = "/h/mcp_config.json.bak"
		}),
			"Replaced the \"toolhost\" server in /h/mcp_config.json. It was:\n  \"toolhost\": {\n    \"command\": \"old\",\n    \"args\": []\n  }\nIt is now:\n" + entry + "The old content is in /h/mcp_config.json.bak.\n" + next, ""},
		{"unchanged", with(func(r *Result) { r.Unchanged = true; r.Old = []byte("{}") }),
			"/h/mcp_config.json already has this \"toolhost\" server; nothing was written:\n" + entry + next, ""},
		{"dry run", with(func(r *Result) { r.DryRun = true }), "{}\n",
			"Dry run: above is /h/mcp_config.json as setup would write it, with the \"toolhost\" server added; nothing was written.\n"},
		{"dry run, unchanged", with(func(r *Result) { r.DryRun = true; r.Unchanged = true }), "{}\n",
			"Dry run: above is /h/mcp_config.json as setup would write it, as it is: it already has this \"toolhost\" server; nothing was written.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			tt.r.Report(&stdout, &stderr)
			if stdout.String() != tt.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tt.stdout)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), tt.stderr)
			}
		})
	}
}
