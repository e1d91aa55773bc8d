//go:build unix

package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

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
			{"Parameter inside a script", `"Get-Item ${param.text}"`, `"-File", "script.ps1", "-Name", param.x]`},
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
	f := defaultFixture()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := blockSource(tt.body)
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
	f := defaultFixture()
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
	f := defaultFixture()
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
