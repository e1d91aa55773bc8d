package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// shellValueLetters are the letters of shells' single-letter options
// whose value is the next argument: -o and bash's -O (set -o, shopt),
// ksh93's -R and mksh's -T. In a cluster each takes the next argument in
// turn, so that in bash -co pipefail CMD the script is CMD.
const shellValueLetters = "oORT"

// shellValueOpts are the long options of shells whose value is the
// next argument: bash's --rcfile and --init-file, zsh's --emulate, and
// fish's.
var shellValueOpts = []string{"--rcfile", "--init-file", "--emulate",
	"--debug", "--debug-output", "--features", "--profile", "--profile-startup", "--debug-stack-frames"}

// getoptShells are the shells whose options are read as getopt reads
// them, by base name: fish's -c and -C take their command as their value,
// the rest of their cluster or the next argument.
var getoptShells = map[string]bool{"fish": true}

// fishValueLetters are the letters of fish's options that take a
// value, and fishScriptLetters those whose value is a command it
// runs (-c, and -C, the init command).
const (
	fishValueLetters  = "cCdfpDo"
	fishScriptLetters = "cC"
)

// fishScriptOpts are fish's long options whose value is a command it
// runs.
var fishScriptOpts = []string{"--command", "--init-command"}

// optSyntax is how the options of an interpreter are read, to find
// its script flags and its first operand, after which the arguments are
// its script's.
type optSyntax struct {
	in interpreter
	// values are the options whose value is the next argument: the
	// interpreter's, and those the load check's table lists for the same
	// program.
	values []string
	// getopt is set for shells whose -c takes its command as a value (see
	// getoptShells).
	getopt bool
	// slash is set for programs whose options start with "/" (cmd /c).
	slash bool
}

// syntaxFor returns how the options of prog, the interpreter in, are
// read; prog may be "" where only in's table entry counts.
func syntaxFor(prog string, in interpreter) optSyntax {
	o := optSyntax{in: in, values: slices.Concat(in.optArgs, in.valueFlags)}
	if l, ok := loaderFor(prog); ok && prog != "" {
		o.values = append(o.values, l.values...)
		for _, f := range l.flags {
			if f.next {
				o.values = append(o.values, f.name)
			}
		}
	}
	if in.shellFlags {
		o.values = append(o.values, shellValueOpts...)
		_, o.getopt = programIn(getoptShells, prog)
		if o.getopt {
			o.values = append(o.values, fishScriptOpts...)
		}
	}
	o.slash = slices.ContainsFunc(in.flags, func(f string) bool { return strings.HasPrefix(f, "/") })
	return o
}

// option reports whether s, an argument written in the configuration, is
// an option rather than an operand.
func (o optSyntax) option(s string) bool {
	return len(s) > 1 && (s[0] == '-' || o.in.shellFlags && s[0] == '+' || o.slash && s[0] == '/')
}

// interleaved reports whether the program reads options after its
// operands: GNU sed and the programs marked permute do, and awk's and
// cmd's are read so too, which only checks more.
func (o optSyntax) interleaved() bool {
	return o.in.programOperand || o.slash || o.in.permute
}

// wordOptions reports whether the program's single-dash options are
// words, as PowerShell's -Command and -NoProfile are.
func (in interpreter) wordOptions() bool {
	return slices.ContainsFunc(in.flags, func(f string) bool { return len(f) > 2 && f[0] == '-' && f[1] != '-' })
}

// cluster returns the letters of s when it is a cluster of single-letter
// options: "-" and letters, or for a shell "-" or "+" and letters or
// digits (zsh's -0 to -9).
func (o optSyntax) cluster(s string) (string, bool) {
	if len(s) < 2 || s[0] != '-' && !(o.in.shellFlags && s[0] == '+') || s[0] == '-' && s[1] == '-' {
		return "", false
	}
	for _, r := range s[1:] {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && !(o.in.shellFlags && r >= '0' && r <= '9') {
			return "", false
		}
	}
	return s[1:], true
}

// longPrefix reports whether s, a long option without its "=" value,
// names the long option f: GNU getopt takes any start of a long option
// that is not ambiguous (sed's --expr, env's --split). An ambiguous start
// is an error, so that taking it for each option it starts only checks
// more.
func longPrefix(s, f string) bool {
	return strings.HasPrefix(s, "--") && strings.HasPrefix(f, "--") && len(s) > 2 && len(s) <= len(f) && strings.EqualFold(f[:len(s)], s)
}

// takes returns how many of the arguments after s, an option, are its
// values: one for an option listed in values or a start of one, and for a
// shell's cluster one for each letter that takes a value. sure is false
// for a long option the tables do not list, which may take the next
// argument.
func (o optSyntax) takes(s string) (n int, sure bool) {
	if slices.ContainsFunc(o.values, func(f string) bool { return strings.EqualFold(f, s) }) {
		return 1, true
	}
	if o.in.dashes {
		// The table lists every switch of PowerShell that takes a value,
		// in every spelling it takes (see pwshSwitches).
		return 0, true
	}
	if strings.HasPrefix(s, "--") {
		if len(s) == 2 || strings.Contains(s, "=") {
			return 0, true
		}
		if slices.ContainsFunc(o.values, func(f string) bool { return longPrefix(s, f) }) {
			return 1, true
		}
		return 1, false
	}
	if o.in.wordOptions() && len(s) > 2 && s[0] == '-' {
		// PowerShell takes a start of an option's name (-ex for
		// -ExecutionPolicy), and one the tables do not list may take a
		// value.
		if slices.ContainsFunc(o.values, func(f string) bool { return len(f) > len(s) && strings.EqualFold(f[:len(s)], s) }) {
			return 1, true
		}
		return 1, false
	}
	letters, ok := o.cluster(s)
	switch {
	case !ok:
	case o.getopt:
		// The first letter that takes a value takes the rest of the
		// cluster, or the next argument when it ends it.
		if i := strings.IndexAny(letters, fishValueLetters); i == len(letters)-1 {
			return 1, true
		}
	case o.in.shellFlags:
		for _, r := range letters {
			if strings.ContainsRune(shellValueLetters, r) {
				n++
			}
		}
		return n, true
	default:
		// The first letter whose option takes a value takes the rest of
		// the cluster (awk -Fe), or the next argument when it ends it
		// (python -uW ignore).
		for i := range letters {
			if slices.Contains(o.values, "-"+letters[i:i+1]) {
				if i == len(letters)-1 {
					return 1, true
				}
				return 0, true
			}
		}
	}
	return 0, true
}

// skip returns how many arguments after args[i], the option s, are its
// values: those takes counts, up to a list known only at a call, and for
// an option that may take one, the next argument unless it is an option,
// a script flag or the subcommand (it is then read as one).
func (o optSyntax) skip(args []scriptArg, i int, s string) int {
	n, sure := o.takes(s)
	// A list known only at a call may be empty or hold more than one
	// value: it is read for what it may hold rather than taken.
	for j := 1; j <= n; j++ {
		if i+j < len(args) && args[i+j].run {
			return j - 1
		}
	}
	if sure || i+1 >= len(args) {
		return n
	}
	next, ok := args[i+1].literal()
	if !ok {
		next = args[i+1].leadingText()
	}
	if strings.HasPrefix(next, "-") || o.in.scriptFlag(next) || next == o.in.subcommand {
		return 0
	}
	return n
}

// mayBeOption reports whether a, an element not known at load, may be an
// option of in rather than its first operand: its fixed start is one
// ("-W", for a shell "+"), or the caller chooses its start and may start
// it with "-" (a parameter with allow_flags, an answer) or, for a shell,
// with "+", which the call lets through and which bash and dash read as
// options (+c is -c).
func (c *compiler) mayBeOption(in interpreter, a scriptArg) bool {
	if a.run {
		return true
	}
	if lead := a.leadingText(); lead != "" {
		return lead[0] == '-' || in.shellFlags && lead[0] == '+'
	}
	if in.shellFlags {
		return true
	}
	for _, p := range a.params {
		if c.CC.Params[p].AllowFlags {
			return true
		}
	}
	return len(a.answers) > 0
}

// optionScripts refuses a parameter in a script that a flag of the
// interpreter at args[start] gives it. Its options are read up to its
// first operand, its script file, after which the arguments are the
// script's own (["python3", "script.py", "-c", ...]), or a "--"; those of
// sed, which GNU sed reads among its operands, of awk and of cmd are read
// up to the "--". env's -S with a fixed string runs the command the
// string splits into, which is checked in its place.
func (c *compiler) optionScripts(args []scriptArg, start int, prog string, in interpreter, zero map[int]bool) *hcl.Diagnostic {
	if in.shellFlags {
		return c.shellScripts(args, start, prog, in, zero)
	}
	o := syntaxFor(prog, in)
	// Windows PowerShell reads its first operand and what follows as
	// -Command text.
	operandCommand := func(i int) *hcl.Diagnostic {
		return c.joinedScript(args, i-1, fmt.Sprintf("The command %s runs from its first argument that is not an option, read as -Command text without -File,", prog), in)
	}
	for i := start + 1; i < len(args); i++ {
		a := args[i]
		if a.run {
			if in.operandCommand {
				return operandCommand(i)
			}
			continue // it may be empty, or hold a flag (see flagParams)
		}
		s, known := a.literal()
		if !known {
			// A script glued to its flag: ["python3", "-c${...}"],
			// ["node", "--eval=${...}"].
			if flag, ok := c.attachedScript(in, a); ok {
				if d := c.scriptDiag(a, fmt.Sprintf("The script %s runs with %s, glued to the flag,", prog, flag), in); d != nil {
					return d
				}
			}
			if in.operandCommand {
				return operandCommand(i) // an option or the command's start
			}
			if !o.interleaved() && !c.mayBeOption(in, a) {
				return nil // the script file
			}
			continue
		}
		s = in.switchText(s)
		if split, ok := envSplitArgs(prog, in, args, i); ok {
			if d := c.scriptParams(split); len(d) > 0 {
				return d[0]
			}
			return nil
		}
		switch {
		case in.scriptFlag(s) && in.joinsRest:
			return c.joinedScript(args, i, fmt.Sprintf("The script %s runs with %s", prog, s), in)
		case in.scriptFlag(s):
			if i+1 < len(args) {
				if d := c.scriptAt(args, i+1, fmt.Sprintf("The script %s runs with %s", prog, s), in); d != nil {
					return d
				}
			}
			i++ // the script; perl, ruby and lua take more than one
		case s == "--" || slices.ContainsFunc(in.progFlags, func(f string) bool { return strings.EqualFold(f, s) }):
			return nil // the script file follows
		case s == in.subcommand && s != "":
		case in.operandCommand && !o.option(s):
			return operandCommand(i)
		case o.option(s):
			i += o.skip(args, i, s)
		case !o.interleaved():
			return nil // the script file
		}
	}
	return nil
}

// joinedScript refuses a parameter in the arguments after args[flag], a
// script flag of a program that joins them into its script: a parameter
// alone there is text of the script too, unless it is the whole script
// (["pwsh", "-Command", param.script]).
//
// A list known only at call time is joined too, its items text of the
// script: it is refused when made from a parameter or an answer, unless
// it is all the script (concat(["pwsh", "-Command"], param.words)).
func (c *compiler) joinedScript(args []scriptArg, flag int, what string, in interpreter) *hcl.Diagnostic {
	if flag+2 == len(args) {
		return c.scriptAt(args, flag+1, what, in)
	}
	for _, a := range args[flag+1:] {
		if a.run {
			if a = c.withRunRefs(a); len(a.params)+len(a.answers) > 0 {
				danger, fix := in.dangerFix()
				return c.joinedDiag(a, fmt.Sprintf("%s joins the items of this list with the other arguments into its text, and it", what), danger, fix)
			}
			continue
		}
		if a.expr != nil && isBareParamRef(a.expr) {
			a.expr = nil // joined to the text around it
		}
		if d := c.scriptDiag(a, what, in); d != nil {
			return d
		}
	}
	return nil
}

// shellScripts refuses a parameter in the script of the shell at
// args[start]. A shell reads its options up to its first operand, or a
// "--" or "-"; a cluster of letters holding c ("-c", "-ec", "-Ec", "+c")
// makes that operand the script, and the letters of options that take a
// value take the next arguments in turn (bash -co pipefail CMD). Every
// element from the cluster to the script is checked, since one taken for
// an option's value may be the script for a shell that reads the letter
// otherwise. fish's -c and -C take their command as their value.
func (c *compiler) shellScripts(args []scriptArg, start int, prog string, in interpreter, zero map[int]bool) *hcl.Diagnostic {
	o := syntaxFor(prog, in)
	flag, from := "", 0
	script := func(at int) *hcl.Diagnostic {
		if flag == "" {
			return nil // a script file, or no script
		}
		zero[at+1] = true
		what := fmt.Sprintf("The script %s runs with %s", prog, flag)
		for j := from; j < at && j < len(args); j++ {
			if d := c.scriptDiag(args[j], what, in); d != nil {
				return d
			}
		}
		return c.scriptAt(args, at, what, in)
	}
	for i := start + 1; i < len(args); i++ {
		a := args[i]
		s, known := a.literal()
		switch {
		case a.run:
		case !known:
			if f, ok := o.fishScript(a.leadingText()); ok {
				if d := c.scriptDiag(a, fmt.Sprintf("The script %s runs with %s, glued to the flag,", prog, f), in); d != nil {
					return d
				}
			}
			if !c.mayBeOption(in, a) {
				return script(i)
			}
		case s == "--" || s == "-":
			return script(i + 1)
		case o.getopt && o.fishFlag(s):
			if d := c.scriptAt(args, i+1, fmt.Sprintf("The script %s runs with %s", prog, s), in); d != nil {
				return d
			}
			i++
		case o.option(s):
			if in.scriptFlag(s) && flag == "" {
				flag, from = s, i+1
			}
			n := o.skip(args, i, s)
			// A value that is a cluster holding c may be one for a shell
			// that reads the letter otherwise: zsh's -oerrexit takes the
			// rest of its cluster.
			for j := i + 1; j <= i+n && j < len(args) && flag == ""; j++ {
				if v, ok := args[j].literal(); ok && in.scriptFlag(v) {
					flag, from = v, j+1
				}
			}
			i += n
		default:
			return script(i)
		}
	}
	return script(len(args))
}

// fishFlag reports whether s is a flag of fish whose value, the next
// argument, is a command it runs: -c, -ic, --command, --init-command.
func (o optSyntax) fishFlag(s string) bool {
	if slices.ContainsFunc(fishScriptOpts, func(f string) bool { return longPrefix(s, f) }) {
		return true
	}
	letters, ok := o.cluster(s)
	i := strings.IndexAny(letters, fishValueLetters)
	return ok && i == len(letters)-1 && strings.ContainsRune(fishScriptLetters, rune(letters[i]))
}

// fishScript reports whether an argument of fish starting with lead, the
// known start of an element not known at load, carries a command glued
// to its flag (-cCMD, --command=CMD) or may go on into one, and returns
// the flag.
func (o optSyntax) fishScript(lead string) (string, bool) {
	if !o.getopt || len(lead) < 2 || lead[0] != '-' {
		return "", false
	}
	if strings.HasPrefix(lead, "--") {
		name, _, glued := strings.Cut(lead, "=")
		for _, f := range fishScriptOpts {
			switch {
			case glued && longPrefix(name, f):
				return name + "=", true
			case !glued && strings.HasPrefix(f, lead):
				return f + "=", true
			}
		}
		return "", false
	}
	for i, r := range lead[1:] {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return "", false
		}
		if strings.ContainsRune(fishValueLetters, r) {
			return lead[:i+2], strings.ContainsRune(fishScriptLetters, r)
		}
	}
	return "", false
}

// envSplitArgs returns, when args[i] is env's -S with a fixed string (-S
// STRING, -SSTRING, --split-string=STRING), the command env runs: args
// with the words of the string (see splitString) in place of the flag
// and the string. ok is false otherwise.
func envSplitArgs(prog string, in interpreter, args []scriptArg, i int) ([]scriptArg, bool) {
	if programName(prog) != "env" {
		return nil, false
	}
	s, _ := args[i].literal()
	str, rest := "", i+1
	flag, glued := in.attachedScript(s)
	switch {
	case in.scriptFlag(s):
		if i+1 == len(args) {
			return nil, false
		}
		var ok bool
		if str, ok = args[i+1].literal(); !ok {
			return nil, false // checked as a script
		}
		rest = i + 2
	case glued && len(s) > len(flag):
		str = s[len(flag):]
	default:
		return nil, false
	}
	words, ok := splitString(str)
	if !ok {
		// env refuses the string; should it read it otherwise, its
		// words are still checked.
		words = strings.Fields(str)
	}
	out := slices.Clone(args[:i])
	for _, w := range words {
		out = append(out, scriptArg{val: cty.StringVal(w)})
	}
	return append(out, args[rest:]...), true
}

// splitString splits s into words as env -S does (GNU coreutils):
// words are separated by whitespace and by \_ outside double quotes;
// single quotes keep their text but for \\ and \'; double quotes keep
// whitespace and take the escapes \f \n \r \t \v \# \$ \_ \" \' \\; \c
// outside double quotes ends the string; a # starting a word starts a
// comment to the end; ${NAME}, which env replaces by the variable's
// value, is kept as written. ok is false for a string env refuses (an
// unterminated quote, an unknown escape, a $ without braces).
func splitString(s string) (words []string, ok bool) {
	var w strings.Builder
	inWord, sq, dq := false, false, false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case sq:
			if ch == '\'' {
				sq = false
				continue
			}
			if ch == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '\'') {
				i++
				ch = s[i]
			}
			w.WriteByte(ch)
		case ch == '\'' && !dq:
			sq, inWord = true, true
		case ch == '"':
			dq, inWord = !dq, true
		case ch == '\\':
			if i+1 == len(s) {
				return nil, false
			}
			i++
			switch e := s[i]; e {
			case 'c':
				if dq {
					return nil, false
				}
				flush()
				return words, true
			case '_':
				if !dq {
					flush()
					continue
				}
				w.WriteByte(' ')
			case 'f', 'n', 'r', 't', 'v':
				w.WriteByte(map[byte]byte{'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}[e])
			case '#', '$', '"', '\'', '\\':
				w.WriteByte(e)
			default:
				return nil, false
			}
			inWord = true
		case ch == '$':
			end := strings.IndexByte(s[i:], '}')
			if i+1 == len(s) || s[i+1] != '{' || end < 0 {
				return nil, false
			}
			w.WriteString(s[i : i+end+1])
			i += end
			inWord = true
		case !dq && strings.IndexByte(" \t\n\v\f\r", ch) >= 0:
			flush()
		case !dq && !inWord && ch == '#':
			return words, true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if sq || dq {
		return nil, false
	}
	flush()
	return words, true
}
