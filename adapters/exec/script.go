package exec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/zclconf/go-cty/cty"
)

// interpreter describes a program that runs a script given on its
// command line: the flags after which the next argument is the script, and
// how a script reads its first extra argument instead.
type interpreter struct {
	flags      []string // exact, compared case-insensitively
	shellFlags bool     // also single-dash flag clusters containing c, such as -ec
	// clusterEnd are the letters that make a single-dash cluster of
	// letters ending in one of them a script flag, such as perl's -ne and
	// python's -Ic.
	clusterEnd string
	// permute is set for programs that read options after their operands
	// too, as GNU getopt does (flock LOCKFILE -c CMD, vim FILE -c CMD):
	// their script flags are looked for up to "--".
	permute bool
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
	// optArgs are the options whose value is the next argument, and
	// progFlags those that name the program another way (python's -m
	// module, pwsh's -File), for telling whether the interpreter reads
	// its program from standard input; subcommand is a first operand
	// that is not the program (deno run).
	optArgs, progFlags []string
	subcommand         string
	// commandAt is set for a program that joins its operands into a
	// shell command (watch, tmux, parallel): the operand, counted from 1
	// after the options, from which they do; commandFlags, for one that
	// does so only after one of them (sudo -s, cmd /c); commandEnd, the
	// elements that end the command (parallel's :::); directFlags, the
	// options that make it run its operands as a program instead (watch
	// -x). See commandParams.
	commandAt                             int
	commandFlags, commandEnd, directFlags []string
	// joinsRest is set for a program whose script flag joins every
	// argument after it into the script, PowerShell's -Command (see
	// joinedScript). cmd's /c and /k, which do the same, are its
	// commandFlags: commandParams checks them first.
	joinsRest bool
	// codePrefixes are the starts that make an argument code: vim's +CMD,
	// ed's !CMD, deno's data: URL, cmd's /cCMD.
	codePrefixes []string
	// stdinCommands is set for a program that reads commands from
	// standard input whatever its arguments (ed, gdb, sqlite3, su);
	// noStdin for one that reads its program from it only where one of
	// progFlags names it (make -f -, flock).
	stdinCommands, noStdin bool
	// split is set for env, whose -S string is split into a command.
	split bool
	// dashes is set for PowerShell, which trims the white space around
	// an argument and reads en and em dashes as "-" (see switchText).
	dashes bool
	// operandCommand is set for Windows PowerShell (powershell.exe),
	// which reads its first operand and the arguments after it as
	// -Command text when no -File comes first.
	operandCommand bool
	// joins says what a program that joins its operands (commandAt,
	// commandFlags) makes of them, for the message: "a shell command"
	// when empty.
	joins string
}

// interpreters are the programs whose script argument must not
// interpolate a parameter, by base name without ".exe". The table is
// built at the first compile of an exec block, not at every start.
var interpreters = sync.OnceValue(func() map[string]interpreter {
	pwshOpts := pwshOptArgs()
	shell := interpreter{flags: []string{"-c"}, shellFlags: true,
		optArgs: []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"},
		readArg: `command = ["sh", "-c", "echo \"$1\"", "sh", param.x]`}
	python := interpreter{flags: []string{"-c"}, clusterEnd: "c", attached: true,
		optArgs: []string{"-W", "-X", "-Q"}, progFlags: []string{"-m"},
		readArg: `command = ["python3", "-c", "import sys; print(sys.argv[1])", param.x]`}
	node := interpreter{flags: []string{"-e", "--eval", "-p", "--print"}, clusterEnd: "ep",
		optArgs: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"},
		readArg: `command = ["node", "-e", "console.log(process.argv[1])", param.x]`}
	m := map[string]interpreter{
		"perl":       {flags: []string{"-e", "-E"}, clusterEnd: "eE", attached: true, optArgs: []string{"-I"}, readArg: `command = ["perl", "-e", "print $ARGV[0]", param.x]`},
		"ruby":       {flags: []string{"-e"}, clusterEnd: "e", attached: true, optArgs: []string{"-I", "-r", "-C", "-E"}, readArg: `command = ["ruby", "-e", "puts ARGV[0]", param.x]`},
		"php":        {flags: []string{"-r"}, attached: true, optArgs: []string{"-c", "-d", "-z"}, progFlags: []string{"-f"}, readArg: `command = ["php", "-r", "echo $argv[1];", param.x]`},
		"pwsh":       {flags: []string{"-c", "-command"}, optArgs: pwshOpts, progFlags: []string{"-f", "-file"}, readArg: pwshReadArg("pwsh")},
		"powershell": {flags: []string{"-c", "-command"}, optArgs: pwshOpts, progFlags: []string{"-f", "-file"}, readArg: pwshReadArg("powershell")},
		"cmd": {flags: []string{"/c", "/k"},
			danger: "cmd.exe reads the command with rules of its own that no quoting survives, so a value such as `x\" & calc` runs the calc, and %NAME% in it reads a variable",
			fix: `Run the program directly instead of through cmd, as in command = ["where.exe", param.x], or write the script in PowerShell and pass the value after -File, as in ` +
				`command = ["powershell", "-NoProfile", "-File", "script.ps1", "-Name", param.x] with param($Name) in script.ps1`},
		"osascript": {flags: []string{"-e"}, optArgs: []string{"-l", "-s"}, readArg: `command = ["osascript", "-e", "on run argv", "-e", "return item 1 of argv", "-e", "end run", param.x]`},
		"lua":       {flags: []string{"-e"}, attached: true, optArgs: []string{"-l"}, readArg: `command = ["lua", "-e", "print(arg[1])", "--", param.x]`},
		"luajit":    {flags: []string{"-e"}, attached: true, optArgs: []string{"-l"}, readArg: `command = ["luajit", "-e", "print(arg[1])", "--", param.x]`},
		"rscript":   {flags: []string{"-e"}, readArg: `command = ["Rscript", "-e", "cat(commandArgs(TRUE)[1])", param.x]`},
		"julia":     {flags: []string{"-e", "--eval", "-E", "--print"}, optArgs: []string{"-L", "--load", "-p", "--procs", "-t", "--threads", "-J", "--sysimage"}, readArg: `command = ["julia", "-e", "println(ARGS[1])", param.x]`},
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
	m["env"] = interpreter{flags: []string{"-S", "--split-string"}, attached: true, optArgs: []string{"-u", "--unset", "-C", "--chdir", "-P", "-a", "--argv0"},
		danger: "env splits that string into the command and its arguments, so a value with spaces adds options and arguments of its own, and ${NAME} in a value reads the command's environment",
		fix:    `Pass the value as an argument of its own after the string, as in command = ["env", "-S", "ls --", param.x]`, split: true}
	// deno's script is the operand after eval: deno eval CODE.
	m["deno"] = interpreter{flags: []string{"eval", "-e", "--eval"}, subcommand: "run",
		readArg: `command = ["deno", "eval", "console.log(Deno.args[0])", param.x]`}
	awk := interpreter{flags: []string{"-e", "--source"}, programOperand: true, attached: true,
		valueFlags: []string{"-F", "-v", "-f", "-e", "-i", "-l", "--field-separator", "--assign", "--file", "--source", "--include", "--load", "-W"},
		readArg:    `command = ["awk", "-v", "x=${param.x}", "{ print x }", "data.txt"], or env = { X = param.x } with the script reading ENVIRON["X"]`}
	for _, n := range []string{"awk", "gawk", "mawk", "nawk", "original-awk"} {
		m[n] = awk
	}
	// sed's script runs shell commands (the e command, the s///e flag)
	// and writes and reads files (w, r), unless --sandbox forbids them.
	sed := interpreter{flags: []string{"-e", "--expression"}, clusterEnd: "e", programOperand: true, attached: true,
		valueFlags: []string{"-e", "-f", "-l", "--expression", "--file", "--line-length"},
		safeFlag:   "--sandbox",
		danger:     "a value such as `x/id/e` ends the s command and runs a shell command (sed's e flag), and the w and r commands write and read any file",
		fix:        `Add --sandbox to the options (GNU sed), which refuses the e, r and w commands, as in command = ["sed", "--sandbox", "s/${param.from}/${param.to}/g", "notes.txt"]`}
	for _, n := range []string{"sed", "gsed"} {
		m[n] = sed
	}
	addCommandRunners(m)
	return m
})

// pwshReadArg says how the PowerShell program prog reads a value safely:
// after -File, an argument is a value of the script's parameter, not
// code; an environment variable is never code either.
func pwshReadArg(prog string) string {
	return fmt.Sprintf(`command = ["%s", "-NoProfile", "-File", "script.ps1", "-Name", param.x] with param($Name) in script.ps1 (after -File, a value is an argument, not code), `+
		`or in an environment variable, as in env = { NAME = param.x } with $env:NAME in the script`, prog)
}

// pwshOptArgs returns the switches of PowerShell whose value is the next
// argument, in every spelling it takes (see pwshSwitches), for
// interpreters.
func pwshOptArgs() []string {
	return pwshSwitches("executionpolicy", "ex", "ep", "ep", "workingdirectory", "wo", "wd", "wd", "configurationname", "config",
		"settingsfile", "settings", "inputformat", "inp", "if", "if", "outputformat", "o", "of", "o", "windowstyle", "w",
		"custompipename", "cus", "encodedarguments", "encodeda", "ea", "ea")
}

// interpreterFor returns the interpreter a program is, by its name or
// path: python3.12 and perl5.36 are python and perl.
func interpreterFor(prog string) (interpreter, bool) {
	return programIn(interpreters(), prog)
}

// programName is the name a program is known by in the tables of the
// script and load checks: its base name, in lower case, without ".exe".
func programName(prog string) string {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(strings.ReplaceAll(prog, `\`, "/"))), ".exe")
}

// programIn looks prog up in table by its name (programName),
// then by that name without its version and build suffixes, one at a
// time: python3.12 is python3, then python; python3.12d, python3m,
// python3-dbg, pypy3.10, node-18, bash-5.2 and zsh-5.9 are python, pypy,
// node, bash and zsh. Only digits, dots, dashes and underscores go, and
// after a digit the build letters (d, m, t, u) or -dbg, so that a name is
// never cut into another word: shred is not sh, nodemon is not node.
func programIn[T any](table map[string]T, prog string) (T, bool) {
	name := programName(prog)
	for {
		if v, ok := table[name]; ok {
			return v, true
		}
		base := name
		for _, suffix := range []string{"-dbg", "_dbg", "-debug"} {
			base = strings.TrimSuffix(base, suffix)
		}
		if b := strings.TrimRight(base, "dmtu"); b != base && b != "" && b[len(b)-1] >= '0' && b[len(b)-1] <= '9' {
			base = b
		}
		base = strings.TrimRight(base, "0123456789.-_")
		if base == name || base == "" {
			var zero T
			return zero, false
		}
		name = base
	}
}

// attachedScript reports whether an argument starting with prefix (the
// literal text before its first interpolation) carries the script glued
// to its flag, as in "-cprint(...)" or "--eval=...", and returns the flag.
func (in interpreter) attachedScript(prefix string) (string, bool) {
	if name, _, ok := strings.Cut(prefix, "="); ok {
		for _, f := range in.flags {
			if longPrefix(name, f) {
				return name + "=", true
			}
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

// scriptFlag reports whether arg makes the next argument the script: one
// of the flags, a start of a long one (GNU getopt reads --expr as
// --expression), a cluster ending in a letter of clusterEnd or, for a
// program that takes its script glued to its flag, in a flag's letter
// (env -iS). For a shell, it reports whether arg is a cluster holding c,
// with "-" or "+" ("-c", "-ec", "-Ec", "+c"): the shell's first operand
// is then the script (see shellScripts).
func (in interpreter) scriptFlag(arg string) bool {
	arg = in.switchText(arg)
	for _, f := range in.flags {
		if strings.EqualFold(arg, f) || longPrefix(arg, f) {
			return true
		}
		// PowerShell takes a start of an option's name: -Co, -Comm.
		if in.wordOptions() && len(f) > 2 && len(arg) > 2 && len(arg) < len(f) && arg[1] != '-' && strings.EqualFold(f[:len(arg)], arg) {
			return true
		}
	}
	letters, ok := optSyntax{in: in}.cluster(arg)
	switch {
	case !ok:
		return false
	case in.shellFlags:
		return strings.ContainsRune(letters, 'c')
	}
	// A letter before the last whose option takes a value takes the rest
	// of the cluster: awk -Fe is -F with "e".
	for i := range len(letters) - 1 {
		l := "-" + letters[i:i+1]
		if slices.Contains(in.optArgs, l) || slices.Contains(in.valueFlags, l) || in.attached && slices.Contains(in.flags, l) {
			return false
		}
	}
	last := letters[len(letters)-1:]
	return len(letters) > 1 && (strings.Contains(in.clusterEnd, last) || in.attached && slices.Contains(in.flags, "-"+last))
}

// scriptParams refuses a parameter interpolated into the script of a
// shell or another interpreter (["sh", "-c", "echo ${param.x}"]): the
// value would be code, whatever its quoting, and a model could run
// anything. The value must be passed as an argument of its own. args are
// the command's elements as evaluated at load (see scriptArgs), so the
// check holds however the list is built.
func (c *compiler) scriptParams(args []scriptArg) hcl.Diagnostics {
	// The interpreter may be the program, or come after one that runs
	// it: ["env", "sh", "-c", ...], ["nice", ...], ["timeout", "5", ...],
	// ["docker", "exec", "box", "sh", "-c", ...], ["uv", "run", "python", ...].
	// zero are the elements that are $0 of a shell's script, as "sh" in
	// ["sh", "-c", "echo \"$1\"", "sh", ...]: a name, not a program run.
	zero := map[int]bool{}
	// A list known only at call time may hold an interpreter and its
	// script: concat(["env"], compact(["sh", "-c", "echo ${param.x}"])).
	for _, a := range args {
		if !a.run || !a.built() {
			continue
		}
		if prog := namedInterpreter(a.expr); prog != "" {
			in, _ := interpreterFor(prog)
			return hcl.Diagnostics{c.scriptDiag(a, fmt.Sprintf("The list known only when the tool is called may run %s, which it names, with a script; it", prog), in)}
		}
	}
	for start := range args {
		prog, ok := args[start].literal()
		if !ok {
			continue
		}
		in, ok := interpreterFor(prog)
		if !ok || in.safe(args[start+1:]) {
			continue
		}
		if d := c.commandParams(args, start, prog, in); d != nil {
			return hcl.Diagnostics{d}
		}
		if len(in.flags) == 0 {
			continue // its code is in its operands, checked just above
		}
		if d := c.optionScripts(args, start, prog, in, zero); d != nil {
			return hcl.Diagnostics{d}
		}
		if in.programOperand {
			if i := awkProgramIndex(args, start, syntaxFor(prog, in)); i > 0 {
				if d := c.scriptAt(args, i, fmt.Sprintf("The %s program, its first argument after the options,", prog), in); d != nil {
					return hcl.Diagnostics{d}
				}
			}
		}
		if zero[start] {
			continue
		}
		if d := c.flagParams(args, start, prog, in); d != nil {
			return hcl.Diagnostics{d}
		}
	}
	return nil
}

// flagParams refuses a script that a flag made from a parameter may
// bring in: in ["sh", "-${param.f}", "echo ${param.x}"] the caller can
// make the flag -c, and in concat(["sh"], param.opts, ["echo ${param.x}"])
// the list can hold it. Up to the interpreter's first operand (its
// script, or its script file), an element that may be a script flag makes
// each later element made from a parameter a script, and a list known
// only at call time that is made from one may hold a flag and its script.
func (c *compiler) flagParams(args []scriptArg, start int, prog string, in interpreter) *hcl.Diagnostic {
	flag := in.flags[0]
	if in.shellFlags {
		flag += " or +c"
	}
	what := fmt.Sprintf("This argument of %s may be its script, should the flag before it, which the caller chooses, be %s; it", prog, flag)
	o := syntaxFor(prog, in)
	maybeFlag := false
	for i := start + 1; i < len(args); i++ {
		a := args[i]
		if s, ok := a.literal(); ok {
			s = in.switchText(s)
			switch {
			case s == "--":
				if maybeFlag && i+1 < len(args) {
					return c.scriptDiag(args[i+1], what, in)
				}
				return nil
			case slices.ContainsFunc(in.progFlags, func(f string) bool { return strings.EqualFold(f, s) }):
				return nil // the script file follows, and its arguments
			case o.option(s):
				i += o.skip(args, i, s)
			default:
				return nil // the first operand, after which no flag counts
			}
			continue
		}
		if a.run {
			if d := c.scriptDiag(a, fmt.Sprintf("The list after %s, known only when the tool is called, may hold a script flag and its script; it", prog), in); d != nil {
				return d
			}
			maybeFlag = maybeFlag || a.expr == nil || c.runMayHoldFlag(in, a.expr)
			continue
		}
		if maybeFlag {
			if d := c.scriptDiag(a, what, in); d != nil {
				return d
			}
		}
		if !c.mayBeScriptFlag(in, a) {
			return nil // an operand the caller chooses
		}
		maybeFlag = true
	}
	return nil
}

// mayBeScriptFlag reports whether a, an element not known at load, may be
// a flag of in that makes the next argument the script: its known start
// may go on into one ("-", "-e", "--ev"), or the caller chooses its start
// and may start it with "-" (a parameter with allow_flags, an answer).
func (c *compiler) mayBeScriptFlag(in interpreter, a scriptArg) bool {
	start := ""
	switch {
	case a.expr != nil:
		start = leadingLiteral(a.expr)
	case a.val.Type() == cty.String:
		start = a.val.Range().StringPrefix()
	}
	start = in.switchText(start)
	if start == "" {
		if in.shellFlags || in.dashes {
			// "+c" for a shell, "/c" or "–c" for PowerShell, which the
			// call lets through.
			return true
		}
		for _, p := range a.params {
			if c.CC.Params[p].AllowFlags {
				return true
			}
		}
		return len(a.answers) > 0
	}
	for _, f := range in.flags {
		if len(start) <= len(f) && strings.EqualFold(f[:len(start)], start) {
			return true
		}
	}
	if !in.shellFlags && in.clusterEnd == "" && !in.attached {
		return false
	}
	if len(start) == 1 {
		return start[0] == '-' || in.shellFlags && start[0] == '+'
	}
	_, cluster := optSyntax{in: in}.cluster(start)
	return cluster
}

// namedInterpreter returns an interpreter that a word of a string
// written in x names, such as "sh" in compact(["sh", "-c", ...]) or in
// split(" ", "sh -c ..."); "" when there is none. A nil x may name any.
func namedInterpreter(x hclsyntax.Expression) string {
	if x == nil {
		return "sh"
	}
	found := ""
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		lit, ok := n.(*hclsyntax.LiteralValueExpr)
		if !ok || found != "" || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() {
			return nil
		}
		words := strings.FieldsFunc(lit.Val.AsString(), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r))
		})
		for _, w := range words {
			if _, ok := interpreterFor(w); ok {
				found = w
				break
			}
		}
		return nil
	})
	return found
}

// runMayHoldFlag reports whether x, a list known only at call time, may
// hold a script flag of in: a literal one in a branch of a conditional, an
// element that may be one (see mayBeScriptFlag), the items of a list
// parameter with allow_flags; any list made otherwise.
func (c *compiler) runMayHoldFlag(in interpreter, x hclsyntax.Expression) bool {
	switch x := x.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		// An item may be "+c" for a shell, which the call lets through.
		name, ok := adapters.ParamName(x.Traversal)
		return !ok || name == "" || c.CC.Params[name].AllowFlags || in.shellFlags
	case *hclsyntax.ParenthesesExpr:
		return c.runMayHoldFlag(in, x.Expression)
	case *hclsyntax.ConditionalExpr:
		return c.runMayHoldFlag(in, x.TrueResult) || c.runMayHoldFlag(in, x.FalseResult)
	case *hclsyntax.TupleConsExpr:
		for _, el := range x.Exprs {
			if v, diags := el.Value(c.Eval); !diags.HasErrors() && v.IsWhollyKnown() {
				if s, problem := argString(v); problem == "" && !in.scriptFlag(s) {
					continue
				}
				return true
			}
			a := scriptArg{expr: el, val: cty.DynamicVal, params: paramRefs(el, c.ParamNames()), answers: answerRefs(el)}
			if c.mayBeScriptFlag(in, a) {
				return true
			}
		}
		return false
	case *hclsyntax.FunctionCallExpr:
		if x.Name == "concat" && !x.ExpandFinal {
			return slices.ContainsFunc(x.Args, func(arg hclsyntax.Expression) bool { return c.runMayHoldFlag(in, arg) })
		}
	}
	return true
}

// scriptAt refuses args[i], the script, when it is built from a parameter.
// When it is a list known only at call time, which may be empty, each
// later element may be the script too.
func (c *compiler) scriptAt(args []scriptArg, i int, what string, in interpreter) *hcl.Diagnostic {
	for ; i < len(args); i++ {
		if d := c.scriptDiag(args[i], what, in); d != nil || !args[i].run {
			return d
		}
	}
	return nil
}

// safe reports whether args, the arguments of the interpreter, hold its
// safeFlag among its options: before its first operand and a "--", and
// not as the value of an option (sed -e --sandbox makes it the script).
// GNU sed also reads options after its operands, but not with
// POSIXLY_CORRECT set, which the environment may do. A list known only at
// a call, or an element the caller chooses, may end the options or take
// the flag for its value, and ends the search.
func (in interpreter) safe(args []scriptArg) bool {
	if in.safeFlag == "" {
		return false
	}
	o := syntaxFor("", in)
	for i := 0; i < len(args); i++ {
		s, ok := args[i].literal()
		switch {
		case !ok || s == "--" || !o.option(s):
			return false
		case s == in.safeFlag:
			return true
		case in.scriptFlag(s):
			i++
		default:
			i += o.skip(args, i, s)
		}
	}
	return false
}

// leadingLiteral is the literal text expr's value starts with: the
// first part of a template, or "" when it starts with an interpolation.
func leadingLiteral(expr hclsyntax.Expression) string {
	if w, ok := expr.(*hclsyntax.TemplateWrapExpr); ok {
		expr = w.Wrapped
	}
	tmpl, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok || len(tmpl.Parts) == 0 {
		return ""
	}
	s, _ := literalString(tmpl.Parts[0])
	return s
}

// attachedScript reports whether a, an element not known at load, may be
// a script glued to a flag of in, and returns the flag. Where the element
// is written is known, its literal start says; otherwise the start its
// value is known to have, which HCL may cut short by a character or more,
// so that any start that may go on into such a flag counts.
func (c *compiler) attachedScript(in interpreter, a scriptArg) (string, bool) {
	if a.run {
		return "", false // its elements' starts are checked at call time
	}
	if a.expr != nil {
		return in.attachedScript(leadingLiteral(a.expr))
	}
	if !a.built() {
		return "", false
	}
	prefix := ""
	if a.val.Type() == cty.String {
		prefix = a.val.Range().StringPrefix()
	}
	if flag, ok := in.attachedScript(prefix); ok {
		return flag, true
	}
	if len(prefix) == 0 || prefix[0] != '-' {
		return "", false
	}
	for _, f := range in.flags {
		if strings.HasPrefix(f, "--") && len(prefix) <= len(f)+1 && strings.HasPrefix(strings.ToLower(f+"="), strings.ToLower(prefix)) {
			return f + "=", true
		}
	}
	if in.attached && strings.TrimLeft(strings.ToLower(prefix[1:]), "abcdefghijklmnopqrstuvwxyz") == "" {
		return in.flags[0], true
	}
	return "", false
}

// scriptDiag refuses a, a script, when it is built from a parameter or an
// answer; nil when it is not. what names the script for the message.
func (c *compiler) scriptDiag(a scriptArg, what string, in interpreter) *hcl.Diagnostic {
	if !a.built() {
		return nil
	}
	// Where the element is not written out, the parameter named is one
	// that text is made from, rather than one that only chooses or moves
	// values (the n of slice(..., 0, param.n)).
	var from hcl.Expression = c.cmdExpr
	switch {
	case len(a.builtExprs) > 0:
		from = a.builtExprs[0]
	case a.expr != nil:
		from = a.expr
	}
	root, name := "param", ""
	for _, p := range a.params {
		if _, built := builtRefRange(from, "param", p); built || name == "" {
			name = p
			if built {
				break
			}
		}
	}
	value := fmt.Sprintf("parameter %q", name)
	if name == "" {
		root, name = "answer", a.answers[0]
		value = answerWhat(name)
	}
	danger, fix := "a value such as `x; rm -rf ~` runs the rm, however the script quotes it", "Pass the value as an argument of its own and read it in the script, as in "+in.readArg
	if in.fix != "" {
		danger, fix = in.danger, in.fix
	}
	puts := "puts"
	if a.expr == nil || a.run {
		// Where the element is not written out, a parameter alone cannot
		// be told from one in a text: both are refused.
		puts = "may put"
		fix += `. A parameter that is the whole script is accepted only as an element of a list written out, as in concat(["sh", "-c"], [param.x])`
	}
	return c.insideScript(a, from, root, name, fmt.Sprintf("%s %s %s into its text, so a value would run as code: %s. %s.", what, puts, value, danger, fix))
}

// insideScript is the error of a, an element that puts the parameter or
// answer name (root says which) into code, with detail: at a where it is
// written out, otherwise at the reference in from, the expression it is
// built from.
func (c *compiler) insideScript(a scriptArg, from hcl.Expression, root, name, detail string) *hcl.Diagnostic {
	d := &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Parameter inside a script",
		Detail:     detail,
		Subject:    c.cmdExpr.Range().Ptr(),
		Expression: c.cmdExpr,
	}
	if a.expr != nil && !a.run {
		d.Subject, d.Expression = a.expr.Range().Ptr(), a.expr
	} else {
		rng, _ := builtRefRange(from, root, name)
		d.Subject = rng.Ptr()
	}
	return d
}

// awkProgramIndex returns the index of the element that is the program
// text of the awk (or sed) at args[start]: its first operand, after the
// options and their values, glued (-vx=1, -F:) or not. 0 when there is
// none: a -f or -e option gives the program, or the options cannot be
// told apart at load.
func awkProgramIndex(args []scriptArg, start int, o optSyntax) int {
	in := o.in
	for i := start + 1; i < len(args); i++ {
		a, ok := args[i].literal()
		if !ok {
			// An option with its value glued, made from a parameter
			// (-vx=${...}), is read by its fixed start; any other element
			// may be the program.
			a = args[i].leadingText()
			if len(a) < 2 || a[0] != '-' || a == "--" {
				return i
			}
		}
		name, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return 0
		case in.scriptFlag(a), in.scriptFlag(name), strings.HasPrefix(a, "-f"), longPrefix(name, "--file"):
			return 0 // the program is in a file, or given by -e
		case ok && o.option(a):
			if _, sure := o.takes(a); sure {
				i += o.skip(args, i, a)
			}
		case !ok:
			// An option whose value is glued to it.
		default:
			return i
		}
	}
	return 0
}

// answerRefs lists the ask form's answers expr refers to (answer.NAME),
// sorted; "answer" alone stands for the whole form. The claims it reads
// are listed among them (see claimRef).
func answerRefs(expr hcl.Expression) []string {
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
	out = append(out, claimRefs(expr)...)
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
