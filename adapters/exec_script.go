package adapters

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// execInterpreter describes a program that runs a script given on its
// command line: the flags after which the next argument is the script, and
// how a script reads its first extra argument instead.
type execInterpreter struct {
	flags      []string // exact, compared case-insensitively
	shellFlags bool     // also single-dash flag clusters containing c, such as -ec
	// clusterEnd are the letters that make a single-dash cluster of
	// letters ending in one of them a script flag, such as perl's -ne and
	// python's -Ic.
	clusterEnd string
	// programOperand is set for awk, whose script is its first operand
	// unless a -f option names a file that holds it; valueFlags are the
	// options whose value is the next argument.
	programOperand bool
	valueFlags     []string
	// attached is set for programs that also take the script glued to
	// its single-dash flag, as python's -cCODE and perl's -eCODE do.
	attached bool
	// safeFlag, when one of the options, takes away what makes the
	// script dangerous (sed's --sandbox: no e, r or w commands), so that
	// a parameter may go into it.
	safeFlag string
	readArg  string // how the script reads the value, as a whole command
	// fix, when set, says how to write the command instead of "pass the
	// value as an argument of its own", for a program whose script cannot
	// read one; danger then says what a value could do.
	fix, danger string
}

// execInterpreters are the programs whose script argument must not
// interpolate a parameter, by base name without ".exe".
var execInterpreters = func() map[string]execInterpreter {
	shell := execInterpreter{flags: []string{"-c"}, shellFlags: true,
		readArg: `command = ["sh", "-c", "echo \"$1\"", "sh", param.x]`}
	python := execInterpreter{flags: []string{"-c"}, clusterEnd: "c", attached: true,
		readArg: `command = ["python3", "-c", "import sys; print(sys.argv[1])", param.x]`}
	node := execInterpreter{flags: []string{"-e", "--eval", "-p", "--print"}, clusterEnd: "ep",
		readArg: `command = ["node", "-e", "console.log(process.argv[1])", param.x]`}
	m := map[string]execInterpreter{
		"perl":       {flags: []string{"-e", "-E"}, clusterEnd: "eE", attached: true, readArg: `command = ["perl", "-e", "print $ARGV[0]", param.x]`},
		"ruby":       {flags: []string{"-e"}, clusterEnd: "e", attached: true, readArg: `command = ["ruby", "-e", "puts ARGV[0]", param.x]`},
		"php":        {flags: []string{"-r"}, attached: true, readArg: `command = ["php", "-r", "echo $argv[1];", param.x]`},
		"pwsh":       {flags: []string{"-c", "-command"}, readArg: `command = ["pwsh", "-NoProfile", "-File", "script.ps1", param.x] with the script reading $args[0]`},
		"powershell": {flags: []string{"-c", "-command"}, readArg: `command = ["powershell", "-NoProfile", "-File", "script.ps1", param.x] with the script reading $args[0]`},
		"cmd":        {flags: []string{"/c", "/k"}, readArg: `a script file run by another interpreter: cmd.exe has no safe way to pass a value to a command line`},
		"osascript":  {flags: []string{"-e"}, readArg: `command = ["osascript", "-e", "on run argv", "-e", "return item 1 of argv", "-e", "end run", param.x]`},
		"lua":        {flags: []string{"-e"}, attached: true, readArg: `command = ["lua", "-e", "print(arg[1])", "--", param.x]`},
		"luajit":     {flags: []string{"-e"}, attached: true, readArg: `command = ["luajit", "-e", "print(arg[1])", "--", param.x]`},
		"rscript":    {flags: []string{"-e"}, readArg: `command = ["Rscript", "-e", "cat(commandArgs(TRUE)[1])", param.x]`},
		"julia":      {flags: []string{"-e", "--eval", "-E", "--print"}, readArg: `command = ["julia", "-e", "println(ARGS[1])", param.x]`},
	}
	for _, n := range []string{"sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "csh", "tcsh", "fish", "busybox"} {
		m[n] = shell
	}
	for _, n := range []string{"python", "python2", "python3", "pypy", "pypy3"} {
		m[n] = python
	}
	for _, n := range []string{"node", "nodejs", "bun"} {
		m[n] = node
	}
	// env -S splits its string into the command and its arguments, with
	// its own quoting, and expands ${NAME} from the environment in it.
	m["env"] = execInterpreter{flags: []string{"-S", "--split-string"}, attached: true,
		danger: "env splits that string into the command and its arguments, so a value with spaces adds options and arguments of its own, and ${NAME} in a value reads the command's environment",
		fix:    `Pass the value as an argument of its own after the string, as in command = ["env", "-S", "ls --", param.x]`}
	// deno's script is the operand after eval: deno eval CODE.
	m["deno"] = execInterpreter{flags: []string{"eval", "-e", "--eval"},
		readArg: `command = ["deno", "eval", "console.log(Deno.args[0])", param.x]`}
	awk := execInterpreter{flags: []string{"-e", "--source"}, programOperand: true, attached: true,
		valueFlags: []string{"-F", "-v", "-f", "-e", "-i", "-l", "--field-separator", "--assign", "--file", "--source", "--include", "--load", "-W"},
		readArg:    `command = ["awk", "-v", "x=${param.x}", "{ print x }", "data.txt"], or env = { X = param.x } with the script reading ENVIRON["X"]`}
	for _, n := range []string{"awk", "gawk", "mawk", "nawk", "original-awk"} {
		m[n] = awk
	}
	// sed's script runs shell commands (the e command, the s///e flag)
	// and writes and reads files (w, r), unless --sandbox forbids them.
	sed := execInterpreter{flags: []string{"-e", "--expression"}, clusterEnd: "e", programOperand: true, attached: true,
		valueFlags: []string{"-e", "-f", "-l", "--expression", "--file", "--line-length"},
		safeFlag:   "--sandbox",
		danger:     "a value such as `x/id/e` ends the s command and runs a shell command (sed's e flag), and the w and r commands write and read any file",
		fix:        `Add --sandbox to the options (GNU sed), which refuses the e, r and w commands, as in command = ["sed", "--sandbox", "s/${param.from}/${param.to}/g", "notes.txt"]`}
	for _, n := range []string{"sed", "gsed"} {
		m[n] = sed
	}
	return m
}()

// execInterpreterFor returns the interpreter a program is, by its name or
// path: python3.12 and perl5.36 are python and perl.
func execInterpreterFor(prog string) (execInterpreter, bool) {
	name := strings.ToLower(strings.TrimSuffix(filepath.Base(strings.ReplaceAll(prog, `\`, "/")), ".exe"))
	if in, ok := execInterpreters[name]; ok {
		return in, true
	}
	if base := strings.TrimRight(name, "0123456789."); base != name && base != "" {
		in, ok := execInterpreters[base]
		return in, ok
	}
	return execInterpreter{}, false
}

// attachedScript reports whether an argument starting with prefix (the
// literal text before its first interpolation) carries the script glued
// to its flag, as in "-cprint(...)" or "--eval=...", and returns the flag.
func (in execInterpreter) attachedScript(prefix string) (string, bool) {
	for _, f := range in.flags {
		if strings.HasPrefix(f, "--") && len(prefix) > len(f) && strings.EqualFold(prefix[:len(f)+1], f+"=") {
			return f + "=", true
		}
	}
	if !in.attached || len(prefix) < 2 || prefix[0] != '-' || prefix[1] == '-' {
		return "", false
	}
	// The flag letters before the script: -c, -Ic, -wle.
	for i, r := range prefix[1:] {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return "", false
		}
		flag := prefix[:i+2]
		if strings.ContainsRune(in.clusterEnd, r) || slices.Contains(in.flags, "-"+string(r)) {
			return flag, true
		}
	}
	return "", false
}

// scriptFlag reports whether arg makes the next argument the script.
func (in execInterpreter) scriptFlag(arg string) bool {
	for _, f := range in.flags {
		if strings.EqualFold(arg, f) {
			return true
		}
	}
	if len(arg) <= 2 || arg[0] != '-' || arg[1] == '-' {
		return false
	}
	for _, r := range arg[1:] {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	if in.shellFlags {
		return strings.ContainsRune(arg, 'c') && strings.ToLower(arg) == arg
	}
	return in.clusterEnd != "" && strings.ContainsRune(in.clusterEnd, rune(arg[len(arg)-1]))
}

// scriptParams refuses a parameter interpolated into the script of a
// shell or another interpreter (["sh", "-c", "echo ${param.x}"]): the
// value would be code, whatever its quoting, and a model could run
// anything. The value must be passed as an argument of its own.
func (c *execCompiler) scriptParams(tuple *hclsyntax.TupleConsExpr, elems []cty.Value) hcl.Diagnostics {
	if tuple == nil || len(elems) != len(tuple.Exprs) {
		return nil
	}
	// The interpreter may be the program, or come after one that runs
	// it: ["env", "sh", "-c", ...], ["nice", ...], ["timeout", "5", ...],
	// ["docker", "exec", "box", "sh", "-c", ...], ["uv", "run", "python", ...].
	for start := range elems {
		if !elems[start].IsKnown() {
			continue
		}
		prog, _ := execArgString(elems[start])
		in, ok := execInterpreterFor(prog)
		if !ok || in.safe(elems[start+1:]) {
			continue
		}
		for i := start + 1; i < len(elems); i++ {
			if !elems[i].IsKnown() {
				// A script glued to its flag: ["python3", "-c${...}"],
				// ["node", "--eval=${...}"].
				if flag, ok := in.attachedScript(execLeadingLiteral(tuple.Exprs[i])); ok {
					if d := c.scriptDiag(tuple.Exprs[i], fmt.Sprintf("The script %s runs with %s, glued to the flag,", prog, flag), in); d != nil {
						return hcl.Diagnostics{d}
					}
				}
				continue
			}
			flag, _ := execArgString(elems[i])
			if i+1 == len(elems) || !in.scriptFlag(flag) {
				continue
			}
			script := i + 1
			if in.shellFlags {
				script = shellScriptIndex(elems, i+1)
			}
			if script < len(elems) {
				if d := c.scriptDiag(tuple.Exprs[script], fmt.Sprintf("The script %s runs with %s", prog, flag), in); d != nil {
					return hcl.Diagnostics{d}
				}
			}
		}
		if in.programOperand {
			if i := awkProgramIndex(elems, start, in); i > 0 {
				if d := c.scriptDiag(tuple.Exprs[i], fmt.Sprintf("The %s program, its first argument after the options,", prog), in); d != nil {
					return hcl.Diagnostics{d}
				}
			}
		}
	}
	return nil
}

// shellScriptIndex returns the index of the script of a shell whose -c
// flag comes before elems[i]: a shell reads options up to its first
// operand, so in ["sh", "-c", "--", "script"] and ["bash", "-c", "-o",
// "pipefail", "script"] the script is the last element.
func shellScriptIndex(elems []cty.Value, i int) int {
	for ; i < len(elems) && elems[i].IsKnown(); i++ {
		a, _ := execArgString(elems[i])
		switch {
		case a == "--" || a == "-":
			return i + 1 // the end of the options
		case len(a) < 2 || (a[0] != '-' && a[0] != '+'):
			return i
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // an option that takes a value
		}
	}
	return i
}

// safe reports whether args, the arguments of the interpreter, hold its
// safeFlag.
func (in execInterpreter) safe(args []cty.Value) bool {
	if in.safeFlag == "" {
		return false
	}
	for _, a := range args {
		if a.IsKnown() {
			if s, _ := execArgString(a); s == in.safeFlag {
				return true
			}
		}
	}
	return false
}

// execLeadingLiteral is the literal text expr's value starts with: the
// first part of a template, or "" when it starts with an interpolation.
func execLeadingLiteral(expr hclsyntax.Expression) string {
	if w, ok := expr.(*hclsyntax.TemplateWrapExpr); ok {
		expr = w.Wrapped
	}
	tmpl, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok || len(tmpl.Parts) == 0 {
		return ""
	}
	s, _ := execLiteralString(tmpl.Parts[0])
	return s
}

// scriptDiag refuses script when it interpolates a parameter or an answer;
// nil when it does not. what names the script for the message.
func (c *execCompiler) scriptDiag(script hclsyntax.Expression, what string, in execInterpreter) *hcl.Diagnostic {
	if isBareParamRef(script) {
		return nil
	}
	value := ""
	if refs := execParamRefs(script, c.paramNames()); len(refs) > 0 {
		value = fmt.Sprintf("parameter %q", refs[0])
	} else if refs := execAnswerRefs(script); len(refs) > 0 {
		value = fmt.Sprintf("the ask form's answer %q", refs[0])
	} else {
		return nil
	}
	danger, fix := "a value such as `x; rm -rf ~` runs the rm, however the script quotes it", "Pass the value as an argument of its own and read it in the script, as in "+in.readArg
	if in.fix != "" {
		danger, fix = in.danger, in.fix
	}
	return &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Parameter inside a script",
		Detail:     fmt.Sprintf("%s puts %s into its text, so a value would run as code: %s. %s.", what, value, danger, fix),
		Subject:    script.Range().Ptr(),
		Expression: script,
	}
}

// awkProgramIndex returns the index of the element that is the program
// text of the awk at elems[start]: its first operand, after the options
// (and their values). 0 when there is none: a -f or -e option gives the
// program, or the options cannot be told apart at load.
func awkProgramIndex(elems []cty.Value, start int, in execInterpreter) int {
	for i := start + 1; i < len(elems); i++ {
		if !elems[i].IsKnown() {
			return i // an operand, or an option whose name the caller chooses
		}
		a, _ := execArgString(elems[i])
		switch {
		case a == "--":
			if i+1 < len(elems) {
				return i + 1
			}
			return 0
		case a == "-f" || a == "--file" || strings.HasPrefix(a, "--file=") || in.scriptFlag(a) || strings.HasPrefix(a, "--source="):
			return 0 // the program is in a file, or given by -e
		case slices.Contains(in.valueFlags, a):
			i++
		case len(a) > 1 && a[0] == '-':
			// An option with its value attached (-F, -vx=1), or without one.
		default:
			return i
		}
	}
	return 0
}

// execAnswerRefs lists the ask form's answers expr refers to (answer.NAME),
// sorted; "answer" alone stands for the whole form.
func execAnswerRefs(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		if tr.RootName() != "answer" {
			continue
		}
		name := "answer"
		if len(tr) > 1 {
			if step, ok := tr[1].(hcl.TraverseAttr); ok {
				name = step.Name
			}
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isBareParamRef reports whether expr is only a reference to a parameter
// (param.script), which is left alone: the author chose to run a script
// the caller writes, and says so plainly.
func isBareParamRef(expr hclsyntax.Expression) bool {
	_, ok := expr.(*hclsyntax.ScopeTraversalExpr)
	return ok
}
