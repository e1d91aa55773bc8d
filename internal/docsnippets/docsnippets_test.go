package docsnippets

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// toolhost is the binary TestMain builds, or "" where none is built;
// notRun says why then.
var toolhost, notRun string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docsnippets")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch _, lookErr := exec.LookPath("go"); {
	case runtime.GOOS == "windows":
		notRun = "the docs' commands are written for a unix shell, and run on unix only"
	case lookErr != nil:
		notRun = "there is no go command to build toolhost with"
	default:
		toolhost = filepath.Join(dir, "toolhost")
		out, err := exec.Command("go", "build", "-o", toolhost, "github.com/toolhost/toolhost/cmd/toolhost").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building toolhost: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// checker is a Checker of the repository for t.
func checker(t *testing.T) *Checker {
	return &Checker{Root: root, Toolhost: toolhost, NotRun: notRun, Logf: t.Logf, TempDir: t.TempDir}
}

// docFiles are README.md, every .md file under docs/ and the gallery's
// READMEs (examples/README.md, examples/*/README.md), relative to the
// root, with slashes.
func docFiles(t *testing.T) []string {
	files := []string{"README.md", "examples/README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	recipes, err := filepath.Glob(filepath.Join(root, "examples", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recipes {
		rel, err := filepath.Rel(root, r)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// checkFile extracts and checks every block of the markdown file at
// path, and returns the problems and the number of blocks checked.
func checkFile(t *testing.T, c *Checker, path, name string) ([]Problem, int) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, problems := Extract(name, src)
	checked := 0
	for _, b := range blocks {
		if b.Skip != "" {
			t.Logf("%s:%d: %s block skipped: %s", b.File, b.Line, b.Lang, b.Skip)
			continue
		}
		if kindOf(b.Lang) != kindNone {
			checked++
		}
		problems = append(problems, c.Check(context.Background(), b)...)
	}
	return problems, checked
}

// TestDocs checks every code block of README.md, the Markdown files
// under docs/ and the gallery's READMEs.
func TestDocs(t *testing.T) {
	c := checker(t)
	total := 0
	for _, name := range docFiles(t) {
		t.Run(name, func(t *testing.T) {
			problems, n := checkFile(t, c, filepath.Join(root, filepath.FromSlash(name)), name)
			for _, p := range problems {
				t.Error(p)
			}
			total += n
		})
	}
	if total == 0 {
		t.Error("no code block of the docs was checked: are README.md and docs/ where this test looks?")
	}
}

// TestBrokenFixtures checks that each fixture under testdata/broken fails
// the check with the problem it is there for, and that testdata/good.md,
// which has a block of every kind, passes.
func TestBrokenFixtures(t *testing.T) {
	tests := []struct {
		file string
		want []string // a substring of each problem, in order
	}{
		{"config.md", []string{"broken.md:5: this hcl block is not a valid config: Unsupported argument"}},
		{"example.md", []string{`broken.md:14: this hcl block is not a valid config: Example result mismatch: Example "world" of tool "hello": the tool returns "hello world"`}},
		{"fragment.md", []string{"broken.md:5: this hcl fragment does not parse"}},
		{"json.md", []string{"this json block is not one JSON value"}},
		{"jsonfragment.md", []string{"this json block is not the members of a JSON object"}},
		{"markers.md", []string{
			`unknown snippet marker "fragmnet"`,
			"a skip marker needs its reason",
			`the snippet marker "fails" is for sh or console blocks`,
			"is not on the line right before a code fence",
		}},
		{"dir.md", []string{"the dir marker names no/such/dir"}},
		{"unclosed.md", []string{"this code fence is never closed"}},
	}
	if toolhost != "" {
		tests = append(tests,
			struct {
				file string
				want []string
			}{"command.md", []string{"broken.md:4: toolhost validate internal/docsnippets/testdata/broken.hcl: exit status 1"}},
			struct {
				file string
				want []string
			}{"fails.md", []string{"exit status 0, but the block is marked fails"}},
			struct {
				file string
				want []string
			}{"dollar.md", []string{"uses $ expansion"}},
		)
	}
	c := checker(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			problems, _ := checkFile(t, c, filepath.Join("testdata", "broken", tt.file), "broken.md")
			if len(problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(tt.want), join(problems))
			}
			for i, p := range problems {
				if !strings.Contains(p.String(), tt.want[i]) {
					t.Errorf("problem %d = %s\nwant it to contain %q", i, p, tt.want[i])
				}
			}
		})
	}
	t.Run("good.md", func(t *testing.T) {
		problems, n := checkFile(t, c, filepath.Join("testdata", "good.md"), "good.md")
		if len(problems) > 0 {
			t.Errorf("problems:\n%s", join(problems))
		}
		if n < 6 {
			t.Errorf("checked %d blocks, want every one of good.md's 6", n)
		}
	})
}

// join gives problems a line each.
func join(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}
