package adapters

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// execScriptErrors compiles body and returns its error diagnostics, with
// the source it compiled.
func execScriptErrors(t *testing.T, f execFixture, body string) (string, hcl.Diagnostics) {
	t.Helper()
	src := execSource(body)
	_, diags := f.compile(t, src)
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	return src, errs
}

// TestExecScriptBuiltByExpression: a parameter inside a script is refused
// however HCL builds the command list, and where the command's program
// reads its script from standard input; the subject is the element when
// the list is written out, the parameter's reference otherwise.
func TestExecScriptBuiltByExpression(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	tests := []struct {
		name, body      string
		subject, detail string
	}{
		{"concat, the issue's example", `command = concat(["sh", "-c"], ["grep -r '${param.text}' . | head -20"])`,
			`"grep -r '${param.text}' . | head -20"`, `The script sh runs with -c puts parameter "text" into its text`},
		{"nested concat", `command = concat(concat(["sh"], ["-c"]), concat([], ["echo ${param.text}"]))`,
			`"echo ${param.text}"`, "The script sh runs with -c"},
		{"concat with env and timeout", `command = concat(["env", "LC_ALL=C", "timeout", "5"], ["sh", "-c", "echo ${param.text}"])`,
			`"echo ${param.text}"`, "The script sh runs with -c"},
		{"concat of a conditional decided at load", `command = concat(["sh"], true ? ["-c", "echo ${param.text}"] : [])`,
			`"echo ${param.text}"`, "The script sh runs with -c"},
		{"conditional decided at load", `command = 1 > 0 ? ["python3", "-c", "print('${param.text}')"] : ["true"]`,
			`"print('${param.text}')"`, "sys.argv[1]"},
		{"flatten", `command = flatten([["sh", "-c"], ["echo ${param.text}"]])`,
			`param.text`, `The script sh runs with -c may put parameter "text" into its text`},
		{"flatten of nested lists", `command = flatten([["env"], [["bash"], ["-ec", ["ls ${param.text}"]]]])`,
			`param.text`, "The script bash runs with -ec"},
		{"slice", `command = slice(["sh", "-c", "echo ${param.text}", "sh"], 0, 3)`,
			`param.text`, "The script sh runs with -c"},
		{"reverse", `command = reverse(["print('${param.text}')", "-c", "python3"])`,
			`param.text`, "sys.argv[1]"},
		{"for expression", `command = [for s in ["sh", "-c", "echo ${param.text}"] : s]`,
			`param.text`, "The script sh runs with -c"},
		{"for expression making the script", `command = [for s in ["sh", "-c", "echo"] : s == "echo" ? "echo ${param.text}" : s]`,
			`param.text`, "The script sh runs with -c"},
		{"values of an object", `command = values({ a = "perl", b = "-e", c = "print ${param.text}" })`,
			`param.text`, "$ARGV[0]"},
		{"split", `command = split(" ", "sh -c echo")`, "", ""}, // fixed: no parameter, allowed (checked below)
		{"format in a literal list", `command = concat(["sh", "-c"], [format("echo %s", param.text)])`,
			`format("echo %s", param.text)`, "The script sh runs with -c"},
		{"function of a parameter alone", `command = ["sh", "-c", upper(param.text)]`,
			`upper(param.text)`, "The script sh runs with -c"},
		{"join in flatten", `command = flatten([["sh", "-c"], [join(" ", ["echo", param.text])]])`,
			`param.text`, "The script sh runs with -c"},
		{"script made of a list parameter", `command = concat(["sh", "-c"], [for f in param.files : "cat ${f}"])`,
			`param.files`, `may put parameter "files"`},
		{"list parameter that may be empty before the script", `command = concat(["sh", "-c"], param.files, ["echo ${param.text}"])`,
			`"echo ${param.text}"`, "The script sh runs with -c"},
		{"script glued to its flag in concat", `command = concat(["python3"], ["-c${param.text}"])`,
			`"-c${param.text}"`, "glued to the flag"},
		{"script glued to its flag in flatten", `command = flatten([["python3"], ["-c${param.text}"]])`,
			`param.text`, "glued to the flag"},
		{"awk program in concat", `command = concat(["awk"], ["{ print $(${param.text}) }", "data.txt"])`,
			`"{ print $(${param.text}) }"`, "The awk program"},
		{"sed program in slice", `command = slice(["sed", "s/${param.text}/x/", "notes.txt"], 0, 3)`,
			`param.text`, "Add --sandbox"},
		{"flag made from a parameter", `command = ["sh", "-${param.opt}", "echo ${param.text}"]`,
			`"echo ${param.text}"`, "This argument of sh may be its script, should the flag before it, which the caller chooses, be -c; it puts parameter \"text\""},
		{"flag made from a parameter, then --", `command = ["bash", "-e${param.opt}", "--", "ls ${param.text}"]`,
			`"ls ${param.text}"`, "This argument of bash may be its script"},
		{"flag made from a parameter in a list not written out", `command = [for s in ["sh", "-${param.opt}", "echo ${param.text}"] : s]`,
			`param.text`, "This argument of sh may be its script"},
		{"script glued to a flag made from a parameter", `command = [for s in ["python3", "-${param.opt}"] : s]`,
			`param.opt`, "The script python3 runs with -c, glued to the flag, may put parameter \"opt\""},
		{"a conditional at call time holding the flag and the script", `command = concat(["sh"], param.flag ? ["-c", "echo ${param.text}"] : [])`,
			`"echo ${param.text}"`, "The script sh runs with -c puts parameter \"text\""},
		{"a conditional at call time holding the flag", `command = concat(["sh"], param.flag ? ["-c"] : [], ["echo ${param.text}"])`,
			`"echo ${param.text}"`, "The script sh runs with -c puts parameter \"text\""},
		{"a list at call time holding the flag and the script", `command = concat(["sh"], compact(["-c", "echo ${param.text}", param.opt]))`,
			`param.text`, "The list after sh, known only when the tool is called, may hold a script flag and its script; it may put parameter \"text\""},
		{"a slice of unknown length", `command = concat(["sh"], slice(["-c", "echo ${param.text}"], 0, param.n))`,
			`param.text`, "may hold a script flag and its script"},
		{"an interpreter in a list known at call time", `command = concat(["env", "LC_ALL=C"], compact(["gawk", "${param.a}${param.b}", "data.txt"]))`,
			`param.a`, "The list known only when the tool is called may run gawk, which it names, with a script; it may put parameter \"a\""},
		{"an interpreter split from a string", `command = concat(["env"], split("/", "sh/-c/echo ${param.text}"))`,
			`param.text`, "may run sh, which it names"},
		{"flatten of a marked unknown list", `command = concat(["env"], flatten([[], coalescelist([], compact(["LC_ALL=C", "sed", "-n", "${param.a}${param.b}"]))]))`,
			`param.a`, "may run sed, which it names"},
		{"sh -s with a script on stdin", "command = [\"sh\", \"-s\"]\nstdin = \"echo ${param.text}\"",
			`"echo ${param.text}"`, "The stdin argument is the program sh reads from its standard input, and it puts parameter \"text\""},
		{"a shell without operands", "command = [\"env\", \"bash\", \"-e\"]\nstdin = \"ls ${param.text}\"",
			`"ls ${param.text}"`, "program bash reads"},
		{"sh -", "command = [\"sh\", \"-\"]\nstdin = <<EOT\necho ${param.text}\nEOT", "<<EOT\necho ${param.text}\nEOT", "program sh reads"},
		{"python3 -", "command = [\"python3\", \"-\"]\nstdin = \"print('${param.text}')\"", `"print('${param.text}')"`, "sys.argv[1]"},
		{"python3 without a script", "command = [\"timeout\", \"5\", \"python3\", \"-u\"]\nstdin = \"print('${param.text}')\"", `"print('${param.text}')"`, "program python3 reads"},
		{"perl", "command = [\"perl\"]\nstdin = \"print '${param.text}'\"", `"print '${param.text}'"`, "program perl reads"},
		{"ruby -", "command = [\"ruby\", \"-\"]\nstdin = \"puts '${param.text}'\"", `"puts '${param.text}'"`, "program ruby reads"},
		{"node -", "command = [\"node\", \"-\"]\nstdin = \"console.log('${param.text}')\"", `"console.log('${param.text}')"`, "program node reads"},
		{"php", "command = [\"php\"]\nstdin = \"<?php echo '${param.text}';\"", `"<?php echo '${param.text}';"`, "program php reads"},
		{"lua -", "command = [\"lua\", \"-\"]\nstdin = \"print('${param.text}')\"", `"print('${param.text}')"`, "program lua reads"},
		{"bash /dev/fd/0", "command = [\"bash\", \"/dev/fd/0\", \"x\"]\nstdin = \"ls ${param.text}\"", `"ls ${param.text}"`, "program bash reads"},
		{"sed -f/dev/stdin", "command = [\"sed\", \"-n\", \"-f/dev/stdin\", \"notes.txt\"]\nstdin = \"/${param.text}/p\"", `"/${param.text}/p"`, "Add --sandbox"},
		{"awk -f -", "command = [\"awk\", \"-f\", \"-\", \"data.txt\"]\nstdin = \"/${param.text}/\"", `"/${param.text}/"`, "program awk reads"},
		{"a script on stdin of a command built by concat", "command = concat([\"sh\"], param.files)\nstdin = \"echo ${param.text}\"", `"echo ${param.text}"`, "program sh reads"},
		{"an interpreter chosen at call time reading stdin", "command = concat([\"env\"], param.flag ? [\"sh\"] : [\"cat\"])\nstdin = \"echo ${param.text}\"",
			`"echo ${param.text}"`, "The stdin argument is the program sh reads from its standard input"},
		{"a function of a parameter on stdin", "command = [\"bash\", \"-s\", \"--\", \"x\"]\nstdin = format(\"echo %s\", param.text)", `format("echo %s", param.text)`, "program bash reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := execScriptErrors(t, f, tt.body)
			if tt.subject == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %s", errs.Error())
				}
				return
			}
			if len(errs) != 1 || errs[0].Summary != "Parameter inside a script" {
				t.Fatalf("diagnostics = %v, want one Parameter inside a script", errs)
			}
			d := errs[0]
			if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != tt.subject {
				t.Errorf("subject = %q, want %q", got, tt.subject)
			}
			if !strings.Contains(d.Detail, tt.detail) || !strings.HasSuffix(d.Detail, ".") {
				t.Errorf("detail = %q, want a sentence with %q", d.Detail, tt.detail)
			}
		})
	}
}

// TestExecScriptBuiltAllowed: the safe forms stay accepted however the
// list is built, and so does a parameter that is the whole script where
// the list is written out, and a script on stdin that does not run.
func TestExecScriptBuiltAllowed(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	for _, body := range []string{
		`command = concat(["sh", "-c", "echo \"$1\"", "sh"], [param.text])`,
		`command = concat(["git", "add", "--"], param.files)`,
		`command = concat(["sh", "-c", "echo \"$@\"", "sh"], param.files)`,
		`command = concat(["sh", "-c"], [param.text])`,
		`command = flatten([["sh", "-c", "echo \"$1\"", "sh"], [param.text]])`,
		`command = [for s in ["sh", "-c", "echo \"$1\"", "sh", param.text] : s]`,
		`command = reverse([param.text, "sh", "echo \"$1\"", "-c", "sh"])`,
		`command = concat(["python3", "script.py"], [for f in param.files : "${f}.txt"])`,
		`command = concat(["grep", "-e", "sh", "--"], ["${param.text}.txt"])`,
		`command = flatten([["awk", "-v", "x=${param.text}", "{ print x }"], ["data.txt"]])`,
		`command = concat(["sed", "--sandbox"], ["s/${param.text}/x/g", "notes.txt"])`,
		`command = split(" ", "sh -c true")`,
		`command = concat(["sh", "-c"], param.flag ? [param.text] : [param.opt])`,
		`command = concat(["sh"], param.flag ? ["-c", param.text] : ["script.sh"])`,
		`command = concat(["python3"], param.flag ? ["-u"] : [], ["script.py", "${param.text}.txt"])`,
		`command = ["ruby", "-W${param.opt}", "script.rb", "${param.text}.txt"]`,
		`command = ["sh", param.opt, "echo ${param.text}"]`, // opt may not start with "-"
		`command = concat(["sh"], param.files, ["${param.text}.txt"])`,
		`command = concat(["sh"], param.flag ? ["-x"] : [], ["${param.text}.txt"])`,
		`command = concat(["sh", "-c", "echo \"$1\"", "sh"], param.flag ? [param.text] : [], ["${param.opt}.txt"])`,
		"command = [\"sh\", \"-s\", \"--\", param.text]\nstdin = \"echo \\\"$1\\\"\"",
		"command = [\"sh\"]\nstdin = param.text",
		"command = [\"sh\", \"script.sh\"]\nstdin = \"${param.text}\\n\"",
		"command = [\"python3\", \"-m\", \"json.tool\"]\nstdin = jsonencode({ text = param.text })",
		"command = [\"python3\", \"-c\", \"import sys; print(sys.stdin.read())\"]\nstdin = \"x ${param.text}\"",
		"command = [\"perl\", \"-ne\", \"print\"]\nstdin = \"x ${param.text}\"",
		"command = [\"awk\", \"{ print }\"]\nstdin = \"/${param.text}/\"",
		"command = [\"cat\"]\nstdin = \"x ${param.text}\"",
		"command = [\"sh\", \"-s\"]\nstdin = \"echo hello\"",
		"command = concat([\"grep\", \"-c\"], param.files)\nstdin = \"x ${param.text}\"",
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			if _, errs := execScriptErrors(t, f, body); len(errs) > 0 {
				t.Errorf("refused: %s", errs.Error())
			}
		})
	}
}

// TestExecScriptFlagFromAllowFlags: a parameter with allow_flags may be a
// script flag, so an element after it made from a parameter is refused;
// without allow_flags the call refuses a value starting with "-".
func TestExecScriptFlagFromAllowFlags(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	f.info = map[string]ParamInfo{"opt": {AllowFlags: true}}
	for _, body := range []string{
		`command = ["sh", param.opt, "echo ${param.text}"]`,
		`command = concat(["env", "perl"], [param.opt, "print ${param.text}"])`,
		`command = concat(["sh"], param.flag ? [param.opt] : [], ["echo ${param.text}"])`,
	} {
		if _, errs := execScriptErrors(t, f, body); len(errs) != 1 || !strings.Contains(errs[0].Detail, "may be its script") {
			t.Errorf("%s: diagnostics = %v, want the flag's script refused", body, errs)
		}
	}
}

// TestExecScriptSafeFormRuns: the form the diagnostics name runs a value
// that would inject code as data, in a real shell.
func TestExecScriptSafeFormRuns(t *testing.T) {
	t.Parallel()
	f := defaultExecFixture()
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, body := range []string{
		`command = concat(["sh", "-c", "echo \"$1\"", "sh"], [param.text])`,
		"command = [\"sh\", \"-s\", \"--\", param.text]\nstdin = \"echo \\\"$1\\\"\"",
	} {
		e := f.mustCompile(t, body)
		value := fmt.Sprintf("x' /dev/null; touch %s; echo '", marker)
		out, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal(value)})
		if err != nil {
			t.Fatalf("%s: call: %v", body, err)
		}
		if got := string(out.Body); got != value+"\n" {
			t.Errorf("%s: body = %q, want the value", body, got)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the value ran as code", body)
		}
	}
}

// execListExpr writes an HCL expression whose value is the list elems (HCL
// expressions themselves), in a shape chosen by the bytes of next: a
// literal list, concat, flatten, slice, reverse, a for expression, a
// conditional decided at load, parentheses, values of an object,
// coalescelist, compact, a conditional known only at a call with the list
// in one branch or in both, reverse of try, nested.
func execListExpr(elems []string, next func() int, depth int) string {
	lit := "[" + strings.Join(elems, ", ") + "]"
	if depth > 4 {
		return lit
	}
	sub := func(es []string) string { return execListExpr(es, next, depth+1) }
	switch next() % 15 {
	case 1:
		cut := next() % (len(elems) + 1)
		return fmt.Sprintf("concat(%s, %s)", sub(elems[:cut]), sub(elems[cut:]))
	case 2:
		cut := next() % (len(elems) + 1)
		return fmt.Sprintf("flatten([%s, %s])", sub(elems[:cut]), sub(elems[cut:]))
	case 3:
		return fmt.Sprintf(`slice(%s, 0, %d)`, sub(append(append([]string{}, elems...), `"extra"`)), len(elems))
	case 4:
		rev := make([]string, len(elems))
		for i, e := range elems {
			rev[len(elems)-1-i] = e
		}
		return fmt.Sprintf("reverse(%s)", sub(rev))
	case 5:
		return fmt.Sprintf("[for s in %s : s]", sub(elems))
	case 6:
		return fmt.Sprintf(`upper("a") == "A" ? %s : ["true"]`, sub(elems))
	case 7:
		return "(" + sub(elems) + ")"
	case 8:
		var items []string
		for i, e := range elems {
			items = append(items, fmt.Sprintf("k%02d = %s", i, e))
		}
		return "values({ " + strings.Join(items, ", ") + " })"
	case 9:
		if len(elems) == 0 {
			return lit // coalescelist refuses only empty lists
		}
		return fmt.Sprintf("coalescelist([], %s)", sub(elems))
	case 10:
		return fmt.Sprintf("compact(%s)", sub(elems))
	case 11:
		return fmt.Sprintf("(param.flag ? %s : %s)", sub(elems), sub(elems))
	case 12:
		if next()%2 == 0 {
			return fmt.Sprintf(`(param.text == "" ? [] : %s)`, sub(elems))
		}
		return fmt.Sprintf(`(param.text == "" ? %s : [])`, sub(elems))
	case 13:
		return fmt.Sprintf("reverse(try(reverse(%s), []))", sub(elems))
	}
	return lit
}

// execRefusedScript reports whether d refuses a command the fuzzers make:
// a parameter inside its script, or a program not fixed at load.
func execRefusedScript(d *hcl.Diagnostic) bool {
	return d.Summary == "Parameter inside a script" || d.Summary == "Program not fixed" || d.Summary == "Program depends on a parameter"
}

// FuzzExecScriptCommand generates commands that run an interpreter's
// script interpolating a parameter, with wrappers before the interpreter,
// built by any nesting of HCL's list expressions, with the parameter
// passed through functions that drop the checks' marks (try, element,
// lookup, %{for}) and the interpreter's name or its flag computed at load,
// in a conditional known only at a call or chosen by one among fixed
// values: each must be refused.
func FuzzExecScriptCommand(f *testing.F) {
	for _, seed := range []string{"", "\x01\x01", "\x02\x03\x05", "\x03\x04\x05\x06", "\x08\x01\x07\x02\x09", "\x05\x05\x05\x01\x02\x03\x04"} {
		f.Add([]byte(seed))
	}
	interpreters := [][]string{
		{`"sh"`, `"-c"`}, {`"/bin/bash"`, `"-ec"`}, {`"bash"`, `"-c"`, `"--"`}, {`"python3"`, `"-c"`}, {`"perl"`, `"-ne"`},
		{`"node"`, `"--eval"`}, {`"ruby"`, `"-e"`}, {`"busybox"`, `"sh"`, `"-c"`}, {`"gawk"`}, {`"sed"`, `"-n"`},
		{`base64decode("c2g=")`, `"-c"`}, {`strrev("hs")`, `"-c"`}, {`(param.flag ? "sh" : "bash")`, `"-c"`}, {`"sh"`, `(param.flag ? "-c" : "-ec")`},
		{`["cat", "sh"][param.n]`, `"-c"`}, {`"bash"`, `element(["-x", "-c"], param.n)`}, {`strrev(lookup({ a = "hs" }, param.a, "tac"))`, `"-c"`},
	}
	wrappers := [][]string{{}, {`"env"`}, {`"env"`, `"LC_ALL=C"`}, {`"timeout"`, `"5"`}, {`"nice"`, `"-n"`, `"5"`}, {`"docker"`, `"exec"`, `"box"`}}
	scripts := []string{`"echo ${param.text}"`, `"x '${param.text}' y"`, `upper(param.text)`, `format("%s;", param.text)`,
		`join(" ", [param.text, "x"])`, `replace("a X b", "X", param.text)`, `"${param.a}${param.b}"`,
		`try("echo ${param.text}", "")`, `"echo ${try(param.text, "")}"`, `"echo ${element(param.files, 0)}"`, `"echo ${lookup(param.m, "k", "")}"`,
		`"echo %{for f in param.files}${f} %{endfor}"`, `join(" ", reverse(param.files))`, `(param.flag ? "ls" : "echo ${param.text}")`,
		`"ls %{if param.flag}${param.text}%{endif}"`, `keys({ "echo ${param.text}" = 1 })[0]`}
	fx := execReviewFixture()
	f.Fuzz(func(t *testing.T, choices []byte) {
		i := 0
		next := func() int {
			if i >= len(choices) {
				return 0
			}
			i++
			return int(choices[i-1])
		}
		elems := append(append([]string{}, wrappers[next()%len(wrappers)]...), interpreters[next()%len(interpreters)]...)
		elems = append(elems, scripts[next()%len(scripts)])
		if next()%2 == 1 {
			elems = append(elems, `"data.txt"`)
		}
		body := "command = " + execListExpr(elems, next, 0)
		_, errs := execScriptErrors(t, fx, body)
		// compact of a list holding an element not known at load is not
		// known at all, and neither is its program; nor is a list in a
		// conditional known only at a call.
		if len(errs) != 1 || !execRefusedScript(errs[0]) {
			t.Fatalf("%s\ndiagnostics = %v, want one Parameter inside a script", body, errs)
		}
		if errs[0].Subject == nil || !strings.HasSuffix(errs[0].Detail, ".") {
			t.Fatalf("%s\nno subject, or a detail that is not a sentence: %v", body, errs[0])
		}
	})
}

// FuzzExecScriptStdin generates commands whose program, behind any
// wrapper and in any list shape, reads its script from standard input, and
// a stdin made from a parameter: each must be refused.
func FuzzExecScriptStdin(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03", "\x04\x05\x06\x07", "\x08\x09\x0a\x0b\x01"} {
		f.Add([]byte(seed))
	}
	readers := [][]string{
		{`"sh"`}, {`"sh"`, `"-s"`}, {`"bash"`, `"-e"`, `"-s"`, `"--"`, `"x"`}, {`"sh"`, `"-"`}, {`"dash"`, `"-o"`, `"errexit"`},
		{`"python3"`}, {`"python3"`, `"-u"`, `"-"`}, {`"python3.12"`, `"-W"`, `"ignore"`}, {`"perl"`}, {`"perl"`, `"-w"`, `"-"`},
		{`"ruby"`, `"-"`}, {`"node"`, `"-"`}, {`"php"`}, {`"lua"`, `"-"`}, {`"awk"`, `"-f"`, `"-"`, `"data.txt"`},
		{`"sed"`, `"-n"`, `"-f"`, `"/dev/stdin"`}, {`"pwsh"`, `"-Command"`, `"-"`}, {`"deno"`, `"run"`, `"-"`}, {`"bash"`, `"/dev/stdin"`},
	}
	wrappers := [][]string{{}, {`"env"`}, {`"env"`, `"LC_ALL=C"`}, {`"timeout"`, `"5"`}, {`"nice"`, `"-n"`, `"5"`}, {`"docker"`, `"exec"`, `"-i"`, `"box"`}}
	stdins := []string{`"echo ${param.text}"`, "<<EOT\nprint(${param.text})\nEOT", `format("x %s", param.text)`, `upper(param.text)`,
		`join("\n", [param.a, param.b])`, `"%{ for f in param.files }${f}%{ endfor }"`, `replace("X", "X", param.text)`,
		`try("echo ${param.text}", "")`, `"echo ${lookup(param.m, "k", "")}"`, `(param.flag ? "ls" : "echo ${param.text}")`}
	fx := execReviewFixture()
	f.Fuzz(func(t *testing.T, choices []byte) {
		i := 0
		next := func() int {
			if i >= len(choices) {
				return 0
			}
			i++
			return int(choices[i-1])
		}
		elems := append(append([]string{}, wrappers[next()%len(wrappers)]...), readers[next()%len(readers)]...)
		body := "command = " + execListExpr(elems, next, 0) + "\nstdin = " + stdins[next()%len(stdins)]
		_, errs := execScriptErrors(t, fx, body)
		if len(errs) != 1 || !execRefusedScript(errs[0]) {
			t.Fatalf("%s\ndiagnostics = %v, want one Parameter inside a script", body, errs)
		}
	})
}

// execReviewFixture has the default parameters, a map parameter m and an
// ask form with the field a.
func execReviewFixture() execFixture {
	f := defaultExecFixture()
	f.params["m"] = cty.Map(cty.String)
	f.answers = map[string]cty.Type{"a": cty.String}
	return f
}

// TestExecChecksSeeThrough: the script, load and stdin checks refuse a
// parameter or an answer that reaches a script, an option that loads code
// or a variable env sets through a function that drops the marks the
// checks follow (try, element, lookup, keys, %{for}), through a
// conditional known only at a call (each branch is a command list of its
// own), through a name computed at load, and as an operand of env.
func TestExecChecksSeeThrough(t *testing.T) {
	t.Parallel()
	f := execReviewFixture()
	const (
		script  = "Parameter inside a script"
		code    = "Parameter chooses the code that runs"
		program = "Parameter chooses the program"
		name    = "Name must be constant"
	)
	tests := []struct {
		name, body, summary, subject, detail string
	}{
		// Functions that drop the marks.
		{"element in flatten", `command = flatten([["sh", "-c"], ["echo ${element(param.files, 0)}"]])`, script, "param.files", `may put parameter "files"`},
		{"try in reverse", `command = reverse(reverse(["sh", "-c", try("echo ${param.text}", "")]))`, script, "param.text", `may put parameter "text"`},
		{"lookup in flatten", `command = flatten([["sh", "-c"], ["echo ${lookup(param.m, "msg", "")}"]])`, script, "param.m", `may put parameter "m"`},
		{"for template in flatten", `command = flatten([["bash", "-c"], ["echo %{for f in param.files}${f} %{endfor}"]])`, script, "param.files", "The script bash runs with -c"},
		{"try in values", `command = values({ a = "sh", b = "-c", c = try("echo ${param.text}", "") })`, script, "param.text", "The script sh runs with -c"},
		{"try in a for expression", `command = [for s in ["sh", "-c", try("echo ${param.text}", "")] : s]`, script, "param.text", "The script sh runs with -c"},
		{"keys in flatten", `command = reverse(reverse(["sh", "-c", keys({ "echo ${param.text}" = 1 })[0]]))`, script, "param.text", "The script sh runs with -c"},
		{"join of concat of a list parameter", `command = flatten([["sh", "-c"], [join(" ", concat(["echo"], param.files))]])`, script, "param.files", "The script sh runs with -c"},
		{"join of reverse of a list parameter", `command = flatten([["sh", "-c"], [join(" ", reverse(param.files))]])`, script, "param.files", "The script sh runs with -c"},
		{"join of slice of a list parameter", `command = reverse(reverse(["sh", "-c", join(" ", slice(param.files, 0, 1))]))`, script, "param.files", "The script sh runs with -c"},
		{"try of an answer", `command = reverse(reverse(["sh", "-c", "echo ${try(answer.a, "")}"]))`, script, "answer.a", `may put the ask form's answer "a"`},
		{"try on stdin", "command = [\"sh\"]\nstdin = try(\"echo ${param.text}\", \"\")", script, `try("echo ${param.text}", "")`, "program sh reads"},
		{"try of an answer on stdin", "command = reverse(reverse([\"sh\", \"-s\"]))\nstdin = \"echo ${try(answer.a, \"\")}\"", script, `"echo ${try(answer.a, "")}"`, "program sh reads"},
		{"try in LD_PRELOAD", `command = reverse(reverse(["env", "LD_PRELOAD=${try(param.text, "")}", "ls"]))`, program, "param.text", "LD_PRELOAD, which env sets"},
		{"try in BASH_ENV", `command = reverse(reverse(["env", "BASH_ENV=${try(param.text, "")}", "bash", "-c", "true"]))`, program, "param.text", "BASH_ENV, which env sets"},
		{"lookup in GIT_EXTERNAL_DIFF", `command = reverse(reverse(["env", "GIT_EXTERNAL_DIFF=${lookup(param.m, "a", "")}", "git", "diff"]))`, program, "param.m", "GIT_EXTERNAL_DIFF"},
		{"element in perl -M", `command = ["perl", "-M${element(param.files, 0)}", "-e", "1"]`, code, `"-M${element(param.files, 0)}"`, "-M of perl"},
		{"element in perl -M in reverse", `command = reverse(reverse(["perl", "-M${element(param.files, 0)}", "-e", "1"]))`, script, "param.files", "glued to the flag"},
		{"try in python3 -m", `command = ["python3", "-m", try(param.text, "")]`, code, `try(param.text, "")`, "-m of python3"},
		{"try in python3 -m in reverse", `command = reverse(reverse(["python3", "-m", try(param.text, "")]))`, code, "param.text", "-m of python3"},
		{"try in git -c in reverse", `command = reverse(reverse(["git", "-c", "core.pager=${try(param.text, "")}", "log"]))`, code, "param.text", "-c of git"},
		{"try in an operand of env", `command = reverse(reverse(["env", try(param.text, ""), "bash", "-c", "true"]))`, name, "param.text", `refers to parameter "text"`},
		// Conditionals known only at a call.
		{"an interpreter in both branches", `command = concat(["env"], param.flag ? ["bash", "-e"] : ["bash"], ["-c", "grep -r ${param.text} ."])`, script, `"grep -r ${param.text} ."`, "The script bash runs with -c puts"},
		{"the same branches", `command = concat(["env"], param.flag ? ["sh", "-c"] : ["sh", "-c"], ["echo ${param.text}"])`, script, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"perl in both branches", `command = concat(["nice"], param.flag ? ["perl"] : ["perl"], ["-M${param.text}", "-e", "1"])`, code, `"-M${param.text}"`, "-M of perl"},
		{"git in both branches", `command = concat(["nice"], param.flag ? ["git"] : ["git"], ["-c", "core.pager=${param.text}", "log"])`, code, `"core.pager=${param.text}"`, "-c of git"},
		{"env in both branches", `command = concat(["nice"], param.flag ? ["env", "-i"] : ["env"], ["GIT_SSH_COMMAND=${param.text}", "git", "fetch"])`, program, `"GIT_SSH_COMMAND=${param.text}"`, "GIT_SSH_COMMAND"},
		{"an assignment in one branch", `command = concat(["env"], param.flag ? ["X=1"] : [], ["BASH_ENV=${param.text}", "bash", "-c", "true"])`, program, `"BASH_ENV=${param.text}"`, "BASH_ENV"},
		{"nested conditionals", `command = concat(["env"], param.flag ? (param.text == "" ? ["sh"] : ["cat"]) : ["cat"], ["-c", "echo ${param.a}"])`, script, `"echo ${param.a}"`, "The script sh runs with -c"},
		{"a conditional in a for expression", `command = concat(["sh", "-c"], [for s in ["echo"] : param.flag ? s : "echo ${param.text}"])`, script, "param.text", "The script sh runs with -c"},
		{"a loader's option in a branch", `command = ["perl", param.flag ? "-M${param.text}" : "-w", "script.pl"]`, code, `"-M${param.text}"`, "-M of perl"},
		{"a loader's flag in a branch", `command = ["git", param.flag ? "-c" : "-C", "core.pager=${param.text}", "log"]`, code, `"core.pager=${param.text}"`, "-c of git"},
		{"a script flag in a branch", `command = ["python3", param.flag ? "-c" : "-u", "print(${param.text})"]`, script, `"print(${param.text})"`, "The script python3 runs with -c puts"},
		{"env's operand in a branch", `command = ["env", param.flag ? "X=1" : param.text, "bash", "-c", "true"]`, name, "param.text", `This argument of env, before its program, refers to parameter "text"`},
		{"stdin of an interpreter in a branch", "command = concat([\"env\"], param.flag ? [\"sh\"] : [\"cat\"])\nstdin = \"echo ${param.text}\"", script, `"echo ${param.text}"`, "The stdin argument is the program sh reads"},
		{"stdin in a branch", "command = [\"sh\"]\nstdin = param.flag ? \"ls\" : \"echo ${param.text}\"", script, `"echo ${param.text}"`, "The stdin argument is the program sh reads"},
		// Names computed at load.
		{"base64decode in a branch", `command = concat(["env"], param.flag ? [base64decode("c2g=")] : ["cat"], ["-c", "echo ${param.text}"])`, script, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"strrev in a branch", `command = concat(["env"], param.flag ? ["cat"] : [strrev("hs")], ["-c", "echo ${param.text}"])`, script, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"a template in a branch", `command = concat(["env"], param.flag ? ["s${"h"}"] : [], ["-c", "echo ${param.text}"])`, script, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"base64decode in a list known at a call", `command = concat(["nice"], compact([base64decode("c2g="), "-c", "echo ${param.text}"]))`, script, "param.text", "may run sh, which it names"},
		{"the item of a for expression", `command = concat(["nice"], [for x in param.files : "sh"], ["-c", "echo ${param.text}"])`, script, "param.files", "may run sh, which it names"},
		{"a loader as the item of a for expression", `command = concat(["nice"], [for x in param.files : "git"], ["-c", "core.pager=${param.text}", "log"])`, code, "param.files", "may run git, which it names"},
		{"env computed in a for expression", `command = concat(["nice"], [for x in param.files : strrev("vne")], ["BASH_ENV=${param.text}", "bash"])`, program, "param.files", "may run env, which it names"},
		// A program chosen at a call among fixed names.
		{"an index chooses an interpreter", `command = ["nice", ["sh", "cat"][param.n], "-c", "echo ${param.text}"]`, script, `"echo ${param.text}"`, "The script sh runs with -c puts"},
		{"element chooses a loader", `command = ["nice", element(["cat", "git"], param.n), "-c", "core.pager=${param.text}", "log"]`, code, `"core.pager=${param.text}"`, "-c of git"},
		{"lookup chooses env", `command = ["nice", lookup({ a = "env" }, param.text, "cat"), "BASH_ENV=${param.path}", "bash"]`, program, `"BASH_ENV=${param.path}"`, "BASH_ENV, which env sets"},
		{"coalesce of a parameter alone", `command = ["sh", "-c", coalesce(param.text, "")]`, script, `coalesce(param.text, "")`, "The script sh runs with -c puts"},
		{"try chooses an interpreter", `command = ["nice", try(param.files[0], "sh"), "-c", "echo ${param.text}"]`, script, `"echo ${param.text}"`, "The script sh runs with -c puts"},
		{"an index chooses a name made at load", `command = ["nice", strrev(["hs", "tac"][param.n]), "-c", "echo ${param.text}"]`, script, `"echo ${param.text}"`, "The script sh runs with -c puts"},
		{"an index chooses a script flag", `command = ["sh", ["-c", "-x"][param.n], "echo ${param.text}"]`, script, `"echo ${param.text}"`, "The script sh runs with -c puts"},
		{"element chooses a loader's option", `command = ["perl", element(["-I", "-w"], param.n), param.path, "script.pl"]`, code, "param.path", "-I of perl"},
		{"a template chooses a name", `command = ["nice", "s${["h", "x"][param.n]}", "-c", "echo ${param.text}"]`, script, `"echo ${param.text}"`, "The script sh runs with -c puts"},
		{"an index chooses an interpreter in reverse", `command = reverse(reverse(["nice", ["sh", "cat"][param.n], "-c", "echo ${param.text}"]))`, script, "param.text", "The script sh runs with -c may put"},
		// An operand of env before its program.
		{"a parameter as env's operand", `command = ["env", param.text, "bash", "-c", "true"]`, name, "param.text", `This argument of env, before its program, refers to parameter "text"`},
		{"trimspace as env's operand", `command = ["env", trimspace(param.text), "bash", "-c", "true"]`, name, "trimspace(param.text)", `refers to parameter "text"`},
		{"a template as env's operand", `command = ["env", "${param.text}", "bash", "-c", "true"]`, name, `"${param.text}"`, `refers to parameter "text"`},
		{"text and a parameter as env's operand", `command = ["env", "X${param.text}", "bash", "-c", "true"]`, name, `"X${param.text}"`, `refers to parameter "text"`},
		{"env's operand after --", `command = ["env", "-i", "--", param.text, "bash"]`, name, "param.text", `refers to parameter "text"`},
		{"an answer as env's operand", `command = ["env", answer.a, "bash", "-c", "true"]`, name, "answer.a", `refers to the ask form's answer "a"`},
		{"a list parameter as env's operands", `command = concat(["env"], param.files, ["bash", "-c", "true"])`, name, "param.files", `refers to parameter "files"`},
		{"a for expression as env's operands", `command = concat(["env"], [for f in param.files : f], ["bash", "-c", "true"])`, script, "param.files", "The list after env, known only when the tool is called, may hold a script flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := execScriptErrors(t, f, tt.body)
			if len(errs) != 1 || errs[0].Summary != tt.summary {
				t.Fatalf("diagnostics = %v, want one %s", errs, tt.summary)
			}
			d := errs[0]
			if d.Subject == nil {
				t.Fatal("no subject")
			}
			if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != tt.subject {
				t.Errorf("subject = %q, want %q", got, tt.subject)
			}
			if !strings.Contains(d.Detail, tt.detail) || !strings.HasSuffix(d.Detail, ".") {
				t.Errorf("detail = %q, want a sentence with %q", d.Detail, tt.detail)
			}
		})
	}
}

// TestExecChecksSeeThroughAllowed: a conditional whose branches are fixed
// text is not made from its condition, in the command and on stdin; the
// names of variables env sets may come from a list known at a call when
// they are written; and a command of up to execMaxVariants lists is
// checked.
func TestExecChecksSeeThroughAllowed(t *testing.T) {
	t.Parallel()
	f := execReviewFixture()
	six := `concat(["rg"], param.flag ? ["-i"] : [], param.text == "" ? ["-w"] : [], param.a == "" ? ["-F"] : [], param.b == "" ? ["-s"] : [], param.opt == "" ? ["-n"] : [], param.path == "" ? ["-l"] : [], ["--", param.pidfile])`
	for _, body := range []string{
		`command = ["sh", "-c", param.flag ? "ls -l" : "ls"]`,
		`command = concat(["sh", "-c"], [param.flag ? "ls -l" : "ls"])`,
		`command = ["sh", "-c", "ls ${param.flag ? "-l" : ""}"]`,
		`command = reverse(reverse(["sh", "-c", param.flag ? "ls -l" : "ls"]))`,
		`command = concat(["sh"], param.flag ? ["-c", "ls -l"] : ["-c", "ls"])`,
		"command = [\"sh\"]\nstdin = param.flag ? \"ls -l\" : \"ls\"",
		"command = [\"sh\", \"-s\"]\nstdin = \"ls ${param.flag ? \"-l\" : \"\"}\"",
		`command = concat(["git", "log"], param.flag ? ["--oneline"] : [], ["--", param.path])`,
		`command = concat(["env", "LC_ALL=C"], param.flag ? ["sort", "-r"] : ["sort"], ["--", param.path])`,
		`command = concat(["env", "LC_ALL=C", "sort", "--"], param.files)`,
		`command = ["env", "-u", "HOME", "GREETING=${param.text}", "printenv", "GREETING"]`,
		`command = ["nice", ["ls", "cat"][param.n], "--", param.path]`,
		`command = ["git", "log", lookup({ a = "--oneline" }, param.text, "--stat"), "--", param.path]`,
		`command = reverse(reverse(["sh", "-c", "echo \"$1\"", "sh", try(param.files[0], "x")]))`,
		`command = ["curl", "-sS", "--", lookup({ a = "https://a.example" }, param.text, "https://b.example")]`,
		`command = concat(["env"], coalescelist([], ["sh", "-c", "echo \"$0\""]), ["${param.text}.sh"])`,
		`command = ["nice", coalesce("", "sh"), "-c", "echo \"$1\"", "sh", param.text]`,
		`command = ["nice", try("sh", param.text), "-c", "echo \"$1\"", "sh", param.text]`,
		"command = " + six,
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			if _, errs := execScriptErrors(t, f, body); len(errs) > 0 {
				t.Errorf("refused: %s", errs.Error())
			}
		})
	}
	t.Run("past the cap by a choice", func(t *testing.T) {
		t.Parallel()
		flags := strings.Repeat(`"-x", `, 65)
		src, errs := execScriptErrors(t, f, "command = [\"rg\", ["+flags+"][param.n], \"--\", param.text]")
		if len(errs) != 1 || errs[0].Summary != "Too many conditionals in command" {
			t.Fatalf("diagnostics = %v, want one Too many conditionals in command", errs)
		}
		if got := src[errs[0].Subject.Start.Byte:errs[0].Subject.End.Byte]; !strings.HasSuffix(got, "[param.n]") {
			t.Errorf("subject = %q, want the choice", got)
		}
	})
	t.Run("past the cap", func(t *testing.T) {
		t.Parallel()
		seven := strings.Replace(six, `["--", param.pidfile]`, `param.n > 1 ? ["-v"] : [], ["--", param.pidfile]`, 1)
		src, errs := execScriptErrors(t, f, "command = "+seven)
		if len(errs) != 1 || errs[0].Summary != "Too many conditionals in command" {
			t.Fatalf("diagnostics = %v, want one Too many conditionals in command", errs)
		}
		if got := src[errs[0].Subject.Start.Byte:errs[0].Subject.End.Byte]; !strings.HasPrefix(got, "param.") || !strings.Contains(got, "?") {
			t.Errorf("subject = %q, want a conditional", got)
		}
		if !strings.Contains(errs[0].Detail, "more than 64 different command lists") {
			t.Errorf("detail = %q", errs[0].Detail)
		}
	})
}
