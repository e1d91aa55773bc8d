package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// readsStdin reports whether the interpreter, given args, reads its program
// from standard input: a shell with -s or without a script operand, an
// interpreter without a script file or with one that names standard
// input (python3 -, bash /dev/fd/0, pwsh -Command -, see isStdin),
// awk or sed with -f -, a shell whose fixed script runs one that does
// (sh -c "cat | bash", see shellReadsStdin), a program that reads
// commands from it (stdinCommands), one that joins its operands into a
// shell command and has none (sudo -s). A script file that is not fixed
// text counts, since the caller may name /dev/stdin; so does a list
// known only at call time before it, which may hold one.
func (in interpreter) readsStdin(args []scriptArg) bool {
	next := func(i int) string {
		if i+1 < len(args) {
			s, _ := args[i+1].literal()
			return s
		}
		return ""
	}
	// notFixed reports whether the element after args[i] is not fixed
	// text, so that the caller may make it name standard input.
	notFixed := func(i int) bool { return i+1 < len(args) && !args[i+1].known() }
	stdin := isStdin
	switch {
	case in.stdinCommands:
		return true
	case in.commandAt > 0 || in.commandFlags != nil:
		first := in.commandStart(args)
		if first < 0 {
			return false
		}
		if first == len(args) {
			return true
		}
		s, _ := args[first].literal()
		return slices.Contains(in.commandEnd, s)
	case in.split:
		// env -S: the string's own command.
		for i := range args {
			s, _ := args[i].literal()
			if in.scriptFlag(s) {
				return shellReadsStdin(next(i))
			}
			if flag, ok := in.attachedScript(s); ok {
				return shellReadsStdin(strings.TrimPrefix(s[len(flag):], "="))
			}
		}
		return false
	case in.programOperand:
		// The program is an operand, unless -f names a file.
		for i := range args {
			s, _ := args[i].literal()
			if f, ok := strings.CutPrefix(s, "--file="); ok && stdin(f) {
				return true
			}
			if (s == "-f" || s == "--file") && (stdin(next(i)) || notFixed(i)) || strings.HasPrefix(s, "-f") && len(s) > 2 && stdin(s[2:]) {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(args); i++ {
		if args[i].run {
			return !in.noStdin // it may hold the script file, as /dev/stdin
		}
		s, ok := args[i].literal()
		if !ok {
			return !in.noStdin // the caller names the script file, or an option
		}
		if flag, attached := in.attachedScript(s); attached && s != "-" && len(s) > len(flag) {
			return scriptEvalsStdin(s[len(flag):]) // python3 -cCODE
		}
		fold := func(f string) bool { return strings.EqualFold(f, s) }
		switch {
		case stdin(s):
			return !in.noStdin
		case s == "--":
			return !in.noStdin && (i+1 == len(args) || !args[i+1].known() || stdin(next(i)))
		case in.scriptFlag(s):
			if in.shellFlags {
				// A fixed script that runs a program on standard input.
				script := ""
				if k := shellOperandIndex(args, i+1); k < len(args) {
					script, _ = args[k].literal()
				}
				return shellReadsStdin(script)
			}
			return stdin(next(i)) || scriptEvalsStdin(next(i))
		case in.shellFlags && len(s) > 1 && s[0] == '-' && strings.ContainsRune(s, 's') && strings.TrimLeft(s[1:], "abcdefghijklmnopqrstuvwxyz") == "":
			return true // -s, -es: commands from standard input
		case slices.ContainsFunc(in.progFlags, fold):
			return stdin(next(i)) || notFixed(i)
		case slices.ContainsFunc(in.optArgs, fold):
			i++
		case s != "" && (s[0] == '-' || in.shellFlags && s[0] == '+'):
		case s == in.subcommand:
		default:
			return false // the script file
		}
	}
	return !in.noStdin
}

// stdinScript refuses a parameter or answer interpolated into stdin when
// the program, or one it runs, reads its program from standard input
// (["sh"], ["bash", "-s"], ["python3", "-"]): as in the script of -c, the
// value would run as code. stdin = param.script alone is left alone.
func (c *compiler) stdinScript(x hcl.Expression) *hcl.Diagnostic {
	sx, ok := x.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	// Each list the command may be at a call, against each text stdin
	// may be (a conditional with fixed text in both branches is not
	// made from its condition).
	stdins := []hclsyntax.Expression{sx}
	if vs, over := c.commandVariants(sx); over == nil {
		stdins = vs
	}
	for _, s := range stdins {
		a := scriptArg{expr: s, val: cty.DynamicVal, params: paramRefs(s, c.ParamNames()), answers: answerRefs(s)}
		if v, diags := s.Value(c.markedEval()); !diags.HasErrors() {
			a.val, _ = v.UnmarkDeep()
		}
		if a.known() || len(a.params)+len(a.answers) == 0 {
			continue
		}
		for _, args := range c.variants {
			if d := c.stdinScriptIn(a, args); d != nil {
				return d
			}
		}
	}
	return nil
}

// stdinScriptIn refuses a, stdin made from a parameter or an answer, when
// args, the elements of one list the command may be, run a program that
// reads its program from standard input, or make arguments of its lines
// that go into a script.
func (c *compiler) stdinScriptIn(a scriptArg, args []scriptArg) *hcl.Diagnostic {
	// xargs -I{} sh -c "echo {}": the lines of stdin go into a script,
	// and even a parameter alone is code there.
	feeder, prog, ok := stdinArgsScript(args)
	for i := 0; i < len(args) && !ok; i++ {
		// Inside a fixed script: sh -c "xargs -I{} sh -c 'echo {}'".
		if s, known := args[i].literal(); known && strings.Contains(s, " ") {
			var words []scriptArg
			for _, w := range shellWords(s) {
				words = append(words, scriptArg{val: cty.StringVal(w)})
			}
			feeder, prog, ok = stdinArgsScript(words)
		}
	}
	if ok {
		return c.joinedDiag(a, fmt.Sprintf("The stdin argument is made into arguments by %s, which puts them into the script or the command %s runs; it", feeder, prog), shellDanger,
			"Pass the value as an argument of its own that the script reads, as in command = [\"sh\", \"-c\", \"echo \\\"$1\\\"\", \"sh\", param.x], or have xargs append it after the script, as in command = [\"xargs\", \"sh\", \"-c\", \"echo \\\"$@\\\"\", \"sh\"]")
	}
	if !a.built() {
		return nil
	}
	for start, arg := range args {
		if arg.run {
			// A list known only at call time that names an interpreter
			// may run it with its arguments unseen.
			prog := namedInterpreter(arg.expr)
			if p := c.runProgram(arg.expr); prog == "" && p != "" {
				if _, ok := interpreterFor(p); ok {
					prog = p
				}
			}
			if prog != "" {
				in, _ := interpreterFor(prog)
				return c.scriptDiag(a, fmt.Sprintf("The stdin argument may be the program %s reads from its standard input, which a list known only when the tool is called names, and it", prog), in)
			}
		}
		prog, ok := arg.literal()
		if !ok {
			continue
		}
		in, ok := stdinProgramFor(prog)
		if ok && !in.safe(args[start+1:]) && in.readsStdin(args[start+1:]) {
			return c.scriptDiag(a, fmt.Sprintf("The stdin argument is the program %s reads from its standard input, and it", prog), in)
		}
	}
	return nil
}

// shellOperandIndex returns the index of the first operand of a shell at
// or after args[i], its script after -c: the end of the options ("--",
// "-"), or the first argument that is not an option, the values of the
// options that take one (-o, +o, -O, +O, and a cluster's letters o and O
// in turn) skipped. len(args) when there is none or it is not known.
func shellOperandIndex(args []scriptArg, i int) int {
	for ; i < len(args); i++ {
		a, ok := args[i].literal()
		switch {
		case !ok:
			return len(args)
		case a == "--" || a == "-":
			return i + 1
		case len(a) < 2 || (a[0] != '-' && a[0] != '+'):
			return i
		default:
			i += strings.Count(a[1:], "o") + strings.Count(a[1:], "O")
		}
	}
	return i
}
