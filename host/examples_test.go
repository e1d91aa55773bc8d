package host

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
)

// exampleTools are the tools the example tests share: an http tool with a
// result block, an exec tool whose program does not exist (examples never
// run it), and a template tool.
const exampleTools = `
tool "hot" {
  param "limit" {
    type    = integer
    default = 10
    maximum = 50
  }
  http {
    url = "https://api.example.com/hot"
  }
  result {
    field "updated_at" {
      path = "update_time"
      type = string
    }
    field "topics" {
      path = "data.#(index<=${param.limit})#.{title,index}"
      type = list(object({ title = string, index = integer }))
    }
    field "note" {
      path     = "note"
      type     = string
      optional = true
    }
  }
%s
}

tool "stats" {
  exec {
    command = ["toolhost-no-such-program-7f3a9c"]
  }
  result {
    field "count" {
      path = "n"
      type = number
    }
  }
%s
}

tool "greet" {
  param "name" {
    type = string
  }
  template {
    text = "hello ${param.name}"
  }
%s
}
`

const hotJSON = `{"update_time": "2025-04-25 16:36:39", "data": [{"index": 1, "title": "a"}, {"index": 2, "title": "b"}, {"index": 3, "title": "c"}]}`

func TestCheckExamples(t *testing.T) {
	tests := []struct {
		name              string
		hot, stats, greet string
		files             map[string]string
		run, failed       int
	}{
		{
			name: "all pass",
			hot: `
  example "two" {
    args     = { limit = 2 }
    response = file("testdata/hot.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics     = [{ title = "a", index = 1 }, { title = "b", index = 2 }]
      note       = null
    }
  }
  example "refused" {
    args  = { limit = 99 }
    error = "greater than the maximum 50"
  }
  example "missing field" {
    response = "{\"data\": []}"
    error    = "result field \"updated_at\""
  }`,
			stats: `
  example "stdout" {
    response = <<-EOT
      {"n": 42}
    EOT
    result = { count = 42.0 }
  }`,
			greet: `
  example "rendered" {
    args   = { name = "世界" }
    result = "hello 世界"
  }`,
			files: map[string]string{"testdata/hot.json": hotJSON},
			run:   5,
		},
		{
			name: "mismatches",
			hot: `
  example "nested" {
    args     = { limit = 2 }
    response = file("testdata/hot.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics = [
        { title = "a", index = 1 },
        { title = "B", index = 2 }, # ERROR: Example result mismatch # DETAIL: topics[1].title is "b" in the result mapped from the response, but the example expects "B"
      ]
    }
  }
  example "length" {
    args     = { limit = 3 }
    response = file("testdata/hot.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics     = [{ title = "a", index = 1 }] # ERROR: Example result mismatch # DETAIL: topics has 3 items in the mapped result, but the example expects 1; the mapped result's extra items begin with [{"index":2,"title":"b"}
    }
  }
  example "whole" {
    response = file("testdata/hot.json")
    result = { # ERROR: Example result mismatch # DETAIL: the mapped result has topics = [
      updated_at = "2025-04-25 16:36:39"
      topic      = [] # ERROR: Unknown field in example result # DETAIL: Did you mean "topics"?
    }
  }
  example "optional expected" {
    args     = { limit = 0 }
    response = file("testdata/hot.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics     = []
      note       = "x" # ERROR: Example result mismatch # DETAIL: note is absent from the mapped result (its optional path matched nothing)
    }
  }
  example "wrong type" {
    args     = { limit = 0 }
    response = file("testdata/hot.json")
    result = {
      updated_at = { at = 1 } # ERROR: Invalid example result # DETAIL: does not fit its type string
      topics     = []
    }
  }
  example "wrong type inside" {
    args     = { limit = 1 }
    response = file("testdata/hot.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics = [{
        title = "a"
        index = "one" # ERROR: Invalid example result # DETAIL: topics[0].index does not fit the type of field "topics": expected a whole number
      }]
    }
  }`,
			stats: `
  example "number" {
    response = "{\"n\": 41}"
    result   = { count = 42 } # ERROR: Example result mismatch # DETAIL: count is 41 in the result mapped from the response, but the example expects 42
  }`,
			greet: `
  example "text" {
    args   = { name = "world" }
    result = "hello, world" # ERROR: Example result mismatch # DETAIL: they differ at character 6 (line 1)
  }`,
			files:  map[string]string{"testdata/hot.json": hotJSON},
			run:    8,
			failed: 8,
		},
		{
			name: "failures",
			hot: `
  example "bad args" {
    args = {
      limit = "many" # ERROR: Invalid example arguments # DETAIL: invalid argument "limit"
    }
    result = {}
  }
  example "unknown arg" {
    args   = { limt = 3 } # ERROR: Invalid example arguments # DETAIL: invalid argument "limt": this tool has no such parameter (did you mean "limit"?); its parameters are limit.
    result = {}
  }
  example "mapping fails" {
    response = "{\"update_time\": 5}" # ERROR: Example failed # DETAIL: result field "topics"
    result   = {}
  }
  example "not json" {
    response = "<html>busy</html>" # ERROR: Example failed # DETAIL: the output is not JSON
    result   = {}
  }
  example "expected error" {
    response = file("testdata/hot.json")
    error    = "boom" # ERROR: Example expected an error # DETAIL: the tool succeeds with
  }
  example "other error" {
    args  = { limit = 99 }
    error = "less than" # ERROR: Example error mismatch # DETAIL: which does not contain "less than"
  }
  example "no response" { # ERROR: Missing response # DETAIL: validate never sends requests or runs commands
    result = {}
  }
  example "missing file" {
    response = file("testdata/nope.json") # ERROR: Cannot read file # DETAIL: there is no file testdata/nope.json
    result   = {}
  }
  example "outside" {
    response = file("../outside.json") # ERROR: Cannot read file # DETAIL: ../outside.json is outside the config file's directory
    result   = {}
  }
  example "absolute" {
    response = file("/etc/hostname") # ERROR: Cannot read file # DETAIL: is an absolute path
    result   = {}
  }`,
			stats: `
  example "no stdout" { # ERROR: Missing response # DETAIL: the command's standard output
    result = { count = 1 }
  }`,
			greet: `
  example "object for text" {
    args   = { name = "x" }
    result = { text = "hello x" } # ERROR: Invalid example result # DETAIL: write result = "..."
  }`,
			files:  map[string]string{"testdata/hot.json": hotJSON, "../outside.json": "{}"},
			run:    12,
			failed: 12,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "config")
			hot := tt.hot
			if runtime.GOOS == "windows" {
				// An absolute path there has a drive; /etc/hostname is
				// only rooted.
				hot = strings.ReplaceAll(hot, `file("/etc/hostname")`, `file("C:/Windows/win.ini")`)
			}
			files := map[string]string{"tools.hcl": fmt.Sprintf(exampleTools, hot, tt.stats, tt.greet)}
			for k, v := range tt.files {
				files[k] = v
			}
			for name, content := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfgPath := filepath.Join(dir, "tools.hcl")
			reg, diags := Load([]string{cfgPath}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
			if diags.HasErrors() {
				t.Fatalf("load: %s", thcl.FormatDiagnostics(diags))
			}
			defer reg.Close()
			rep := CheckExamples(context.Background(), reg)
			if rep.Run != tt.run || rep.Failed != tt.failed {
				t.Errorf("run %d, failed %d; want %d and %d", rep.Run, rep.Failed, tt.run, tt.failed)
			}
			checkAnnotations(t, cfgPath, rep.Diagnostics)
		})
	}
}

// TestCheckExamplesOffline checks that examples never reach the network:
// the http tool points at a live server that counts requests.
func TestCheckExamplesOffline(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"n": 1}`)
	}))
	defer srv.Close()
	src := fmt.Sprintf(`
tool "count" {
  http {
    url = %q
  }
  result {
    field "n" {
      path = "n"
    }
  }
  example "recorded" {
    response = "{\"n\": 2}"
    result   = { n = 2 }
  }
  example "unrecorded" {
    result = { n = 1 }
  }
}
`, srv.URL)
	rep, _ := checkExamplesOf(t, src)
	if rep.Run != 2 || rep.Failed != 1 || len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Summary != "Missing response" {
		t.Errorf("report = %+v: %s", rep, thcl.FormatDiagnostics(rep.Diagnostics))
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("examples sent %d requests", n)
	}
}

// TestCheckExamplesExecRefusals: an exec argument the command refuses
// before it runs (a value that would start an option, a NUL) is refused in
// an example as in a call, so that an example of the refusal passes and an
// example that expects a result from it fails.
func TestCheckExamplesExecRefusals(t *testing.T) {
	src := `
tool "seq" {
  param "n" { type = integer }
  param "key" {
    type      = string
    default   = "k"
    sensitive = true
  }
  exec {
    command = ["seq", param.n, param.key]
  }
  example "refusal expected, no response" {
    args  = { n = -3 }
    error = "may not start with"
  }
  example "refusal expected, with response" {
    args     = { n = -3 }
    response = ""
    error    = "may not start with"
  }
  example "allowed" {
    args     = { n = 3 }
    response = "1\n2\n3\n"
    result   = "1\n2\n3\n"
  }
  example "result expected from a refused value" {
    args     = { n = -3 }
    response = "-3\n"
    result   = "-3\n"
  }
  example "sensitive value refused" {
    args     = { n = 3, key = "-secret-value" }
    response = ""
    result   = ""
  }
}
`
	rep, _ := checkExamplesOf(t, src)
	if rep.Run != 5 || rep.Failed != 2 || len(rep.Diagnostics) != 2 {
		t.Fatalf("report = %+v: %s", rep, thcl.FormatDiagnostics(rep.Diagnostics))
	}
	for i, want := range []string{`"result expected from a refused value"`, `"sensitive value refused"`} {
		d := rep.Diagnostics[i]
		if d.Summary != "Invalid example arguments" || !strings.Contains(d.Detail, want) || !strings.Contains(d.Detail, "may not start with") {
			t.Errorf("diagnostic %d = %s: %s, want the refusal in example %s", i, d.Summary, d.Detail, want)
		}
		if strings.Contains(d.Detail, "secret-value") {
			t.Errorf("diagnostic %d shows the sensitive value: %s", i, d.Detail)
		}
	}
}

// TestCheckExamplesOfBrokenTool: the examples of a tool whose block has
// errors do not run, but the values of their attributes are still
// evaluated, so that a file() outside the config's directory shows in the
// same validate as the tool's own error.
func TestCheckExamplesOfBrokenTool(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tools.hcl")
	src := `
tool "broken" {
  param "k" { type = string }
  template {
    text = "${param.kk}"
  }
  example "e" {
    args   = { k = "a" }
    result = file("../outside.txt")
  }
}
`
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{cfg}, nil)
	if !diags.HasErrors() {
		t.Fatal("the broken tool loaded without errors")
	}
	defer reg.Close()
	rep := CheckExamples(context.Background(), reg)
	if rep.Run != 0 || rep.Failed != 0 || len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Summary != "Cannot read file" ||
		!strings.Contains(rep.Diagnostics[0].Detail, "outside the config file's directory") {
		t.Errorf("report = %+v: %s", rep, thcl.FormatDiagnostics(rep.Diagnostics))
	}
}

// TestCheckExamplesContentItems: the examples of a tool whose result block
// has content items and no fields compare the text of its text items
// (joined by newlines) with a string, whatever the output is (JSON, plain
// text, none at all); they used to read the output as JSON for fields
// there were none of, or to crash on the missing field.
func TestCheckExamplesContentItems(t *testing.T) {
	src := `
tool "caption" {
  param "city" { type = string }
  exec {
    command = ["toolhost-no-such-program-7f3a9c"]
  }
  result {
    text { text = "Weather for ${param.city}:" }
    text {}
    image {
      data      = "iVBORw0KGgo="
      mime_type = "image/png"
    }
  }
  example "plain text" {
    args     = { city = "北京" }
    response = "晴\n"
    result   = "Weather for 北京:\n晴\n"
  }
  example "wrong text" {
    args     = { city = "x" }
    response = "rain"
    result   = "Weather for x:\nsun" # ERROR: Example result mismatch # DETAIL: they differ at character 16 (line 2)
  }
  example "object" {
    args     = { city = "x" }
    response = "rain"
    result   = { text = "rain" } # ERROR: Invalid example result # DETAIL: the tool's result block has no fields
  }
}

tool "picked" {
  exec {
    command = ["toolhost-no-such-program-7f3a9c"]
  }
  result {
    text { path = "users.0.name" }
  }
  example "json" {
    response = "{\"users\": [{\"name\": \"Ann\"}]}"
    result   = "Ann"
  }
  example "expected error" {
    response = "{\"users\": []}"
    error    = "matched nothing"
  }
  example "missing" {
    response = "{\"users\": []}" # ERROR: Example failed # DETAIL: path "users.0.name" matched nothing in the output
    result   = "Ann"
  }
}

tool "fixed" {
  result {
    text { text = "always this" }
  }
  example "no backend" {
    result = "always this"
  }
}

tool "framed" {
  param "name" { type = string }
  template {
    text = "hi ${param.name}"
  }
  result {
    text { text = "--" }
    text {}
  }
  example "rendered" {
    args   = { name = "x" }
    result = "--\nhi x"
  }
}
`
	rep, cfg := checkExamplesOf(t, src)
	if rep.Run != 8 || rep.Failed != 3 {
		t.Errorf("run %d, failed %d; want 8 and 3: %s", rep.Run, rep.Failed, thcl.FormatDiagnostics(rep.Diagnostics))
	}
	checkAnnotations(t, cfg, rep.Diagnostics)
}

// FuzzCheckExamples loads arbitrary config text and runs its examples: a
// config may be invalid in any way, but nothing may panic.
func FuzzCheckExamples(f *testing.F) {
	for _, p := range []string{filepath.Join("..", "examples", "tools.hcl")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(fmt.Sprintf(exampleTools, `example "x" {
    response = "{\"update_time\":\"t\",\"data\":[{\"index\":1,\"title\":\"a\"}]}"
    result = { updated_at = "t", topics = [{ title = "a", index = 1 }] }
  }`, "", `example "y" {
    args = { name = "n" }
    result = "hello n"
  }`)))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "tools.hcl")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		reg, diags := Load([]string{p}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
		defer reg.Close()
		if diags.HasErrors() {
			return
		}
		rep := CheckExamples(context.Background(), reg)
		for _, d := range rep.Diagnostics {
			if d.Subject == nil {
				t.Fatalf("example diagnostic without a range: %s", thcl.FormatDiagnostic(d))
			}
		}
	})
}

// checkAnnotations compares diagnostics with the "# ERROR: Summary" and
// "# DETAIL: text" annotations of the config's lines, as the hcl package's
// fixture tests do.
func checkAnnotations(t *testing.T, path string, diags hcl.Diagnostics) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ detail string }
	wants := map[string][]string{}
	pattern := regexp.MustCompile(`# (ERROR|WARNING): `)
	for i, line := range strings.Split(string(src), "\n") {
		locs := pattern.FindAllStringSubmatchIndex(line, -1)
		for j, loc := range locs {
			end := len(line)
			if j+1 < len(locs) {
				end = locs[j+1][0]
			}
			summary, detail, _ := strings.Cut(line[loc[1]:end], " # DETAIL: ")
			k := fmt.Sprintf("%d: %s", i+1, strings.TrimSpace(summary))
			wants[k] = append(wants[k], strings.TrimSpace(detail))
		}
	}
	got := map[string][]*hcl.Diagnostic{}
	for _, d := range diags {
		if d.Subject == nil {
			t.Errorf("diagnostic without a range: %s", thcl.FormatDiagnostic(d))
			continue
		}
		k := fmt.Sprintf("%d: %s", d.Subject.Start.Line, d.Summary)
		got[k] = append(got[k], d)
	}
	for k, details := range wants {
		ds, ok := got[k]
		if !ok {
			t.Errorf("missing diagnostic %s", k)
			continue
		}
		for _, w := range details {
			found := false
			for _, d := range ds {
				if strings.Contains(d.Detail, w) {
					found = true
				}
			}
			if !found {
				t.Errorf("diagnostic %s: detail does not contain %q:\n%s", k, w, ds[0].Detail)
			}
		}
	}
	var extra []string
	for k, ds := range got {
		if _, ok := wants[k]; !ok {
			for _, d := range ds {
				extra = append(extra, thcl.FormatDiagnostic(d))
			}
		}
	}
	sort.Strings(extra)
	for _, e := range extra {
		t.Errorf("unexpected diagnostic %s", e)
	}
}

func TestArgPathSteps(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"", "[]"},
		{"[1].title", "[1 title]"},
		{".a.b[0][2]", "[a b 0 2]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(argPathSteps(tt.path)); got != tt.want {
			t.Errorf("argPathSteps(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// TestCheckExamplesAsk: an example of a tool that asks a form gives the
// answers, which the form checks, and the result uses them.
func TestCheckExamplesAsk(t *testing.T) {
	cfg := `
tool "book" {
  param "where" {
    type = string
  }
  ask {
    message = "When?"
    field "time" {
      type = string
    }
    field "people" {
      type    = integer
      maximum = 12
      default = 2
    }
  }
  template {
    text = "${param.where} at ${answer.time} for ${answer.people}"
  }
  example "passes" {
    args    = { where = "Roma" }
    answers = { time = "20:00" }
    result  = "Roma at 20:00 for 2"
  }
  example "wrong result" {
    args    = { where = "Roma" }
    answers = { time = "20:00", people = 3 }
    result  = "Roma at 20:00 for 2"
  }
  example "no answers" {
    args   = { where = "Roma" }
    result = "x"
  }
  example "bad answers" {
    args    = { where = "Roma" }
    answers = { time = "20:00", people = 40 }
    result  = "x"
  }
}
tool "plain" {
  template {
    text = "x"
  }
  example "answers for nothing" {
    answers = { a = 1 }
    result  = "x"
  }
}
`
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{path}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatalf("load: %s", thcl.FormatDiagnostics(diags))
	}
	defer reg.Close()
	rep := CheckExamples(context.Background(), reg)
	var got []string
	for _, d := range rep.Diagnostics {
		got = append(got, fmt.Sprintf("%d %s", d.Subject.Start.Line, d.Summary))
	}
	sort.Strings(got)
	want := []string{"28 Example result mismatch", "30 Missing answers", "36 Invalid example answers", "45 Answers without a form"}
	if rep.Run != 5 || rep.Failed != 4 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("run %d, failed %d, diagnostics %q; want 5, 4, %q\n%s", rep.Run, rep.Failed, got, want, thcl.FormatDiagnostics(rep.Diagnostics))
	}
}

// checkExamplesOf writes src as the tools.hcl of a new directory, loads it,
// which must succeed, and checks its examples as validate does; it returns
// the report and the file's path.
func checkExamplesOf(t *testing.T, src string) (ExampleReport, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := Load([]string{cfg}, nil)
	if diags.HasErrors() {
		t.Fatal(thcl.FormatDiagnostics(diags))
	}
	t.Cleanup(func() { reg.Close() })
	return CheckExamples(context.Background(), reg), cfg
}
