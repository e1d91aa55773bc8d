package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pngHeader is the start of a PNG file: its signature and an IHDR chunk.
var pngHeader = []byte{
	0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
	0x00, 0x00, 0x00, 0x0d, 'I', 'H', 'D', 'R',
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00,
}

// writeFiles writes each file of files (path: content), making the
// directories it is in.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openTestDir opens root for serving, closed when the test ends.
func openTestDir(t *testing.T, root string) *Dir {
	t.Helper()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// readWithin runs read and fails the test if it blocks (as on a FIFO).
func readWithin[T any](t *testing.T, read func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("read blocked")
		panic("unreachable")
	}
}

func TestFileSizeFormat(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{1, "1 byte"},
		{100, "100 bytes"},
		{1 << 10, "1 KiB"},
		{1500, "1500 bytes"},
		{DefaultMaxSize, "10 MiB"},
		{3 << 30, "3 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatSize(tt.n); got != tt.want {
				t.Errorf("formatSize(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

func TestDetectMIMEFile(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"x.md", "# hi", "text/markdown"},
		{"X.MD", "# hi", "text/markdown"},
		{"main.go", "package main", "text/plain"},
		{"a.ts", "let x = 1", "text/plain"},
		{"a.hcl", "a = 1", "text/plain"},
		{"a.py", "print(1)", "text/plain"},
		{"a.json", "{}", "application/json"},
		{"a.html", "<p>", "text/html"},
		{"noext", "hello", "text/plain"},
		{"noext", "\x00\x01\x02", "application/octet-stream"},
		{"noext", string(pngHeader), "image/png"},
		{"a.unknownext123", "hello", "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.want, func(t *testing.T) {
			if got := detectMIME(tt.name, []byte(tt.data)); got != tt.want {
				t.Errorf("detectMIME(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// TestDirReplaced replaces a served directory the ways deploys and syncs
// do: reads and listings serve the directory now at the path, not the one
// there when it was opened; and a closed Dir serves nothing.
func TestDirReplaced(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, dir, with string)
	}{
		{"renamed over", func(t *testing.T, dir, with string) {
			if err := os.Rename(dir, dir+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(with, dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted and re-created", func(t *testing.T, dir, with string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(with, dir); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, next := filepath.Join(base, "notes"), filepath.Join(base, "notes.new")
			writeFiles(t, map[string]string{filepath.Join(dir, "a.md"): "a v1", filepath.Join(next, "a.md"): "a v2", filepath.Join(next, "b.md"): "b v2"})
			d, err := OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fc, err := d.Read("a.md", 0); err != nil || string(fc.Data) != "a v1" {
				t.Fatalf("before: Read(a.md) = %v, %v", fc, err)
			}
			tc.replace(t, dir, next)
			if fc, err := d.Read("a.md", 0); err != nil || string(fc.Data) != "a v2" {
				t.Fatalf("after: Read(a.md) = %v, %v; want the new directory's a v2", fc, err)
			}
			if names, err := d.List(0); err != nil || strings.Join(names, ",") != "a.md,b.md" {
				t.Fatalf("after: List = %v, %v", names, err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Read("a.md", 0); !errors.Is(err, ErrNotFound) {
				t.Fatalf("after Close: Read = %v, want ErrNotFound", err)
			}
		})
	}
}

func TestReadCappedGrowingFile(t *testing.T) {
	// A file that grows after its Stat (5 bytes, under the cap) is still
	// capped: the read goes through a LimitReader of maxSize+1.
	tests := []struct {
		desc    string
		content string
		wantErr bool
	}{
		{"grew past the cap", strings.Repeat("g", 1000), true},
		{"grew to one over the cap", "123456789", true},
		{"grew to the cap", "12345678", false},
		{"did not grow", "12345", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			fc, err := readCapped(strings.NewReader(tt.content), 5, "grow.txt", 8)
			if tt.wantErr {
				if !errors.Is(err, ErrTooLarge) || err.Error() != "file is larger than the 8 bytes limit" {
					t.Fatalf("readCapped: %v, want the 8 bytes limit", err)
				}
				return
			}
			if err != nil || string(fc.Data) != tt.content {
				t.Fatalf("readCapped = %v, %v; want %q", fc, err, tt.content)
			}
		})
	}
}
