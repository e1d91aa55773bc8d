package langref

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextsMatchSchemas fails when a block's text and the decoder's
// schema disagree: an attribute or nested block without text, or text of
// one the decoder does not have; or a function without a description.
func TestTextsMatchSchemas(t *testing.T) {
	if _, err := Load(); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedFilesAreFresh fails when docs/reference.md or
// docs/language.json differs from what the decoder and the texts make
// now: a block or attribute was added, or a text edited, without
// regenerating them.
func TestGeneratedFilesAreFresh(t *testing.T) {
	l, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	js, err := l.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		want []byte
	}{
		{ReferenceFile, l.Markdown()},
		{JSONFile, js},
	} {
		t.Run(f.name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(f.name)))
			if err != nil {
				t.Fatalf("%s cannot be read (%v): run `%s` to write it", f.name, err, Regenerate)
			}
			got = bytes.ReplaceAll(got, []byte("\r\n"), []byte("\n")) // a Windows checkout
			if !bytes.Equal(got, f.want) {
				t.Fatalf("%s is stale: run `%s` and commit the result (first difference at line %d)", f.name, Regenerate, firstDiffLine(got, f.want))
			}
		})
	}
}

// firstDiffLine is the number of the first line at which a and b differ.
func firstDiffLine(a, b []byte) int {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

// TestReferenceCoversEveryBlock checks the page against the language:
// each block's section and each of its attributes are on it, and each
// function.
func TestReferenceCoversEveryBlock(t *testing.T) {
	l, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	page := string(l.Markdown())
	for _, b := range l.Blocks {
		t.Run(b.ID, func(t *testing.T) {
			if !strings.Contains(page, "# "+title(b)+"\n") {
				t.Errorf("the reference has no section for %s", b.ID)
			}
			for _, a := range b.Schema.Attributes {
				if !strings.Contains(page, "| `"+a.Name+"` |") {
					t.Errorf("the reference does not list %s's attribute %s", b.ID, a.Name)
				}
			}
		})
	}
	for _, f := range l.Functions {
		if !strings.Contains(page, "| `"+f.Name+"(") {
			t.Errorf("the reference does not list the function %s", f.Name)
		}
	}
}
