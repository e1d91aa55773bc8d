package exec

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// shellDanger is what a value put into a shell command can do.
const shellDanger = "a value such as `x; rm -rf ~` runs the rm, however the command quotes it"

// envFix says how to pass a value to a command that a program runs
// through a shell and that takes no arguments of its own: in an
// environment variable, as example reads it.
func envFix(example string) string {
	return "Pass the value in an environment variable and read it in the command, as in env = { X = param.x } with " + example
}

// addCommandRunners adds to m, the table of interpreters, the
// programs that run code given as an argument other than as an
// interpreter's script flag does, by class: those that pass a string to
// a shell (script -c, flock -c, su -c), those that join their operands
// into a shell command (watch, tmux, parallel, sudo -s, cmd /c), the
// debuggers, editors and clients whose commands run programs (gdb -ex,
// vim -c and +CMD, ed, sqlite3 -cmd, psql -c), and interpreters that
// the shells and languages of the table do not cover. It is long because
// it is a table, one entry per program, grouped by class.
func addCommandRunners(m map[string]interpreter) {
	// A string given to a shell's -c by the program.
	viaShell := func(example string, optArgs ...string) interpreter {
		return interpreter{flags: []string{"-c", "--command"}, clusterEnd: "c", attached: true, permute: true,
			optArgs: optArgs, danger: shellDanger, fix: envFix(example)}
	}
	script := viaShell(`command = ["script", "-qc", "echo \"$X\"", "/dev/null"]`,
		"-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-o", "--output-limit", "-m", "--logging-format")
	script.stdinCommands = true // without -c, a shell reads standard input
	m["script"] = script
	flock := viaShell(`command = ["flock", "/tmp/tool.lock", "-c", "echo \"$X\""]`, "-w", "--wait", "--timeout", "-E", "--conflict-exit-code")
	flock.noStdin = true
	m["flock"] = flock
	su := viaShell(`command = ["su", "-c", "echo \"$X\"", "user"]`, "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment")
	su.flags = append(su.flags, "--session-command")
	su.stdinCommands = true // without -c, the user's shell reads standard input
	m["su"], m["runuser"] = su, su

	// Operands joined into one shell command.
	m["watch"] = interpreter{commandAt: 1, directFlags: []string{"-x", "--exec"}, optArgs: []string{"-n", "--interval", "-q", "--equexit", "-s", "--shotsdir"},
		danger: shellDanger, fix: envFix(`command = ["watch", "-n", "5", "ls -l \"$X\""]`)}
	m["tmux"] = interpreter{flags: []string{"-c"}, commandAt: 1, optArgs: []string{"-L", "-S", "-f", "-T"},
		danger: "tmux reads its arguments as its own commands, several of which run a shell command (run-shell, new-window, send-keys into a shell)",
		fix:    envFix(`command = ["tmux", "-L", "tool", "new-session", "-d", "echo \"$X\""], a server started by the command taking its environment`)}
	m["parallel"] = interpreter{commandAt: 1, commandEnd: []string{":::", "::::", ":::+", "::::+"},
		optArgs: []string{"-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-a", "--arg-file", "-I", "--colsep", "-C", "-d", "--delimiter",
			"-E", "-n", "--max-args", "-N", "-L", "--max-lines", "-l", "-s", "--max-chars", "--tmpdir", "--timeout", "--joblog", "--results", "--res",
			"--workdir", "--wd", "--env", "--tagstring", "--basefile", "--bf", "--return", "--transferfile", "--tf", "--retries", "--delay", "--memfree", "--load"},
		danger: shellDanger,
		fix:    `Pass the values after :::, which parallel quotes into the command, as in command = concat(["parallel", "gzip -- {}", ":::"], param.files)`}
	sudoShell := interpreter{commandFlags: []string{"-s", "-i", "--shell", "--login"},
		danger: "sudo joins its operands into a command for the shell, which still expands $NAME in them",
		fix:    `Run a shell by name and pass the value as an argument of its own, as in command = ["sudo", "sh", "-c", "echo \"$1\"", "sh", param.x]`}
	m["sudo"] = sudoShell
	doas := sudoShell
	doas.commandFlags = []string{"-s"}
	doas.fix = `Run a shell by name and pass the value as an argument of its own, as in command = ["doas", "sh", "-c", "echo \"$1\"", "sh", param.x]`
	m["doas"] = doas
	m["screen"] = interpreter{commandFlags: []string{"-X", "-Q"},
		danger: "screen runs it as its own command, and its stuff and exec commands type into a shell or run a program",
		fix:    "Keep the command screen sends fixed: it has no way to take a value apart from it"}

	// Debuggers, editors and clients: their commands run shell commands.
	gdb := interpreter{permute: true, flags: []string{"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"},
		codePrefixes:  []string{"-ex=", "-iex=", "-eval-command=", "-init-eval-command="},
		optArgs:       []string{"-x", "--x", "-command", "--command", "-ix", "-init-command", "--init-command", "-p", "--pid", "-cd", "--cd", "-d", "--directory", "-core", "--core", "-se", "-s", "--symbols", "-e", "--exec"},
		stdinCommands: true,
		danger:        "gdb runs it as a command, and its shell and python commands run any program",
		fix:           envFix(`command = ["gdb", "-batch", "-ex", "python print(__import__('os').environ['X'])"]`)}
	m["gdb"] = gdb
	m["lldb"] = interpreter{permute: true, flags: []string{"-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"},
		optArgs:       []string{"-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash", "-p", "--attach-pid", "-n", "--attach-name", "-c", "--core", "-a", "--arch"},
		stdinCommands: true,
		danger:        "lldb runs it as a command, and its platform shell and script commands run any program",
		fix:           envFix(`command = ["lldb", "--batch", "-o", "script print(__import__('os').environ['X'])"]`)}
	vim := interpreter{flags: []string{"-c", "--cmd"}, attached: true, permute: true, codePrefixes: []string{"+"},
		optArgs:       []string{"-u", "-U", "-i", "-T", "-w", "-W", "-s", "-S", "-t", "-q", "-r", "--servername", "--listen"},
		stdinCommands: true,
		danger:        "an Ex command such as `!rm -rf ~` runs a shell command, and a file name starting with + is a command too",
		fix:           envFix(`command = ["vim", "-es", "-c", "call setline(1, $X)", "-c", "wq", "--", "notes.txt"]; put -- before file names that come from a parameter`)}
	for _, n := range []string{"vim", "vi", "nvim", "ex", "view", "gvim", "gview", "rvim", "rview", "vimdiff", "evim", "eview", "nvi"} {
		m[n] = vim
	}
	ed := interpreter{codePrefixes: []string{"!"}, stdinCommands: true,
		danger: "ed runs a line such as `!rm -rf ~` as a shell command, and a file name starting with ! is one too",
		fix:    "Keep ed's commands and its file name fixed in the configuration: a parameter cannot be kept from starting with !"}
	m["ed"], m["red"] = ed, ed
	m["sqlite3"] = interpreter{flags: []string{"-cmd"}, stdinCommands: true,
		danger: "sqlite3 runs it as commands, and its .shell and .system commands run any program",
		fix:    "Keep sqlite3's commands fixed in the configuration: it has no way to take a value apart from them"}
	m["sqlite"] = m["sqlite3"]
	m["psql"] = interpreter{flags: []string{"-c", "--command"}, attached: true, permute: true, stdinCommands: true,
		optArgs: []string{"-d", "--dbname", "-h", "--host", "-p", "--port", "-U", "--username", "-v", "--set", "--variable", "-f", "--file", "-o", "--output", "-L", "--log-file", "-P", "--pset", "-F", "-R", "-T"},
		danger:  "psql runs it as commands, and its \\! command runs a shell command",
		fix:     `Pass the value as a psql variable and quote it with :'name' in fixed commands on standard input, as in command = ["psql", "-v", "x=${param.x}"] with stdin = "select :'x';"`}
	mysql := interpreter{flags: []string{"-e", "--execute"}, attached: true, permute: true, stdinCommands: true,
		optArgs: []string{"-u", "--user", "-h", "--host", "-P", "--port", "-D", "--database", "-S", "--socket"},
		danger:  "mysql runs it as commands, and its system command runs a shell command",
		fix:     "Keep mysql's commands fixed in the configuration: it has no way to take a value apart from them"}
	m["mysql"], m["mariadb"] = mysql, mysql
	m["lftp"] = interpreter{flags: []string{"-c", "-e"}, stdinCommands: true,
		danger: "lftp runs it as commands, and its ! command runs a shell command",
		fix:    "Keep lftp's commands fixed in the configuration: it has no way to take a value apart from them"}

	// Interpreters the shells and languages above do not cover.
	m["r"] = interpreter{flags: []string{"-e"}, progFlags: []string{"-f", "--file"},
		readArg: `command = ["R", "--no-echo", "-e", "cat(commandArgs(TRUE)[1])", "--args", param.x]`}
	m["dc"] = interpreter{flags: []string{"-e", "--expression"}, attached: true, progFlags: []string{"-f", "--file"},
		danger: "dc's ! command runs a shell command", fix: "dc has no way to read a value as data: use another program, such as awk with -v"}
	m["expect"] = interpreter{flags: []string{"-c"}, progFlags: []string{"-f"},
		danger: "Tcl runs a value such as `[exec rm -rf ~]`", fix: envFix(`command = ["expect", "-c", "puts $env(X)"]`)}
	m["make"] = interpreter{flags: []string{"--eval", "-E"}, attached: true, permute: true, noStdin: true,
		progFlags: []string{"-f", "--file", "--makefile"},
		optArgs:   []string{"-C", "--directory", "-I", "--include-dir", "-j", "--jobs", "-l", "--load-average", "-o", "--old-file", "--assume-old", "-W", "--what-if", "--new-file", "--assume-new"},
		danger:    "make runs its recipes through a shell and $(shell ...) in its text",
		fix:       envFix(`command = ["make", "build"] and the recipe reading "$$X"`)}
	m["xonsh"] = interpreter{flags: []string{"-c"}, readArg: `command = ["xonsh", "-c", "echo $ARG1", param.x]`}
	m["nu"] = interpreter{flags: []string{"-c", "--commands", "-e", "--execute"},
		danger: shellDanger, fix: envFix(`command = ["nu", "-c", "print $env.X"]`)}
	m["elvish"] = interpreter{flags: []string{"-c"}, danger: shellDanger, fix: envFix(`command = ["elvish", "-c", "echo $E:X"]`)}
	fish := m["sh"]
	fish.flags = []string{"-c", "--command", "-C", "--init-command"}
	fish.readArg = `command = ["fish", "-c", "echo $argv[1]", param.x]`
	m["fish"] = fish
	m["toybox"] = m["busybox"]
	for _, n := range []string{"pdksh", "oksh", "loksh", "posh", "hush"} {
		m[n] = m["sh"]
	}
	for _, n := range []string{"py", "pythonw", "ipython"} {
		m[n] = m["python3"]
	}
	php := m["php"]
	php.flags = []string{"-r", "--run", "-R", "--process-code", "-B", "--process-begin", "-E", "--process-end"}
	php.progFlags = []string{"-f", "--file", "-F", "--process-file"}
	m["php"] = php
	deno := m["deno"]
	deno.codePrefixes = []string{"data:"}
	m["deno"] = deno
	cmd := m["cmd"]
	cmd.commandFlags, cmd.codePrefixes, cmd.stdinCommands = []string{"/c", "/k", "/r"}, []string{"/c", "/k", "/r"}, true
	m["cmd"] = cmd
	for _, n := range []string{"pwsh", "powershell"} {
		in := m[n]
		in.flags = pwshSwitches("command", "c", "commandwithargs", "commandw", "cwa", "cwa", "encodedcommand", "e", "ec", "ec")
		in.progFlags = pwshSwitches("file", "f")
		in.joinsRest, in.dashes = true, true
		in.operandCommand = n == "powershell"
		m[n] = in
	}
	// Windows programs that run code their arguments give: mshta an
	// HTML application or a javascript: or vbscript: URL, rundll32 the
	// function of a DLL it names (and, through mshtml, JavaScript). Both
	// read their command line with rules of their own. wscript and
	// cscript run a script file, whose arguments are values.
	m["mshta"] = interpreter{commandAt: 1, joins: "the URL or HTML application it runs, whose javascript: or vbscript: text is code",
		danger: "a value such as `javascript:new ActiveXObject('WScript.Shell').Run('calc')` runs the calc",
		fix:    `Keep mshta's arguments fixed in the configuration, and run a PowerShell script with the value after -File instead, as in command = ["powershell", "-NoProfile", "-File", "script.ps1", "-Name", param.x]`}
	m["rundll32"] = interpreter{commandAt: 1, joins: "the DLL, the function it runs and that function's command line",
		danger: "a value such as `shell32.dll,ShellExec_RunDLL calc` runs the calc, and a javascript: one runs JavaScript",
		fix:    `Keep rundll32's arguments fixed in the configuration, and run a program that takes the value as an argument of its own instead, as in command = ["powershell", "-NoProfile", "-File", "script.ps1", "-Name", param.x]`}
}

// pwshSwitches lists the spellings PowerShell takes for the switches
// pairs name, each followed by the shortest prefix of it that it takes:
// every prefix from that one on, after -, -- or /, in any case.
func pwshSwitches(pairs ...string) []string {
	size := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		size += 3 * (len(pairs[i]) - len(pairs[i+1]) + 1)
	}
	out := make([]string, 0, size)
	for i := 0; i+1 < len(pairs); i += 2 {
		name, short := pairs[i], pairs[i+1]
		// Each prefix is a slice of the whole switch written each way,
		// not a string of its own: a third of the allocations of the
		// interpreter tables were these.
		one, two, slash := "-"+name, "--"+name, "/"+name
		for n := len(short); n <= len(name); n++ {
			out = append(out, one[:1+n], two[:2+n], slash[:1+n])
		}
	}
	return out
}

// stdinReaders are the programs, by name as programName gives
// it, that read commands from standard input whatever their arguments
// and whose commands run programs, but that take no command as an
// argument: a Tcl shell, at and crontab (which run it later through a
// shell), ftp and sftp (whose ! runs a shell command), REPLs. Built at
// first use, as interpreters.
var stdinReaders = sync.OnceValue(func() map[string]interpreter {
	in := interpreter{stdinCommands: true,
		danger: "a line of it is a command, and the program's commands run any program",
		fix:    "Keep stdin fixed in the configuration and pass values as arguments of their own, or set stdin to a parameter alone (stdin = param.x) when the caller is to write the commands"}
	m := map[string]interpreter{}
	for _, n := range []string{"tclsh", "wish", "jimsh", "at", "batch", "crontab", "ftp", "sftp", "jshell", "irb"} {
		m[n] = in
	}
	return m
})

// stdinProgramFor returns what a program is for the stdin check: an
// interpreter, or a program of stdinReaders.
func stdinProgramFor(prog string) (interpreter, bool) {
	if in, ok := interpreterFor(prog); ok {
		return in, true
	}
	return programIn(stdinReaders(), prog)
}

// isStdin reports whether s, a script file's name fixed in the
// configuration, names standard input: "-", or a path that cleans to
// /dev/stdin, /dev/fd/0 or a file descriptor 0 under /proc, however it is
// spelled (//dev/./stdin, /proc/thread-self/fd/0, /proc/1/fd/0,
// /proc/self/root/dev/stdin), also relative (../../dev/stdin), since the
// working directory may be any.
func isStdin(s string) bool {
	if s == "-" {
		return true
	}
	p := path.Clean(s)
	for strings.HasPrefix(p, "../") {
		p = p[len("../"):]
	}
	p = strings.TrimPrefix(p, "/")
	for _, name := range []string{"dev/stdin", "dev/fd/0"} {
		if p == name || strings.HasSuffix(p, "/"+name) {
			return true
		}
	}
	return strings.HasPrefix(p, "proc/") && strings.HasSuffix(p, "/fd/0")
}

// shellReadsStdin reports whether script, a shell command line fixed
// in the configuration, runs a program that reads its program from
// standard input: a shell or an interpreter without a script ("cat |
// bash", "exec sh -s", "timeout 5 python3 -"), ". /dev/stdin", or an eval
// of what it reads ("eval \"$(cat)\"", "read -r l; eval \"$l\""). It looks
// at the words of the text, not at what the shell would make of them, so
// it may see a program where there is none ("echo sh").
func shellReadsStdin(script string) bool {
	var quoted []scriptArg
	for _, w := range shellWords(script) {
		quoted = append(quoted, scriptArg{val: cty.StringVal(w)})
	}
	if _, _, ok := stdinArgsScript(quoted); ok {
		return true // xargs -I{} sh -c 'echo {}'
	}
	words := strings.FieldsFunc(script, func(r rune) bool {
		return strings.ContainsRune(" \t\r\n;&|()`{}<>\"'$", r)
	})
	for i, w := range words {
		if w == "SHELL" {
			w = "sh" // exec "$SHELL"
		}
		switch {
		case (w == "." || w == "source") && i+1 < len(words) && (isStdin(words[i+1]) || words[i+1] == "cat"):
			// . /dev/stdin, source <(cat)
			return true
		case w == "eval" && (slices.Contains(words, "cat") || slices.Contains(words, "read") || slices.ContainsFunc(words, isStdin)):
			return true
		}
		in, ok := stdinProgramFor(w)
		if !ok {
			continue
		}
		args := make([]scriptArg, 0, len(words)-i-1)
		for _, a := range words[i+1:] {
			if strings.Trim(a, "0123456789") != "" { // not the 0 of <&0
				args = append(args, scriptArg{val: cty.StringVal(a)})
			}
		}
		if !in.safe(args) && in.readsStdin(args) {
			return true
		}
	}
	return false
}

// shellWords splits a shell command line into its words, keeping
// what is quoted in one word without its quotes; the operators ; & | and
// line breaks end a word. It knows no expansions.
func shellWords(line string) []string {
	var words []string
	var word strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case strings.ContainsRune(" \t\r\n;&|", r):
			if in {
				words = append(words, word.String())
				word.Reset()
				in = false
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, word.String())
	}
	return words
}

// scriptEvalsStdin reports whether script, the fixed script of an
// interpreter other than a shell, evaluates what it reads from standard
// input, as in exec(sys.stdin.read()) or eval(<STDIN>): it holds a word
// that evaluates code and one that reads standard input. Like
// shellReadsStdin, it reads words, not the language.
func scriptEvalsStdin(script string) bool {
	evals := []string{"exec", "eval", "compile", "Function", "loadstring", "dofile", "instance_eval", "class_eval"}
	reads := []string{"stdin", "STDIN", "input", "ARGF", "gets", "readline", "readLine", "readlines", "0"}
	words := strings.FieldsFunc(script, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	})
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(evals, w) }) &&
		(slices.ContainsFunc(words, func(w string) bool { return slices.Contains(reads, w) }) || strings.Contains(script, "<>"))
}

// commandStart returns the index in args, the arguments of a program that
// joins its operands into a shell command (commandAt, commandFlags), of
// the first element of that command: after one of its commandFlags (cmd
// /c, sudo -s, and cmd's flag after other switches, as in /d/c), at it
// when the command is glued to it (cmd /cdir), or the
// operand commandAt after its options. -1 when there is none, because no
// command flag is given or a directFlags option is; len(args) when the
// command is empty.
func (in interpreter) commandStart(args []scriptArg) int {
	if in.commandFlags != nil {
		for i, a := range args {
			s, ok := a.literal()
			if !ok {
				continue
			}
			for _, f := range in.commandFlags {
				switch {
				case f[0] == '/' && strings.HasPrefix(s, "/") && strings.Contains(strings.ToLower(s), f):
					// cmd /cdir and /c"dir": the command starts in the
					// flag's own element.
					lower := strings.ToLower(s)
					if rest := lower[strings.Index(lower, f)+len(f):]; strings.TrimSpace(rest) != "" {
						return i
					}
					return i + 1 // cmd /c, cmd /q/c
				case s == f,
					len(f) == 2 && f[0] == '-' && len(s) > 2 && s[0] == '-' && s[1] != '-' && strings.ContainsRune(s[1:], rune(f[1])) &&
						strings.TrimLeft(strings.ToLower(s[1:]), "abcdefghijklmnopqrstuvwxyz") == "":
					return i + 1 // sudo -s, sudo -is
				}
			}
		}
		return -1
	}
	operand := 0
	for i := 0; i < len(args); i++ {
		s, ok := args[i].literal()
		switch {
		case !ok:
			// An element the caller chooses, or a list known at call time,
			// may be an operand: the command starts here at the latest.
			return i
		case s == "--":
			return i + 1
		case slices.Contains(in.directFlags, s) || len(s) > 2 && s[0] == '-' && s[1] != '-' && slices.ContainsFunc(in.directFlags, func(f string) bool {
			return len(f) == 2 && f[1] != '-' && strings.ContainsRune(s[1:], rune(f[1])) && strings.TrimLeft(s[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
		}):
			return -1 // watch -x: a program, which the check looks at as any other
		case slices.ContainsFunc(in.optArgs, func(f string) bool { return strings.EqualFold(f, s) }):
			i++
		case len(s) > 1 && s[0] == '-' && operand == 0:
		default:
			operand++
			if operand == in.commandAt {
				return i
			}
		}
	}
	return len(args)
}

// commandParams refuses, for the program at args[start], an element made
// from a parameter or an answer that becomes code without a script flag:
// one whose start may be one of the program's codePrefixes (vim's
// +CMD, ed's !CMD, deno's data: URL, cmd's /cCMD), and, for a program
// that joins its operands into a shell command (watch, tmux, parallel,
// sudo -s, cmd /c), one in that command. A parameter alone is refused
// there too, unless it is the whole command: joined with the other
// words, it is shell text.
func (c *compiler) commandParams(args []scriptArg, start int, prog string, in interpreter) *hcl.Diagnostic {
	danger, fix := in.dangerFix()
	first := -1
	if in.commandAt > 0 || in.commandFlags != nil {
		first = in.commandStart(args[start+1:])
	}
	if first >= 0 {
		first += start + 1
		for i := first; i < len(args); i++ {
			a := c.withRunRefs(args[i])
			if s, ok := a.literal(); ok {
				if slices.Contains(in.commandEnd, s) && i > first {
					break // parallel's arguments, quoted into the command
				}
				continue
			}
			if len(a.params)+len(a.answers) == 0 {
				continue
			}
			if !a.run && !a.built() && i == first && i+1 == len(args) {
				continue // a parameter alone as the whole command, as in sh -c
			}
			joins := in.joins
			if joins == "" {
				joins = "a shell command"
			}
			return c.joinedDiag(a, fmt.Sprintf("%s joins this argument with the others into %s, and it", prog, joins), danger, fix)
		}
	}
	// Before the command, an element may start with a prefix that makes
	// it code; after deno's run, only the script, a URL, may.
	operands := 0
	for i := start + 1; i < len(args) && i != first && len(in.codePrefixes) > 0; i++ {
		a := c.withRunRefs(args[i])
		if s, ok := a.literal(); ok {
			if s == "--" && slices.Contains(in.codePrefixes, "+") {
				break // vim reads what follows as file names
			}
			if in.subcommand != "" && s != in.subcommand && !strings.HasPrefix(s, "-") {
				operands++
			}
			continue
		}
		if len(a.params)+len(a.answers) == 0 || in.subcommand != "" && (operands > 0 || !a.built()) {
			continue
		}
		lead := ""
		switch {
		case a.expr != nil && !a.run:
			lead = leadingLiteral(a.expr)
		case !a.run && a.val.Type() == cty.String:
			lead = a.val.Range().StringPrefix()
		}
		for _, p := range in.codePrefixes {
			if lead == "" && p[0] == '-' && !c.mayStartWithDash(a) {
				continue // the call refuses a parameter's value starting with -
			}
			n := min(len(lead), len(p))
			if strings.EqualFold(lead[:n], p[:n]) {
				return c.joinedDiag(a, fmt.Sprintf("This argument of %s may start with %s, which makes the rest of it code that %s runs, and it", prog, p, prog), danger, fix)
			}
		}
		if in.subcommand != "" {
			operands++
		}
	}
	return nil
}

// dangerFix says, for the messages of a value joined into a command or
// a script of in, what a value could do and how to pass it instead.
func (in interpreter) dangerFix() (danger, fix string) {
	if in.fix != "" {
		return in.danger, in.fix
	}
	return shellDanger, "Pass the value as an argument of its own and read it in the script, as in " + in.readArg
}

// mayStartWithDash reports whether a, an element whose fixed start is
// empty, may start with "-": made from a parameter with allow_flags or
// from an answer, or a list known at call time.
func (c *compiler) mayStartWithDash(a scriptArg) bool {
	if a.run || len(a.answers) > 0 {
		return true
	}
	return slices.ContainsFunc(a.params, func(p string) bool { return c.CC.Params[p].AllowFlags })
}

// withRunRefs returns a with, when it is a list known only at call time,
// every parameter and answer its expression refers to, not only those it
// makes text of: joined into a command, a list parameter's items are
// text too.
func (c *compiler) withRunRefs(a scriptArg) scriptArg {
	if a.run && a.expr != nil {
		a.params, a.answers = paramRefs(a.expr, c.ParamNames()), answerRefs(a.expr)
	}
	return a
}

// joinedDiag refuses a, made from a parameter or an answer, even where it
// is one alone: what says what makes it code, as a sentence's start.
func (c *compiler) joinedDiag(a scriptArg, what, danger, fix string) *hcl.Diagnostic {
	root, name, value := "param", "", ""
	if len(a.params) > 0 {
		name = a.params[0]
		value = fmt.Sprintf("parameter %q", name)
	} else {
		root, name = "answer", a.answers[0]
		value = answerWhat(name)
	}
	var from hcl.Expression = c.cmdExpr
	if a.expr != nil {
		from = a.expr
	}
	return c.insideScript(a, from, root, name, fmt.Sprintf("%s is made from %s, so a value would run as code: %s. %s.", what, value, danger, fix))
}

// xargsReplace reads the options of xargs, args being its arguments:
// the replace string (-I R, -i, --replace), "" when the input is
// appended to the command instead, and the index of the program it runs.
func xargsReplace(args []scriptArg) (string, int) {
	repl := ""
	for i := 0; i < len(args); i++ {
		s, ok := args[i].literal()
		switch {
		case !ok:
			return repl, i
		case s == "--":
			return repl, i + 1
		case s == "--replace" || s == "-i":
			repl = "{}"
		case strings.HasPrefix(s, "--replace="):
			repl = strings.TrimPrefix(s, "--replace=")
		case slices.Contains([]string{"--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}, s):
			i++
		case strings.HasPrefix(s, "--"):
		case len(s) > 1 && s[0] == '-':
			// A cluster, as in -0rI{} or -n 1.
			for k := 1; k < len(s); k++ {
				switch ch := s[k]; {
				case ch == 'I':
					if k+1 < len(s) {
						repl = s[k+1:]
					} else if i+1 < len(args) {
						repl, _ = args[i+1].literal()
						i++
					}
				case ch == 'i':
					repl = "{}"
					if k+1 < len(s) {
						repl = s[k+1:]
					}
				case strings.ContainsRune("adEnLPs", rune(ch)) && k+1 == len(s):
					i++
				case !strings.ContainsRune("adEnLPsel", rune(ch)):
					continue
				}
				break
			}
		default:
			return repl, i
		}
	}
	return repl, len(args)
}

// stdinArgsScript finds in args an xargs or a parallel that makes
// arguments of the lines of standard input for a program that runs them as
// code: an interpreter whose script holds the replace string (xargs -I{}
// sh -c "echo {}"), whose script flag is the last element, so that the
// input is the script (xargs sh -c), or that joins its operands into a
// shell command. It returns the feeder and the interpreter's name.
func stdinArgsScript(args []scriptArg) (string, string, bool) {
	for start, a := range args {
		feeder, ok := a.literal()
		name := programName(feeder)
		if !ok || name != "xargs" && name != "parallel" {
			continue
		}
		repl, prog := xargsReplace(args[start+1:])
		if name == "parallel" {
			repl = "{" // {}, {.}, {/} and the others
		}
		for j := start + 1 + prog; j < len(args); j++ {
			p, ok := args[j].literal()
			if !ok {
				continue
			}
			in, ok := interpreterFor(p)
			if !ok {
				continue
			}
			if in.commandAt > 0 || in.commandFlags != nil {
				return feeder, p, true
			}
			last, _ := args[len(args)-1].literal()
			if (repl == "" || name == "parallel") && in.scriptFlag(last) {
				return feeder, p, true
			}
			for _, el := range args[j+1:] {
				if s, ok := el.literal(); ok && repl != "" && s != repl && strings.Contains(s, repl) {
					return feeder, p, true
				}
			}
		}
	}
	return "", "", false
}
