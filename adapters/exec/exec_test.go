//go:build unix

package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
)

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
	f := defaultFixture()
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
		f := defaultFixture()
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
		f := defaultFixture()
		f.baseDir = testdata
		e, diags := f.compile(t, blockSource(`command = ["args.sh", param.text]`))
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
		f := defaultFixture()
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
		f := defaultFixture()
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
		f := defaultFixture()
		f.baseDir = base
		e := f.mustCompile(t, `command = ["pwd"]
dir = "nope"`)
		_, err := f.call(t, context.Background(), e, nil)
		want := fmt.Sprintf("the working directory of the command (dir) %q does not exist", filepath.Join(base, "nope"))
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
	t.Run("dir is a file", func(t *testing.T) {
		t.Parallel()
		f := defaultFixture()
		f.baseDir = base
		file := filepath.Join(base, "a-file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		e := f.mustCompile(t, `command = ["pwd"]
dir = "a-file"`)
		_, err := f.call(t, context.Background(), e, nil)
		want := fmt.Sprintf("the working directory of the command (dir) %q is not a directory", file)
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
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
	f := defaultFixture()
	f.baseDir = dir
	e, _ := f.compile(t, blockSource(`command = ["./prog"]`))
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
	f := defaultFixture()
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
			f := defaultFixture()
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
	f := defaultFixture()
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
		f := defaultFixture()
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
	f := defaultFixture()
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
	f := defaultFixture()
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
	// Commands without standard input share one open null device: no
	// command may close it for the next, or for one running beside it.
	t.Run("empty for each of several commands", func(t *testing.T) {
		t.Parallel()
		e := f.mustCompile(t, `command = ["cat"]
timeout = "10s"`)
		for round := range 3 {
			errs := make(chan error, 4)
			for range 4 {
				go func() {
					out, err := f.call(t, context.Background(), e, nil)
					if err == nil && len(out.Body) != 0 {
						err = fmt.Errorf("body = %q, want empty", out.Body)
					}
					errs <- err
				}()
			}
			for range 4 {
				if err := <-errs; err != nil {
					t.Errorf("round %d: %v", round, err)
				}
			}
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

	f := defaultFixture()
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
	f := defaultFixture()
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
	f := defaultFixture()
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
