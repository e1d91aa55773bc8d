package files

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestValidNameOn checks the names a client may give, by the rules of
// Unix-like systems and of Windows, on every system.
func TestValidNameOn(t *testing.T) {
	tests := []struct {
		name    string
		unix    bool
		windows bool
	}{
		{"notes.md", true, true},
		{"a/b/c.txt", true, true},
		{"%2e%2e/other", true, true},
		{"no-extension", true, true},
		{"résumé.txt", true, true},
		{"con-notes.md", true, true},
		{"console.txt", true, true},
		{"nullable.txt", true, true},
		{"COM10", true, true},
		{"LPTX.txt", true, true},
		{"backup~", true, true},
		{"a~b.txt", true, true},
		{"longer~name1.txt", true, true},
		{"report~1.data", true, true},

		{"", false, false},
		{".", false, false},
		{"..", false, false},
		{"../secret", false, false},
		{"a/../../secret", false, false},
		{"/etc/passwd", false, false},
		{"a//b.txt", false, false},
		{"a/", false, false},
		{"a\x00b", false, false},
		{"a\xffb", false, false},
		{strings.Repeat("a", 5000), false, false},

		// Backslashes: Windows separators, UNC paths and \\?\ prefixes.
		{`a\b.txt`, false, false},
		{`..\secret`, false, false},
		{`a\..\..\secret`, false, false},
		{`\\server\share\secret`, false, false},
		{`\\?\C:\Windows\win.ini`, false, false},
		{`\\.\NUL`, false, false},
		{"//server/share/secret", false, false},
		{"//?/C:/Windows/win.ini", false, false},

		// Colons: drives and alternate data streams.
		{"C:/Windows/win.ini", false, false},
		{"C:secret", false, false},
		{"c:", false, false},
		{"notes.md:stream", false, false},
		{"notes.md::$DATA", false, false},
		{"notes.md:stream:$DATA", false, false},
		{"a/b.txt:x", false, false},

		// Device names, in any case, with extensions, spaces and dots.
		{"CON", false, false},
		{"con", false, false},
		{"PRN", false, false},
		{"AUX", false, false},
		{"NUL", false, false},
		{"nul.txt", false, false},
		{"Nul.tar.gz", false, false},
		{"NUL ", false, false},
		{"nul.", false, false},
		{"nul ..txt", false, false},
		{"COM1", false, false},
		{"com9.log", false, false},
		{"COM0", false, false},
		{"LPT1", false, false},
		{"lpt3.md", false, false},
		{"COM¹", false, false},
		{"lpt².txt", false, false},
		{"CONIN$", false, false},
		{"conout$.txt", false, false},
		{"a/nul/b.txt", false, false},
		{"a/aux", false, false},

		// Names Windows strips or rewrites: real names elsewhere.
		{"notes.md.", true, false},
		{"notes.md ", true, false},
		{"a./b.txt", true, false},
		{"a /b.txt", true, false},
		{"...", true, false},
		{"what?.txt", true, false},
		{"star*.txt", true, false},
		{"a<b", true, false},
		{"a>b", true, false},
		{`say"hi"`, true, false},
		{"a|b", true, false},
		{"tab\there", true, false},

		// 8.3 short names: a second name for a file of the same directory.
		{"PROGRA~1", true, false},
		{"progra~1", true, false},
		{"SECRET~1.TXT", true, false},
		{"secre~12.bak", true, false},
		{"secret~12.bak", true, true}, // nine characters: no short name
		{"A~1", true, false},
		{"~1", true, false},
		{"a/LONGNA~1/b.txt", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := validNameOn(tt.name, false); got != tt.unix {
				t.Errorf("validNameOn(%q, unix) = %v, want %v", tt.name, got, tt.unix)
			}
			if got := validNameOn(tt.name, true); got != tt.windows {
				t.Errorf("validNameOn(%q, windows) = %v, want %v", tt.name, got, tt.windows)
			}
		})
	}
}

// nameTree builds a served directory and, beside it, a directory holding
// a secret; it returns both paths.
//
//	root/
//	  notes.md          "notes"
//	  a/b.txt           "ab"
//	  secret.txt.bak    "backup"
//	  longfilename.txt  "long"
//	outside/
//	  secret            "TOP SECRET"
func nameTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeFiles(t, map[string]string{
		filepath.Join(root, "notes.md"):         "notes",
		filepath.Join(root, "a", "b.txt"):       "ab",
		filepath.Join(root, "secret.txt.bak"):   "backup",
		filepath.Join(root, "longfilename.txt"): "long",
		filepath.Join(outside, "secret"):        "TOP SECRET",
	})
	return root, outside
}

// TestDirReadNames reads hostile names through a Dir on the system the
// test runs on: each is refused with exactly ErrNotFound's message, and Has
// agrees with Read.
func TestDirReadNames(t *testing.T) {
	root, outside := nameTree(t)
	d := openTestDir(t, root)
	secret := filepath.Join(outside, "secret")
	tests := []struct {
		desc string
		name string
		want string // the content read; "" for a refusal
	}{
		{"file", "notes.md", "notes"},
		{"nested file", "a/b.txt", "ab"},
		{"parent", "../outside/secret", ""},
		{"parent after segment", "a/../../outside/secret", ""},
		{"backslash parent", `..\outside\secret`, ""},
		{"backslash nested", `a\b.txt`, ""},
		{"absolute native", secret, ""},
		{"absolute slashed", filepath.ToSlash(secret), ""},
		{"drive relative", "C:notes.md", ""},
		{"UNC", `\\localhost\C$\secret`, ""},
		{"UNC slashed", "//localhost/C$/secret", ""},
		{"long path prefix", `\\?\` + secret, ""},
		{"device namespace", `\\.\NUL`, ""},
		{"stream", "notes.md:stream", ""},
		{"default stream", "notes.md::$DATA", ""},
		{"NUL", "NUL", ""},
		{"nul with extension", "nul.txt", ""},
		{"CON", "con", ""},
		{"COM1", "COM1", ""},
		{"LPT1 with extension", "LPT1.md", ""},
		{"AUX in a directory", "a/AUX", ""},
		{"PRN with spaces and dots", "PRN .. ", ""},
		{"trailing dot", "notes.md.", ""},
		{"trailing space", "notes.md ", ""},
		{"wildcard", "notes.*", ""},
		{"short name of a long name", "LONGFI~1.TXT", ""},
		{"short name of a backup", "SECRET~1.BAK", ""},
		{"question mark", "notes?md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			fc, err := readWithin(t, func() (*Content, error) { return d.Read(tt.name, 0) })
			if has := d.Has(tt.name); has != (err == nil) {
				t.Errorf("Has(%q) = %v, but Read gave error %v", tt.name, has, err)
			}
			if tt.want != "" {
				if err != nil || string(fc.Data) != tt.want {
					t.Fatalf("Read(%q) = %v, %v; want %q", tt.name, fc, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Read(%q) = %q, want an error", tt.name, fc.Data)
			}
			if !errors.Is(err, ErrNotFound) || err.Error() != ErrNotFound.Error() {
				t.Errorf("Read(%q): error %q, want exactly %q", tt.name, err, ErrNotFound)
			}
		})
	}
}

// TestDirListNames: List skips the files whose names Read refuses on the
// system the test runs on, so that every listed name reads.
func TestDirListNames(t *testing.T) {
	create := []string{"ok.txt", "x~1.txt", "LONGNA~1.TXT"}
	want := []string{"ok.txt"}
	if runtime.GOOS != "windows" {
		// Names Windows cannot hold, served elsewhere only when valid.
		create = append(create, "nul.txt", "a:b", "COM1.log", "trail.", "star*", `back\slash.txt`, "bad\xff.txt")
		want = []string{"LONGNA~1.TXT", "ok.txt", "star*", "trail.", "x~1.txt"}
	}
	dir := t.TempDir()
	for _, name := range create {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := openTestDir(t, dir)
	got, err := d.List(0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	for _, name := range got {
		if _, err := d.Read(name, 0); err != nil {
			t.Errorf("Read(%q) of a listed name: %v", name, err)
		}
	}
}

// TestOpenDirSeparators: a directory and a declared file are opened by
// their paths written with the system's separator or with forward slashes.
func TestOpenDirSeparators(t *testing.T) {
	root, _ := nameTree(t)
	sep := string(filepath.Separator)
	tests := []struct {
		desc, dir, file string
	}{
		{"native", root, filepath.Join(root, "notes.md")},
		{"slashed", filepath.ToSlash(root), filepath.ToSlash(filepath.Join(root, "notes.md"))},
		{"trailing separator", root + sep, root + sep + "notes.md"},
		{"mixed", root + "/", filepath.ToSlash(root) + sep + "notes.md"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			d, err := OpenDir(tt.dir)
			if err != nil {
				t.Fatalf("OpenDir(%q): %v", tt.dir, err)
			}
			defer d.Close()
			if fc, err := d.Read("a/b.txt", 0); err != nil || string(fc.Data) != "ab" {
				t.Errorf("OpenDir(%q).Read(a/b.txt) = %v, %v", tt.dir, fc, err)
			}
			if fc, err := Read(tt.file, 0); err != nil || string(fc.Data) != "notes" {
				t.Errorf("Read(%q) = %v, %v", tt.file, fc, err)
			}
		})
	}
}
