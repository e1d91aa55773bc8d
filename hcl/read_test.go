package hcl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestReadConfigUpTo reads real files around the limit.
func TestReadConfigUpTo(t *testing.T) {
	tooLarge := errors.New("too large")
	dir := t.TempDir()
	const limit = 4096
	for _, size := range []int{0, 1, 511, 512, 513, limit - 1, limit} {
		p := filepath.Join(dir, "ok")
		want := strings.Repeat("x", size)
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readConfigUpTo(p, limit, tooLarge)
		if err != nil || string(got) != want {
			t.Errorf("size %d: got %d bytes, %v; want the file", size, len(got), err)
		}
	}
	for _, size := range []int{limit + 1, 3 * limit} {
		p := filepath.Join(dir, "big")
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := readConfigUpTo(p, limit, tooLarge); err != tooLarge {
			t.Errorf("size %d: got %d bytes, %v; want the too-large error", size, len(got), err)
		}
	}
	if _, err := readConfigUpTo(filepath.Join(dir, "missing"), limit, tooLarge); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
}

// TestLoadRefusesHugeFiles loads a config file and an icon file one byte
// over their caps, and a device that never ends: each is an error that
// names it, found without reading it all.
func TestLoadRefusesHugeFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, diags := Load([]string{"/dev/zero"}, nil)
		if len(diags) != 1 || diags[0].Summary != "Config not a regular file" || !strings.Contains(diags[0].Detail, "/dev/zero is a character device, not a regular file") {
			t.Errorf("/dev/zero: %s", FormatDiagnostics(diags))
		}
	}
	big := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(big, make([]byte, MaxConfigFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, diags := Load([]string{big}, nil); len(diags) != 1 || diags[0].Summary != "Config file too large" || !strings.Contains(diags[0].Detail, big+" was not read: it is larger than 8 MiB") {
		t.Errorf("a config file over the cap: %s", FormatDiagnostics(diags))
	}
	for _, tc := range []struct {
		size int
		want string
	}{{maxIconSize, ""}, {maxIconSize + 1, "Icon too large"}} {
		dir := writeFiles(t, map[string]string{
			"icon.png":  strings.Repeat("\x00", tc.size),
			"tools.hcl": "tool \"t\" {\n  icon {\n    file = \"icon.png\"\n  }\n  template {\n    text = \"x\"\n  }\n}\n",
		})
		_, diags := Load([]string{filepath.Join(dir, "tools.hcl")}, nil)
		var got string
		if errs := errorsOf(diags); len(errs) > 0 {
			got = errs[0].Summary
			if !strings.Contains(errs[0].Detail, "is larger than 64 KiB") || errs[0].Subject == nil || errs[0].Subject.Start.Line != 3 {
				t.Errorf("icon of %d bytes: %s", tc.size, FormatDiagnostics(errs))
			}
		}
		if got != tc.want || len(errorsOf(diags)) > 1 {
			t.Errorf("icon of %d bytes: %q, want %q\n%s", tc.size, got, tc.want, FormatDiagnostics(diags))
		}
	}
}

// TestFileOverSizeLimit: a resource's or a content item's file that is over
// the size a served file may have loads with a warning at the file
// argument, since every read of it would fail; one at the limit loads
// cleanly. The files are sparse: they take no disk.
func TestFileOverSizeLimit(t *testing.T) {
	src := `resource "notes" {
  uri  = "file:///notes.txt"
  file = "notes.txt"
}

tool "chart" {
  result {
    image {
      file      = "chart.png"
      mime_type = "image/png"
    }
  }
}
`
	for _, tc := range []struct {
		name string
		size int64
		want []string // the file arguments warned about
	}{
		{"at the limit", 10 << 20, nil},
		{"over the limit", 10<<20 + 1, []string{`"notes.txt"`, `"chart.png"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"tools.hcl": src})
			for _, name := range []string{"notes.txt", "chart.png"} {
				if err := os.Truncate(filepath.Join(dir, name), 0); err == nil {
					t.Fatal("the file was there before the test made it")
				}
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(tc.size); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			cfg := filepath.Join(dir, "tools.hcl")
			_, diags := Load([]string{cfg}, nil)
			if diags.HasErrors() {
				t.Fatalf("errors: %v", diags)
			}
			var got []string
			for _, d := range diags {
				if d.Severity != hcl.DiagWarning || d.Summary != "File over the size limit" {
					t.Errorf("unexpected diagnostic: %v", d)
					continue
				}
				if !strings.Contains(d.Detail, "is 10485761 bytes (10 MiB), and a file served is at most 10485760 bytes (10 MiB)") {
					t.Errorf("detail = %q", d.Detail)
				}
				b, _ := os.ReadFile(cfg)
				got = append(got, string(d.Subject.SliceBytes(b)))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("warned about %v, want %v", got, tc.want)
			}
		})
	}
}
