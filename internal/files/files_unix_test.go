//go:build unix

package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// fileTree builds, in temporary directories, a served directory and an
// outside directory holding a secret, and returns their paths.
//
//	root/
//	  a/b/c.txt          "nested"
//	  a/b.txt            "ab"
//	  readme.md          "# Title"
//	  image.png          PNG header
//	  notes              "plain text, no extension"
//	  big.txt            101 bytes
//	  dir/sub/x.txt      "x"
//	  %2e%2e/secret      absent on purpose: only "%2e%2e/other" exists
//	  link-in.txt  ->    a/b/c.txt
//	  link-dir     ->    a
//	  link-out     ->    <outside>/secret
//	  link-outdir  ->    <outside>
//	  link-abs     ->    <root>/readme.md (absolute: refused by os.Root)
//	  fifo               named pipe
//	outside/
//	  secret             "TOP SECRET"
func fileTree(t *testing.T) (root, outside string) {
	t.Helper()
	root = t.TempDir()
	outside = t.TempDir()
	write := func(dir, name string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "secret", []byte("TOP SECRET"))
	write(root, "a/b/c.txt", []byte("nested"))
	write(root, "a/b.txt", []byte("ab"))
	write(root, "readme.md", []byte("# Title\n"))
	write(root, "image.png", pngHeader)
	write(root, "notes", []byte("plain text, no extension"))
	write(root, "big.txt", []byte(strings.Repeat("x", 101)))
	write(root, "dir/sub/x.txt", []byte("x"))
	write(root, "%2e%2e/other", []byte("other"))
	link(filepath.Join("a", "b", "c.txt"), "link-in.txt")
	link("a", "link-dir")
	link(filepath.Join(outside, "secret"), "link-out")
	link(outside, "link-outdir")
	link(filepath.Join(root, "readme.md"), "link-abs")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func TestDirReadAllowed(t *testing.T) {
	root, _ := fileTree(t)
	d := openTestDir(t, root)
	tests := []struct {
		name     string
		data     string
		mimeType string
		text     bool
	}{
		{"a/b/c.txt", "nested", "text/plain", true},
		{"a/b.txt", "ab", "text/plain", true},
		{"readme.md", "# Title\n", "text/markdown", true},
		{"image.png", string(pngHeader), "image/png", false},
		{"notes", "plain text, no extension", "text/plain", true},
		{"link-in.txt", "nested", "text/plain", true},
		{"link-dir/b/c.txt", "nested", "text/plain", true},
		{"%2e%2e/other", "other", "text/plain", true}, // literal name; no extension, so sniffed
		{"big.txt", strings.Repeat("x", 101), "text/plain", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, err := readWithin(t, func() (*Content, error) { return d.Read(tt.name, 0) })
			if err != nil {
				t.Fatalf("Read(%q): %v", tt.name, err)
			}
			if string(fc.Data) != tt.data {
				t.Errorf("Data = %q, want %q", fc.Data, tt.data)
			}
			if fc.MIMEType != tt.mimeType {
				t.Errorf("MIMEType = %q, want %q", fc.MIMEType, tt.mimeType)
			}
			if fc.Text != tt.text {
				t.Errorf("Text = %v, want %v", fc.Text, tt.text)
			}
		})
	}
}

func TestDirReadRefused(t *testing.T) {
	root, outside := fileTree(t)
	d := openTestDir(t, root)

	// The reference: a plain missing file.
	_, missingErr := d.Read("no-such-file.txt", 0)
	if missingErr == nil {
		t.Fatal("missing file: no error")
	}
	want := missingErr.Error()
	if want != ErrNotFound.Error() {
		t.Fatalf("missing file: error %q, want %q", want, ErrNotFound.Error())
	}

	tests := []struct {
		desc string
		name string
	}{
		{"missing file", "no-such-file.txt"},
		{"missing nested", "a/b/nope.txt"},
		{"parent", "../secret"},
		{"parent of root dir name", "../" + filepath.Base(outside) + "/secret"},
		{"parent after segment", "a/../../secret"},
		{"dot dot inside", "a/../readme.md"},
		{"dot segment", "./readme.md"},
		{"dot segment inside", "a/./b.txt"},
		{"dot", "."},
		{"dot dot", ".."},
		{"absolute", "/etc/passwd"},
		{"absolute outside", filepath.Join(outside, "secret")},
		{"empty", ""},
		{"empty segment", "a//b.txt"},
		{"empty segment missing", "a//b"},
		{"trailing slash", "a/"},
		{"backslash", `a\b`},
		{"backslash parent", `..\secret`},
		{"NUL byte", "a\x00b"},
		{"NUL then valid", "readme.md\x00.png"},
		{"encoded dot dot is literal", "%2e%2e/secret"},
		{"encoded slash is literal", "a%2fb.txt"},
		{"invalid UTF-8", "a\xffb"},
		{"invalid UTF-8 existing prefix", "readme.md\xc3"},
		{"symlink to outside file", "link-out"},
		{"symlink to outside dir", "link-outdir/secret"},
		{"absolute symlink", "link-abs"},
		{"directory", "a"},
		{"nested directory", "a/b"},
		{"symlink to directory", "link-dir"},
		{"FIFO", "fifo"},
		{"file as directory", "readme.md/x"},
		{"very long name", strings.Repeat("a", 5000)},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			fc, err := readWithin(t, func() (*Content, error) { return d.Read(tt.name, 0) })
			if err == nil {
				t.Fatalf("Read(%q) = %q, want an error", tt.name, fc.Data)
			}
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("Read(%q): error %v is not ErrNotFound", tt.name, err)
			}
			if err.Error() != want {
				t.Errorf("Read(%q): error %q, want exactly %q", tt.name, err.Error(), want)
			}
			for _, leak := range []string{outside, root, "SECRET", "permission", "no such", "escapes", "directory"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("Read(%q): error %q contains %q", tt.name, err.Error(), leak)
				}
			}
		})
	}
}

func TestDirReadPermissionDeniedIsNotFound(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root reads files whatever their mode: the test runs as nobody.
		runAsNobody(t)
		return
	}
	root, _ := fileTree(t)
	p := filepath.Join(root, "locked.txt")
	if err := os.WriteFile(p, []byte("locked"), 0); err != nil {
		t.Fatal(err)
	}
	d := openTestDir(t, root)
	_, err := d.Read("locked.txt", 0)
	if err == nil || err.Error() != ErrNotFound.Error() {
		t.Fatalf("Read(locked.txt): %v, want %q", err, ErrNotFound)
	}
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("cause of %v is not kept for the server's logs", err)
	}
}

func TestDirReadSize(t *testing.T) {
	root, _ := fileTree(t)
	d := openTestDir(t, root)
	tests := []struct {
		name    string
		maxSize int64
		wantErr string
	}{
		{"big.txt", 101, ""},
		{"big.txt", 100, "file is larger than the 100 bytes limit"},
		{"big.txt", 64, "file is larger than the 64 bytes limit"},
		{"big.txt", 0, ""}, // default cap
		{"link-in.txt", 5, "file is larger than the 5 bytes limit"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.name, tt.maxSize), func(t *testing.T) {
			fc, err := d.Read(tt.name, tt.maxSize)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if tt.maxSize > 0 && int64(len(fc.Data)) > tt.maxSize {
					t.Errorf("read %d bytes over cap %d", len(fc.Data), tt.maxSize)
				}
				return
			}
			if err == nil {
				t.Fatalf("Read = %d bytes, want error %q", len(fc.Data), tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error %q, want %q", err.Error(), tt.wantErr)
			}
			if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotFound) {
				t.Errorf("error %v: want ErrTooLarge only", err)
			}
			if strings.Contains(err.Error(), root) {
				t.Errorf("error %q contains the directory", err)
			}
		})
	}

	t.Run("default cap message", func(t *testing.T) {
		big := filepath.Join(root, "huge.bin")
		f, err := os.Create(big)
		if err != nil {
			t.Fatal(err)
		}
		// A sparse file one byte over the default cap.
		if err := f.Truncate(DefaultMaxSize + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = d.Read("huge.bin", 0)
		if err == nil || err.Error() != "file is larger than the 10 MiB limit" {
			t.Fatalf("Read(huge.bin): %v, want the 10 MiB limit", err)
		}
		if _, err := Read(big, 0); err == nil || err.Error() != "file is larger than the 10 MiB limit" {
			t.Fatalf("Read(huge.bin): %v, want the 10 MiB limit", err)
		}
	})
}

func TestDirList(t *testing.T) {
	root, outside := fileTree(t)
	d := openTestDir(t, root)
	all := []string{
		"%2e%2e/other",
		"a/b.txt",
		"a/b/c.txt",
		"big.txt",
		"dir/sub/x.txt",
		"image.png",
		"link-in.txt",
		"notes",
		"readme.md",
	}
	if !slices.IsSorted(all) {
		t.Fatal("test table not sorted")
	}
	tests := []struct {
		max  int
		want []string
	}{
		{0, all},
		{-1, all},
		{100, all},
		{len(all), all},
		{1, all[:1]},
		{3, all[:3]},
		{4, all[:4]},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			got, err := readWithin(t, func() ([]string, error) { return d.List(tt.max) })
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("List(%d) = %q, want %q", tt.max, got, tt.want)
			}
			for _, name := range got {
				if strings.Contains(name, outside) || strings.HasPrefix(name, "link-out") || name == "link-abs" || name == "fifo" {
					t.Errorf("List lists %q", name)
				}
			}
		})
	}

	t.Run("every listed name reads", func(t *testing.T) {
		names, err := d.List(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if _, err := d.Read(name, 0); err != nil {
				t.Errorf("Read(%q) of a listed name: %v", name, err)
			}
		}
	})

	t.Run("cap on a big tree keeps the first names", func(t *testing.T) {
		dir := t.TempDir()
		var want []string
		for i := range 50 {
			name := fmt.Sprintf("d%02d/f%02d.txt", 49-i, i)
			want = append(want, name)
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(want)
		d := openTestDir(t, dir)
		got, err := d.List(7)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[:7]) {
			t.Errorf("List(7) = %q, want %q", got, want[:7])
		}
	})
}

func TestOpenDir(t *testing.T) {
	root, _ := fileTree(t)
	tests := []struct {
		desc string
		path string
		ok   bool
	}{
		{"directory", root, true},
		{"symlinked directory", filepath.Join(root, "link-dir"), true},
		{"regular file", filepath.Join(root, "readme.md"), false},
		{"missing", filepath.Join(root, "nope"), false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			d, err := OpenDir(tt.path)
			if (err == nil) != tt.ok {
				t.Fatalf("OpenDir(%q): %v, want ok=%v", tt.path, err, tt.ok)
			}
			if d != nil {
				if err := d.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
		})
	}
}

func TestRead(t *testing.T) {
	root, outside := fileTree(t)
	tests := []struct {
		desc     string
		path     string
		maxSize  int64
		data     string
		mimeType string
		text     bool
		wantErr  string
	}{
		{desc: "markdown", path: "readme.md", data: "# Title\n", mimeType: "text/markdown", text: true},
		{desc: "png", path: "image.png", data: string(pngHeader), mimeType: "image/png"},
		{desc: "symlink followed", path: "link-out", data: "TOP SECRET", mimeType: "text/plain", text: true},
		{desc: "oversize", path: "big.txt", maxSize: 100, wantErr: "file is larger than the 100 bytes limit"},
		{desc: "missing", path: "nope.txt", wantErr: ErrNotFound.Error()},
		{desc: "directory", path: "a", wantErr: ErrNotFound.Error()},
		{desc: "FIFO", path: "fifo", wantErr: ErrNotFound.Error()},
		{desc: "device", path: "/dev/zero", wantErr: ErrNotFound.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			p := tt.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			fc, err := readWithin(t, func() (*Content, error) { return Read(p, tt.maxSize) })
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Read(%q): %v, want %q", p, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), root) || strings.Contains(err.Error(), outside) {
					t.Errorf("error %q contains a path", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read(%q): %v", p, err)
			}
			if string(fc.Data) != tt.data || fc.MIMEType != tt.mimeType || fc.Text != tt.text {
				t.Errorf("Read(%q) = {%q %q %v}, want {%q %q %v}",
					p, fc.Data, fc.MIMEType, fc.Text, tt.data, tt.mimeType, tt.text)
			}
		})
	}
}

// TestDirHas: Has finds the files Read reads, and none of those it refuses,
// without opening a FIFO.
func TestDirHas(t *testing.T) {
	root, outside := fileTree(t)
	d := openTestDir(t, root)
	tests := []struct {
		name string
		want bool
	}{
		{"a/b/c.txt", true},
		{"readme.md", true},
		{"link-in.txt", true},
		{"link-dir/b/c.txt", true},
		{"no-such-file.txt", false},
		{"../secret", false},
		{filepath.Join(outside, "secret"), false},
		{"link-out", false},
		{"a", false},
		{"a/", false},
		{"a//b.txt", false},
		{"./readme.md", false},
		{`a\b`, false},
		{"readme.md\x00.png", false},
		{"FIFO", false},
		{"fifo", false},
		{strings.Repeat("a", 5000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := readWithin(t, func() (bool, error) { return d.Has(tt.name), nil })
			if got != tt.want {
				t.Fatalf("Has(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}
