package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// programEnv reports whether an environment variable chooses the code
// that runs, and says how (for the message), or returns "". The variables
// are drawn up by class rather than one by one, with names compared
// case-insensitively (Windows' Path is PATH):
//
//   - the program and what the loader and the C library load into it:
//     PATH, LD_*, DYLD_*, GCONV_PATH, LOCPATH, NLSPATH, GLIBC_TUNABLES, ...;
//   - what a shell runs by itself: BASH_ENV, ENV, ZDOTDIR, FPATH, IFS,
//     SHELLOPTS, PS4, PROMPT_COMMAND, BASH_FUNC_*, ...;
//   - every variable of an interpreter or a language's toolchain, by its
//     prefix (PYTHON*, PERL*, RUBY*, NODE_*, JAVA_*, LUA_*, PHP*, GO*, ...),
//     of a package manager (PIP_*, UV_*, YARN_*, NPM_CONFIG_*, BUNDLE_*,
//     COMPOSER_*, CONDA_*, ...: the index it installs from, whose packages
//     run code) and of libraries that load modules (OPENSSL_*, MAGICK_*);
//   - every GIT_* variable but the data ones of gitDataEnv: git's variables
//     name programs, hooks, configs and repositories whose config runs
//     programs;
//   - by the words of the name: the programs other programs start (EDITOR,
//     PAGER, ASKPASS, BROWSER, SHELL, *_COMMAND, *_CMD, *_WRAPPER, ...), the
//     modules and plugins a program loads (*_MODULES, *_PLUGIN_PATH,
//     *_LIB, ...), the options passed to a program (*OPT, *OPTS,
//     *_OPTIONS_*, *FLAGS), where a program reads its settings (HOME,
//     *HOME, *CONFIG, *_CONFIG_*, *_CONF, *_CONFIGURE_*, and the startup
//     files *RC, *RCPATH, *RCFILE, *_RC_*: WGETRC, PSQLRC, HGRCPATH,
//     YARN_RC_FILENAME; not *SRC), what an editor or an interpreter runs
//     at start (*INIT: VIMINIT, EXINIT) and the libraries of interpreters
//     (*LOADPATH, *_LIBRARY, *_ENGINES: EMACSLOADPATH, TCL_LIBRARY).
func programEnv(name string) string {
	n := strings.ToUpper(name)
	switch n {
	case "PATH", "PATHEXT", "COMSPEC", "GCONV_PATH", "LOCPATH", "NLSPATH", "GLIBC_TUNABLES", "HOSTALIASES":
		return "the program, or what the loader and the C library load into it"
	case "ENV", "BASH_ENV", "ZDOTDIR", "FPATH", "IFS", "SHELLOPTS", "BASHOPTS", "PS0", "PS1", "PS2", "PS3", "PS4", "CDPATH":
		return "what a shell runs by itself"
	case "CLASSPATH", "TCLLIBPATH", "PSMODULEPATH", "VIM", "VIMRUNTIME":
		return "the modules an interpreter loads"
	case "MAILCAP", "MAILCAPS":
		return "the programs a program starts for each type of file"
	case "EDITOR", "VISUAL", "PAGER", "BROWSER", "FCEDIT", "CC", "CXX", "CPP", "LD", "AR", "AS", "MAKE",
		"LESS", "LESSOPEN", "LESSCLOSE", "LESSEDIT", "LESSKEY", "LESSKEYIN":
		return "a program another program starts"
	case "HOME", "WGETRC", "INPUTRC", "CURLRC":
		return "where a program reads its settings, which may name programs"
	}
	for _, p := range codeEnvPrefixes {
		if strings.HasPrefix(n, p.prefix) {
			return p.why
		}
	}
	if strings.HasPrefix(n, "GO") && !strings.Contains(n, "_") {
		return "the modules an interpreter loads, or its options" // GOFLAGS, GOPROXY, GOTOOLCHAIN, ...
	}
	if strings.HasPrefix(n, "GIT_") && !slices.Contains(gitDataEnv, n) {
		return "a program, hook, config or repository git uses"
	}
	// A word of the name (split at "_"), or the end of the name for the
	// words that end names written without "_" (MANPAGER, KUBECONFIG,
	// GNUPGHOME, CFLAGS).
	words := strings.Split(n, "_")
	has := func(ws ...string) bool {
		for _, w := range ws {
			if slices.Contains(words, w) {
				return true
			}
		}
		return false
	}
	ends := func(ws ...string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return strings.HasSuffix(n, w) })
	}
	switch {
	case ends("EDITOR", "PAGER", "ASKPASS", "SHELL", "_SSH") ||
		has("BROWSER", "COMMAND", "CMD", "EXEC", "WRAPPER", "RUNNER", "PROGRAM", "PROG", "RSH", "PRELOAD", "HOOK", "HOOKS"):
		return "a program another program starts"
	case ends("LIBPATH", "LOADPATH") || has("MODULE", "MODULES", "PLUGIN", "PLUGINS", "LIB", "LIBS", "LIBRARY", "LIBRARIES", "ENGINES", "STARTUP"):
		return "the modules or plugins a program loads"
	case ends("FLAGS", "OPTS", "OPT") || has("OPTIONS"):
		return "the options a program runs with"
	case ends("HOME", "CONFIG") || has("CONFIG", "CONF", "CONFIGURE"):
		return "where a program reads its settings, which may name programs"
	case ends("RC", "RCPATH", "RCFILE") && !ends("SRC") || has("RC"):
		return "the startup file a program reads, which may run programs"
	case ends("INIT"):
		return "what an editor or an interpreter runs at start"
	}
	return ""
}

// codeEnvPrefixes are the prefixes of the variables of the loader, of
// bash's exported functions, and of interpreters and language toolchains:
// their module paths, options, startup files and homes.
var codeEnvPrefixes = []struct{ prefix, why string }{
	{"LD_", "the libraries the loader loads into the program"},
	{"DYLD_", "the libraries the loader loads into the program"},
	{"BASH_FUNC_", "what a shell runs by itself"},
	{"PYTHON", "the modules an interpreter loads, or its options"},
	{"PERL", "the modules an interpreter loads, or its options"},
	{"RUBY", "the modules an interpreter loads, or its options"},
	{"GEM_", "the modules an interpreter loads, or its options"},
	{"BUNDLE_", "the modules an interpreter loads, or its options"},
	{"NODE_", "the modules an interpreter loads, or its options"},
	{"NPM_CONFIG_", "the modules an interpreter loads, or its options"},
	{"JAVA_", "the modules an interpreter loads, or its options"},
	{"_JAVA_", "the modules an interpreter loads, or its options"},
	{"JDK_", "the modules an interpreter loads, or its options"},
	{"LUA_", "the modules an interpreter loads, or its options"},
	{"PHP", "the modules an interpreter loads, or its options"},
	{"R_", "the modules an interpreter loads, or its options"},
	{"JULIA_", "the modules an interpreter loads, or its options"},
	{"DENO_", "the modules an interpreter loads, or its options"},
	{"BUN_", "the modules an interpreter loads, or its options"},
	{"DOTNET_", "the modules an interpreter loads, or its options"},
	{"CORECLR_", "the modules an interpreter loads, or its options"},
	{"COMPLUS_", "the modules an interpreter loads, or its options"},
	{"CARGO_", "the modules an interpreter loads, or its options"},
	{"RUSTUP_", "the modules an interpreter loads, or its options"},
	{"RUSTC", "the modules an interpreter loads, or its options"},
	{"RUSTDOC", "the modules an interpreter loads, or its options"},
	{"PIP_", packageManagerEnv},
	{"PIPX_", packageManagerEnv},
	{"UV_", packageManagerEnv},
	{"POETRY_", packageManagerEnv},
	{"PIPENV_", packageManagerEnv},
	{"PDM_", packageManagerEnv},
	{"HATCH_", packageManagerEnv},
	{"CONDA_", packageManagerEnv},
	{"MAMBA_", packageManagerEnv},
	{"YARN_", packageManagerEnv},
	{"PNPM_", packageManagerEnv},
	{"COMPOSER_", packageManagerEnv},
	{"NUGET_", packageManagerEnv},
	{"HOMEBREW_", packageManagerEnv},
	{"SBT_", packageManagerEnv},
	{"CABAL_", packageManagerEnv},
	{"OPENSSL_", "the engines, providers and configuration OpenSSL loads"},
	{"MAGICK_", "the modules and configuration ImageMagick loads"},
}

// packageManagerEnv says what a package manager's variables choose: its
// settings, the index packages come from among them, and so the code
// that runs when they are installed or used.
const packageManagerEnv = "the settings of a package manager, such as the index it installs packages from, whose code then runs"

// gitDataEnv are the GIT_* variables that carry data only (who wrote a
// commit and when, how pathspecs match, what to print), which a parameter
// may set; git's other variables name programs, hooks, configs, object
// stores and repositories, or turn off its checks.
var gitDataEnv = []string{
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
	"GIT_MERGE_VERBOSITY", "GIT_MERGE_AUTOEDIT", "GIT_REFLOG_ACTION", "GIT_HTTP_USER_AGENT",
	"GIT_TERMINAL_PROMPT", "GIT_FLUSH", "GIT_OPTIONAL_LOCKS", "GIT_DEFAULT_HASH",
	"GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME", "GIT_NO_REPLACE_OBJECTS",
}

// programEnvHint adds to the refusal of a GIT_* variable which of
// git's variables a parameter may set.
func programEnvHint(name string) string {
	if !strings.HasPrefix(strings.ToUpper(name), "GIT_") {
		return ""
	}
	return " Of git's variables, only those that carry data may use parameters, such as GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL and GIT_COMMITTER_DATE."
}

// match finds among flags the option arg starts with. partial says arg
// is only the literal start of an element whose rest is not known at
// load. With glued set, the value is in the element; otherwise the next
// argument is.
func (l loader) match(arg string, partial bool, flags []loadFlag) (f loadFlag, glued, ok bool) {
	for _, f := range flags {
		name := f.name
		if strings.HasPrefix(name, "--") {
			name += "="
		}
		switch {
		case arg == f.name && f.next && !partial:
			return f, false, true
		case f.glued && strings.HasPrefix(arg, name) && (partial || len(arg) > len(name)):
			return f, true, true
		}
	}
	if !l.clusters || len(arg) < 2 || arg[0] != '-' || arg[1] == '-' {
		return loadFlag{}, false, false
	}
	// A cluster: -wMstrict, -Bm.
	for i := 1; i < len(arg); i++ {
		r := arg[i]
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			break
		}
		for _, f := range flags {
			if f.name != "-"+string(r) {
				continue
			}
			switch {
			case (i+1 < len(arg) || partial) && f.glued:
				return f, true, true
			case i+1 == len(arg) && f.next && !partial:
				return f, false, true
			}
		}
	}
	return loadFlag{}, false, false
}

// subFlags are the options of l's subcommand name that load code.
func (l loader) subFlags(name string) []loadFlag {
	var out []loadFlag
	for _, f := range l.flags {
		if f.sub {
			out = append(out, f)
		}
	}
	return append(out, l.subcommands[name]...)
}

// loadParams refuses a parameter in the value of an option that loads
// code (["perl", "-M${param.x}"], ["node", "--require", param.x],
// ["git", "-c", "core.pager=${param.x}", "log"]) and in a variable that
// chooses the code set through env (["env", "LD_PRELOAD=${param.x}",
// "ls"]): the model calling the tool would choose the code that runs.
// args are the command's elements as evaluated at load (see scriptArgs),
// so the check holds however the list is built, as scriptParams does.
func (c *compiler) loadParams(args []scriptArg) hcl.Diagnostics {
	for start := range args {
		prog, ok := args[start].literal()
		if !ok {
			continue
		}
		if d := c.envWrapperParams(prog, args, start); d != nil {
			return hcl.Diagnostics{d}
		}
		l, ok := loaderFor(prog)
		if !ok {
			continue
		}
		if d := c.loadFlagParams(prog, l, args, start); d != nil {
			return hcl.Diagnostics{d}
		}
	}
	return nil
}

// leadingText is the text a, an element not known at load, is known to
// start with: the literal start of its template where it is written out,
// else the start its value is known to have (HCL may cut it short by a
// character).
func (a scriptArg) leadingText() string {
	switch {
	case a.run:
		return ""
	case a.expr != nil:
		return leadingLiteral(a.expr)
	case a.val.Type() == cty.String && !a.val.IsKnown():
		return a.val.Range().StringPrefix()
	}
	return ""
}

// refs are the parameters and answers a's value may come from: for a
// list known only at a call, all those its expression refers to, even
// alone (concat(["perl", "-M"], param.modules) lets the caller choose).
func (c *compiler) refs(a scriptArg) (params, answers []string) {
	if a.run && a.expr != nil {
		return paramRefs(a.expr, c.ParamNames()), answerRefs(a.expr)
	}
	return a.params, a.answers
}

// argRef names the parameter or the ask form's answer a's value comes
// from, for a message, and where to point at it; what is "" when it
// comes from neither.
func (c *compiler) argRef(a scriptArg) (what string, subject *hcl.Range, expr hcl.Expression) {
	params, answers := c.refs(a)
	root, name := "param", ""
	switch {
	case len(params) > 0:
		name, what = params[0], fmt.Sprintf("parameter %q", params[0])
	case len(answers) > 0:
		root, name, what = "answer", answers[0], answerWhat(answers[0])
	default:
		return "", nil, nil
	}
	if a.expr != nil && !a.run {
		return what, a.expr.Range().Ptr(), a.expr
	}
	from := c.cmdExpr
	if a.expr != nil {
		from = a.expr
	}
	rng, _ := builtRefRange(from, root, name)
	return what, &rng, c.cmdExpr
}

// runPart is b, a part of a list known only at a call that makes text
// of a parameter or an answer (see runBuilt), as an element: for a for
// expression, the element it makes of each item.
func (c *compiler) runPart(b hclsyntax.Expression) scriptArg {
	part := scriptArg{expr: b, params: paramRefs(b, c.ParamNames()), answers: answerRefs(b)}
	if f, ok := b.(*hclsyntax.ForExpr); ok {
		part.expr = f.ValExpr
	}
	return part
}

// loadFlagParams checks the options of the loader at args[start]: its
// own, up to its first operand, and then those of a subcommand.
func (c *compiler) loadFlagParams(prog string, l loader, args []scriptArg, start int) *hcl.Diagnostic {
	in, _ := interpreterFor(prog)
	flags, sub := l.flags, false
	for i := start + 1; i < len(args); i++ {
		if args[i].run {
			// A list known only at a call: the options it may hold are
			// those its text made from a parameter starts with, as in
			// [for m in param.modules : "-M${m}"].
			for _, b := range args[i].builtExprs {
				part := c.runPart(b)
				lead := leadingLiteral(part.expr)
				if f, glued, ok := l.match(lead, true, flags); ok && glued {
					if d := c.loadDiag(part, prog, l, f, lead); d != nil {
						return d
					}
				}
			}
			continue
		}
		arg, literal := args[i].literal()
		if !literal {
			arg = args[i].leadingText()
		}
		if arg == "--" || arg == "--end-of-options" {
			return nil // the end of the options: the rest are operands
		}
		if f, glued, ok := l.match(arg, !literal, flags); ok {
			switch {
			case glued && !literal:
				if d := c.loadDiag(args[i], prog, l, f, arg); d != nil {
					return d
				}
			case !glued && literal && i+1 < len(args):
				if d := c.loadDiag(args[i+1], prog, l, f, arg); d != nil {
					return d
				}
				i++
			}
			continue
		}
		switch {
		case l.envOperands && !strings.HasPrefix(arg, "-") && (strings.Contains(arg, "=") || !literal && arg == ""):
			// A variable the program sets for the command (sudo
			// NAME=VALUE cmd), or, from a parameter alone, perhaps one.
			if !literal {
				if d := c.envValueDiag(args[i], prog, arg); d != nil {
					return d
				}
			}
		case !literal && !strings.HasPrefix(arg, "-"), literal && (len(arg) < 2 || arg[0] != '-'):
			// An operand: the script, the class, git's subcommand. A
			// subcommand's options come after it, and git's among its
			// operands.
			switch {
			case !sub && (l.subcommands != nil || slices.ContainsFunc(l.flags, func(f loadFlag) bool { return f.sub })):
				flags, sub = l.subFlags(arg), true
			case !l.interleaved:
				return nil
			}
		case literal && (slices.Contains(l.values, arg) || in.scriptFlag(arg)):
			i++ // its value
		}
	}
	return nil
}

// loadDiag refuses value, the value of the option f of prog, the loader
// l, when it comes from a parameter or an answer; nil when it does not.
// arg is how the option is written.
func (c *compiler) loadDiag(value scriptArg, prog string, l loader, f loadFlag, arg string) *hcl.Diagnostic {
	what, subject, expr := c.argRef(value)
	if what == "" {
		return nil
	}
	if f.env {
		lead, literal := value.literal()
		if !literal {
			lead = value.leadingText()
		}
		if after, ok := strings.CutPrefix(lead, f.name); ok {
			lead = strings.TrimPrefix(after, "=") // the value glued: --setenv=NAME=VALUE
		}
		return c.envValueDiag(value, prog, lead)
	}
	written := f.name
	if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && len(f.name) == 2 && !strings.HasPrefix(arg, f.name) {
		written = f.name + " (in " + arg + ")"
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Parameter chooses the code that runs",
		Detail: fmt.Sprintf("The option %s of %s %s, and its value refers to %s, so the model calling the tool would choose code that runs. "+
			"Write the option's value literally in the configuration, declaring a tool for each choice if the model is to choose, and pass values as arguments of their own, as in %s.",
			written, prog, f.what, what, l.example),
		Subject:    subject,
		Expression: expr,
	}
}

// envValueDiag refuses value, NAME=VALUE that prog sets for the command
// it runs (sudo's operands, systemd-run's --setenv), when the name comes
// from a parameter or an answer, or the variable chooses the code that
// runs and its value comes from one; nil otherwise. lead is the text
// value is known to start with, from its name.
func (c *compiler) envValueDiag(value scriptArg, prog, lead string) *hcl.Diagnostic {
	what, subject, expr := c.argRef(value)
	if what == "" {
		return nil
	}
	name, _, found := strings.Cut(lead, "=")
	if !found {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Name must be constant",
			Detail: fmt.Sprintf("The name of a variable %s sets for the command it runs refers to %s, so the model calling the tool would choose "+
				"which variable it sets (PATH, LD_PRELOAD, ...), and with it the program that runs. "+
				"Write the name literally and use parameters only after the \"=\" of other variables, as in %s.", prog, what, envSetterExample(prog)),
			Subject:    subject,
			Expression: expr,
		}
	}
	if why := programEnv(name); why != "" {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Parameter chooses the program",
			Detail: fmt.Sprintf("The environment variable %s, which %s sets, chooses the code the command runs (%s), so its value cannot refer to %s: "+
				"the model calling the tool would choose the program. Write a constant value, or leave it out.%s", name, prog, why, what, programEnvHint(name)),
			Subject:    subject,
			Expression: expr,
		}
	}
	return nil
}

// envSetterExample is a command of prog, a program that sets
// variables for the command it runs, that sets one from a parameter.
func envSetterExample(prog string) string {
	if l, ok := loaderFor(prog); ok && l.example != "" {
		return l.example
	}
	return `command = ["env", "GREETING=${param.text}", "printenv", "GREETING"]`
}

// envWrapperParams checks the variables an env program at args[start]
// sets (["env", "NAME=VALUE", ..., "program"]) as envArgRefs checks
// the env argument: the names are fixed, and the variables that choose
// the code that runs do not depend on parameters.
func (c *compiler) envWrapperParams(prog string, args []scriptArg, start int) *hcl.Diagnostic {
	if programName(prog) != "env" {
		return nil
	}
	for i := start + 1; i < len(args); i++ {
		a := args[i]
		if arg, ok := a.literal(); ok {
			switch {
			case slices.Contains(interpreters()["env"].optArgs, arg):
				i++ // an option whose value is the next argument: -u, -C, -a, ...
			case strings.HasPrefix(arg, "-"):
			case !strings.Contains(arg, "="):
				return nil // the program
			}
			continue
		}
		if a.run {
			// A list known only at a call, before the program: it may
			// hold the program, so that the elements after it are read
			// on, and a parameter or an answer in it may set any
			// variable (concat(["env"], param.vars, ["bash", ...])).
			// scriptParams has refused one that makes text of them (it
			// may hold env's -S and its string).
			if d := c.envAssignDiag(a); d != nil {
				return d
			}
			continue
		}
		if strings.HasPrefix(a.leadingText(), "-") {
			continue // an option
		}
		if _, _, assign := c.envAssign(a); !assign {
			return nil // the program
		}
		if d := c.envAssignDiag(a); d != nil {
			return d
		}
	}
	return nil
}

// envAssign reads a, an argument of env not known at load: assign says
// it is NAME=VALUE; name is the text before the "="; and fromArgs says
// the name may come from a parameter or an answer. Where a is written
// out, its text says, and a value made from a parameter or an answer with
// no "=" written before it may set any name; where it is not, the text its
// value is known to start with says, and the same holds.
func (c *compiler) envAssign(a scriptArg) (name string, fromArgs, assign bool) {
	if a.expr != nil {
		name, fromArgs, assign = c.envAssignName(a.expr)
		if params, answers := c.refs(a); !assign && len(params)+len(answers) > 0 {
			// Made from a parameter or an answer with no "=" written
			// before it: the value may hold one, and set any variable
			// (["env", param.x, "bash", ...] with x=BASH_ENV=...).
			return "", true, true
		}
		return name, fromArgs, assign
	}
	lead := a.leadingText()
	if before, _, found := strings.Cut(lead, "="); found {
		return before, false, true
	}
	if !a.built() {
		return "", false, false
	}
	if lead == "" {
		return "", true, true
	}
	return lead, false, true // the name, perhaps cut short by HCL
}

// envAssignDiag refuses a, an argument of env not known at load, when
// it sets a variable whose name comes from a parameter or an answer, or
// one that chooses the code that runs from one; nil otherwise.
func (c *compiler) envAssignDiag(a scriptArg) *hcl.Diagnostic {
	n, fromArgs, assign := c.envAssign(a)
	if !assign {
		return nil
	}
	what, subject, expr := c.argRef(a)
	if fromArgs {
		name := fmt.Sprintf("The name of a variable env sets refers to %s", what)
		if _, _, written := c.envAssignName(a.expr); a.run || a.expr != nil && !written || a.expr == nil && !strings.Contains(a.leadingText(), "=") {
			// ["env", param.x, ...]: env reads an argument with "="
			// before its program as a variable to set.
			name = fmt.Sprintf("This argument of env, before its program, refers to %s, whose value may be NAME=VALUE, which env reads as a variable to set", what)
		}
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Name must be constant",
			Detail: fmt.Sprintf("%s, so the model calling the tool would choose "+
				"which variable it sets (PATH, LD_PRELOAD, BASH_ENV, ...), and with it the program that runs. "+
				"Write the name literally and use parameters only after the \"=\" of other variables, as in command = [\"env\", \"GREETING=${param.text}\", \"printenv\", \"GREETING\"].", name),
			Subject:    subject,
			Expression: expr,
		}
	}
	if why := programEnv(n); why != "" && what != "" {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Parameter chooses the program",
			Detail: fmt.Sprintf("The environment variable %s, which env sets, chooses the code the command runs (%s), so its value cannot refer to %s: "+
				"the model calling the tool would choose the program. Write a constant value, or leave it out.%s", n, why, what, programEnvHint(n)),
			Subject:    subject,
			Expression: expr,
		}
	}
	return nil
}

// envAssignName reads an argument of env that is known only at a call:
// assign says it is NAME=VALUE, a template with "=" in its literal text;
// name is the text before that "=", the parts before it evaluated; and
// fromArgs says the name refers to a parameter or an answer.
func (c *compiler) envAssignName(expr hclsyntax.Expression) (name string, fromArgs, assign bool) {
	if w, ok := expr.(*hclsyntax.TemplateWrapExpr); ok {
		expr = w.Wrapped
	}
	tmpl, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok {
		return "", false, false
	}
	var b strings.Builder
	for _, p := range tmpl.Parts {
		if lit, ok := literalString(p); ok {
			if before, _, found := strings.Cut(lit, "="); found {
				b.WriteString(before)
				return b.String(), fromArgs, true
			}
			b.WriteString(lit)
			continue
		}
		if refsArgs(p) {
			fromArgs = true
			continue
		}
		if v, d := p.Value(c.Eval); !d.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
			b.WriteString(v.AsString())
		}
	}
	return "", false, false
}
