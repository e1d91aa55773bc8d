package exec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// scriptErrors compiles body and returns its error diagnostics, with
// the source it compiled.
func scriptErrors(t *testing.T, f fixture, body string) (string, hcl.Diagnostics) {
	t.Helper()
	src := blockSource(body)
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
	f := defaultFixture()
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
			`"echo ${param.text}"`, "This argument of sh may be its script, should the flag before it, which the caller chooses, be -c or +c; it puts parameter \"text\""},
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
			src, errs := scriptErrors(t, f, tt.body)
			if tt.subject == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %s", errs.Error())
				}
				return
			}
			scriptRefused(t, src, errs, tt.subject, tt.detail)
		})
	}
}

// TestExecScriptBuiltAllowed: the safe forms stay accepted however the
// list is built, and so does a parameter that is the whole script where
// the list is written out, and a script on stdin that does not run.
func TestExecScriptBuiltAllowed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	scriptAccepted(t, f, []string{
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
	})
}

// TestExecScriptFlagFromAllowFlags: a parameter with allow_flags may be a
// script flag, so an element after it made from a parameter is refused;
// without allow_flags the call refuses a value starting with "-".
func TestExecScriptFlagFromAllowFlags(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.info = map[string]adapters.ParamInfo{"opt": {AllowFlags: true}}
	for _, body := range []string{
		`command = ["sh", param.opt, "echo ${param.text}"]`,
		`command = concat(["env", "perl"], [param.opt, "print ${param.text}"])`,
		`command = concat(["sh"], param.flag ? [param.opt] : [], ["echo ${param.text}"])`,
	} {
		if _, errs := scriptErrors(t, f, body); len(errs) != 1 || !strings.Contains(errs[0].Detail, "may be its script") {
			t.Errorf("%s: diagnostics = %v, want the flag's script refused", body, errs)
		}
	}
}

// listExpr writes an HCL expression whose value is the list elems (HCL
// expressions themselves), in a shape chosen by the bytes of next: a
// literal list, concat, flatten, slice, reverse, a for expression, a
// conditional decided at load, parentheses, values of an object,
// coalescelist, compact, a conditional known only at a call with the list
// in one branch or in both, reverse of try, nested.
func listExpr(elems []string, next func() int, depth int) string {
	lit := "[" + strings.Join(elems, ", ") + "]"
	if depth > 4 {
		return lit
	}
	sub := func(es []string) string { return listExpr(es, next, depth+1) }
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

// refusedScript reports whether d refuses a command the fuzzers make:
// a parameter inside its script, or a program not fixed at load.
func refusedScript(d *hcl.Diagnostic) bool {
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
		{`"bash"`, `"-co"`, `"pipefail"`}, {`"sh"`, `"-Ec"`}, {`"dash"`, `"+c"`}, {`"zsh"`, `"-oerrexit"`, `"-c"`},
		{`"env"`, `"-S"`, `"sh -e -c"`}, {`"env"`, `"-iS"`, `"timeout 5 python3 -c"`}, {`"awk"`, `"-Fe"`},
		{`"sed"`, `"-e"`, `"--sandbox"`, `"-e"`},
	}
	wrappers := [][]string{{}, {`"env"`}, {`"env"`, `"LC_ALL=C"`}, {`"timeout"`, `"5"`}, {`"nice"`, `"-n"`, `"5"`}, {`"docker"`, `"exec"`, `"box"`}}
	scripts := []string{`"echo ${param.text}"`, `"x '${param.text}' y"`, `upper(param.text)`, `format("%s;", param.text)`,
		`join(" ", [param.text, "x"])`, `replace("a X b", "X", param.text)`, `"${param.a}${param.b}"`,
		`try("echo ${param.text}", "")`, `"echo ${try(param.text, "")}"`, `"echo ${element(param.files, 0)}"`, `"echo ${lookup(param.m, "k", "")}"`,
		`"echo %{for f in param.files}${f} %{endfor}"`, `join(" ", reverse(param.files))`, `(param.flag ? "ls" : "echo ${param.text}")`,
		`"ls %{if param.flag}${param.text}%{endif}"`, `keys({ "echo ${param.text}" = 1 })[0]`}
	fx := reviewFixture()
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
		body := "command = " + listExpr(elems, next, 0)
		_, errs := scriptErrors(t, fx, body)
		// compact of a list holding an element not known at load is not
		// known at all, and neither is its program; nor is a list in a
		// conditional known only at a call.
		if len(errs) != 1 || !refusedScript(errs[0]) {
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
		{`"sh"`, `"//dev/./stdin"`}, {`"python3"`, `"/proc/thread-self/fd/0"`}, {`"python3-dbg"`, `"-u"`},
		{`"ed"`, `"-s"`}, {`"tclsh"`}, {`"gdb"`, `"-batch"`}, {`"sqlite3"`, `"db"`}, {`"sudo"`, `"-s"`}, {`"su"`, `"nobody"`},
		{`"sh"`, `"-c"`, `"cat | bash"`}, {`"bash"`, `"-c"`, `"exec sh -s"`}, {`"env"`, `"-S"`, `"sh -e"`}, {`"make"`, `"-f"`, `"-"`},
	}
	wrappers := [][]string{{}, {`"env"`}, {`"env"`, `"LC_ALL=C"`}, {`"timeout"`, `"5"`}, {`"nice"`, `"-n"`, `"5"`}, {`"docker"`, `"exec"`, `"-i"`, `"box"`}}
	stdins := []string{`"echo ${param.text}"`, "<<EOT\nprint(${param.text})\nEOT", `format("x %s", param.text)`, `upper(param.text)`,
		`join("\n", [param.a, param.b])`, `"%{ for f in param.files }${f}%{ endfor }"`, `replace("X", "X", param.text)`,
		`try("echo ${param.text}", "")`, `"echo ${lookup(param.m, "k", "")}"`, `(param.flag ? "ls" : "echo ${param.text}")`}
	fx := reviewFixture()
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
		body := "command = " + listExpr(elems, next, 0) + "\nstdin = " + stdins[next()%len(stdins)]
		_, errs := scriptErrors(t, fx, body)
		if len(errs) != 1 || !refusedScript(errs[0]) {
			t.Fatalf("%s\ndiagnostics = %v, want one Parameter inside a script", body, errs)
		}
	})
}

// TestExecScriptOptions: the script is found as the program reads its
// options: shell clusters whose letters take values in turn (bash -co
// pipefail CMD), with upper-case letters or "+", fish's -c and
// --command, the string env -S splits into a command, and sed's
// --sandbox only among its options.
func TestExecScriptOptions(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	tests := []struct {
		name, body      string
		subject, detail string
	}{
		{"-co takes the next argument for -o", `command = ["bash", "-co", "pipefail", "echo ${param.text}"]`,
			`"echo ${param.text}"`, "The script bash runs with -co puts parameter \"text\""},
		{"-oc", `command = ["bash", "-oc", "pipefail", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -oc"},
		{"-eco", `command = ["sh", "-eco", "errexit", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -eco"},
		{"two value letters in a cluster", `command = ["bash", "-cOo", "extglob", "pipefail", "ls ${param.text}"]`, `"ls ${param.text}"`, "with -cOo"},
		{"-Ec", `command = ["bash", "-Ec", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -Ec"},
		{"-cE", `command = ["env", "bash", "-cE", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -cE"},
		{"+c", `command = ["bash", "+c", "echo ${param.text}"]`, `"echo ${param.text}"`, "with +c"},
		{"+ec", `command = ["dash", "+ec", "echo ${param.text}"]`, `"echo ${param.text}"`, "with +ec"},
		{"zsh's digit options", `command = ["zsh", "-0c", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -0c"},
		{"-c before other options", `command = ["bash", "-c", "-e", "+o", "posix", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -c"},
		{"-Ec after -o and its value", `command = ["bash", "-o", "pipefail", "-Ec", "ls ${param.text}"]`, `"ls ${param.text}"`, "with -Ec"},
		{"-c after --rcfile and its value", `command = ["bash", "--rcfile", "rc", "-c", "ls ${param.text}"]`, `"ls ${param.text}"`, "with -c"},
		{"a value letter taking the script", `command = ["zsh", "-Oc", "ls ${param.text}"]`, `"ls ${param.text}"`, "with -Oc"},
		{"a flag the caller chooses after -eo and its value", `command = ["bash", "-eo", "pipefail", "-${param.opt}", "echo ${param.text}"]`,
			`"echo ${param.text}"`, "This argument of bash may be its script"},
		{"a parameter that may be +c", `command = ["sh", param.opt, "echo ${param.text}"]`, `"echo ${param.text}"`, "be -c or +c"},
		{"a list parameter that may hold +c", `command = concat(["sh"], param.files, ["${param.text}.txt"])`, `"${param.text}.txt"`, "be -c or +c"},
		{"zsh's -o taking the rest of its cluster", `command = ["zsh", "-oerrexit", "-c", "ls ${param.text}"]`, `"ls ${param.text}"`, "with -c"},
		{"pwsh -Comm", `command = ["pwsh", "-NoProfile", "-Comm", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "with -Comm"},
		{"pwsh -Command after an option not listed and its value", `command = ["pwsh", "-CustomPipeName", "p", "-Command", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "with -Command"},
		{"deno eval after a long option", `command = ["deno", "--quiet", "eval", "console.log('${param.text}')"]`, `"console.log('${param.text}')"`, "with eval"},
		{"node -e after a long option without a value", `command = ["node", "--no-warnings", "-e", "console.log('${param.text}')"]`, `"console.log('${param.text}')"`, "with -e"},
		{"a list at call time after an option that takes a value", `command = concat(["zsh", "-oerrexit"], compact(["-c", "${param.a}${param.b}", "data.txt"]))`,
			`param.a`, "The list after zsh, known only when the tool is called, may hold a script flag and its script"},
		{"pwsh -Command joins the arguments after it", `command = ["pwsh", "-NoProfile", "-Command", "Get-Item", param.text]`, `param.text`, "The script pwsh runs with -Command may put parameter \"text\""},
		{"cmd /c joins the arguments after it", `command = ["cmd", "/c", "dir", param.text]`, `param.text`, "cmd joins this argument with the others into a shell command"},
		{"fish --command", `command = ["fish", "--command", "echo ${param.text}"]`, `"echo ${param.text}"`, "with --command"},
		{"fish's --command started", `command = ["fish", "--comm", "echo ${param.text}"]`, `"echo ${param.text}"`, "with --comm"},
		{"fish -ic", `command = ["fish", "-ic", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -ic"},
		{"fish -C", `command = ["fish", "-C", "echo ${param.text}", "script.fish"]`, `"echo ${param.text}"`, "with -C"},
		{"fish --init-command=", `command = ["fish", "--init-command=echo ${param.text}"]`, `"--init-command=echo ${param.text}"`, "glued to the flag"},
		{"fish -c after -d and its value", `command = ["fish", "-d", "3", "-c", "echo ${param.text}"]`, `"echo ${param.text}"`, "with -c"},
		{"python3 -u -c", `command = ["python3", "-u", "-c", "print('${param.text}')"]`, `"print('${param.text}')"`, "with -c"},
		{"python3 -c after a cluster ending in -W", `command = ["python3", "-uW", "ignore", "-c", "print('${param.text}')"]`, `"print('${param.text}')"`, "with -c"},
		{"python3 -c after a long option not listed", `command = ["python3", "--check-hash-based-pycs", "always", "-c", "print('${param.text}')"]`, `"print('${param.text}')"`, "with -c"},
		{"node -e after --title and its value", `command = ["node", "--title", "app", "-e", "console.log('${param.text}')"]`, `"console.log('${param.text}')"`, "with -e"},
		{"node -e after --require and its value", `command = ["node", "--require", "./setup.js", "-e", "console.log('${param.text}')"]`, `"console.log('${param.text}')"`, "with -e"},
		{"perl -e after -I and its value", `command = ["perl", "-I", "lib", "-e", "print '${param.text}'"]`, `"print '${param.text}'"`, "with -e"},
		{"ruby -e after -C and its value", `command = ["ruby", "-C", "dir", "-e", "puts '${param.text}'"]`, `"puts '${param.text}'"`, "with -e"},
		{"sed's --expr", `command = ["sed", "-n", "--expr", "/${param.text}/p", "notes.txt"]`, `"/${param.text}/p"`, "with --expr"},
		{"env -S with sh -e -c", `command = ["env", "-S", "sh -e -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S with sh -ec", `command = ["env", "-S", "sh -ec", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -ec"},
		{"env -S with timeout", `command = ["env", "-S", "timeout 5 sh -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S with python3 -c", `command = ["env", "-S", "python3 -c", "print('${param.text}')"]`, `"print('${param.text}')"`, "sys.argv[1]"},
		{"env -S glued", `command = ["env", "-Ssh -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -iS", `command = ["env", "-iS", "sh -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env --split-string=", `command = ["env", "--split-string=bash -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script bash runs with -c"},
		{"env --split= started", `command = ["env", "--split=bash -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script bash runs with -c"},
		{"env -S after -u and its value", `command = ["env", "-u", "HOME", "-S", "sh -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S with env's options in it", `command = ["env", "-S", "-i LC_ALL=C sh -c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S with quotes", `command = ["env", "-S", "'s'\"h\" '-c'", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S with \\_", `command = ["env", "-S", "sh\\_-c", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S ended by \\c", `command = ["env", "-S", "sh -c\\c ignored", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S ended by a comment", `command = ["env", "-S", "sh -c #ignored", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"env -S refused by env, read by its words", `command = ["env", "-S", "sh -c \\q", "echo ${param.text}"]`, `"\\q"`, ""},
		{"env -S in env -S", `command = ["env", "-S", "env -S 'sh -c'", "echo ${param.text}"]`, `"echo ${param.text}"`, "The script sh runs with -c"},
		{"sed --sandbox after --", `command = ["sed", "s/hello/${param.text}/", "notes.txt", "--", "--sandbox"]`, `"s/hello/${param.text}/"`, "Add --sandbox"},
		{"sed --sandbox after the script", `command = ["sed", "-n", "s/${param.text}/x/p", "--sandbox", "notes.txt"]`, `"s/${param.text}/x/p"`, "Add --sandbox"},
		{"sed --sandbox as the value of -e", `command = ["sed", "-e", "--sandbox", "-e", "s/${param.text}/x/"]`, `"s/${param.text}/x/"`, "Add --sandbox"},
		{"sed --sandbox as the value of -ne", `command = ["sed", "-ne", "--sandbox", "--expression=s/${param.text}/x/"]`, `"--expression=s/${param.text}/x/"`, "glued to the flag"},
		{"sed --sandbox as the value of --expr", `command = ["sed", "--expr", "--sandbox", "-e", "s/${param.text}/x/"]`, `"s/${param.text}/x/"`, "Add --sandbox"},
		{"sed --sandbox after a list known at call time", `command = concat(["sed"], param.files, ["--sandbox", "-e", "s/${param.text}/x/"])`, `"s/${param.text}/x/"`, "Add --sandbox"},
		{"awk program after -F with e for its value", `command = ["awk", "-Fe", "{ print ${param.text} }", "data.txt"]`, `"{ print ${param.text} }"`, "The awk program"},
		{"awk program after a glued -v", `command = ["awk", "-vx=${param.a}", "-F:", "{ print ${param.text} }", "data.txt"]`, `"{ print ${param.text} }"`, "The awk program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := scriptErrors(t, f, tt.body)
			if tt.detail == "" {
				// env refuses the string, so nothing runs: any outcome
				// but a crash is right.
				return
			}
			scriptRefused(t, src, errs, tt.subject, tt.detail)
		})
	}
}

// TestExecScriptOptionsAllowed: options after the interpreter's first
// operand, its script file, are the script's, and option values glued
// to awk's -v are values; fixed env -S strings and sed with --sandbox
// among its options stay accepted.
func TestExecScriptOptionsAllowed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	scriptAccepted(t, f, []string{
		`command = ["python3", "script.py", "-c", "name=${param.text}"]`,
		`command = ["python3", "-u", "-W", "ignore", "script.py", "-c", "name=${param.text}"]`,
		`command = ["python3", "-uW", "ignore", "script.py", "-c", "name=${param.text}"]`,
		`command = ["python3", "-X", "dev", "script.py", "-c", "name=${param.text}"]`,
		`command = ["bash", "script.sh", "-c", "name=${param.text}"]`,
		`command = ["bash", "-o", "pipefail", "script.sh", "-c", "name=${param.text}"]`,
		`command = ["sh", "-e", "--", "script.sh", "-c", "name=${param.text}"]`,
		`command = ["node", "app.js", "-e", "x=${param.text}"]`,
		`command = ["node", "--require", "./setup.js", "app.js", "--eval", "x=${param.text}"]`,
		`command = ["perl", "script.pl", "-e", "x=${param.text}"]`,
		`command = ["perl", "-I", "lib", "script.pl", "-e", "x=${param.text}"]`,
		`command = ["ruby", "-C", "dir", "script.rb", "-e", "x=${param.text}"]`,
		`command = ["docker", "run", "img", "sh", "script.sh", "-c", "x=${param.text}"]`,
		`command = ["timeout", "5", "python3", "script.py", "-c", "x=${param.text}"]`,
		`command = ["lua", "script.lua", "-e", "x=${param.text}"]`,
		`command = ["awk", "-vx=${param.text}", "{ print x }", "data.txt"]`,
		`command = ["awk", "-F", ":", "-vx=${param.text}", "-v", "y=${param.a}", "{ print x, y }", "data.txt"]`,
		`command = ["gawk", "--assign=x=${param.text}", "-F:", "{ print x }", "data.txt"]`,
		`command = ["awk", "-f", "prog.awk", "-vx=${param.text}", "data.txt"]`,
		`command = ["env", "-S", "ls --", "${param.text}.txt"]`,
		`command = ["env", "-S", "sh -c 'echo \"$1\"' sh", "${param.text}"]`,
		`command = ["env", "-S", "python3 script.py -c", "x=${param.text}"]`,
		`command = ["env", "-u", "HOME", "sh", "script.sh", "${param.text}"]`,
		`command = ["sed", "--sandbox", "-n", "s/${param.text}/x/p", "notes.txt"]`,
		`command = ["sed", "-n", "--sandbox", "-e", "s/${param.text}/x/", "notes.txt"]`,
		`command = ["sed", "-i.bak", "-E", "--sandbox", "s/${param.text}/x/", "notes.txt"]`,
		`command = ["bash", "-o", "pipefail", "-c", "echo \"$1\"", "bash", "${param.text}.txt"]`,
		`command = ["bash", "-co", "pipefail", "echo \"$1\"", "bash", "${param.text}.txt"]`,
		`command = ["fish", "-c", "echo $argv[1]", "${param.text}.txt"]`,
		`command = ["sh", "-c", "echo \"$1\"", "sh", param.text]`,
		`command = ["pwsh", "-NoProfile", "-Command", param.text]`,
		`command = ["pwsh", "-NoProfile", "-File", "script.ps1", param.text]`,
	})
}

func TestExecScriptPrograms(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	tests := []struct{ name, body, detail string }{
		// A string a program gives to a shell.
		{"script -qc", `command = ["script", "-qc", "echo ${param.text}", "/dev/null"]`, "The script script runs with -qc"},
		{"script --command", `command = ["script", "--command", "echo ${param.text}", "/dev/null"]`, "env = { X = param.x }"},
		{"flock -c", `command = ["flock", "/tmp/l", "-c", "echo ${param.text}"]`, "The script flock runs with -c"},
		{"flock --command", `command = ["flock", "--command", "echo ${param.text}", "/tmp/l"]`, "flock runs with --command"},
		{"su -c", `command = ["su", "-c", "echo ${param.text}", "root"]`, "The script su runs with -c"},
		{"su -lc", `command = ["su", "-", "root", "-lc", "echo ${param.text}"]`, "su runs with -lc"},
		{"runuser -c", `command = ["runuser", "-u", "nobody", "-c", "echo ${param.text}"]`, "runuser runs with -c"},
		// Operands joined into a shell command.
		{"sudo -s", `command = ["sudo", "-s", "echo ${param.text}"]`, "sudo joins this argument with the others into a shell command"},
		{"sudo -i with a cluster", `command = ["sudo", "-iu", "root", "ls", param.text]`, "sudo joins this argument"},
		{"sudo --login", `command = ["sudo", "--login", "ls", "${param.text}"]`, "sudo joins"},
		{"watch", `command = ["watch", "-n", "1", "echo ${param.text}"]`, "watch joins this argument"},
		{"watch with a parameter alone after the command", `command = ["watch", "ls", param.text]`, "watch joins this argument"},
		{"watch -x running a shell", `command = ["watch", "-x", "sh", "-c", "echo ${param.text}"]`, "The script sh runs with -c"},
		{"tmux new-session", `command = ["tmux", "new-session", "-d", "echo ${param.text}"]`, "tmux joins"},
		{"tmux split-window", `command = ["tmux", "-L", "x", "split-window", "ls ${param.text}"]`, "tmux reads its arguments as its own commands"},
		{"tmux respawn-pane in concat", `command = concat(["tmux", "respawn-pane", "-k"], ["ls ${param.text}"])`, "tmux joins"},
		{"parallel", `command = ["parallel", "echo ${param.text}", ":::", "a"]`, "parallel joins"},
		{"parallel without a command", `command = ["parallel", ":::", "echo ${param.text}"]`, "parallel joins"},
		{"screen -X", `command = ["screen", "-S", "s", "-X", "stuff", "echo ${param.text}"]`, "screen joins"},
		{"cmd /c after /s /q /d", `command = ["cmd", "/s", "/q", "/d", "/c", "echo ${param.text}"]`, "cmd joins this argument"},
		{"cmd /c with a parameter alone after the command", `command = ["cmd", "/C", "type", param.text]`, "cmd joins this argument"},
		{"cmd with the script glued", `command = ["cmd", "/c${param.text}"]`, "may start with /c"},
		{"cmd with a command glued", `command = ["cmd", "/cecho ${param.text}"]`, "may start with /c"},
		{"cmd /k glued, upper case", `command = ["cmd.exe", "/K${param.text}"]`, "may start with /k"},
		// Debuggers, editors, clients.
		{"gdb -batch -ex", `command = ["gdb", "-batch", "-ex", "shell echo ${param.text}"]`, "The script gdb runs with -ex"},
		{"gdb --eval-command=", `command = ["gdb", "--eval-command=shell echo ${param.text}"]`, "glued to the flag"},
		{"gdb -ex=", `command = ["gdb", "-batch", "-ex=shell echo ${param.text}"]`, "may start with -ex="},
		{"cmd /c after other switches", `command = ["cmd", "/d/c", "echo ${param.text}"]`, "cmd joins this argument"},
		{"lldb -o", `command = ["lldb", "--batch", "-o", "platform shell echo ${param.text}"]`, "lldb runs with -o"},
		{"vim -c", `command = ["vim", "-es", "-u", "NONE", "-c", "!echo ${param.text}", "-c", "qa!"]`, "The script vim runs with -c"},
		{"nvim --cmd", `command = ["nvim", "--cmd", "!echo ${param.text}"]`, "nvim runs with --cmd"},
		{"vim +CMD", `command = ["vim", "-es", "+!echo ${param.text}", "+qa!"]`, "may start with +"},
		{"ex with a file that may be +CMD", `command = ["ex", "-s", param.path]`, "may start with +"},
		{"view", `command = ["view", "-c", "!${param.text}"]`, "view runs with -c"},
		{"ed with a file that may be !CMD", `command = ["ed", "-s", param.path]`, "may start with !"},
		{"sqlite3 -cmd", `command = ["sqlite3", "-cmd", ".shell ${param.text}", "db"]`, "sqlite3 runs with -cmd"},
		{"psql -c", `command = ["psql", "-c", "\\! ${param.text}"]`, "psql runs with -c"},
		{"mysql -e", `command = ["mysql", "-e", "system ${param.text}"]`, "mysql runs with -e"},
		// Interpreters.
		{"R -e", `command = ["R", "-e", "system('${param.text}')"]`, "commandArgs(TRUE)"},
		{"dc -e", `command = ["dc", "-e", "!${param.text}"]`, "dc's ! command"},
		{"expect -c", `command = ["expect", "-c", "exec ${param.text}"]`, "expect runs with -c"},
		{"make --eval=", `command = ["make", "--eval=x:;${param.text}"]`, "glued to the flag"},
		{"make -E", `command = ["make", "-E", "$(shell ${param.text})"]`, "make runs with -E"},
		{"xonsh -c", `command = ["xonsh", "-c", "echo ${param.text}"]`, "xonsh runs with -c"},
		{"nu -c", `command = ["nu", "-c", "echo ${param.text}"]`, "nu runs with -c"},
		{"elvish -c", `command = ["elvish", "-c", "echo ${param.text}"]`, "elvish runs with -c"},
		{"fish --command", `command = ["fish", "--command", "echo ${param.text}"]`, "fish runs with --command"},
		{"pwsh -Co", `command = ["pwsh", "-Co", "echo ${param.text}"]`, "pwsh runs with -Co"},
		{"pwsh -Comm", `command = ["pwsh", "-NoProfile", "-Comm", "echo ${param.text}"]`, "pwsh runs with -Comm"},
		{"pwsh /command", `command = ["pwsh", "/command", "echo ${param.text}"]`, "pwsh runs with /command"},
		{"pwsh -EncodedCommand", `command = ["pwsh", "-EncodedCommand", upper(param.text)]`, "pwsh runs with -EncodedCommand"},
		{"pwsh -e", `command = ["pwsh", "-e", format("echo %s", param.text)]`, "pwsh runs with -e"},
		{"powershell -enc", `command = ["powershell.exe", "-enc", upper(param.text)]`, "powershell.exe runs with -enc"},
		{"pwsh -ec", `command = ["pwsh", "-ec", upper(param.text)]`, "pwsh runs with -ec"},
		{"php --run", `command = ["php", "--run", "echo '${param.text}';"]`, "php runs with --run"},
		{"php -R", `command = ["php", "-R", "echo '${param.text}';"]`, "php runs with -R"},
		{"php -B", `command = ["php", "-B", "echo '${param.text}';", "-R", "echo 1;"]`, "php runs with -B"},
		{"php -E", `command = ["php", "-R", "echo 1;", "-E", "echo '${param.text}';"]`, "php runs with -E"},
		{"php --process-code", `command = ["php", "--process-code", "echo '${param.text}';"]`, "php runs with --process-code"},
		{"deno run data:", `command = ["deno", "run", "data:,${param.text}"]`, "may start with data:"},
		{"deno run a URL made of a parameter", `command = ["deno", "run", "-A", "${param.text}"]`, "may start with data:"},
		// Name variants.
		{"python3-dbg", `command = ["python3-dbg", "-c", "print('${param.text}')"]`, "python3-dbg runs with -c"},
		{"python3.12d", `command = ["/usr/bin/python3.12d", "-c", "print('${param.text}')"]`, "runs with -c"},
		{"python3m", `command = ["python3m", "-c", "print('${param.text}')"]`, "runs with -c"},
		{"python3.13t", `command = ["python3.13t", "-c", "print('${param.text}')"]`, "runs with -c"},
		{"pythonw", `command = ["pythonw.exe", "-c", "print('${param.text}')"]`, "runs with -c"},
		{"py -3 -c", `command = ["py", "-3", "-c", "print('${param.text}')"]`, "py runs with -c"},
		{"py -3.12 -c", `command = ["py", "-3.12", "-c", "print('${param.text}')"]`, "py runs with -c"},
		{"ipython -c", `command = ["ipython3", "-c", "print('${param.text}')"]`, "ipython3 runs with -c"},
		{"node-18", `command = ["node-18", "-e", "console.log('${param.text}')"]`, "node-18 runs with -e"},
		{"bash-5.2", `command = ["bash-5.2", "-c", "echo ${param.text}"]`, "bash-5.2 runs with -c"},
		{"zsh-5.9", `command = ["zsh-5.9", "-c", "echo ${param.text}"]`, "zsh-5.9 runs with -c"},
		{"pypy3.10", `command = ["pypy3.10", "-c", "print('${param.text}')"]`, "pypy3.10 runs with -c"},
		{"a runner behind a wrapper", `command = ["env", "LC_ALL=C", "timeout", "5", "flock", "/tmp/l", "-c", "echo ${param.text}"]`, "flock runs with -c"},
		// Scripts on standard input (stdin is the body's second line).
		{"sh with a script file the caller names", "command = [\"sh\", param.path]\nstdin = \"echo ${param.text}\\n\"", "program sh reads"},
		{"python3 with a script file the caller names", "command = [\"python3\", \"-u\", param.path]\nstdin = \"print('${param.text}')\"", "program python3 reads"},
		{"bash with a list before its script file", "command = concat([\"bash\"], param.files, [\"job.sh\"])\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"/dev/./stdin", "command = [\"sh\", \"/dev/./stdin\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"//dev/stdin", "command = [\"sh\", \"//dev/stdin\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"/proc/thread-self/fd/0", "command = [\"python3\", \"/proc/thread-self/fd/0\"]\nstdin = \"print('${param.text}')\"", "program python3 reads"},
		{"/proc/1/fd/0", "command = [\"bash\", \"/proc/1/fd/0\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"/proc/self/root/dev/stdin", "command = [\"bash\", \"/proc/self/root/dev/stdin\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"../../dev/fd/0", "command = [\"perl\", \"../../../dev/fd/0\"]\nstdin = \"print '${param.text}'\"", "program perl reads"},
		{"xargs -I{}", "command = [\"xargs\", \"-I{}\", \"sh\", \"-c\", \"echo {}\"]\nstdin = param.text", "made into arguments by xargs"},
		{"xargs -I with its value apart", "command = [\"xargs\", \"-0\", \"-I\", \"%\", \"bash\", \"-c\", \"ls %\"]\nstdin = \"${param.text}\"", "made into arguments by xargs"},
		{"xargs -i", "command = [\"xargs\", \"-i\", \"python3\", \"-c\", \"print('{}')\"]\nstdin = param.text", "by xargs"},
		{"xargs --replace=", "command = [\"xargs\", \"--replace=@\", \"perl\", \"-e\", \"print '@'\"]\nstdin = param.text", "by xargs"},
		{"xargs appending the script", "command = [\"xargs\", \"sh\", \"-c\"]\nstdin = param.text", "by xargs"},
		{"xargs before a wrapper", "command = [\"env\", \"xargs\", \"-n\", \"1\", \"timeout\", \"5\", \"sh\", \"-c\"]\nstdin = param.text", "by xargs"},
		{"parallel appending the script", "command = [\"parallel\", \"sh\", \"-c\"]\nstdin = param.text", "by parallel"},
		{"ed", "command = [\"ed\", \"-s\"]\nstdin = \"!${param.text}\\n\"", "program ed reads"},
		{"tclsh", "command = [\"tclsh\"]\nstdin = \"exec ${param.text}\"", "program tclsh reads"},
		{"tclsh with a script file", "command = [\"tclsh8.6\", \"-encoding\", \"utf-8\", \"job.tcl\"]\nstdin = \"exec ${param.text}\"", "program tclsh8.6 reads"},
		{"gdb -x /dev/stdin", "command = [\"gdb\", \"-batch\", \"-x\", \"/dev/stdin\"]\nstdin = \"shell ${param.text}\"", "program gdb reads"},
		{"gdb -batch", "command = [\"gdb\", \"--batch\"]\nstdin = \"shell ${param.text}\"", "program gdb reads"},
		{"vim -es", "command = [\"vim\", \"-es\"]\nstdin = \"!${param.text}\"", "program vim reads"},
		{"sqlite3", "command = [\"sqlite3\", \"db\"]\nstdin = \".shell ${param.text}\"", "program sqlite3 reads"},
		{"psql", "command = [\"psql\", \"-d\", \"db\"]\nstdin = \"\\\\! ${param.text}\"", "program psql reads"},
		{"mysql", "command = [\"mysql\"]\nstdin = \"system ${param.text}\"", "program mysql reads"},
		{"sftp -b -", "command = [\"sftp\", \"-b\", \"-\", \"host\"]\nstdin = \"!${param.text}\"", "program sftp reads"},
		{"ftp", "command = [\"ftp\", \"-n\", \"host\"]\nstdin = \"!${param.text}\"", "program ftp reads"},
		{"expect", "command = [\"expect\"]\nstdin = \"exec ${param.text}\"", "program expect reads"},
		{"expect -", "command = [\"expect\", \"-\"]\nstdin = \"exec ${param.text}\"", "program expect reads"},
		{"R", "command = [\"R\", \"--vanilla\"]\nstdin = \"system('${param.text}')\"", "program R reads"},
		{"Rscript -", "command = [\"Rscript\", \"-\"]\nstdin = \"system('${param.text}')\"", "program Rscript reads"},
		{"at", "command = [\"at\", \"now\"]\nstdin = \"echo ${param.text}\"", "program at reads"},
		{"su without -c", "command = [\"su\", \"nobody\"]\nstdin = \"echo ${param.text}\"", "program su reads"},
		{"sudo -s without a command", "command = [\"sudo\", \"-s\"]\nstdin = \"echo ${param.text}\"", "program sudo reads"},
		{"script without -c", "command = [\"script\", \"-q\", \"/dev/null\"]\nstdin = \"echo ${param.text}\"", "program script reads"},
		{"make -f -", "command = [\"make\", \"-f\", \"-\"]\nstdin = \"x:\\n\\t${param.text}\\n\"", "program make reads"},
		{"make -f with a file the caller names", "command = [\"make\", \"-f\", param.path]\nstdin = \"x:\\n\\t${param.text}\\n\"", "program make reads"},
		{"parallel without a command", "command = [\"parallel\", \"-j\", \"2\"]\nstdin = \"echo ${param.text}\"", "program parallel reads"},
		{"pwsh without a script", "command = [\"pwsh\", \"-NoProfile\"]\nstdin = \"echo ${param.text}\"", "program pwsh reads"},
		{"pwsh -File -", "command = [\"pwsh\", \"-fil\", \"-\"]\nstdin = \"echo ${param.text}\"", "program pwsh reads"},
		{"dc", "command = [\"dc\"]\nstdin = \"!${param.text}\"", "program dc reads"},
		// Fixed scripts that run a program on standard input.
		{"env -S a shell", "command = [\"env\", \"-S\", \"sh -e\"]\nstdin = \"echo ${param.text}\"", "program env reads"},
		{"env -S glued", "command = [\"env\", \"-Stimeout 5 python3 -u\"]\nstdin = \"print('${param.text}')\"", "program env reads"},
		{"sh -c sh -s", "command = [\"sh\", \"-c\", \"sh -s\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"exec bash", "command = [\"sh\", \"-c\", \"exec bash\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"cat | bash", "command = [\"bash\", \"-c\", \"cat | bash\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{". /dev/stdin", "command = [\"sh\", \"-c\", \". /dev/stdin\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"source /dev/fd/0", "command = [\"bash\", \"-ec\", \"set -u; source /dev/fd/0\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"eval of cat", "command = [\"sh\", \"-c\", \"eval \\\"$(cat)\\\"\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"source of a process substitution", "command = [\"bash\", \"-c\", \"source <(cat)\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"read then eval", "command = [\"bash\", \"-c\", \"read -r l; eval \\\"$l\\\"\"]\nstdin = \"echo ${param.text}\"", "program bash reads"},
		{"a python script on stdin in a shell", "command = [\"sh\", \"-c\", \"timeout 5 python3 - x\"]\nstdin = \"print('${param.text}')\"", "program sh reads"},
		{"bash <&0", "command = [\"sh\", \"-c\", \"bash <&0\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"exec $SHELL", "command = [\"sh\", \"-c\", \"exec \\\"$SHELL\\\"\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
		{"python exec of stdin", "command = [\"python3\", \"-c\", \"import sys; exec(sys.stdin.read())\"]\nstdin = \"${param.text}\"", "program python3 reads"},
		{"python exec of input, glued", "command = [\"python3\", \"-cexec(input())\"]\nstdin = \"${param.text}\"", "program python3 reads"},
		{"perl eval of STDIN", "command = [\"perl\", \"-e\", \"eval join q(), <STDIN>\"]\nstdin = \"x${param.text}\"", "program perl reads"},
		{"xargs inside a fixed script", "command = [\"sh\", \"-c\", \"xargs -I{} sh -c 'echo {}'\"]\nstdin = param.text", "by xargs"},
		{"xargs inside env -S", "command = [\"env\", \"-S\", \"xargs -I{} sh -c 'echo {}'\"]\nstdin = \"${param.text}\"", "by xargs"},
		{"a list parameter joined by watch", `command = concat(["watch", "ls"], param.files)`, "watch joins this argument"},
		{"a list parameter as sudo's shell command", `command = concat(["sudo", "-s"], param.files)`, "sudo joins this argument"},
		{"a list parameter that may be +CMD", `command = concat(["vim", "-es"], param.files)`, "may start with +"},
		{"vim -c glued", `command = ["vim", "-c${param.text}"]`, "glued to the flag"},
		{"pwsh -cwa", `command = ["pwsh", "-cwa", "echo ${param.text}"]`, "pwsh runs with -cwa"},
		{"pwsh -CommandWithArgs", `command = ["pwsh", "-CommandWithArgs", "echo ${param.text}"]`, "pwsh runs with -CommandWithArgs"},
		{"sh -c sh -c sh", "command = [\"sh\", \"-c\", \"sh -c 'bash'\"]\nstdin = \"echo ${param.text}\"", "program sh reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := scriptErrors(t, f, tt.body)
			if len(errs) != 1 || errs[0].Summary != "Parameter inside a script" {
				t.Fatalf("diagnostics = %v, want one Parameter inside a script", errs)
			}
			d := errs[0]
			if !strings.Contains(d.Detail, tt.detail) || !strings.HasSuffix(d.Detail, ".") {
				t.Errorf("detail = %q, want a sentence with %q", d.Detail, tt.detail)
			}
			if d.Subject == nil || d.Subject.Start.Byte >= d.Subject.End.Byte || !strings.Contains(src[d.Subject.Start.Byte:d.Subject.End.Byte], "param") {
				t.Errorf("subject %v does not point at the parameter", d.Subject)
			}
		})
	}
}

func TestExecScriptProgramsAllowed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	scriptAccepted(t, f, []string{
		`command = ["script", "-qc", "echo \"$X\"", "/dev/null"]` + "\nenv = { X = param.text }",
		`command = ["flock", "/tmp/l", "sh", "-c", "echo \"$1\"", "sh", param.text]`,
		`command = ["flock", "-w", "5", "/tmp/l", "ls", "--", param.text]`,
		`command = ["sudo", "-u", "nobody", "ls", "--", param.text]`,
		`command = ["sudo", "sh", "-c", "echo \"$1\"", "sh", param.text]`,
		`command = ["watch", "-n", "5", "ls -l \"$X\""]` + "\nenv = { X = param.text }",
		`command = ["watch", param.text]`,
		`command = ["watch", "-tx", "ls", "--", param.text]`,
		`command = ["watch", "--exec", "git", "log", "${param.text}.txt"]`,
		`command = concat(["parallel", "gzip -- {}", ":::"], param.files)`,
		`command = ["parallel", "gzip -- {}", ":::", "${param.text}.log"]`,
		`command = ["cmd", "/c", param.text]`,
		`command = ["vim", "-es", "-c", "call setline(1, $X)", "-c", "wq", "--", param.path]` + "\nenv = { X = param.text }",
		`command = ["deno", "run", "main.ts", param.text, "${param.text}.txt"]`,
		`command = ["deno", "run", "--allow-read=${param.path}", "main.ts"]`,
		`command = ["deno", "run", "https://deno.land/std/${param.opt}.ts"]`,
		`command = ["R", "--no-echo", "-e", "cat(commandArgs(TRUE)[1])", "--args", param.text]`,
		`command = ["make", "build", "-C", "src"]`,
		`command = ["gdb", "-batch", "-ex", "run", "--args", "./prog", param.text]`,
		`command = ["gdb", "-batch", "-x", "cmds.gdb", param.path]`,
		`command = ["psql", "-v", "x=${param.text}", "-f", "query.sql"]`,
		`command = ["shred", "-u", "${param.path}.tmp"]`,
		`command = ["nodemon", "-e", "${param.text}"]`,
		`command = ["python3-config", "--cflags", "${param.text}"]`,
		`command = ["sh5x", "-c", "${param.text}"]`,
		`command = ["fish", "-c", "echo $argv[1]", param.text]`,
		`command = ["pwsh", "-ExecutionPolicy", "Bypass", "-File", "script.ps1", param.text]`,
		"command = [\"sh\", \"job.sh\"]\nstdin = \"${param.text}\\n\"",
		"command = [\"sh\", \"/dev/stdout-${param.text}\"]",
		"command = [\"python3\", \"/tmp/dev/stdinx\"]\nstdin = \"${param.text}\\n\"",
		"command = [\"flock\", \"/tmp/l\", \"cat\"]\nstdin = \"x ${param.text}\"",
		"command = [\"make\", \"-C\", \"src\", \"check\"]\nstdin = \"x ${param.text}\"",
		"command = [\"sudo\", \"-u\", \"nobody\", \"cat\"]\nstdin = \"x ${param.text}\"",
		"command = [\"xargs\", \"sh\", \"-c\", \"echo \\\"$@\\\"\", \"sh\"]\nstdin = param.text",
		"command = [\"xargs\", \"-I{}\", \"sh\", \"-c\", \"echo \\\"$1\\\"\", \"sh\", \"{}\"]\nstdin = param.text",
		"command = [\"xargs\", \"-0\", \"rm\", \"--\"]\nstdin = param.text",
		"command = [\"parallel\", \"gzip\"]\nstdin = \"${param.text}\\n\"",
		"command = [\"env\", \"-S\", \"grep -i\"]\nstdin = \"x ${param.text}\"",
		"command = [\"sh\", \"-c\", \"tr a-z A-Z\"]\nstdin = \"x ${param.text}\"",
		"command = [\"bash\", \"-c\", \"python3 job.py | sort\"]\nstdin = \"x ${param.text}\"",
		"command = [\"tclsh\", \"job.tcl\"]\nstdin = param.text",
		"command = [\"ed\", \"-s\", \"notes.txt\"]\nstdin = param.text",
		"command = [\"bash\", \"-c\", \"xargs -n1 sh -c 'echo \\\"$1\\\"' sh\"]\nstdin = param.text",
		"command = [\"python3\", \"-c\", \"import sys, json; print(json.load(sys.stdin))\"]\nstdin = \"x ${param.text}\"",
		`command = concat(["vim", "-es", "--"], param.files)`,
		`command = ["deno", "run", param.path]`,
		`command = concat(["parallel", "gzip", ":::"], param.files)`,
	})
}

func TestExecProgramName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		prog string
		want bool
	}{
		{"python3", true}, {"/usr/bin/python3.12", true}, {"python3.12d", true}, {"python3m", true}, {"python3-dbg", true},
		{"python3.13t", true}, {"python3.7dm", true}, {"oksh", true}, {`C:\Python312\pythonw.exe`, true}, {"PY.EXE", true}, {"ipython3", true}, {"node-18", true},
		{"bash-5.2", true}, {"zsh-5.9", true}, {"pypy3.10", true}, {"perl5.36", true}, {"tclsh8.6", false},
		{"shred", false}, {"nodemon", false}, {"python3-config", false}, {"bashful", false}, {"shd", false}, {"x86_64-sh", false}, {"", false},
	} {
		if _, got := interpreterFor(tt.prog); got != tt.want {
			t.Errorf("interpreterFor(%q) found = %v, want %v", tt.prog, got, tt.want)
		}
	}
	if _, ok := stdinProgramFor("tclsh8.6"); !ok {
		t.Errorf("tclsh8.6 is not a program that reads commands from stdin")
	}
}

func TestExecIsStdin(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"-", "/dev/stdin", "/dev/./stdin", "//dev/stdin", "/dev//stdin/", "/dev/fd/0", "/dev/fd/../fd/0",
		"/proc/self/fd/0", "/proc/thread-self/fd/0", "/proc/1/fd/0", "/proc/self/task/7/fd/0", "/proc/self/root/dev/stdin",
		"dev/stdin", "../../dev/stdin", "./../dev/fd/0"} {
		if !isStdin(s) {
			t.Errorf("isStdin(%q) = false", s)
		}
	}
	for _, s := range []string{"", "--", "stdin", "/dev/stdout", "/dev/fd/1", "/dev/fd/01", "/proc/self/fd/10", "/dev/stdin.sh", "/tmp/dev/stdinx", "job.sh"} {
		if isStdin(s) {
			t.Errorf("isStdin(%q) = true", s)
		}
	}
}

// reviewFixture has the default parameters, a map parameter m and an
// ask form with the field a.
func reviewFixture() fixture {
	f := defaultFixture()
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
	f := reviewFixture()
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
			src, errs := scriptErrors(t, f, tt.body)
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
// they are written; and a command of up to maxVariants lists is
// checked.
func TestExecChecksSeeThroughAllowed(t *testing.T) {
	t.Parallel()
	f := reviewFixture()
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
			if _, errs := scriptErrors(t, f, body); len(errs) > 0 {
				t.Errorf("refused: %s", errs.Error())
			}
		})
	}
	t.Run("past the cap by a choice", func(t *testing.T) {
		t.Parallel()
		flags := strings.Repeat(`"-x", `, 65)
		src, errs := scriptErrors(t, f, "command = [\"rg\", ["+flags+"][param.n], \"--\", param.text]")
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
		src, errs := scriptErrors(t, f, "command = "+seven)
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

// scriptRefused checks that errs, the errors of compiling src, are one
// "Parameter inside a script" whose subject is subject and whose detail is
// a sentence holding detail.
func scriptRefused(t *testing.T, src string, errs hcl.Diagnostics, subject, detail string) {
	t.Helper()
	oneRefusal(t, src, errs, "Parameter inside a script", subject, detail)
}

// oneRefusal checks that errs, the errors of compiling src, are one whose
// summary is summary, whose subject is subject and whose detail is a
// sentence holding detail.
func oneRefusal(t *testing.T, src string, errs hcl.Diagnostics, summary, subject, detail string) {
	t.Helper()
	if len(errs) != 1 || errs[0].Summary != summary {
		t.Fatalf("diagnostics = %v, want one %s", errs, summary)
	}
	d := errs[0]
	if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != subject {
		t.Errorf("subject = %q, want %q", got, subject)
	}
	if !strings.Contains(d.Detail, detail) || !strings.HasSuffix(d.Detail, ".") {
		t.Errorf("detail = %q, want a sentence with %q", d.Detail, detail)
	}
}

// scriptAccepted checks that each body compiles with no error, each in
// a parallel subtest of its own.
func scriptAccepted(t *testing.T, f fixture, bodies []string) {
	t.Helper()
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			if _, errs := scriptErrors(t, f, body); len(errs) > 0 {
				t.Errorf("refused: %s", errs.Error())
			}
		})
	}
}

// TestPwshSwitches checks the spellings PowerShell takes for a switch:
// every prefix from the shortest it takes on, after -, -- and /.
func TestPwshSwitches(t *testing.T) {
	tests := []struct {
		pairs []string
		want  []string
	}{
		{[]string{"file", "f"}, []string{"-f", "--f", "/f", "-fi", "--fi", "/fi", "-fil", "--fil", "/fil", "-file", "--file", "/file"}},
		{[]string{"command", "command", "cwa", "cw"}, []string{"-command", "--command", "/command", "-cw", "--cw", "/cw", "-cwa", "--cwa", "/cwa"}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.pairs, ","), func(t *testing.T) {
			if got := pwshSwitches(tt.pairs...); !slices.Equal(got, tt.want) {
				t.Errorf("pwshSwitches(%q) = %q, want %q", tt.pairs, got, tt.want)
			}
		})
	}
}
