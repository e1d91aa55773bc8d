package docslinks

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckFixture runs Check on a small site of good and bad links and
// wants exactly the bad ones.
func TestCheckFixture(t *testing.T) {
	problems, err := Check("testdata/site", []string{"index.md", "sub/page.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"index.md:11: sub/gone.md: no file or directory sub/gone.md",
		"index.md:11: sub/page.md#telemetry: no heading of sub/page.md has the anchor #telemetry",
		"index.md:12: #install: no heading of index.md has the anchor #install",
		"index.md:12: ../../outside.md: leads out of the repository",
		"index.md:12: /index.md: a path from the site's root; write it relative to index.md",
		"index.md:13: sub/#x: a fragment on a directory",
		"sub/page.md:13: ../index.md#nope: no heading of index.md has the anchor #nope",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSlug checks GitHub's anchors for the kinds of headings the docs have.
func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Install and register with an editor", "install-and-register-with-an-editor"},
		{"Telemetry: traces, metrics, /metrics", "telemetry-traces-metrics-metrics"},
		{"Identity in expressions: claim()", "identity-in-expressions-claim"},
		{`tool "NAME"`, "tool-name"},
		{"The caller's identity upstream: token_exchange", "the-callers-identity-upstream-token_exchange"},
		{"Versions, transports and modes", "versions-transports-and-modes"},
		{"Où sont les journaux", "où-sont-les-journaux"},
	} {
		t.Run(tc.heading, func(t *testing.T) {
			if got := Slug(tc.heading); got != tc.want {
				t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

// TestLinks checks every relative link of the repository's Markdown files:
// README.md, docs/, and the rest (node_modules and testdata left out, and
// refdoc/: those texts are parts of docs/reference.md, whose links are
// relative to it and checked there).
func TestLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "node_modules" || name == "testdata" || name == "refdoc" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"README.md", "docs/commands.md"} {
		if !slices.Contains(files, must) {
			t.Fatalf("%s not among the files checked: %v", must, files)
		}
	}
	problems, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
