package hcl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// expectedDiag is one "# ERROR: Summary" or "# WARNING: Summary" annotation
// of a fixture line, with the optional "# DETAIL: text" that the
// diagnostic's detail must contain.
type expectedDiag struct {
	Line     int
	Severity hcl.DiagnosticSeverity
	Summary  string
	Detail   string
}

func (e expectedDiag) key() string {
	sev := "error"
	if e.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	return fmt.Sprintf("%d: %s: %s", e.Line, sev, e.Summary)
}

// annotationPattern finds the "# ERROR: " and "# WARNING: " annotations.
var annotationPattern = regexp.MustCompile(`# (ERROR|WARNING): `)

// readExpectations reads the annotations of a fixture. A line may carry
// several "# ERROR:" and "# WARNING:" annotations, each with its own
// "# DETAIL:".
func readExpectations(t *testing.T, path string) []expectedDiag {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectedDiag
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		locs := annotationPattern.FindAllStringSubmatchIndex(text, -1)
		for i, loc := range locs {
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			sev := hcl.DiagError
			if text[loc[2]:loc[3]] == "WARNING" {
				sev = hcl.DiagWarning
			}
			summary, detail, _ := strings.Cut(text[loc[1]:end], " # DETAIL: ")
			out = append(out, expectedDiag{Line: line, Severity: sev, Summary: strings.TrimSpace(summary), Detail: strings.TrimSpace(detail)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInvalidConfigs loads each testdata/invalid/*.hcl and checks that its
// diagnostics, errors and warnings, are exactly the annotated ones: the
// multiset of (line, severity, summary) is equal (a line annotated once
// has that diagnostic once), and each annotated detail is in the
// diagnostic.
func TestInvalidConfigs(t *testing.T) {
	// secrets.hcl reads it with env(): no diagnostic may show it.
	const secret = "hunter2-not-a-duration"
	t.Setenv("TOOLHOST_TEST_SECRET", secret)
	files, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/invalid")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".hcl"), func(t *testing.T) {
			want := readExpectations(t, file)
			if len(want) == 0 {
				t.Fatalf("%s has no # ERROR: or # WARNING: annotations", file)
			}
			// A nil Options reads the real environment: env.hcl uses a
			// name that is surely unset.
			_, diags := Load([]string{file}, nil)

			got := map[string][]*hcl.Diagnostic{}
			for _, d := range diags {
				if strings.Contains(d.Summary+d.Detail, secret) {
					t.Errorf("a diagnostic shows the value of an environment variable: %s", FormatDiagnostic(d))
				}
				if d.Subject == nil {
					t.Errorf("diagnostic without a source range: %s", FormatDiagnostic(d))
					continue
				}
				if filepath.Clean(d.Subject.Filename) != filepath.Clean(file) {
					t.Errorf("diagnostic in another file: %s", FormatDiagnostic(d))
					continue
				}
				k := expectedDiag{Line: d.Subject.Start.Line, Severity: d.Severity, Summary: d.Summary}.key()
				got[k] = append(got[k], d)
			}
			wantKeys := map[string]int{}
			for _, w := range want {
				k := w.key()
				wantKeys[k]++
				ds, ok := got[k]
				if !ok {
					t.Errorf("missing diagnostic %s", k)
					continue
				}
				if w.Detail == "" {
					continue
				}
				// A detail names the fixture as Load was given it, with
				// the system's separator; the annotations write "/".
				detail := strings.ReplaceAll(w.Detail, filepath.ToSlash(file), file)
				found := false
				for _, d := range ds {
					if strings.Contains(d.Detail, detail) {
						found = true
					}
				}
				if !found {
					t.Errorf("diagnostic %s: detail does not contain %q:\n%s", k, detail, ds[0].Detail)
				}
			}
			var extra []string
			for k, ds := range got {
				switch n := wantKeys[k]; {
				case n == 0:
					for _, d := range ds {
						extra = append(extra, FormatDiagnostic(d))
					}
				case len(ds) > n:
					// One mistake reported twice is a cascade: annotate
					// the line once for each diagnostic meant.
					t.Errorf("diagnostic %s comes %d times, annotated %d:\n%s", k, len(ds), n, FormatDiagnostic(ds[len(ds)-1]))
				}
			}
			sort.Strings(extra)
			for _, e := range extra {
				t.Errorf("unexpected diagnostic %s", e)
			}
		})
	}
}

// TestValidConfigs loads each testdata/valid/*.hcl, and the examples, and
// expects no diagnostics at all, warnings included.
func TestValidConfigs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "valid", "*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, examplesConfig)
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/valid")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".hcl"), func(t *testing.T) {
			cfg, diags := Load([]string{file}, &Options{LookupEnv: mapEnv(nil)})
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
			}
			if len(cfg.Tools) == 0 {
				t.Errorf("no tools loaded")
			}
			for _, tool := range cfg.Tools {
				if tool.Backend == nil || tool.InputSchema() == nil {
					t.Errorf("tool %q: not compiled (backend %v, schema %v)", tool.Name, tool.Backend, tool.InputSchema())
				}
				// Fields compile to an output schema; content items alone
				// do not (they are not structured content).
				if hasFields := tool.Result != nil && len(tool.Result.Fields) > 0; hasFields != (tool.OutputSchema() != nil) {
					t.Errorf("tool %q: result fields and output schema disagree", tool.Name)
				}
			}
		})
	}
}

// TestDuplicateToolAcrossFiles declares one tool name in two files of a
// directory: the error points at the second file's declaration and names
// the first file's.
func TestDuplicateToolAcrossFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.hcl": "tool \"greet\" {\n  template {\n    text = \"a\"\n  }\n}\n",
		"b.hcl": "# second\n\ntool \"greet\" {\n  template {\n    text = \"b\"\n  }\n}\n",
	})
	_, diags := Load([]string{dir}, nil)
	errs := errorsOf(diags)
	if len(errs) != 1 {
		t.Fatalf("want one error, got:\n%s", FormatDiagnostics(diags))
	}
	d := errs[0]
	if d.Summary != "Duplicate tool" {
		t.Errorf("summary = %q, want Duplicate tool", d.Summary)
	}
	if d.Subject == nil || filepath.Base(d.Subject.Filename) != "b.hcl" || d.Subject.Start.Line != 3 {
		t.Errorf("subject = %v, want b.hcl line 3", d.Subject)
	}
	if want := filepath.Join(dir, "a.hcl") + ":1:1."; !strings.Contains(d.Detail, want) {
		t.Errorf("detail does not name the first declaration %q:\n%s", want, d.Detail)
	}
	if !strings.Contains(d.Detail, `"greet"`) {
		t.Errorf("detail does not name the tool:\n%s", d.Detail)
	}
}

func TestDuplicatesAcrossFiles(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		summary string
	}{
		{"prompt", "prompt \"p\" {\n  message \"user\" {\n    text = \"a\"\n  }\n}\n", "prompt \"p\" {\n  message \"user\" {\n    text = \"b\"\n  }\n}\n", "Duplicate prompt"},
		{"server", "server {\n  name = \"a\"\n}\n", "server {\n  name = \"b\"\n}\n", "Duplicate server block"},
		{"resource", "resource \"r\" {\n  uri = \"file:///a\"\n  file = \"a.hcl\"\n}\n", "resource \"r\" {\n  uri = \"file:///b\"\n  file = \"b.hcl\"\n}\n", "Duplicate resource"},
		{"resource URI", "resource \"r1\" {\n  uri = \"file:///a\"\n  file = \"a.hcl\"\n}\n", "resource \"r2\" {\n  uri = \"file:///a\"\n  file = \"b.hcl\"\n}\n", "Duplicate resource URI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"a.hcl": tt.a, "b.hcl": tt.b})
			_, diags := Load([]string{dir}, nil)
			errs := errorsOf(diags)
			if len(errs) != 1 || errs[0].Summary != tt.summary {
				t.Fatalf("want one %q error, got:\n%s", tt.summary, FormatDiagnostics(diags))
			}
			d := errs[0]
			if filepath.Base(d.Subject.Filename) != "b.hcl" {
				t.Errorf("subject = %v, want in b.hcl", d.Subject)
			}
			if !strings.Contains(d.Detail, filepath.Join(dir, "a.hcl")+":") {
				t.Errorf("detail does not name a.hcl:\n%s", d.Detail)
			}
		})
	}
}

func TestLoadPaths(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf("tool %q {\n  template {\n    text = %q\n  }\n}\n", name, name)
	}
	t.Run("directory in name order", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{
			"b.hcl":       tool("second"),
			"a.hcl":       tool("first"),
			"c.hcl":       tool("third"),
			"notes.txt":   "not config",
			"d.hcl.bak":   "not config either {",
			"sub/x.hcl":   tool("nested_not_read"),
			"10-late.hcl": tool("zeroth"),
		})
		cfg := mustLoad(t, dir)
		var names []string
		for _, tl := range cfg.Tools {
			names = append(names, tl.Name)
		}
		if got, want := strings.Join(names, ","), "zeroth,first,second,third"; got != want {
			t.Errorf("tools = %s, want %s", got, want)
		}
		var bases []string
		for _, p := range cfg.Paths {
			bases = append(bases, filepath.Base(p))
		}
		if got, want := strings.Join(bases, ","), "10-late.hcl,a.hcl,b.hcl,c.hcl"; got != want {
			t.Errorf("paths = %s, want %s", got, want)
		}
		if cfg.Server == nil || cfg.Server.Name != "toolhost" {
			t.Errorf("server = %+v, want the default", cfg.Server)
		}
	})
	t.Run("file and directory, each file once", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"a.hcl": tool("first"), "b.hcl": tool("second")})
		cfg := mustLoad(t, filepath.Join(dir, "b.hcl"), dir)
		var names []string
		for _, tl := range cfg.Tools {
			names = append(names, tl.Name)
		}
		if got, want := strings.Join(names, ","), "second,first"; got != want {
			t.Errorf("tools = %s, want %s", got, want)
		}
	})
	t.Run("directory name with glob characters", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"conf[prod]/tools.hcl": tool("globbed")})
		cfg, diags := Load([]string{filepath.Join(dir, "conf[prod]")}, nil)
		if len(diags) > 0 {
			t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
		}
		if len(cfg.Tools) != 1 {
			t.Errorf("tools = %d, want 1", len(cfg.Tools))
		}
	})
	tests := []struct {
		name    string
		path    func(t *testing.T, dir string) string
		summary string
		detail  string
	}{
		{"missing path", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope.hcl") }, "Config not found", "nope.hcl"},
		{"missing directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") }, "Config not found", "nope"},
		// A name close to a config file or directory there gets it.
		{"misspelt file", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "tools.hcl"), []byte(tool("a")), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "tool.hcl")
		}, "Config not found", string(filepath.Separator) + "tools.hcl?"},
		{"misspelt directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "empt") }, "Config not found",
			"empt. Did you mean " + filepath.Join("$DIR", "empty") + "?"},
		{"no hcl files", func(t *testing.T, dir string) string { return filepath.Join(dir, "empty") }, "No config files", "tools.hcl"},
		// A link to nothing is there: the fix is its target, not the path.
		{"symlink to nothing", func(t *testing.T, dir string) string {
			return symlink(t, "releases/8/tools.hcl", filepath.Join(dir, "tools.hcl"))
		}, "Config not found", filepath.Join("releases", "8", "tools.hcl") + ", which does not exist. Point the link at the config, or put the config at "},
		{"directory on the way a symlink to nothing", func(t *testing.T, dir string) string {
			symlink(t, filepath.Join("releases", "8"), filepath.Join(dir, "current"))
			return filepath.Join(dir, "current", "tools.hcl")
		}, "Config not found", filepath.Join("current", "tools.hcl") + " leads through a symbolic link to "},
		{"symlink to itself", func(t *testing.T, dir string) string {
			return symlink(t, "loop.hcl", filepath.Join(dir, "loop.hcl"))
		}, "Cannot read config", "loop.hcl cannot be read: stat "},
		{"symlink to nothing in a directory", func(t *testing.T, dir string) string {
			symlink(t, "gone.hcl", filepath.Join(dir, "empty", "b.hcl"))
			return filepath.Join(dir, "empty")
		}, "Cannot read config", filepath.Join("empty", "b.hcl") + " is a symbolic link to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"empty/readme.txt": "nothing here"})
			cfg, diags := Load([]string{tt.path(t, dir)}, nil)
			detail := strings.ReplaceAll(tt.detail, "$DIR", dir)
			if !hasDiag(diags, tt.summary, detail) {
				t.Fatalf("want %q mentioning %q, got:\n%s", tt.summary, detail, FormatDiagnostics(diags))
			}
			if len(errorsOf(diags)) != 1 {
				t.Errorf("want exactly one error, got:\n%s", FormatDiagnostics(diags))
			}
			if cfg == nil {
				t.Fatal("Load returned a nil config")
			}
		})
	}
	t.Run("paths relative to their own file after a file with syntax errors", func(t *testing.T) {
		// The first file is not decoded; the second's file resource is
		// still found next to it, not next to the first.
		dir := writeFiles(t, map[string]string{
			"one/broken.hcl": "tool \"x\" {\n",
			"two/tools.hcl":  "resource \"notes\" {\n  uri  = \"notes://a\"\n  file = \"a.md\"\n}\n",
			"two/a.md":       "# a",
		})
		_, diags := Load([]string{filepath.Join(dir, "one", "broken.hcl"), filepath.Join(dir, "two", "tools.hcl")}, nil)
		if !hasDiag(diags, "Unclosed configuration block", "") {
			t.Errorf("want the syntax error, got:\n%s", FormatDiagnostics(diags))
		}
		if len(errorsOf(diags)) != 1 {
			t.Errorf("want only the syntax error, got:\n%s", FormatDiagnostics(diags))
		}
	})
	t.Run("nothing declared", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			files map[string]string
			want  string
		}{
			{"empty file", map[string]string{"tools.hcl": ""}, "tools.hcl declares no tool"},
			{"server block only", map[string]string{"tools.hcl": "server {\n  name = \"s\"\n}\n"}, "tools.hcl declares no tool"},
			{"two empty files", map[string]string{"a.hcl": "", "b.hcl": "# nothing yet\n"}, "a.hcl and the other file with it declare no tool"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dir := writeFiles(t, tc.files)
				_, diags := Load([]string{dir}, nil)
				if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || diags[0].Summary != "Nothing declared" || !strings.Contains(diags[0].Detail, tc.want) {
					t.Fatalf("want one warning Nothing declared mentioning %q, got:\n%s", tc.want, FormatDiagnostics(diags))
				}
			})
		}
		// A config with one tool gets no such warning.
		dir := writeFiles(t, map[string]string{"a.hcl": tool("first"), "b.hcl": ""})
		if _, diags := Load([]string{dir}, nil); len(diags) != 0 {
			t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
		}
	})
	t.Run("one missing path among good ones", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"a.hcl": tool("first")})
		_, diags := Load([]string{filepath.Join(dir, "a.hcl"), filepath.Join(dir, "missing.hcl")}, nil)
		if !hasDiag(diags, "Config not found", "missing.hcl") {
			t.Errorf("want Config not found for missing.hcl, got:\n%s", FormatDiagnostics(diags))
		}
	})
}

// TestConfigFiles checks the expansion of command-line paths alone: in a
// directory, the .hcl files but those whose names start with a dot
// (editors' lock and backup files), which count when named on their own.
func TestConfigFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"b.hcl": "", "a.hcl": "", "c.txt": "", "._a.hcl": "", ".hidden.hcl": ""})
	if err := os.Symlink("user@host.1234:1700000000", filepath.Join(dir, ".#a.hcl")); err != nil {
		t.Fatal(err)
	}
	files, diags := ConfigFiles([]string{dir, filepath.Join(dir, "a.hcl"), filepath.Join(dir, ".hidden.hcl")})
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", FormatDiagnostics(diags))
	}
	want := []string{filepath.Join(dir, "a.hcl"), filepath.Join(dir, "b.hcl"), filepath.Join(dir, ".hidden.hcl")}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("files = %v, want %v", files, want)
	}
}

// TestConfigFilesSameFileOnce: a file named twice, through a link to its
// directory, a link to it in the same directory, or a hard link, is
// loaded once, under the first name it was found by.
func TestConfigFilesSameFileOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"tools.hcl": sameFileTool})
	// linkToDir makes a symbolic link to dir, outside it.
	linkToDir := func(t *testing.T) string {
		testconfig.NeedSymlinks(t)
		link := filepath.Join(t.TempDir(), "conf")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		return link
	}
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T) []string
	}{
		{"directory and the file through a link to it", func(t *testing.T) []string {
			return []string{dir, filepath.Join(linkToDir(t), "tools.hcl")}
		}},
		{"the directory twice, once through a link", func(t *testing.T) []string {
			return []string{dir, linkToDir(t)}
		}},
		{"a symbolic link beside the file", func(t *testing.T) []string {
			testconfig.NeedSymlinks(t)
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, "a.hcl"), []byte(sameFileTool), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("a.hcl", filepath.Join(d, "b.hcl")); err != nil {
				t.Fatal(err)
			}
			return []string{d}
		}},
		{"a hard link beside the file", func(t *testing.T) []string {
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, "a.hcl"), []byte(sameFileTool), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(d, "a.hcl"), filepath.Join(d, "b.hcl")); err != nil {
				t.Fatal(err)
			}
			return []string{d}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			paths := tt.setup(t)
			files, diags := ConfigFiles(paths)
			if len(diags) > 0 || len(files) != 1 {
				t.Fatalf("ConfigFiles(%v) = %v, %v; want one file", paths, files, FormatDiagnostics(diags))
			}
			cfg, diags := Load(paths, nil)
			if diags.HasErrors() || len(cfg.Tools) != 1 {
				t.Fatalf("Load(%v): %d tools, diagnostics:\n%s", paths, len(cfg.Tools), FormatDiagnostics(diags))
			}
		})
	}
}

// TestMessageHelpers checks the pieces messages are built from: articles,
// sentence ends, and positions as file:line:col.
func TestMessageHelpers(t *testing.T) {
	for word, want := range map[string]string{"arg": "an arg", "param": "a param", "http": "an http", "exec": "an exec", "field": "a field", "image": "an image", "template": "a template"} {
		if got := withArticle(word); got != want {
			t.Errorf("withArticle(%q) = %q, want %q", word, got, want)
		}
	}
	for in, want := range map[string]string{"did you mean @reverse?": "did you mean @reverse?", "is empty": "is empty.", "ends.": "ends."} {
		if got := sentenceEnd(in); got != want {
			t.Errorf("sentenceEnd(%q) = %q, want %q", in, got, want)
		}
	}
	r := hcl.Range{Filename: "d/a.hcl", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 11}}
	if got := posString(r); got != "d/a.hcl:1:1" {
		t.Errorf("posString = %q, want d/a.hcl:1:1", got)
	}
}

// TestNowChecksSkipExamples: the load-time check of functions given now()
// leaves example blocks alone (validate runs them with the real clock;
// serve does not evaluate them), so a mistake there does not stop serve.
func TestNowChecksSkipExamples(t *testing.T) {
	src := `tool "today" {
  param "d" {
    type = string
  }
  template { text = param.d }
  example "today" {
    args   = { d = formatdate("QQ", now()) }
    result = "x"
  }
}
`
	_, diags := loadString(t, src, nil)
	if diags.HasErrors() {
		t.Fatalf("the load reports the example's mistake:\n%s", FormatDiagnostics(diags))
	}
}

// TestEnumValueRange checks that an enum value that does not fit the
// parameter is pointed at itself, not at the whole list.
func TestEnumValueRange(t *testing.T) {
	tests := []struct {
		name, enum string
		want       []string // the source text of each diagnostic's subject
	}{
		{"one bad value", `[1, "two", 3]`, []string{`"two"`}},
		{"two bad values", `[1, 20, 30]`, []string{`20`, `30`}},
		{"a computed list", `concat([1], [20])`, []string{`concat([1], [20])`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "tool \"t\" {\n  param \"n\" {\n    type    = integer\n    maximum = 10\n    enum    = " + tt.enum + "\n  }\n  template {\n    text = \"x\"\n  }\n}\n"
			_, diags := loadString(t, src, nil)
			var got []string
			for _, d := range diags {
				if d.Summary != "Invalid enum value" {
					t.Errorf("unexpected diagnostic: %s", FormatDiagnostic(d))
					continue
				}
				got = append(got, src[d.Subject.Start.Byte:d.Subject.End.Byte])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("subjects = %q, want %q", got, tt.want)
			}
		})
	}
}

// symlink makes a symbolic link at link to target, and returns link.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	testconfig.NeedSymlinks(t)
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	return link
}

// sameFileTool is a config of one tool, for TestConfigFilesSameFileOnce.
const sameFileTool = `tool "a" {
  description = "A tool."
  template { text = "a" }
}
`
