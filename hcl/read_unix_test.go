//go:build unix

package hcl

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// TestReadConfigHeldPipe reads a pipe toolhost holds, named as a shell's
// <(...) names it (/dev/fd/N), whose size is not known before it is read:
// up to the limit, and one byte over.
func TestReadConfigHeldPipe(t *testing.T) {
	tooLarge := errors.New("too large")
	const limit = 4096
	for _, size := range []int{0, limit, limit + 1} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("/dev/fd/%d", r.Fd())
		if _, err := os.Stat(name); err != nil {
			r.Close()
			w.Close()
			t.Skipf("no /dev/fd: %v", err)
		}
		go func() {
			// The reader may stop early; a write into a closed pipe
			// fails, which is the reader's business.
			_, _ = w.Write([]byte(strings.Repeat("y", size)))
			w.Close()
		}()
		var got []byte
		within(t, 10*time.Second, func() { got, err = readConfigUpTo(name, limit, tooLarge) })
		switch {
		case size <= limit && (err != nil || len(got) != size):
			t.Errorf("pipe of %d bytes: got %d, %v", size, len(got), err)
		case size > limit && err != tooLarge:
			t.Errorf("pipe of %d bytes: got %d, %v; want the too-large error", size, len(got), err)
		}
		r.Close()
	}
}

// notRegularKinds make at a path what is not a regular file, and say how
// an error names it.
var notRegularKinds = []struct {
	name string
	kind string
	make func(t *testing.T, p string)
}{
	{"FIFO", "a FIFO (named pipe)", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"FIFO with a writer", "a FIFO (named pipe)", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		// A writer that opens it and writes nothing: a read would
		// wait for it for good.
		w, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
	}},
	{"socket", "a socket", func(t *testing.T, p string) {
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Skipf("no Unix socket at %s: %v", p, err)
		}
		t.Cleanup(func() { l.Close() })
	}},
	{"device", "a character device", func(t *testing.T, p string) {
		if err := os.Symlink("/dev/null", p); err != nil {
			t.Fatal(err)
		}
	}},
	{"directory", "a directory", func(t *testing.T, p string) {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}},
}

// TestLoadRefusesNotRegular names a FIFO, a socket, a device and a
// directory where the config names a file it reads at load: the config
// itself (on the command line, and in a config directory), an icon, a
// resource's file and a content item's file, and file() in an example.
// Each is an error at once that says what the path names, and a FIFO with
// a writer waiting to write is refused all the same, not read.
func TestLoadRefusesNotRegular(t *testing.T) {
	tool := func(inner string) string {
		return "tool \"t\" {\n" + inner + "  template {\n    text = \"x\"\n  }\n}\n"
	}
	places := []struct {
		name string
		// file is the name of the special file in the config directory.
		file string
		// config is tools.hcl; empty when the special file is the config.
		config string
		// summary is the error's; detail is the start of its detail, after
		// the path; dirOK says a directory is told apart on its own.
		summary, detail string
		dirOK           bool
		// example says the error is the example's, on evaluating it.
		example bool
	}{
		{name: "config", file: "pipe.hcl", summary: "Config not a regular file", detail: " is "},
		{name: "icon", file: "icon.png", config: tool("  icon {\n    file = \"icon.png\"\n  }\n"), summary: "Icon not a regular file", detail: " is "},
		{name: "resource file", file: "notes.txt", config: "resource \"notes\" {\n  uri  = \"file:///notes.txt\"\n  file = \"notes.txt\"\n}\n", summary: "Not a regular file", detail: " is ", dirOK: true},
		{name: "content file", file: "chart.png", config: "tool \"t\" {\n  result {\n    image {\n      file = \"chart.png\"\n    }\n  }\n}\n", summary: "Not a regular file", detail: " is ", dirOK: true},
		{name: "example file()", file: "r.json", config: tool("  example \"e\" {\n    response = file(\"r.json\")\n    result   = \"x\"\n  }\n"), summary: "Cannot read file", detail: " is ", example: true},
	}
	for _, pl := range places {
		for _, k := range notRegularKinds {
			switch {
			case pl.name == "config" && k.name == "directory":
				continue // a directory is a config directory
			case pl.example && k.name == "device":
				continue // the device is a link out of the config's directory, which file() does not follow
			}
			t.Run(pl.name+"/"+k.name, func(t *testing.T) {
				dir := t.TempDir()
				special := filepath.Join(dir, pl.file)
				k.make(t, special)
				paths := []string{special}
				if pl.config != "" {
					cfg := filepath.Join(dir, "tools.hcl")
					if err := os.WriteFile(cfg, []byte(pl.config), 0o644); err != nil {
						t.Fatal(err)
					}
					paths = []string{cfg}
				}
				var diags hcl.Diagnostics
				within(t, 10*time.Second, func() {
					var cfg *Config
					cfg, diags = Load(paths, &Options{LookupEnv: mapEnv(nil)})
					if pl.example && !diags.HasErrors() {
						_, diags = cfg.Tools[0].Examples[0].Evaluate(Functions(mapEnv(nil)))
					}
				})
				summary, detail := pl.summary, special+pl.detail+k.kind+", not a regular file"
				switch {
				case k.name == "directory" && pl.dirOK:
					summary, detail = "Not a file", special+" is not a file."
				case k.name == "directory" && pl.example:
					detail = `file() cannot read "r.json": r.json is a directory; give the path of a file`
				case pl.example:
					detail = `file() cannot read "r.json": r.json is ` + k.kind + ", not a regular file; file() reads only regular files"
				}
				if !hasDiag(diags, summary, detail) {
					t.Errorf("want %q with %q, got:\n%s", summary, detail, FormatDiagnostics(diags))
				}
				if errs := errorsOf(diags); len(errs) != 1 {
					t.Errorf("want one error, got:\n%s", FormatDiagnostics(diags))
				} else if pl.name != "config" && (errs[0].Subject == nil || errs[0].Subject.Filename != paths[0]) {
					t.Errorf("the error is not at the config: %v", errs[0].Subject)
				}
			})
		}
	}
	// A config directory with a FIFO among its *.hcl files: the FIFO is
	// refused, and the good file beside it loaded.
	t.Run("config directory", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"a.hcl": tool("")})
		if err := syscall.Mkfifo(filepath.Join(dir, "b.hcl"), 0o644); err != nil {
			t.Fatal(err)
		}
		var diags hcl.Diagnostics
		within(t, 10*time.Second, func() { _, diags = Load([]string{dir}, &Options{LookupEnv: mapEnv(nil)}) })
		if !hasDiag(diags, "Config not a regular file", filepath.Join(dir, "b.hcl")+" is a FIFO (named pipe), not a regular file") || len(errorsOf(diags)) != 1 {
			t.Errorf("got:\n%s", FormatDiagnostics(diags))
		}
	})
}

// within runs f, and fails the test if f has not returned after d, as
// when it waits on a FIFO; f goes on in the background then.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still waiting after %v", d)
	}
}
