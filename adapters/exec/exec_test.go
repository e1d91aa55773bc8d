//go:build unix

package exec

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// execFixture declares a tool's parameters for compiling and calling exec
// blocks in tests.
type execFixture struct {
	params  map[string]cty.Type
	info    map[string]adapters.ParamInfo
	baseDir string
	// answers are the fields of the tool's ask form, if it has one.
	answers map[string]cty.Type
}

var execTestFuncs = map[string]function.Function{
	"concat":     stdlib.ConcatFunc,
	"upper":      stdlib.UpperFunc,
	"format":     stdlib.FormatFunc,
	"jsonencode": stdlib.JSONEncodeFunc,
	// The functions that build lists, for the script checks.
	"flatten":      stdlib.FlattenFunc,
	"slice":        stdlib.SliceFunc,
	"reverse":      stdlib.ReverseListFunc,
	"split":        stdlib.SplitFunc,
	"formatlist":   stdlib.FormatListFunc,
	"values":       stdlib.ValuesFunc,
	"compact":      stdlib.CompactFunc,
	"coalescelist": stdlib.CoalesceListFunc,
	"element":      stdlib.ElementFunc,
	"join":         stdlib.JoinFunc,
	"replace":      stdlib.ReplaceFunc,
	"tostring":     stdlib.MakeToFunc(cty.String),
	// The functions that lose the marks of the script checks.
	"try":       tryfunc.TryFunc,
	"lookup":    stdlib.LookupFunc,
	"keys":      stdlib.KeysFunc,
	"trimspace": stdlib.TrimSpaceFunc,
	"coalesce":  stdlib.CoalesceFunc,
	// Functions that compute a program's name at load.
	"strrev": stdlib.ReverseFunc,
	"base64decode": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "text", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := base64.StdEncoding.DecodeString(args[0].AsString())
			return cty.StringVal(string(b)), err
		},
	}),
	// sensitive is the config's sensitive(VALUE): the value unchanged.
	"sensitive": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "value", Type: cty.String, AllowNull: true}},
		Type:   function.StaticReturnType(cty.String),
		Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
	}),
}

// defaultExecFixture has the parameters most tests use.
func defaultExecFixture() execFixture {
	return execFixture{
		params: map[string]cty.Type{
			"text":    cty.String,
			"path":    cty.String,
			"n":       cty.Number,
			"flag":    cty.Bool,
			"a":       cty.String,
			"b":       cty.String,
			"opt":     cty.String,
			"pidfile": cty.String,
			"files":   cty.List(cty.String),
		},
		info: map[string]adapters.ParamInfo{},
	}
}

// execSource wraps body in an exec block.
func execSource(body string) string {
	return "exec {\n" + body + "\n}\n"
}

// compile parses src (a whole exec block) and compiles it.
func (f execFixture) compile(t *testing.T, src string) (*Exec, hcl.Diagnostics) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parsing test config: %s", diags.Error())
	}
	var block *hcl.Block
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "exec" {
			block = b.AsHCLBlock()
		}
	}
	if block == nil {
		t.Fatalf("no exec block in test config")
	}
	params := map[string]adapters.ParamInfo{}
	for name := range f.params {
		params[name] = f.info[name]
	}
	kind, ok := adapters.Lookup("exec")
	if !ok {
		t.Fatalf("exec kind is not registered")
	}
	cc := &adapters.CompileContext{
		BaseDir:  f.baseDir,
		ToolName: "test_tool",
		Params:   params,
		Eval: &hcl.EvalContext{
			Variables: map[string]cty.Value{"param": cty.UnknownVal(cty.Object(f.params))},
			Functions: execTestFuncs,
		},
	}
	if f.answers != nil {
		cc.Eval.Variables["answer"] = cty.UnknownVal(cty.Object(f.answers))
	}
	b, diags := kind.Compile(block, cc)
	if diags.HasErrors() {
		return nil, diags
	}
	e, ok := b.(*Exec)
	if !ok {
		t.Fatalf("compile returned %T, want *Exec", b)
	}
	return e, diags
}

// mustCompile compiles body and fails the test on any diagnostic.
func (f execFixture) mustCompile(t *testing.T, body string) *Exec {
	t.Helper()
	e, diags := f.compile(t, execSource(body))
	if diags.HasErrors() { // a warning, such as "Program not found", is fine
		t.Fatalf("compile: %s", diags.Error())
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// input builds the call-time evaluation context; parameters not in args
// are null.
func (f execFixture) input(args map[string]cty.Value) *adapters.Input {
	attrs := map[string]cty.Value{}
	for name, ty := range f.params {
		if v, ok := args[name]; ok {
			attrs[name] = v
		} else {
			attrs[name] = cty.NullVal(ty)
		}
	}
	return &adapters.Input{Eval: &hcl.EvalContext{
		Variables: map[string]cty.Value{"param": cty.ObjectVal(attrs)},
		Functions: execTestFuncs,
	}}
}

func (f execFixture) call(t *testing.T, ctx context.Context, e *Exec, args map[string]cty.Value) (*adapters.Output, error) {
	t.Helper()
	return e.Call(ctx, f.input(args))
}

func TestExecArgvVerbatim(t *testing.T) {
	t.Parallel()
	nasty := `a b  "double" 'single' $(id) ` + "`id`" + ` ; echo pwned | cat && rm -rf / $HOME * \ newline:` + "\n" + `end`
	tests := []struct {
		name string
		body string
		args map[string]cty.Value
		want string
	}{
		{"shell syntax is one argument", `command = ["printf", "%s", param.text]`,
			map[string]cty.Value{"text": cty.StringVal(nasty)}, nasty},
		{"spaces stay in one argument", `command = ["printf", "[%s]", param.text, "x y"]`,
			map[string]cty.Value{"text": cty.StringVal("one two")}, "[one two][x y]"},
		{"empty string is an argument", `command = ["printf", "[%s]", param.text]`,
			map[string]cty.Value{"text": cty.StringVal("")}, "[]"},
		{"number is converted", `command = ["printf", "%s", param.n]`,
			map[string]cty.Value{"n": cty.NumberIntVal(42)}, "42"},
		{"fraction is converted", `command = ["printf", "%s", param.n]`,
			map[string]cty.Value{"n": cty.NumberFloatVal(3.5)}, "3.5"},
		{"bool is converted", `command = ["printf", "%s", param.flag]`,
			map[string]cty.Value{"flag": cty.True}, "true"},
		{"template", `command = ["printf", "%s", "x=${param.text}"]`,
			map[string]cty.Value{"text": cty.StringVal("$(id)")}, "x=$(id)"},
		{"function call", `command = ["printf", "%s", upper(param.text)]`,
			map[string]cty.Value{"text": cty.StringVal("abc")}, "ABC"},
		{"constant command", `command = ["printf", "%s-%s", 1, true]`, nil, "1-true"},
		{"computed list", `command = concat(["printf", "%s"], [param.text])`,
			map[string]cty.Value{"text": cty.StringVal("a;b")}, "a;b"},
	}
	f := defaultExecFixture()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := f.mustCompile(t, tt.body)
			out, err := f.call(t, context.Background(), e, tt.args)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := string(out.Body); got != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
			if out.Truncated {
				t.Errorf("Truncated = %v", out.Truncated)
			}
		})
	}
}

func TestExecRelativeProgramAndDir(t *testing.T) {
	t.Parallel()
	testdata, err := filepath.Abs(filepath.Join("testdata", "exec"))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	sub := filepath.Join(base, "work", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wantSub, _ := filepath.EvalSymlinks(sub)
	wantBase, _ := filepath.EvalSymlinks(base)

	t.Run("program relative to BaseDir", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.baseDir = testdata
		e := f.mustCompile(t, `command = ["./args.sh", param.text, "b c"]`)
		out, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal("$(id)")})
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if got, want := string(out.Body), "[$(id)]\n[b c]\n"; got != want {
			t.Errorf("body = %q, want %q", got, want)
		}
	})
	t.Run("program named like a file beside the config", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.baseDir = testdata
		e, diags := f.compile(t, execSource(`command = ["args.sh", param.text]`))
		const hint = `a name without a slash is looked up on the PATH only: write "./args.sh" to run it`
		if len(diags) != 1 || diags[0].Summary != "Program not found" || !strings.Contains(diags[0].Detail, hint) {
			t.Errorf("diagnostics = %v, want one warning with %q", diags, hint)
		}
		if e == nil {
			t.Fatal("compile failed")
		}
		_, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal("x")})
		if err == nil || !strings.Contains(err.Error(), `command "args.sh" not found on PATH; `) || !strings.Contains(err.Error(), hint) {
			t.Errorf("err = %v, want one that says %q", err, hint)
		}
	})
	t.Run("dir relative to BaseDir", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.baseDir = base
		e := f.mustCompile(t, `command = ["pwd", "-P"]
dir = "work/sub"`)
		out, err := f.call(t, context.Background(), e, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if got := strings.TrimSpace(string(out.Body)); got != wantSub {
			t.Errorf("pwd = %q, want %q", got, wantSub)
		}
	})
	t.Run("default dir is BaseDir", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.baseDir = base
		e := f.mustCompile(t, `command = ["pwd", "-P"]`)
		out, err := f.call(t, context.Background(), e, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if got := strings.TrimSpace(string(out.Body)); got != wantBase {
			t.Errorf("pwd = %q, want %q", got, wantBase)
		}
	})
	t.Run("missing dir", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.baseDir = base
		e := f.mustCompile(t, `command = ["pwd"]
dir = "nope"`)
		_, err := f.call(t, context.Background(), e, nil)
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("err = %v, want a missing directory", err)
		}
	})
}

// TestExecProgramNotRegular: a program path that names a FIFO, even one
// with its execute bits set, is not an executable file: the call fails at
// once, where it once waited for good to read the #! line of the FIFO.
func TestExecProgramNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "prog"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "prog"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := defaultExecFixture()
	f.baseDir = dir
	e, _ := f.compile(t, execSource(`command = ["./prog"]`))
	if e == nil {
		t.Fatal("compile failed")
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.call(t, context.Background(), e, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), `command "./prog" is not an executable file`) {
			t.Errorf("err = %v, want one that says it is not an executable file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call still waits after 10s")
	}
}

// TestExecStartErrors: a program file that is there but cannot start says
// why and how to fix it, rather than "not found" or "exec format error".
//
// Not parallel, and the files are written before any subtest runs: a
// command started while a file is open for writing in a process forked at
// that moment could fail with "text file busy".
func TestExecStartErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, content string
		want                []string
	}{
		{"no #! line", "plain.sh", "echo hi\n",
			[]string{`command "./plain.sh" could not be started: the file is not a program the system can run`, "#!/bin/sh", `command = ["sh", "./plain.sh"]`}},
		{"Windows line endings", "crlf.sh", "#!/bin/sh\r\necho hi\r\n",
			[]string{`its first line (#!/bin/sh) ends with a carriage return`, "Windows line endings", "dos2unix"}},
		{"missing interpreter", "old.py", "#!/nonexistent/python2.4\nprint 1\n",
			[]string{`the interpreter its first line names (#!/nonexistent/python2.4) is not found`}},
	}
	for _, tt := range tests {
		if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := defaultExecFixture()
	f.baseDir = dir
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := f.mustCompile(t, `command = ["./`+tt.file+`"]`)
			_, err := f.call(t, context.Background(), e, nil)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestExecFlagInjection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		allow   []string
		args    map[string]cty.Value
		want    string // body on success
		wantErr string // error substring
	}{
		{"leading dash refused", `command = ["printf", "%s,", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "",
			`parameter "path" value may not start with "-": it would be read as an option`},
		{"double dash value refused", `command = ["printf", "%s,", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("--help")}, "", `parameter "path"`},
		{"lone dash refused", `command = ["printf", "%s,", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-")}, "", `parameter "path"`},
		{"negative number refused", `command = ["printf", "%s,", param.n]`, nil,
			map[string]cty.Value{"n": cty.NumberIntVal(-5)}, "", `parameter "n"`},
		{"wrapped template refused", `command = ["printf", "%s,", "${param.path}"]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"function of param refused", `command = ["printf", "%s,", upper(param.path)]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"template with param first refused", `command = ["printf", "%s,", "${param.a}${param.b}"]`, nil,
			map[string]cty.Value{"a": cty.StringVal("-x"), "b": cty.StringVal("y")}, "", `parameter "a"`},
		{"separator from a param does not count", `command = ["printf", "%s,", param.a, param.b]`, nil,
			map[string]cty.Value{"a": cty.StringVal("--"), "b": cty.StringVal("-x")}, "", `parameter "a"`},
		{"computed list refused", `command = concat(["printf", "%s,"], [param.path])`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"list param spread", `command = concat(["printf", "%s,", param.a], param.files)`, nil,
			map[string]cty.Value{"a": cty.StringVal("x"), "files": cty.ListVal([]cty.Value{cty.StringVal("y"), cty.StringVal("z w")})}, "x,y,z w,", ""},
		{"list param spread, empty", `command = concat(["printf", "%s,", param.a], param.files)`, nil,
			map[string]cty.Value{"a": cty.StringVal("x"), "files": cty.ListValEmpty(cty.String)}, "x,", ""},
		{"list param spread, dash item refused", `command = concat(["printf", "%s,", param.a], param.files)`, nil,
			map[string]cty.Value{"a": cty.StringVal("x"), "files": cty.ListVal([]cty.Value{cty.StringVal("y"), cty.StringVal("-n")})}, "", `parameter "files" value may not start`},
		{"list param spread, dash in the fixed list refused", `command = concat(["printf", "%s,", param.a], param.files)`, nil,
			map[string]cty.Value{"a": cty.StringVal("-n"), "files": cty.ListVal([]cty.Value{cty.StringVal("y")})}, "", `parameter "a" value may not start`},
		{"list param spread after separator", `command = concat(["printf", "%s,", "--"], param.files)`, nil,
			map[string]cty.Value{"files": cty.ListVal([]cty.Value{cty.StringVal("-n")})}, "--,-n,", ""},
		{"AllowFlags", `command = ["printf", "%s,", param.path]`, []string{"path"},
			map[string]cty.Value{"path": cty.StringVal("-n")}, "-n,", ""},
		{"AllowFlags on one param only", `command = ["printf", "%s,", param.path, param.a]`, []string{"path"},
			map[string]cty.Value{"path": cty.StringVal("-n"), "a": cty.StringVal("-x")}, "", `parameter "a"`},
		{"after literal separator", `command = ["printf", "%s,", "--", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "--,-n,", ""},
		{"after separator in computed list", `command = concat(["printf", "%s,", "--"], [param.path])`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "--,-n,", ""},
		{"literal prefix is the config's", `command = ["printf", "%s,", "--name=${param.path}"]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "--name=-n,", ""},
		{"conditional between literal flags", `command = ["printf", "%s,", param.flag ? "-v" : "-q"]`, nil,
			map[string]cty.Value{"flag": cty.True}, "-v,", ""},
		{"conditional with param result", `command = ["printf", "%s,", param.flag ? param.path : "-q"]`, nil,
			map[string]cty.Value{"flag": cty.True, "path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"optional flag chosen in concat", `command = concat(["printf", "%s,"], param.flag ? ["--verbose"] : [], [param.path])`, nil,
			map[string]cty.Value{"flag": cty.True, "path": cty.StringVal("x")}, "--verbose,x,", ""},
		{"optional flag left out in concat", `command = concat(["printf", "%s,"], param.flag ? ["--verbose"] : [], [param.path])`, nil,
			map[string]cty.Value{"flag": cty.False, "path": cty.StringVal("x")}, "x,", ""},
		{"optional flag in concat, param after it still checked", `command = concat(["printf", "%s,"], param.flag ? ["--verbose"] : [], [param.path])`, nil,
			map[string]cty.Value{"flag": cty.True, "path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"conditional list with a param value checked", `command = concat(["printf", "%s,"], (param.flag ? ["-o", param.path] : []))`, nil,
			map[string]cty.Value{"flag": cty.True, "path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"conditional list whose separator counts", `command = concat(["printf", "%s,"], param.flag ? ["--"] : [], [param.path])`, nil,
			map[string]cty.Value{"flag": cty.True, "path": cty.StringVal("-n")}, "--,-n,", ""},
		{"conditional list param, not literal", `command = concat(["printf", "%s,"], param.flag ? param.files : [])`, nil,
			map[string]cty.Value{"flag": cty.True, "files": cty.ListVal([]cty.Value{cty.StringVal("-n")})}, "", `parameter "files"`},
		{"format with a literal start is the config's", `command = ["printf", "%s,", format("--limit=%d", param.n)]`, nil,
			map[string]cty.Value{"n": cty.NumberIntVal(5)}, "--limit=5,", ""},
		{"format starting with a verb refused", `command = ["printf", "%s,", format("%s=1", param.path)]`, nil,
			map[string]cty.Value{"path": cty.StringVal("-n")}, "", `parameter "path"`},
		{"constant flags are fine", `command = ["printf", "%s,", "-n", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("x")}, "-n,x,", ""},
		{"dash inside is fine", `command = ["printf", "%s,", param.path]`, nil,
			map[string]cty.Value{"path": cty.StringVal("a-b")}, "a-b,", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultExecFixture()
			for _, p := range tt.allow {
				f.info[p] = adapters.ParamInfo{AllowFlags: true}
			}
			e := f.mustCompile(t, tt.body)
			out, err := f.call(t, context.Background(), e, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := string(out.Body); got != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExecCallErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		args    map[string]cty.Value
		wantErr string
	}{
		{"null element", `command = ["printf", "%s", param.opt]`, nil,
			`command[2] (from parameter "opt") is null`},
		{"missing program", `command = ["toolhost-no-such-program-xyz", "a"]`, nil,
			`command "toolhost-no-such-program-xyz" not found on PATH`},
		{"missing program path", `command = ["/nonexistent/toolhost-prog"]`, nil,
			`command "/nonexistent/toolhost-prog" not found`},
		{"non-zero exit with stderr", `command = ["sh", "-c", "echo first >&2; echo 'it broke' >&2; exit 2"]`, nil,
			"command exited with status 2: first\nit broke"},
		{"non-zero exit without output", `command = ["sh", "-c", "exit 3"]`, nil,
			"command exited with status 3"},
		{"killed by signal", `command = ["sh", "-c", "kill -TERM $$"]`, nil,
			"command was killed by signal 15"},
		{"timeout shows what was printed", `command = ["sh", "-c", "echo connecting; echo 'waiting for the lock' >&2; sleep 30"]
timeout = "300ms"`, nil,
			"command timed out after 300ms (timeout) and was stopped with SIGTERM; the end of what it printed: waiting for the lock"},
		{"timeout shows stdout when stderr is empty", `command = ["sh", "-c", "echo polling; sleep 30"]
timeout = "300ms"`, nil,
			"and was stopped with SIGTERM; the end of what it printed: polling"},
		{"stdout past max_output: its real end", `command = ["sh", "-c", "seq 1 20000; echo 'FAILED: 3 tests'; exit 1"]
max_output = 1000`, nil,
			"19999\n20000\nFAILED: 3 tests"},
		{"stdout just past max_output: the end across the cut", `command = ["sh", "-c", "seq 1 300; echo 'FAILED: 3 tests'; exit 1"]
max_output = 1000`, nil,
			"299\n300\nFAILED: 3 tests"},
		{"timeout shows the real end of long stdout", `command = ["sh", "-c", "seq 1 20000; echo 'still polling'; sleep 30"]
timeout = "500ms"
max_output = 1000`, nil,
			"20000\nstill polling"},
		{"NUL in argument", `command = ["printf", "%s", param.text]`,
			map[string]cty.Value{"text": cty.StringVal("a\x00b")}, "NUL"},
	}
	f := defaultExecFixture()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := f.mustCompile(t, tt.body)
			_, err := f.call(t, context.Background(), e, tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}

	t.Run("sensitive values are scrubbed", func(t *testing.T) {
		t.Parallel()
		f := defaultExecFixture()
		f.info["a"] = adapters.ParamInfo{Sensitive: true}
		e := f.mustCompile(t, `command = ["sh", "-c", "echo \"bad token $1\" >&2; exit 1", "sh", param.a]`)
		_, err := f.call(t, context.Background(), e, map[string]cty.Value{"a": cty.StringVal("s3cr3t-token")})
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "bad token (sensitive value)") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("long stderr is trimmed to its end", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line $i >&2; i=$((i+1)); done; echo last words >&2; exit 1"]`)
		_, err := f.call(t, context.Background(), e, nil)
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "command exited with status 1: ") || !strings.HasSuffix(msg, "last words") {
			t.Errorf("err = %q", msg)
		}
		if len(msg) > 600 {
			t.Errorf("error is %d bytes long", len(msg))
		}
	})
}

func TestExecEnvironment(t *testing.T) {
	// t.Setenv rules out t.Parallel.
	t.Setenv("TOOLHOST_EXEC_TEST_SECRET", "leaked")
	t.Setenv("LC_TOOLHOST_TEST", "kept")
	f := defaultExecFixture()
	tests := []struct {
		name   string
		body   string
		args   map[string]cty.Value
		want   []string
		absent []string
	}{
		{"minimal", `command = ["env"]
env = { FOO = "bar", LANG = "C.UTF-8" }`, nil,
			[]string{"FOO=bar", "LANG=C.UTF-8", "LC_TOOLHOST_TEST=kept", "PATH="},
			[]string{"TOOLHOST_EXEC_TEST_SECRET"}},
		{"inherit_env", `command = ["env"]
inherit_env = true
env = { FOO = "bar" }`, nil,
			[]string{"FOO=bar", "TOOLHOST_EXEC_TEST_SECRET=leaked"}, nil},
		{"null removes", `command = ["env"]
inherit_env = true
env = { TOOLHOST_EXEC_TEST_SECRET = null }`, nil,
			nil, []string{"TOOLHOST_EXEC_TEST_SECRET"}},
		{"value from a param", `command = ["env"]
env = { GREETING = param.text }`, map[string]cty.Value{"text": cty.StringVal("hello $(id)")},
			[]string{"GREETING=hello $(id)"}, []string{"TOOLHOST_EXEC_TEST_SECRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.mustCompile(t, tt.body)
			out, err := f.call(t, context.Background(), e, tt.args)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			lines := strings.Split(string(out.Body), "\n")
			has := func(prefix string) bool {
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) {
						return true
					}
				}
				return false
			}
			for _, w := range tt.want {
				if !has(w) {
					t.Errorf("environment lacks %q:\n%s", w, out.Body)
				}
			}
			for _, a := range tt.absent {
				if has(a + "=") {
					t.Errorf("environment has %s:\n%s", a, out.Body)
				}
			}
		})
	}
}

func TestExecStdin(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	t.Run("empty by default", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["cat"]
timeout = "10s"`)
		start := time.Now()
		out, err := f.call(t, context.Background(), e, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if len(out.Body) != 0 {
			t.Errorf("body = %q, want empty", out.Body)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cat took %s: standard input was not empty", d)
		}
	})
	t.Run("from a param", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["cat"]
stdin = param.text`)
		text := "line one\n$(id) `x`\n"
		out, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal(text)})
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if string(out.Body) != text {
			t.Errorf("body = %q, want %q", out.Body, text)
		}
	})
	t.Run("null param is empty", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["cat"]
stdin = param.opt`)
		out, err := f.call(t, context.Background(), e, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if len(out.Body) != 0 {
			t.Errorf("body = %q, want empty", out.Body)
		}
	})
	t.Run("constant and unread", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["printf", "ok"]
stdin = jsonencode({ a = 1 })`)
		out, err := f.call(t, context.Background(), e, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		if string(out.Body) != "ok" {
			t.Errorf("body = %q", out.Body)
		}
	})
}

// TestExecStdinNotInherited gives the test process a standard input that
// never ends: a command that read it would hang until its timeout. It does
// not run in parallel, as it swaps os.Stdin.
func TestExecStdinNotInherited(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()

	f := defaultExecFixture()
	e := f.mustCompile(t, `command = ["cat"]
timeout = "3s"`)
	out, err := f.call(t, context.Background(), e, nil)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if len(out.Body) != 0 {
		t.Errorf("body = %q, want empty", out.Body)
	}
}

func TestExecOutput(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	tests := []struct {
		name      string
		body      string
		want      string
		mime      string
		truncated bool
	}{
		{"json", `command = ["printf", "%s", "{\"a\": [1, 2]}\n"]`, "{\"a\": [1, 2]}\n", "application/json", false},
		{"text", `command = ["printf", "hello"]`, "hello", "text/plain", false},
		{"empty", `command = ["true"]`, "", "text/plain", false},
		{"invalid utf-8 replaced", `command = ["printf", "a\\377b"]`, "a\uFFFDb", "text/plain", false},
		{"truncated", `command = ["sh", "-c", "yes abc | head -c 5000"]
max_output = 10`, "abc\nabc\nab", "text/plain", true},
		{"truncated json is text", `command = ["printf", "[1,2,3,4]"]
max_output = 4`, "[1,2", "text/plain", true},
		{"cut rune dropped", `command = ["printf", "ab\u00e9"]
max_output = 3`, "ab", "text/plain", true},
		{"exactly max_output", `command = ["printf", "abcd"]
max_output = 4`, "abcd", "text/plain", false},
		{"gbk decoded", `command = ["printf", "\\304\\343\\272\\303"]
charset = "gbk"`, "你好", "text/plain", false},
		{"latin-1 decoded", `command = ["printf", "caf\\351"]
charset = "iso-8859-1"`, "café", "text/plain", false},
		{"gbk json decoded", `command = ["printf", "{\"a\":\"\\304\\343\"}"]
charset = "gbk"`, `{"a":"你"}`, "application/json", false},
		{"utf-8 charset changes nothing", `command = ["printf", "a\\377b"]
charset = "utf-8"`, "a\uFFFDb", "text/plain", false},
		{"gbk cut character dropped", `command = ["printf", "\\304\\343\\272\\303"]
charset = "gbk"
max_output = 3`, "你", "text/plain", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := f.mustCompile(t, tt.body)
			out, err := f.call(t, context.Background(), e, nil)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if string(out.Body) != tt.want || out.MIMEType != tt.mime || out.Truncated != tt.truncated {
				t.Errorf("got (%q, %q, %v), want (%q, %q, %v)", out.Body, out.MIMEType, out.Truncated, tt.want, tt.mime, tt.truncated)
			}
		})
	}
}

// TestExecHugeOutput checks that output far past max_output is drained
// without being kept.
func TestExecHugeOutput(t *testing.T) {
	f := defaultExecFixture()
	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"finishes", `command = ["head", "-c", "300000000", "/dev/zero"]
timeout = "60s"`, ""},
		{"killed at timeout", `command = ["yes", "a fairly long line of output to fill the pipe quickly"]
timeout = "1s"`, "command timed out after 1s (timeout) and was stopped with SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := f.mustCompile(t, tt.body)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, err := f.call(t, context.Background(), e, nil)
			runtime.ReadMemStats(&after)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				if len(out.Body) != DefaultExecMaxOutput || !out.Truncated {
					t.Errorf("body is %d bytes, Truncated = %v; want %d bytes, truncated", len(out.Body), out.Truncated, DefaultExecMaxOutput)
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MiB while draining output", grew>>20)
			}
		})
	}
}

// execProcessGone waits until pid has exited (or is a zombie nobody reaped yet)
// and reports whether it did before the deadline.
func execProcessGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			// The state follows the command name in parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return true
			}
		} else if errors.Is(err, os.ErrNotExist) && runtime.GOOS == "linux" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// execReadPids waits for the pid file the test command writes and returns the
// pids in it.
func execReadPids(t *testing.T, path string, within time.Duration) []int {
	t.Helper()
	return testconfig.Pids(t, path, 0, within)
}

// execSleeperBody starts a background grandchild, writes "shellpid childpid"
// to param.pidfile, and sleeps.
const execSleeperBody = `command = ["sh", "-c", "sleep 30 & echo $$ $! > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; sleep 30", "sh", param.pidfile]
timeout = "%s"`

func TestExecKillsProcessGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout string
		stop    func(cancel context.CancelFunc, e *Exec) // stops the call once the pids are known
		check   func(t *testing.T, err error)
	}{
		{"timeout", "500ms", nil, func(t *testing.T, err error) {
			if err == nil || err.Error() != "command timed out after 500ms (timeout) and was stopped with SIGTERM" {
				t.Errorf("err = %v", err)
			}
		}},
		{"cancel", "30s", func(cancel context.CancelFunc, _ *Exec) { cancel() }, func(t *testing.T, err error) {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		}},
		{"close", "30s", func(_ context.CancelFunc, e *Exec) { e.Close() }, func(t *testing.T, err error) {
			if err == nil || err.Error() != "the command was stopped with SIGTERM because the tool's configuration was unloaded; call the tool again" {
				t.Errorf("err = %v, want a stopped command", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultExecFixture()
			e := f.mustCompile(t, strings.Replace(execSleeperBody, "%s", tt.timeout, 1))
			pidfile := filepath.Join(t.TempDir(), "pids")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				out *adapters.Output
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				out, err := e.Call(ctx, f.input(map[string]cty.Value{"pidfile": cty.StringVal(pidfile)}))
				done <- result{out, err}
			}()
			pids := execReadPids(t, pidfile, 10*time.Second)
			if len(pids) != 2 {
				t.Fatalf("pids = %v", pids)
			}
			if tt.stop != nil {
				tt.stop(cancel, e)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("call did not return")
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("call took %s", d)
			}
			tt.check(t, r.err)
			for _, pid := range pids {
				if !execProcessGone(pid, 5*time.Second) {
					t.Errorf("process %d is still running", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

func TestExecLeftoversKilledOnExit(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $! > \"$1\"; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
	for _, pid := range execReadPids(t, pidfile, time.Second) {
		if !execProcessGone(pid, 5*time.Second) {
			t.Errorf("background process %d outlived the call", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestExecGrandchildHoldingStdout(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	// The background sleep keeps standard output open after sh exits.
	e := f.mustCompile(t, `command = ["sh", "-c", "sleep 30 & echo $! > \"$1\"; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("call took %s", d)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
	for _, pid := range execReadPids(t, pidfile, time.Second) {
		if !execProcessGone(pid, 5*time.Second) {
			t.Errorf("background process %d outlived the call", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestExecEscapedChildHoldingStdout: a process that left the command's
// process group (setsid) cannot be killed with it and may hold standard
// output open; the call still returns, after waitDelay, with what the
// command wrote.
func TestExecEscapedChildHoldingStdout(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	// The escaped shell writes its pid once it has its own session; the
	// command waits for that, so the group kill cannot come first.
	e := f.mustCompile(t, `command = ["sh", "-c", "setsid sh -c 'echo $$ > \"$1\"; exec sleep 30' sh \"$1\" & while [ ! -s \"$1\" ]; do sleep 0.01; done; echo done", "sh", param.pidfile]`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	pids := execReadPids(t, pidfile, time.Second)
	for _, pid := range pids {
		if execProcessGone(pid, 0) {
			t.Errorf("process %d did not escape the group; the test tests nothing", pid)
		}
		syscall.Kill(pid, syscall.SIGKILL) // it escaped: ours to clean up
	}
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
}

// TestExecEscapedChildNotATimeout: a command that exits well within its
// timeout, leaving its stdout to a process that escaped its group, is
// drained for up to a second; when that runs past the timeout, the call
// still succeeded, and is not reported as timed out.
func TestExecEscapedChildNotATimeout(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	e := f.mustCompile(t, `command = ["sh", "-c", "setsid sh -c 'echo $$ > \"$1\"; exec sleep 30' sh \"$1\" & while [ ! -s \"$1\" ]; do sleep 0.01; done; echo done", "sh", param.pidfile]
timeout = "500ms"`)
	pidfile := filepath.Join(t.TempDir(), "pids")
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{"pidfile": cty.StringVal(pidfile)})
	for _, pid := range execReadPids(t, pidfile, time.Second) {
		syscall.Kill(pid, syscall.SIGKILL) // it escaped: ours to clean up
	}
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if string(out.Body) != "done\n" {
		t.Errorf("body = %q", out.Body)
	}
}

func TestExecClosed(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	e := f.mustCompile(t, `command = ["true"]`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.call(t, context.Background(), e, nil); err == nil {
		t.Error("call after Close succeeded")
	}
}

func TestExecCompileDiagnostics(t *testing.T) {
	t.Parallel()
	type wantDiag struct {
		summary string
		subject string // source text of the diagnostic's subject
		detail  string // substring of the detail; its end when it ends with "$"
	}
	tests := []struct {
		name string
		body string
		want []wantDiag
	}{
		{"unknown attribute", `command = ["ls"]
timout = "5s"`, []wantDiag{{"Unsupported argument", "timout", `Did you mean "timeout"?`}}},
		{"misspelt command", `comand = ["ls"]`, []wantDiag{
			{"Unsupported argument", "comand", `Did you mean "command"?`},
			{"Missing command", "exec", `command = [`},
		}},
		{"missing command", `timeout = "5s"`, []wantDiag{{"Missing command", "exec", `command = [`}}},
		{"string command", `command = "ls -l"`, []wantDiag{{"Invalid command", `"ls -l"`, "no shell"}}},
		{"object command", `command = { a = 1 }`, []wantDiag{{"Invalid command", `{ a = 1 }`, "list of strings"}}},
		{"empty command", `command = []`, []wantDiag{{"Empty command", `[]`, "no program"}}},
		{"null element", `command = ["printf", null]`, []wantDiag{{"Invalid command element", `null`, "command[1] is null"}}},
		{"list element", `command = ["printf", ["a", "b"]]`, []wantDiag{{"Invalid command element", `["a", "b"]`, "command[1] is a tuple"}}},
		{"program from param", `command = [param.text, "x"]`, []wantDiag{{"Program depends on a parameter", `param.text`, `parameter "text"`}}},
		{"param in a sh -c script", `command = ["sh", "-c", "echo ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"echo ${param.text}"`, `"sh", "-c", "echo \"$1\"", "sh", param.x`}}},
		{"param in a bash -ec script", `command = ["/bin/bash", "-ec", "ls ${param.text} | wc -l"]`, []wantDiag{{"Parameter inside a script", `"ls ${param.text} | wc -l"`, `parameter "text"`}}},
		{"param in a quoted shell word", `command = ["sh", "-c", "echo '${param.text}'"]`, []wantDiag{{"Parameter inside a script", `"echo '${param.text}'"`, "however the script quotes it"}}},
		{"param in a python script", `command = ["python3", "-c", "print('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"print('${param.text}')"`, "sys.argv[1]"}}},
		{"param in a node script", `command = ["node", "--eval", "console.log(${param.text})"]`, []wantDiag{{"Parameter inside a script", `"console.log(${param.text})"`, "process.argv[1]"}}},
		{"param in a perl script", `command = ["perl", "-e", "print ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"print ${param.text}"`, "$ARGV[0]"}}},
		{"param in a perl -ne script", `command = ["perl", "-ne", "print if /${param.text}/", "notes.txt"]`, []wantDiag{{"Parameter inside a script", `"print if /${param.text}/"`, "with -ne"}}},
		{"param in a perl -lane script", `command = ["perl", "-lane", "print $F[${param.text}]"]`, []wantDiag{{"Parameter inside a script", `"print $F[${param.text}]"`, "$ARGV[0]"}}},
		{"param in a python -Ic script", `command = ["python3", "-Ic", "print('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"print('${param.text}')"`, "with -Ic"}}},
		{"param in a ruby -ne script", `command = ["env", "ruby", "-ne", "puts $_ if /${param.text}/"]`, []wantDiag{{"Parameter inside a script", `"puts $_ if /${param.text}/"`, "ARGV[0]"}}},
		{"param in a node -pe script", `command = ["node", "-pe", "${param.text}"]`, []wantDiag{{"Parameter inside a script", `"${param.text}"`, "process.argv[1]"}}},
		{"param in an awk program", `command = ["awk", "{ print $(${param.text}) }", "data.txt"]`, []wantDiag{{"Parameter inside a script", `"{ print $(${param.text}) }"`, `The awk program, its first argument after the options, puts parameter "text"`}}},
		{"param in an awk program after options", `command = ["awk", "-F", ",", "-vOFS=;", "--", "$1 == \"${param.text}\""]`, []wantDiag{{"Parameter inside a script", `"$1 == \"${param.text}\""`, `"-v", "x=${param.x}"`}}},
		{"param in a gawk -e program", `command = ["env", "gawk", "-e", "/${param.text}/"]`, []wantDiag{{"Parameter inside a script", `"/${param.text}/"`, "with -e"}}},
		{"param in a script run through env", `command = ["env", "LC_ALL=C", "sh", "-c", "echo ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"echo ${param.text}"`, "The script sh runs with -c"}}},
		{"param in a script run through timeout", `command = ["timeout", "5", "/usr/bin/python3", "-c", "print(${param.text})"]`, []wantDiag{{"Parameter inside a script", `"print(${param.text})"`, "sys.argv[1]"}}},
		{"param in a sh -c script after --", `command = ["sh", "-c", "--", "echo ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"echo ${param.text}"`, "The script sh runs with -c"}}},
		{"param in a bash -c script after options", `command = ["bash", "-c", "-o", "pipefail", "+e", "-", "echo ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"echo ${param.text}"`, "The script bash runs with -c"}}},
		{"param in env -S", `command = ["env", "-S", "ls -- ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"ls -- ${param.text}"`, "env splits that string"}}},
		{"param in env --split-string=", `command = ["env", "--split-string=ls ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"--split-string=ls ${param.text}"`, "glued to the flag"}}},
		{"param in env -S glued", `command = ["env", "-Sls ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"-Sls ${param.text}"`, `["env", "-S", "ls --", param.x]`}}},
		{"param in a lua script", `command = ["env", "lua5.4", "-e", "print('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"print('${param.text}')"`, "arg[1]"}}},
		{"param in an R script", `command = ["env", "Rscript", "-e", "cat('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"cat('${param.text}')"`, "commandArgs(TRUE)[1]"}}},
		{"param in a julia script", `command = ["env", "julia", "-e", "println(\"${param.text}\")"]`, []wantDiag{{"Parameter inside a script", `"println(\"${param.text}\")"`, "ARGS[1]"}}},
		{"param in a deno eval", `command = ["env", "deno", "eval", "console.log('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"console.log('${param.text}')"`, "Deno.args[0]"}}},
		{"param in a python3.11 script", `command = ["env", "python3.11", "-c", "print('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"print('${param.text}')"`, "The script python3.11 runs with -c"}}},
		{"param in a perl5.36 script", `command = ["env", "/usr/bin/perl5.36.0", "-ne", "print if /${param.text}/"]`, []wantDiag{{"Parameter inside a script", `"print if /${param.text}/"`, "$ARGV[0]"}}},
		{"param in a tcsh script", `command = ["env", "tcsh", "-c", "echo ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"echo ${param.text}"`, "The script tcsh runs with -c"}}},
		{"param in a script glued to python's -c", `command = ["python3", "-cprint('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"-cprint('${param.text}')"`, "The script python3 runs with -c, glued to the flag, puts parameter"}}},
		{"param in a script glued to python's -Ic", `command = ["python3", "-Ic${param.text}"]`, []wantDiag{{"Parameter inside a script", `"-Ic${param.text}"`, "with -Ic, glued to the flag"}}},
		{"param in a script glued to perl's -le", `command = ["perl", "-w", "-leprint '${param.text}'"]`, []wantDiag{{"Parameter inside a script", `"-leprint '${param.text}'"`, "with -le, glued to the flag"}}},
		{"param in node's --eval=", `command = ["node", "--eval=console.log('${param.text}')"]`, []wantDiag{{"Parameter inside a script", `"--eval=console.log('${param.text}')"`, "with --eval=, glued to the flag"}}},
		{"param in gawk's --source=", `command = ["env", "gawk", "--source=/${param.text}/", "data.txt"]`, []wantDiag{{"Parameter inside a script", `"--source=/${param.text}/"`, `"-v", "x=${param.x}"`}}},
		{"param in a sed script", `command = ["sed", "s/${param.text}/x/g", "notes.txt"]`, []wantDiag{{"Parameter inside a script", `"s/${param.text}/x/g"`, "The sed program, its first argument after the options, puts parameter \"text\" into its text, so a value would run as code: a value such as `x/id/e` ends the s command"}}},
		{"param in a sed -ne script", `command = ["sed", "-i.bak", "-ne", "/${param.text}/p", "notes.txt"]`, []wantDiag{{"Parameter inside a script", `"/${param.text}/p"`, "Add --sandbox to the options"}}},
		{"param in sed's --expression=", `command = ["env", "busybox", "sed", "--expression=s/a/${param.text}/", "notes.txt"]`, []wantDiag{{"Parameter inside a script", `"--expression=s/a/${param.text}/"`, "with --expression=, glued to the flag"}}},
		{"param in a script run through nice", `command = ["nice", "-n", "5", "bash", "-lc", "cat ${param.text}"]`, []wantDiag{{"Parameter inside a script", `"cat ${param.text}"`, "with -lc"}}},
		{"param in a powershell script", `command = ["/nonexistent/pwsh.exe", "-Command", "Get-Item ${param.text}"]`, []wantDiag{
			{"Parameter inside a script", `"Get-Item ${param.text}"`, "$args[0]"},
			// Reported with the error, not only once it is fixed.
			{"Program not found", `"/nonexistent/pwsh.exe"`, "Install the program at that path"},
		}},
		{"program of computed list", `command = concat([param.text], ["x"])`, []wantDiag{{"Program not fixed", `concat([param.text], ["x"])`, `parameter "text"`}}},
		{"list param first", `command = concat(param.files, ["x"])`, []wantDiag{{"Program not fixed", `concat(param.files, ["x"])`, `put the program first in concat's first list`}}},
		{"list param as an element", `command = ["printf", "%s", param.files]`, []wantDiag{{"Invalid command element", `param.files`, `concat(["git", "add", "--"], param.files)`}}},
		{"unknown charset", `command = ["true"]
charset = "klingon"`, []wantDiag{{"Unknown charset", `"klingon"`, `"gbk"`}}},
		{"charset with binary", `command = ["true"]
binary = true
charset = "gbk"`, []wantDiag{{"charset with binary", "charset", "Remove one of them"}}},
		{"undeclared param", `command = ["printf", "%s", param.txet]`,
			[]wantDiag{{"Reference to undeclared parameter", `param.txet`, `Did you mean "text"?`}}},
		{"undeclared param in stdin", `command = ["cat"]
stdin = param.nothing_like_it`,
			[]wantDiag{{"Reference to undeclared parameter", `param.nothing_like_it`, `no parameter named "nothing_like_it"`}}},
		{"bad duration", `command = ["ls"]
timeout = "5x"`, []wantDiag{{"Invalid timeout", `"5x"`, `"30s"`}}},
		{"duration without unit", `command = ["ls"]
timeout = 5`, []wantDiag{{"Invalid timeout", `5`, `unit, such as "30s", "2m" or "1h" (units are ms, s, m and h). Did you mean "5s"?`}}},
		{"timeout too long", `command = ["ls"]
timeout = "2h"`, []wantDiag{{"Timeout out of range", `"2h"`, "at most 1h."}}},
		{"zero timeout", `command = ["ls"]
timeout = "0s"`, []wantDiag{{"Timeout out of range", `"0s"`, "more than zero"}}},
		{"param in timeout", `command = ["ls"]
timeout = param.text`, []wantDiag{{"Argument must be constant", `param.text`, "cannot refer to parameters"}}},
		{"kill_timeout without unit", `command = ["ls"]
kill_timeout = 2`, []wantDiag{{"Invalid kill_timeout", `2`, `such as "1s", "500ms" or "10s" (units are ms, s, m and h). Did you mean "2s"?`}}},
		{"kill_timeout without unit, too long in seconds", `command = ["ls"]
kill_timeout = 120`, []wantDiag{{"Invalid kill_timeout", `120`, `"120" is not a duration. Write a number with a unit, such as "1s", "500ms" or "10s" (units are ms, s, m and h).$`}}},
		{"negative kill_timeout", `command = ["ls"]
kill_timeout = "-1s"`, []wantDiag{{"kill_timeout out of range", `"-1s"`, "The kill_timeout is -1s, and it must be zero or more and at most 1m."}}},
		{"kill_timeout too long", `command = ["ls"]
kill_timeout = "5m"`, []wantDiag{{"kill_timeout out of range", `"5m"`, "at most 1m."}}},
		{"kill_timeout not a string", `command = ["ls"]
kill_timeout = ["1s"]`, []wantDiag{{"Invalid kill_timeout", `["1s"]`, `The kill_timeout must be a duration string, and this is a tuple. Write a number with a unit, such as "1s", "500ms" or "10s".`}}},
		{"param in kill_signal", `command = ["ls"]
kill_signal = param.text`, []wantDiag{{"Argument must be constant", `param.text`, `such as kill_signal = "SIGINT"`}}},
		{"misspelt kill_signal", `command = ["ls"]
kill_signal = "SIGTREM"`, []wantDiag{{"Unknown kill_signal", `"SIGTREM"`, `"SIGTREM" is not a signal kill_signal can send. Write one of "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2". Did you mean "SIGTERM"?`}}},
		{"SIGKILL as kill_signal", `command = ["ls"]
kill_signal = "KILL"`, []wantDiag{{"Unknown kill_signal", `"KILL"`, `write kill_timeout = "0s" and leave kill_signal out`}}},
		{"empty kill_signal", `command = ["ls"]
kill_signal = ""`, []wantDiag{{"Unknown kill_signal", `""`, `"" is not a signal kill_signal can send. Write one of "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2".`}}},
		{"kill_signal SIG alone", `command = ["ls"]
kill_signal = "sig"`, []wantDiag{{"Unknown kill_signal", `"sig"`, `"sig" is not a signal kill_signal can send.`}}},
		{"kill_signal by number", `command = ["ls"]
kill_signal = "15"`, []wantDiag{{"Unknown kill_signal", `"15"`, `"15" is a number; kill_signal takes a name`}}},
		{"kill_signal a number", `command = ["ls"]
kill_signal = 15`, []wantDiag{{"Invalid kill_signal", `15`, `must be a signal name, and this is a number`}}},
		{"param in dir", `command = ["ls"]
dir = "x/${param.path}"`, []wantDiag{{"Argument must be constant", `param.path`, "dir"}}},
		{"param in inherit_env", `command = ["ls"]
inherit_env = param.flag`, []wantDiag{{"Argument must be constant", `param.flag`, "inherit_env"}}},
		{"zero max_output", `command = ["ls"]
max_output = 0`, []wantDiag{{"Invalid max_output", `0`, "whole number"}}},
		{"max_output with a unit", `command = ["ls"]
max_output = "1MB"`, []wantDiag{{"Invalid max_output", `"1MB"`, "For 1 MiB, write max_output = 1048576, without quotes."}}},
		{"max_output in bytes as a string", `command = ["ls"]
max_output = "500 bytes"`, []wantDiag{{"Invalid max_output", `"500 bytes"`, "Write the number without quotes: max_output = 500."}}},
		{"fractional max_output", `command = ["ls"]
max_output = 1.5`, []wantDiag{{"Invalid max_output", `1.5`, "whole number"}}},
		{"string inherit_env", `command = ["ls"]
inherit_env = "maybe"`, []wantDiag{{"Invalid inherit_env", `"maybe"`, "true or false"}}},
		{"env not an object", `command = ["ls"]
env = ["A=B"]`, []wantDiag{{"Invalid env", `["A=B"]`, "object"}}},
		{"env bad name", `command = ["ls"]
env = { "A=B" = "x" }`, []wantDiag{{"Invalid environment variable name", `"A=B"`, "letters"}}},
		// A model that names the variables, or sets PATH or LD_PRELOAD,
		// chooses the program that runs.
		{"env name from a param", `command = ["sh", "-c", "env"]
env = { (param.text) = param.a }`, []wantDiag{{"Name must be constant", `(param.text)`, "which variable it sets"}}},
		{"env name from a param in a template", `command = ["sh", "-c", "env"]
env = { "X_${param.text}" = "1" }`, []wantDiag{{"Name must be constant", `"X_${param.text}"`, "literal names"}}},
		{"env computed from params", `command = ["sh", "-c", "env"]
env = merge({ LANG = "C" }, { (param.text) = param.a })`, []wantDiag{{"Environment names must be constant", `merge({ LANG = "C" }, { (param.text) = param.a })`, "the program that runs"}}},
		{"PATH from a param", `command = ["sh", "-c", "env"]
env = { PATH = "${param.path}:/usr/bin" }`, []wantDiag{{"Parameter chooses the program", `"${param.path}:/usr/bin"`, "PATH chooses the code"}}},
		{"LD_PRELOAD from a param", `command = ["ls"]
env = { "LD_PRELOAD" = param.path }`, []wantDiag{{"Parameter chooses the program", `param.path`, "LD_PRELOAD"}}},
		{"BASH_ENV from a param", `command = ["bash", "-c", "true"]
env = { BASH_ENV = param.path }`, []wantDiag{{"Parameter chooses the program", `param.path`, "BASH_ENV"}}},
		// Interpreters' options and module paths, and what git starts.
		{"NODE_OPTIONS from a param", `command = ["node", "app.js"]
env = { NODE_OPTIONS = "--max-old-space-size=${param.text}" }`, []wantDiag{{"Parameter chooses the program", `"--max-old-space-size=${param.text}"`, "NODE_OPTIONS"}}},
		{"PYTHONPATH from a param", `command = ["python3", "tool.py"]
env = { PYTHONPATH = param.path }`, []wantDiag{{"Parameter chooses the program", `param.path`, "PYTHONPATH"}}},
		{"GIT_SSH_COMMAND from a param", `command = ["git", "fetch"]
env = { GIT_SSH_COMMAND = "ssh -i ${param.path}" }`, []wantDiag{{"Parameter chooses the program", `"ssh -i ${param.path}"`, "GIT_SSH_COMMAND"}}},
		{"GIT_CONFIG_VALUE_0 from a param", `command = ["git", "log"]
env = { GIT_CONFIG_COUNT = "1", GIT_CONFIG_KEY_0 = "core.pager", GIT_CONFIG_VALUE_0 = param.text }`, []wantDiag{{"Parameter chooses the program", `param.text`, "GIT_CONFIG_VALUE_0"}}},
		{"exported bash function from a param", `command = ["bash", "-c", "greet"]
env = { "BASH_FUNC_greet%%" = param.text }`, []wantDiag{{"Parameter chooses the program", `param.text`, "BASH_FUNC_greet%%"}}},
		{"env list value", `command = ["ls"]
env = { A = ["x"] }`, []wantDiag{{"Invalid env", `["x"]`, "must be a string"}}},
		{"stdin object", `command = ["cat"]
stdin = { a = 1 }`, []wantDiag{{"Invalid stdin", `{ a = 1 }`, "jsonencode"}}},
		{"all problems collected", `command = "ls"
timeout = "forever"
max_output = -1
bogus = 1`, []wantDiag{
			{"Unsupported argument", "bogus", "not expected here"},
			{"Invalid command", `"ls"`, ""},
			{"Invalid timeout", `"forever"`, ""},
			{"Invalid max_output", `-1`, ""},
		}},
	}
	f := defaultExecFixture()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := execSource(tt.body)
			b, diags := f.compile(t, src)
			if b != nil {
				t.Fatalf("compile succeeded")
			}
			for _, d := range diags {
				t.Logf("%s", d.Error())
			}
			if len(diags) != len(tt.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(diags), len(tt.want), diags.Error())
			}
			for i, w := range tt.want {
				d := diags[i]
				severity := hcl.DiagError
				if w.summary == "Program not found" {
					severity = hcl.DiagWarning
				}
				if d.Severity != severity || d.Summary != w.summary {
					t.Errorf("diagnostic %d: %q, want summary %q", i, d.Error(), w.summary)
				}
				if d.Subject == nil {
					t.Errorf("diagnostic %d has no subject", i)
					continue
				}
				if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != w.subject {
					t.Errorf("diagnostic %d subject = %q, want %q", i, got, w.subject)
				}
				if end, ok := strings.CutSuffix(w.detail, "$"); ok {
					if !strings.HasSuffix(d.Detail, end) {
						t.Errorf("diagnostic %d detail = %q, want it to end with %q", i, d.Detail, end)
					}
				} else if !strings.Contains(d.Detail, w.detail) {
					t.Errorf("diagnostic %d detail = %q, want it to contain %q", i, d.Detail, w.detail)
				}
				if !strings.HasSuffix(d.Detail, ".") && !strings.HasSuffix(d.Detail, "?") {
					t.Errorf("diagnostic %d detail is not a sentence: %q", i, d.Detail)
				}
			}
		})
	}
}

func TestExecCompileCaches(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	e := f.mustCompile(t, `command = ["printf", "%s", "x"]
env = { A = "b" }
stdin = "in"
timeout = "5s"
max_output = 100
inherit_env = true`)
	if strings.Join(e.argv, " ") != "printf %s x" {
		t.Errorf("argv = %q", e.argv)
	}
	if !e.envKnown || e.envConst["A"] == nil || *e.envConst["A"] != "b" {
		t.Errorf("env not cached: %v", e.envConst)
	}
	if e.stdinConst == nil || *e.stdinConst != "in" {
		t.Errorf("stdin not cached")
	}
	if e.timeout != 5*time.Second || e.maxOutput != 100 || !e.inheritEnv {
		t.Errorf("timeout %s, max_output %d, inherit_env %v", e.timeout, e.maxOutput, e.inheritEnv)
	}
	d := f.mustCompile(t, `command = ["printf", "%s", param.text]`)
	if d.argv != nil || d.timeout != DefaultExecTimeout || d.maxOutput != DefaultExecMaxOutput || d.inheritEnv {
		t.Errorf("defaults: argv %q, timeout %s, max_output %d, inherit_env %v", d.argv, d.timeout, d.maxOutput, d.inheritEnv)
	}
}

// TestExecScriptParamsAllowed: the safe ways to give a script a value, and
// programs that are not interpreters, compile.
func TestExecScriptParamsAllowed(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	for _, cmd := range []string{
		`["sh", "-c", "echo \"$1\"", "sh", param.text]`,
		`["sh", "-c", param.text]`, // the author lets the caller write the script
		`["grep", "-c", param.text, "notes.txt"]`,
		`["sh", "script.sh", param.text]`,
		`["python3", "-c", "import sys; print(sys.argv[1])", param.text]`,
		`["bash", "--norc", "-c", "echo ok"]`,
		`["env", "LC_ALL=C", "sh", "-c", "echo \"$1\"", "sh", param.text]`,
		`["env", "-S", "ls --", param.text]`,
		`["env", "GREETING=${param.text}", "printenv", "GREETING"]`,
		`["perl", "-ne", "print if /$ENV{PAT}/", param.text]`,
		`["perl", "-MPOSIX", "-e", "print floor($ARGV[0])", param.text]`,
		`["python3", "-u", "script.py", param.text]`,
		`["grep", "-e", "sh", "--", param.text]`,
		`["awk", "-v", "x=${param.text}", "{ print x }", "data.txt"]`,
		`["awk", "-F", param.text, "{ print $1 }", "data.txt"]`,
		`["awk", "-f", "prog.awk", "${param.text}.txt"]`,
		`["awk", "{ print $1 }", "${param.text}.txt"]`,
		`["awk", param.text, "data.txt"]`,
		`["env", "python3.11", "-c", "import sys; print(sys.argv[1])", param.text]`,
		`["sh", "-c", "--", "echo \"$1\"", "sh", param.text]`,
		`["bash", "-c", "-o", "pipefail", "echo \"$1\"", "bash", "${param.text}.txt"]`,
		`["node", "--max-old-space-size=${param.text}", "app.js"]`,
		`["sed", "--sandbox", "s/${param.text}/x/g", "notes.txt"]`,
		`["sed", "-n", "--sandbox", "-e", "/${param.text}/p", "notes.txt"]`,
		`["sed", "-i", "s/a/b/", "--", param.text]`,
		`["sed", "-e", "s/a/b/", "${param.text}.txt"]`,
	} {
		t.Run(cmd, func(t *testing.T) {
			f.mustCompile(t, "command = "+cmd)
		})
	}
}

// execScript writes script to a file in a new temporary directory and
// returns the file's path and the path of a marker file beside it.
func execScript(t *testing.T, script string) (path, marker string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "script.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, filepath.Join(dir, "marker")
}

// execWaitFile waits until path exists.
func execWaitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// execLoop ends the scripts of the kill_timeout tests: it says the
// script's handlers are in place ($1.ready) and runs until stopped.
const execLoop = `echo ready > "$1.ready"; while :; do sleep 0.05; done`

// TestExecKillTimeout: a command that is stopped gets kill_signal, and
// kill_timeout to clean up before its process group is killed with
// SIGKILL; the call's error says which ended it. Each script gets the
// path of a marker file as $1; a handler that ran writes it.
func TestExecKillTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string
		settings string // kill_timeout and kill_signal
		// stop stops the call once the script is ready: nil waits for
		// its timeout (1s).
		stop       func(cancel context.CancelFunc, e *Exec)
		wantErr    string
		wantMarker string        // "": there must be no marker
		atLeast    time.Duration // the call takes at least this long
	}{
		{name: "cleans up on SIGTERM", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + execLoop,
			settings: `kill_timeout = "20s"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGTERM", wantMarker: "cleaned up\n"},
		{name: "ignores SIGTERM", script: `trap '' TERM; ` + execLoop,
			settings: `kill_timeout = "400ms"`,
			wantErr:  "command timed out after 1s (timeout) and was killed: it was still running 400ms after SIGTERM (kill_timeout)",
			atLeast:  1400 * time.Millisecond},
		{name: "kill_timeout zero", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + execLoop,
			settings: `kill_timeout = "0s"`,
			wantErr:  "command timed out after 1s (timeout) and was killed"},
		{name: "kill_signal", script: `trap 'echo cleaned up after USR1 > "$1"; exit 3' USR1; ` + execLoop,
			settings: `kill_signal = "usr1"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGUSR1", wantMarker: "cleaned up after USR1\n"},
		// The leader dies of SIGTERM at once; its child, which does not
		// hold the output pipes, takes 300 ms to clean up, and the call
		// waits for it.
		{name: "the group gets its time",
			script:   `sh -c 'trap "sleep 0.3; echo child cleaned up > \"\$0\"; exit 0" TERM; echo ready > "$0.ready"; while :; do sleep 0.05; done' "$1" >/dev/null 2>&1 & wait`,
			settings: `kill_timeout = "20s"`,
			wantErr:  "command timed out after 1s (timeout) and was stopped with SIGTERM", wantMarker: "child cleaned up\n",
			atLeast: 1300 * time.Millisecond},
		{name: "cancelled", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + execLoop,
			stop:    func(cancel context.CancelFunc, _ *Exec) { cancel() },
			wantErr: context.Canceled.Error(), wantMarker: "cleaned up\n"},
		{name: "unloaded", script: `trap 'echo cleaned up > "$1"; exit 3' TERM; ` + execLoop,
			stop:    func(_ context.CancelFunc, e *Exec) { e.Close() },
			wantErr: "the command was stopped with SIGTERM because the tool's configuration was unloaded; call the tool again", wantMarker: "cleaned up\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script, marker := execScript(t, tt.script)
			f := defaultExecFixture()
			e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\ntimeout = \"1s\"\n%s", script, tt.settings))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
				done <- err
			}()
			if tt.stop != nil {
				execWaitFile(t, marker+".ready")
				tt.stop(cancel, e)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("call did not return")
			}
			took := time.Since(start)
			// sh may add what it printed ("Terminated").
			if err == nil || (err.Error() != tt.wantErr && !strings.HasPrefix(err.Error(), tt.wantErr+"; the end of what it printed: ")) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if took < tt.atLeast || took > 10*time.Second {
				t.Errorf("call took %s, want at least %s and well under the kill_timeout", took, tt.atLeast)
			}
			// The marker is there when the call returns, not later.
			got, rerr := os.ReadFile(marker)
			if tt.wantMarker == "" && rerr == nil {
				t.Errorf("a handler ran: marker %q", got)
			}
			if tt.wantMarker != "" && string(got) != tt.wantMarker {
				t.Errorf("marker = %q (%v), want %q", got, rerr, tt.wantMarker)
			}
		})
	}
}

// TestKillCommands: KillCommands cuts a stopped command's kill_timeout
// short, with SIGKILL to its whole process group. Not parallel: it kills
// every command of the process.
func TestKillCommands(t *testing.T) {
	script, marker := execScript(t, `trap '' TERM; sleep 60 & echo $! > "$1"; `+execLoop)
	f := defaultExecFixture()
	e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nkill_timeout = \"1m\"", script))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
		done <- err
	}()
	execWaitFile(t, marker+".ready")
	pids := execReadPids(t, marker, time.Second)
	cancel() // SIGTERM, which the group ignores
	select {
	case err := <-done:
		t.Fatalf("the call returned before KillCommands: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	start := time.Now()
	killCommands()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return after KillCommands")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %s to return after KillCommands", took)
	}
	for _, pid := range pids {
		if !execProcessGone(pid, 5*time.Second) {
			t.Errorf("process %d is still running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestExecHostExiting: a call whose context ends because the host is
// exiting (HostExiting) returns at once, whatever its kill_timeout, while
// its command gets its kill_signal and the rest of its time: one that
// takes seconds to clean up does so, writing to its output pipes, which
// stay open (it does not die of SIGPIPE); WaitCommands returns once it
// has ended. One that
// ignores its signal is still running when WaitCommands gives up, and
// KillCommands kills its whole group. Not parallel: WaitCommands and
// KillCommands see every command of the process.
func TestExecHostExiting(t *testing.T) {
	// A command an earlier test stopped may still be ending on a loaded
	// machine; WaitCommands below is to see only this test's.
	settle, stopSettle := context.WithTimeout(context.Background(), 30*time.Second)
	if !waitCommands(settle) {
		t.Fatal("commands of earlier tests still run 30s on")
	}
	stopSettle()
	tests := []struct {
		name       string
		script     string // $1 is the marker's path
		wantMarker string // "": the handler must not have run
		// ends: the command ends by itself, and WaitCommands returns once
		// it has; else WaitCommands gives up after a second.
		ends bool
	}{
		{name: "cleans up",
			script:     `trap 'sleep 3; echo cleaning up; echo cleaning up >&2; echo cleaned up > "$1"; exit 0' TERM; sleep 60 & echo $$ $! > "$1.pids"; ` + execLoop,
			wantMarker: "cleaned up\n", ends: true},
		{name: "ignores the signal",
			script: `trap '' TERM; sleep 60 & echo $$ $! > "$1.pids"; ` + execLoop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, marker := execScript(t, tt.script)
			f := defaultExecFixture()
			e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nkill_timeout = \"1m\"\nstderr_log = \"info\"", script))
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			done := make(chan error, 1)
			go func() {
				_, err := f.call(t, ctx, e, map[string]cty.Value{"path": cty.StringVal(marker)})
				done <- err
			}()
			execWaitFile(t, marker+".ready")
			pids := execReadPids(t, marker+".pids", 5*time.Second)
			reason := errors.New("the host is going away")
			start := time.Now()
			cancel(adapters.HostExiting(reason))
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call did not return within 5s of the host's exit, its command within its kill_timeout")
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the call took %s to return: it waited for its command", took)
			}
			if cause := context.Cause(ctx); !errors.Is(cause, adapters.ErrHostExiting) || !errors.Is(cause, reason) || cause.Error() != reason.Error() {
				t.Errorf("cause = %v, want the reason, marked as an exit", cause)
			}
			within := time.Second
			if tt.ends {
				within = 15 * time.Second // a loaded machine may be slow
			}
			wait, stop := context.WithTimeout(context.Background(), within)
			ended := waitCommands(wait)
			stop()
			if ended != tt.ends {
				t.Errorf("WaitCommands = %v, want %v", ended, tt.ends)
			}
			killCommands()
			got, rerr := os.ReadFile(marker)
			if tt.wantMarker == "" && rerr == nil {
				t.Errorf("a handler ran: marker %q", got)
			}
			if tt.wantMarker != "" && string(got) != tt.wantMarker {
				t.Errorf("marker = %q (%v), want %q", got, rerr, tt.wantMarker)
			}
			for _, pid := range pids {
				if !execProcessGone(pid, 5*time.Second) {
					t.Errorf("process %d is still running", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			wait, stop = context.WithTimeout(context.Background(), 5*time.Second)
			defer stop()
			if !waitCommands(wait) {
				t.Error("WaitCommands still waits after KillCommands")
			}
		})
	}
}

// TestHostExiting: HostExiting marks a reason without changing its text,
// and does not mark one twice; other causes are not exits.
func TestHostExiting(t *testing.T) {
	t.Parallel()
	reason := errors.New("toolhost received a stop signal")
	marked := adapters.HostExiting(reason)
	if !errors.Is(marked, adapters.ErrHostExiting) || !errors.Is(marked, reason) || marked.Error() != reason.Error() {
		t.Errorf("HostExiting(%v) = %v: want the reason's text, marked", reason, marked)
	}
	if again := adapters.HostExiting(marked); again != marked {
		t.Errorf("HostExiting marked a marked reason again: %#v", again)
	}
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded, reason} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		if adapters.Exiting(ctx) {
			t.Errorf("a context ended with %v counts as an exit", cause)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if adapters.Exiting(ctx) {
		t.Error("a context not ended counts as an exit")
	}
	cancel(marked)
	if !adapters.Exiting(ctx) {
		t.Error("a context ended with HostExiting does not count as an exit")
	}
}

// TestExecGroupGone: a process group counts as gone once nothing in it
// runs, its zombies included, which are what is left where orphans are
// not reaped (a container's first process).
func TestExecGroupGone(t *testing.T) {
	t.Parallel()
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	running := start("sleep", "60")
	if groupGone(running.Process.Pid) {
		t.Error("a group with a running process counts as gone")
	}
	running.Process.Kill()
	running.Wait()
	if !groupGone(running.Process.Pid) {
		t.Error("a group with no process left counts as running")
	}
	if runtime.GOOS != "linux" {
		return // elsewhere a zombie counts as running until reaped
	}
	exited := start("true")
	defer exited.Wait()
	state := func() string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", exited.Process.Pid))
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 {
			return string(b[i+2])
		}
		return ""
	}
	for deadline := time.Now().Add(10 * time.Second); state() != "Z"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the process did not become a zombie: state %q", state())
		}
	}
	if !groupGone(exited.Process.Pid) {
		t.Error("a group whose one process is a zombie counts as running")
	}
}

// TestExecStopAfterExit: stopping a command whose process group has
// nothing left running (it exited by itself as its timeout fired or its
// tool was unloaded; reaped or not) sends no signal and does not count as
// stopping it, so the call reports how it ended, not a timeout or an
// unload; nothing signals that group later, whose number may be
// another's by then.
func TestExecStopAfterExit(t *testing.T) {
	t.Parallel()
	for _, reaped := range []bool{false, true} {
		t.Run(fmt.Sprintf("reaped=%v", reaped), func(t *testing.T) {
			cmd := exec.Command("true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			pid := cmd.Process.Pid
			if reaped {
				cmd.Wait()
			} else if runtime.GOOS == "linux" {
				for deadline := time.Now().Add(10 * time.Second); !onlyZombies(pid); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the process did not become a zombie")
					}
				}
			} else {
				t.Skip("a zombie counts as running without /proc")
			}
			run := &process{grace: time.Minute, signal: "SIGTERM", pid: pid}
			run.stop()
			if run.wasStopped() {
				t.Error("a command that had exited counts as stopped")
			}
			run.mu.Lock()
			armed, done := run.timer != nil, run.done
			run.mu.Unlock()
			if armed || !done {
				t.Errorf("timer armed %v, done %v: the gone group may be signalled later", armed, done)
			}
		})
	}
}

// TestExecExitLeavesStdinHeld: a command that exits by itself, leaving a
// process of its group that holds its standard input without reading it,
// returns at once, its group killed: a long kill_timeout, which is for
// stopped commands, does not make the call wait for the input to be
// written.
func TestExecExitLeavesStdinHeld(t *testing.T) {
	t.Parallel()
	script, marker := execScript(t, `exec 3<&0; sleep 30 <&3 >/dev/null 2>&1 3<&- & echo $! > "$1"; echo finished`)
	f := defaultExecFixture()
	e := f.mustCompile(t, fmt.Sprintf("command = [\"sh\", %q, param.path]\nstdin = param.text\nkill_timeout = \"30s\"", script))
	start := time.Now()
	out, err := f.call(t, context.Background(), e, map[string]cty.Value{
		"path": cty.StringVal(marker),
		"text": cty.StringVal(strings.Repeat("x", 1<<20)), // more than a pipe holds
	})
	took := time.Since(start)
	if err != nil || strings.TrimSpace(string(out.Body)) != "finished" {
		t.Errorf("err = %v, output %v; want the command's output", err, out)
	}
	if took > 10*time.Second {
		t.Errorf("the call took %s: it waited for the kill_timeout", took)
	}
	pids := execReadPids(t, marker, time.Second)
	if !execProcessGone(pids[0], 5*time.Second) {
		t.Errorf("the command's background process %d is still running", pids[0])
		syscall.Kill(pids[0], syscall.SIGKILL)
	}
}
