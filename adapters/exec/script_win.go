package exec

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
)

// The checks of this file are about how Windows runs a program: it gets
// one command line, not an argv, which os/exec quotes with the standard
// rules (syscall.EscapeArg) and which a program built with the C runtime
// or .NET splits back into the same arguments. Two kinds of programs
// parse it otherwise: cmd.exe, and so every batch file, which Windows
// runs through cmd.exe; and those that make code of their arguments
// (PowerShell's -Command, mshta's URLs). They run on every platform,
// since a configuration written on Linux may be deployed on Windows.

// batchFix says how to pass a value to what a batch file does.
const batchFix = `Run the program the batch file runs directly, as in command = ["where.exe", param.x], ` +
	`or write the script in PowerShell and pass the value after -File, as in ` +
	`command = ["powershell", "-NoProfile", "-File", "script.ps1", "-Name", param.x] with param($Name) in script.ps1`

// batchProgram reports whether path names a batch file, which Windows
// runs through cmd.exe: one whose extension is .bat or .cmd, in any
// case, also followed by the trailing dots and spaces and the ::$DATA
// stream name that Windows drops from a file name (deploy.bat. is
// deploy.bat).
func batchProgram(path string) bool {
	p := strings.ToLower(path)
	for {
		trimmed := strings.TrimRight(strings.TrimSuffix(p, "::$data"), ". ")
		if trimmed == p {
			break
		}
		p = trimmed
	}
	p = p[strings.LastIndexAny(p, `/\`)+1:]
	return strings.HasSuffix(p, ".bat") || strings.HasSuffix(p, ".cmd")
}

// batchParams refuses a parameter or an answer in an argument of prog,
// the program of args, when it is a batch file (see batchProgram): cmd.exe
// reads the batch file's command line with its own rules, which no
// quoting of the standard rules survives (the "BatBadBut" class of bugs),
// so a value such as `x" & calc` runs the calc. resolved says prog is the
// program the name written in the configuration was found as.
func (c *compiler) batchParams(args []scriptArg, prog string, resolved bool) *hcl.Diagnostic {
	if !batchProgram(prog) || len(args) < 2 {
		return nil
	}
	for _, a := range args[1:] {
		what, subject, expr := c.argRef(a)
		if what == "" {
			continue
		}
		found := ""
		if resolved {
			found = fmt.Sprintf(", as %q is found on this machine,", prog)
		}
		return &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Parameter passed to a batch file",
			Detail:     fmt.Sprintf("This argument is made from %s and the program%s is a batch file, which Windows runs through cmd.exe: cmd.exe reads its command line with rules of its own that no quoting survives, so a value such as `x\" & calc` runs the calc, and %%NAME%% in it reads a variable. A batch file can take no parameter. %s.", what, found, batchFix),
			Subject:    subject,
			Expression: expr,
		}
	}
	return nil
}

// checkBatch refuses to run path, the program a call found, when it is a
// batch file and the command passes it a parameter or an answer: the load
// check sees the name written in the configuration, and the PATHEXT
// lookup of a call may find deploy.cmd for deploy. The backend calls it
// once the program is resolved, before it runs anything.
func (e *Exec) checkBatch(path string) error {
	if !batchProgram(path) {
		return nil
	}
	named := ""
	refs, answers := paramRefs(e.command, e.paramNames), answerRefs(e.command)
	switch {
	case len(refs) == 1:
		named = fmt.Sprintf("parameter %q", refs[0])
	case len(refs) > 1:
		named = "parameters " + adapters.QuoteList(refs)
	case len(answers) > 0:
		named = answerWhat(answers[0])
	default:
		return nil
	}
	return &argRefusal{fmt.Sprintf("the program %s is a batch file, which Windows runs through cmd.exe, and the command passes it %s: "+
		"cmd.exe reads a batch file's command line with rules of its own that no quoting survives, so the tool refuses to run it; "+
		"the tool's configuration needs fixing. %s", path, named, batchFix)}
}

// pwshDashes are the characters PowerShell reads as the "-" of a switch.
const pwshDashes = "-\u2013\u2014\u2015"

// switchText returns s, an argument of the interpreter, as the program
// reads it to find its switches: PowerShell trims the white space around
// an argument and takes an en dash, an em dash or a horizontal bar for
// "-" (–Command is -Command). Other programs read s as it is.
func (in interpreter) switchText(s string) string {
	if !in.dashes {
		return s
	}
	t := strings.TrimSpace(s)
	for i := 0; i < 2; i++ {
		r, size := utf8.DecodeRuneInString(t[i:])
		if size == 0 || !strings.ContainsRune(pwshDashes, r) {
			break
		}
		t = t[:i] + "-" + t[i+size:]
	}
	return t
}
