package exec

// The exec backend runs a command given as an argv list, never through a
// shell, and returns its standard output.
//
//	exec {
//	  command      = ["grep", "-n", "--", param.pattern, "notes.txt"]
//	  timeout      = "5s"                     # default 30s, > 0 and <= 1h
//	  kill_timeout = "1s"                     # after kill_signal, before SIGKILL
//	  kill_signal  = "SIGTERM"                # asks a stopped command to exit
//	  dir          = "scripts"                # relative to the config file
//	  env          = { LANG = "C.UTF-8" }     # added to the environment
//	  inherit_env  = false                    # default: a minimal environment
//	  stdin        = param.text               # default: empty standard input
//	  max_output   = 1048576                  # bytes of stdout kept
//	}

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/toolhost/toolhost/internal/regular"
)

const (
	// DefaultExecTimeout is how long a command may run when its exec block
	// sets no timeout.
	DefaultExecTimeout = 30 * time.Second
	// MaxExecTimeout is the largest timeout an exec block may set.
	MaxExecTimeout = time.Hour
	// DefaultExecKillTimeout is how long a command that is stopped (its
	// timeout passed, the call was cancelled, the tool was unloaded) has
	// to exit after its kill_signal before its process group is killed
	// with SIGKILL, when its exec block sets no kill_timeout. It is kept
	// under the 2 s a stdio session's end gives calls to answer, and under
	// the 2 s MCP clients commonly wait between SIGTERM and SIGKILL.
	DefaultExecKillTimeout = time.Second
	// MaxExecKillTimeout is the largest kill_timeout an exec block may set.
	MaxExecKillTimeout = time.Minute
	// DefaultExecKillSignal is the signal that asks a stopped command to
	// exit when its exec block sets no kill_signal.
	DefaultExecKillSignal = "SIGTERM"
	// DefaultExecMaxOutput is how many bytes of standard output are kept
	// when an exec block sets no max_output.
	DefaultExecMaxOutput = 1 << 20
	// MaxExecMaxOutput is the largest max_output an exec block may set.
	MaxExecMaxOutput = 64 << 20

	// stderrKeep is how much of the end of standard error is kept for
	// error messages.
	stderrKeep = 64 << 10
	// stderrShown is about how many bytes of standard error an error
	// message quotes.
	stderrShown = 500
	// waitDelay bounds how long Wait waits for the output pipes to close
	// after the command exited or was killed (a process that left the
	// command's process group may still hold them).
	waitDelay = time.Second
	// defaultPath is the search path used when the host has no PATH.
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// minimalEnv lists the host variables a command gets when inherit_env is
// false, besides every LC_* variable.
var minimalEnv = []string{"PATH", "HOME", "LANG", "TMPDIR", "USER"}

// blockSchema is the schema of an exec block. Every attribute is
// optional in the schema so that a missing command gets a diagnostic of our
// own with a fix.
var blockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command"},
		{Name: "timeout"},
		{Name: "kill_timeout"},
		{Name: "kill_signal"},
		{Name: "dir"},
		{Name: "env"},
		{Name: "inherit_env"},
		{Name: "stdin"},
		{Name: "max_output"},
		{Name: "stderr_log"},
		{Name: "binary"},
		{Name: "mime_type"},
		{Name: "charset"},
	},
}

func init() {
	adapters.Register(adapters.Kind{
		Name:    "exec",
		Summary: "run a command (an argv list, never a shell) and return its standard output",
		Compile: compile,
		Wait:    waitCommands,
		Kill:    killCommands,
	})
}

// Exec is a compiled exec block: a backend that runs a command per call.
//
// Each call runs the command in a process group of its own, with a minimal
// environment (unless inherit_env is set), empty standard input (unless
// stdin is set) and a timeout. When the command times out, is cancelled or
// the backend is closed, its process group is sent kill_signal and, should
// anything in it still run kill_timeout later, killed with SIGKILL; when
// the command exits by itself, what it left running in its group is
// killed at once. Background processes the command started do not outlive
// the call.
type Exec struct {
	tool    string
	baseDir string
	params  map[string]adapters.ParamInfo
	// paramNames are the names of params, sorted.
	paramNames []string

	command hcl.Expression
	argv    []string    // the whole argv when it does not depend on arguments
	sources []argSource // where each element comes from; nil when unknown
	allRefs []string    // every parameter the command refers to
	// concatArgs are the lists of a command written concat([...], ...),
	// whose length is known only when the tool is called; sources are
	// then worked out for each call.
	concatArgs []concatArg
	timeout    time.Duration
	// killTimeout is how long a stopped command has to exit after
	// killSignal before its group is killed; 0 kills it at once.
	killTimeout time.Duration
	killSignal  string // a name from killSignals
	dir         string // working directory, absolute or relative to the process's
	env         hcl.Expression
	envConst    map[string]*string // cached env when it does not depend on arguments
	envKnown    bool
	inheritEnv  bool
	stdin       hcl.Expression
	stdinConst  *string // cached stdin when it does not depend on arguments
	maxOutput   int
	stderrLog   string // MCP logging level of forwarded stderr lines; "" forwards none
	binary      bool   // standard output is bytes, passed on as they are
	// charset decodes standard output and error to UTF-8; nil when the
	// command writes UTF-8.
	charset  encoding.Encoding
	mimeType string // media type of binary output; "" sniffs it

	// sensitiveArgs are the indexes of the command's elements wrapped in
	// sensitive(...): their values are hidden like secret variables.
	sensitiveArgs []int

	mu      sync.Mutex
	closed  bool
	running map[int]*process // running commands, by process group
}

// concatArg is one list of a command written concat([...], ...): a
// literal list, whose elements' sources are known, or an expression whose
// elements may come from any of params.
type concatArg struct {
	expr    hcl.Expression
	literal []argSource // nil unless expr is a literal list
	params  []string
}

// argSource describes where one element of the command comes from.
type argSource struct {
	// params are the parameters whose values can make up the start of the
	// element. Nil when the start is fixed by the configuration.
	params []string
	// separator is set when the element is a literal "--" in the
	// configuration.
	separator bool
}

func compile(block *hcl.Block, cc *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
	if cc == nil {
		cc = &adapters.CompileContext{}
	}
	content, diags := block.Body.Content(blockSchema)
	e := &Exec{
		tool:        cc.ToolName,
		baseDir:     cc.BaseDir,
		params:      cc.Params,
		timeout:     DefaultExecTimeout,
		killTimeout: DefaultExecKillTimeout,
		killSignal:  DefaultExecKillSignal,
		maxOutput:   DefaultExecMaxOutput,
		running:     map[int]*process{},
	}
	if e.params == nil {
		e.params = map[string]adapters.ParamInfo{}
	}
	c := &compiler{Attrs: adapters.Attrs{CC: cc, Eval: cc.Eval}}
	e.paramNames = c.ParamNames()
	if c.Eval == nil {
		c.Eval = &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.DynamicVal}}
	}

	attrs := content.Attributes
	if a, ok := attrs["command"]; ok {
		d := c.command(e, a)
		if !d.HasErrors() {
			d = append(d, c.eachVariant(c.loadParams)...)
		}
		diags = append(diags, d...)
	} else {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing command",
			Detail: `An exec block needs a "command" argument: the program and its arguments as a list of strings, ` +
				`such as command = ["grep", "-n", "--", param.pattern, "notes.txt"]. Add it to the block.`,
			Subject: block.DefRange.Ptr(),
		})
	}
	if a, ok := attrs["timeout"]; ok {
		diags = append(diags, c.timeout(e, a)...)
	}
	if a, ok := attrs["kill_timeout"]; ok {
		diags = append(diags, c.killTimeout(e, a)...)
	}
	if a, ok := attrs["kill_signal"]; ok {
		diags = append(diags, c.killSignal(e, a)...)
	}
	if a, ok := attrs["max_output"]; ok {
		diags = append(diags, c.maxOutput(e, a)...)
	}
	if a, ok := attrs["dir"]; ok {
		d := c.dir(e, a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if err := e.checkDir(); err != nil {
				// A warning, as for a program not found: the directory
				// may be made after the config is written.
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Working directory not found",
					Detail: fmt.Sprintf("%s, so calls of tool %q fail until that is fixed. dir is relative to the config file's directory; create the directory, or correct the path.",
						sentence(err.Error()), e.tool),
					Subject:    a.Expr.Range().Ptr(),
					Expression: a.Expr,
				})
			}
		}
	} else {
		e.dir = cc.BaseDir
	}
	if a, ok := attrs["inherit_env"]; ok {
		diags = append(diags, c.inheritEnv(e, a)...)
	}
	if a, ok := attrs["env"]; ok {
		diags = append(diags, c.env(e, a)...)
	} else {
		e.envKnown = true
	}
	if a, ok := attrs["stdin"]; ok {
		diags = append(diags, c.stdin(e, a)...)
	}
	if a, ok := attrs["stderr_log"]; ok {
		diags = append(diags, c.stderrLog(e, a)...)
	}
	if a, ok := attrs["binary"]; ok {
		diags = append(diags, c.Boolean(a, &e.binary, "Write binary = true when the command prints an image, a sound or another file's bytes.")...)
	}
	if a, ok := attrs["mime_type"]; ok {
		diags = append(diags, c.mimeType(e, a)...)
		if _, ok := attrs["binary"]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "mime_type without binary",
				Detail:   "mime_type names the media type of binary output. Add binary = true to the exec block, or remove mime_type: text output is text/plain, or application/json when it is JSON.",
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	if a, ok := attrs["charset"]; ok {
		diags = append(diags, c.charset(e, a)...)
		if e.binary {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "charset with binary",
				Detail:   "charset names the encoding of text output, and binary = true passes the output on as bytes. Remove one of them.",
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	// A program that is not found is reported with the block's other
	// mistakes, not only once they are fixed.
	if d := c.checkProgram(e); d != nil {
		diags = append(diags, d)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return e, diags
}

// checkProgram warns when the program is not where a call would look for
// it: on the PATH the command gets, or at a path relative to the config
// file. It is a warning, not an error: the program may be installed after
// the config is written, and validate may run on another machine.
func (c *compiler) checkProgram(e *Exec) *hcl.Diagnostic {
	if c.program == "" {
		return nil
	}
	path, ok := os.LookupEnv("PATH")
	if !ok {
		path = defaultPath
	}
	if e.envKnown {
		if v, set := e.envConst["PATH"]; set {
			path = defaultPath
			if v != nil {
				path = *v
			}
		}
	}
	_, err := e.resolveProgram(c.program, []string{"PATH=" + path})
	if err == nil {
		return nil
	}
	detail := fmt.Sprintf("The program %q is not on the PATH toolhost gives the command, so calls of tool %q fail until it is installed. Install it, or give its full path as the first element of command.", c.program, e.tool)
	hint := ""
	if !strings.ContainsRune(c.program, '/') {
		hint = e.localProgramHint(c.program)
	}
	switch {
	case hint != "":
		detail = fmt.Sprintf("The program %q is not on the PATH toolhost gives the command, so calls of tool %q fail. %s.", c.program, e.tool, sentence(hint))
	case filepath.IsAbs(c.program):
		detail = fmt.Sprintf("%s, so calls of tool %q fail until it is there. Install the program at that path, make it executable (chmod +x), or correct the path.", sentence(err.Error()), e.tool)
	case strings.ContainsRune(c.program, '/'):
		detail = fmt.Sprintf("%s, so calls of tool %q fail until it is there. A program path is relative to the config file's directory; create the file, make it executable (chmod +x), or correct the path.", sentence(err.Error()), e.tool)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Program not found",
		Detail:   detail,
		Subject:  c.programRange.Ptr(),
	}
}

// sentence capitalizes a message for the start of a sentence.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// compiler holds what the attribute checks of one exec block share.
type compiler struct {
	adapters.Attrs
	// program is the command's first element once it is known to be fixed,
	// and programRange where it is written.
	program      string
	programRange hcl.Range
	// cmdExpr is the command's expression, and variants the lists it may
	// be at a call (see commandVariants), each with its elements as the
	// script checks see them (see scriptArgs); nil when the command has
	// errors.
	cmdExpr  hcl.Expression
	variants [][]scriptArg
}

func (c *compiler) command(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.command = a.Expr
	c.cmdExpr = a.Expr
	const example = `["grep", "-n", "--", param.pattern, "notes.txt"]`
	invalid := func(rng hcl.Range, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid command",
			Detail:     detail,
			Subject:    rng.Ptr(),
			Expression: a.Expr,
		}
	}

	tuple, isTuple := a.Expr.(*hclsyntax.TupleConsExpr)
	if isTuple {
		for i, ex := range tuple.Exprs {
			if adapters.CallsSensitive(ex) {
				e.sensitiveArgs = append(e.sensitiveArgs, i)
			}
		}
	}
	if isTuple && len(tuple.Exprs) == 0 {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Empty command",
			Detail: "The command list is empty, so there is no program to run. " +
				"Put the program first and its arguments after it, such as command = " + example + ".",
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}}
	}
	// The program is fixed by the configuration.
	if isTuple {
		if refs := paramRefs(tuple.Exprs[0], c.ParamNames()); len(refs) > 0 {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Program depends on a parameter",
				Detail: fmt.Sprintf("The first element of command names the program to run, and it refers to parameter %q. "+
					"The program must be fixed in the configuration: name it literally and pass parameters as later elements, "+
					"such as command = %s.", refs[0], example),
				Subject:    tuple.Exprs[0].Range().Ptr(),
				Expression: a.Expr,
			}}
		}
	}

	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	switch {
	case ty == cty.DynamicPseudoType:
	case ty.IsListType(), ty.IsTupleType():
	default:
		return append(diags, invalid(a.Expr.Range(), fmt.Sprintf(
			"The command must be a list of strings, the program followed by its arguments, and this is %s. "+
				"Each element is passed to the program as one argument and no shell is involved; write, for example, command = %s. "+
				"To use shell syntax, run the shell explicitly, as in [\"sh\", \"-c\", \"...\", \"sh\", param.x], and read parameters as \"$1\".",
			adapters.TypeName(ty), example)))
	}
	if v.IsKnown() && v.IsNull() {
		return append(diags, invalid(a.Expr.Range(),
			"The command is null. Write the program and its arguments as a list, such as command = "+example+"."))
	}

	elemRange := func(i int) hcl.Range {
		if isTuple && i < len(tuple.Exprs) {
			return tuple.Exprs[i].Range()
		}
		return a.Expr.Range()
	}
	if ty.IsListType() && !argType(ty.ElementType()) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid command element",
			Detail: fmt.Sprintf("The command is a list of %s, and each element must be a string, number or bool: "+
				"one argument of the program. Pass each argument as its own element.", ty.ElementType().FriendlyName()),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}

	var elems []cty.Value
	if v.IsKnown() && !v.IsNull() {
		elems = v.AsValueSlice()
		if len(elems) == 0 {
			return append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Empty command",
				Detail: "The command list is empty, so there is no program to run. " +
					"Put the program first and its arguments after it, such as command = " + example + ".",
				Subject:    a.Expr.Range().Ptr(),
				Expression: a.Expr,
			})
		}
		for i, el := range elems {
			if problem := argProblem(el); problem != "" {
				fix := "Pass each argument as its own element."
				if t := el.Type(); i > 0 && (t.IsListType() || t.IsSetType() || t.IsTupleType()) {
					fix = "To pass each item of a list as an argument of its own, join the lists with concat, as in command = concat([\"git\", \"add\", \"--\"], param.files)."
				}
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid command element",
					Detail: fmt.Sprintf("The element command[%d] %s, and each element must be a string, number or bool: "+
						"one argument of the program. %s", i, problem, fix),
					Subject:    elemRange(i).Ptr(),
					Expression: a.Expr,
				})
			}
		}
	}
	if diags.HasErrors() {
		return diags
	}

	// The program must be known now. A command of a length known only
	// when the tool is called, concat(["git", "add", "--"], param.files),
	// has it first in its first list.
	if elems == nil {
		if call, head := concatHead(a.Expr); head != nil && len(paramRefs(head, c.ParamNames())) == 0 {
			if hv, d := c.Value(head); !d.HasErrors() && hv.IsWhollyKnown() {
				if prog, problem := argString(hv); problem == "" && prog != "" {
					c.program, c.programRange = prog, head.Range()
					e.allRefs = paramRefs(a.Expr, c.ParamNames())
					for _, arg := range call.Args {
						ca := concatArg{expr: arg}
						if t, ok := arg.(*hclsyntax.TupleConsExpr); ok {
							ca.literal = c.tupleSources(t, nil)
						} else {
							ca.params = paramRefs(arg, c.ParamNames())
						}
						e.concatArgs = append(e.concatArgs, ca)
					}
					return append(diags, c.scriptChecks(a.Expr)...)
				}
			}
		}
	}
	if elems == nil || !elems[0].IsKnown() {
		refs := paramRefs(a.Expr, c.ParamNames())
		detail := "The first element of command names the program to run, and it must be fixed in the configuration, but this command is only known when the tool is called."
		switch {
		case elems == nil && len(refs) > 0:
			detail = fmt.Sprintf("The first element of command names the program to run, and it must be fixed in the configuration, but how this command starts is only known when the tool is called (it depends on parameter %s). "+
				"To add a list parameter's items as arguments, put the program first in concat's first list, as in command = concat([\"git\", \"add\", \"--\"], param.files).", adapters.QuoteList(refs))
		case len(refs) > 0:
			detail = fmt.Sprintf("The first element of command names the program to run, and it must be fixed in the configuration, but this command depends on parameter %q.", refs[0])
		}
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Program not fixed",
			Detail:     detail + " Write the command as a list whose first element is the program's name, such as command = " + example + ".",
			Subject:    elemRange(0).Ptr(),
			Expression: a.Expr,
		})
	}
	if prog, _ := argString(elems[0]); prog == "" {
		return append(diags, invalid(elemRange(0),
			"The program name is empty. Name the program to run as the first element, such as command = "+example+"."))
	}

	c.program, _ = argString(elems[0])
	c.programRange = elemRange(0)
	if d := c.scriptChecks(a.Expr); d.HasErrors() {
		return append(diags, d...)
	}
	e.allRefs = paramRefs(a.Expr, c.ParamNames())
	if v.IsWhollyKnown() {
		e.argv = make([]string, len(elems))
		for i, el := range elems {
			e.argv[i], _ = argString(el)
		}
	}
	switch {
	case isTuple:
		e.sources = c.tupleSources(tuple, elems)
	case elems != nil:
		// The length is known: known elements come from the configuration;
		// the others may come from any parameter the command refers to.
		e.sources = make([]argSource, len(elems))
		for i, el := range elems {
			if el.IsWhollyKnown() {
				s, _ := argString(el)
				e.sources[i].separator = s == "--"
				continue
			}
			e.sources[i].params = e.allRefs
		}
	}
	return diags
}

// tupleSources says where each element of a literal list in the command
// comes from; elems are the elements' values known at load, or nil to
// evaluate the ones that refer to nothing.
func (c *compiler) tupleSources(tuple *hclsyntax.TupleConsExpr, elems []cty.Value) []argSource {
	sources := make([]argSource, len(tuple.Exprs))
	for i, x := range tuple.Exprs {
		if len(x.Variables()) == 0 {
			v := cty.DynamicVal
			if i < len(elems) {
				v = elems[i]
			} else if val, d := c.Value(x); !d.HasErrors() {
				v = val
			}
			if v.IsKnown() {
				s, _ := argString(v)
				sources[i].separator = s == "--"
				continue
			}
		}
		sources[i].params = leadingParamRefs(x, c.ParamNames())
	}
	return sources
}

func (c *compiler) timeout(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	d, diags, ok := c.Duration(a, "timeout", "Timeout", false, MaxExecTimeout, `"30s"`, `"30s", "2m" or "1h"`)
	if ok {
		e.timeout = d
	}
	return diags
}

func (c *compiler) killTimeout(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	d, diags, ok := c.Duration(a, "kill_timeout", "kill_timeout", true, MaxExecKillTimeout, `"1s"`, `"1s", "500ms" or "10s"`)
	if ok {
		e.killTimeout = d
	}
	return diags
}

// killSignals are the signals kill_signal may name: those a program
// may catch to clean up and exit. SIGKILL is what kill_timeout leads to.
var killSignals = []string{"SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"}

// killSignal reads the signal that asks a stopped command to exit. A name
// is taken in any case, with or without its "SIG".
func (c *compiler) killSignal(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"SIGINT"`)
	if !ok {
		return diags
	}
	if v.IsNull() || v.Type() != cty.String {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid kill_signal",
			Detail: fmt.Sprintf("The kill_signal must be a signal name, and this is %s. Write one of %s, such as kill_signal = \"SIGINT\".",
				adapters.TypeName(v.Type()), adapters.QuoteList(killSignals)),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	given := v.AsString()
	name := strings.ToUpper(strings.TrimSpace(given))
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if slices.Contains(killSignals, name) {
		e.killSignal = name
		return diags
	}
	detail := fmt.Sprintf("%q is not a signal kill_signal can send. Write one of %s.", given, adapters.QuoteList(killSignals))
	switch {
	case name == "SIGKILL" || name == "SIG9":
		detail = `SIGKILL cannot be caught, so a command has no chance to clean up: it is what kill_timeout leads to. ` +
			`To kill a stopped command at once, write kill_timeout = "0s" and leave kill_signal out.`
	case strings.TrimPrefix(name, "SIG") != "" && strings.Trim(strings.TrimPrefix(name, "SIG"), "0123456789") == "":
		detail = fmt.Sprintf("%q is a number; kill_signal takes a name, as numbers differ between systems. Write one of %s.", given, adapters.QuoteList(killSignals))
	default:
		if s := adapters.SuggestName(name, killSignals); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		}
	}
	return append(diags, &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Unknown kill_signal",
		Detail:     detail,
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	})
}

// charset reads the encoding of the command's text output.
func (c *compiler) charset(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"gbk"`)
	if !ok {
		return diags
	}
	var enc encoding.Encoding
	if v.Type() == cty.String {
		enc, ok = charset.ByLabel(v.AsString())
	}
	if v.Type() != cty.String || !ok {
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Unknown charset",
			Detail:     charset.UnknownDetail(charsetText(v), "the command writes"),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if !charset.IsUTF8(enc) {
		e.charset = enc
	}
	return diags
}

func (c *compiler) maxOutput(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	n, diags, ok := c.ByteCount(a, MaxExecMaxOutput, "64 MiB")
	if ok {
		e.maxOutput = n
	}
	return diags
}

func (c *compiler) dir(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"scripts"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.AsString() == "" || strings.ContainsRune(sv.AsString(), 0) {
		detail := "The dir argument is empty."
		if err != nil {
			detail = fmt.Sprintf("The dir argument must be a string, and this is %s.", adapters.TypeName(v.Type()))
		} else if sv.AsString() != "" {
			detail = "The dir argument contains a NUL character."
		}
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid dir",
			Detail: detail + " Write the working directory of the command as a path, absolute or relative to the configuration file, " +
				`such as dir = "scripts", or remove the argument to run in the configuration file's directory.`,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	d := sv.AsString()
	if !filepath.IsAbs(d) && c.CC.BaseDir != "" {
		d = filepath.Join(c.CC.BaseDir, d)
	}
	e.dir = filepath.Clean(d)
	return diags
}

func (c *compiler) inheritEnv(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	return c.Boolean(a, &e.inheritEnv, "Write inherit_env = true to pass the host's whole environment to the command.")
}

// stderrLog decodes stderr_log: the MCP logging level at which the
// command's standard error lines are sent to the client.
func (c *compiler) stderrLog(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"info"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil || !adapters.ValidLogLevel(sv.AsString()) {
		given := adapters.TypeName(v.Type())
		if err == nil {
			given = fmt.Sprintf("%q", sv.AsString())
		}
		detail := fmt.Sprintf("stderr_log is the MCP logging level at which the command's standard error lines reach the client, one of %s; this is %s.", adapters.QuoteList(adapters.LogLevels), given)
		if err == nil {
			if s := adapters.SuggestName(sv.AsString(), adapters.LogLevels); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
		}
		return append(diags, &hcl.Diagnostic{
			Severity:   hcl.DiagError,
			Summary:    "Invalid stderr_log",
			Detail:     detail,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	e.stderrLog = sv.AsString()
	return diags
}

// mimeType decodes mime_type, the media type of binary output.
func (c *compiler) mimeType(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	v, diags, ok := c.Constant(a, `"image/png"`)
	if !ok {
		return diags
	}
	sv, err := convert.Convert(v, cty.String)
	if err == nil {
		if mt, _, perr := mime.ParseMediaType(sv.AsString()); perr == nil && strings.Contains(mt, "/") {
			e.mimeType = mt
			return diags
		}
	}
	return append(diags, &hcl.Diagnostic{
		Severity:   hcl.DiagError,
		Summary:    "Invalid mime_type",
		Detail:     "mime_type must be a media type such as \"image/png\" or \"audio/wav\".",
		Subject:    a.Expr.Range().Ptr(),
		Expression: a.Expr,
	})
}

func (c *compiler) env(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.env = a.Expr
	const example = `{ LANG = "C.UTF-8" }`
	if diags := envArgRefs(a); diags.HasErrors() {
		return diags
	}
	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	if !(ty == cty.DynamicPseudoType || ty.IsObjectType() || ty.IsMapType()) || (v.IsKnown() && v.IsNull()) {
		what := "null"
		if !v.IsNull() {
			what = adapters.TypeName(ty)
		}
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid env",
			Detail: fmt.Sprintf("The env argument must be an object of environment variables, and this is %s. "+
				"Write names and string values, such as env = %s.", what, example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if ty.IsMapType() && !argType(ty.ElementType()) {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid env",
			Detail: fmt.Sprintf("The env argument is a map of %s, and environment values must be strings. "+
				"Write names and string values, such as env = %s.", ty.ElementType().FriendlyName(), example),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if !v.IsKnown() {
		return diags
	}

	// Ranges of the items, when the object is written out.
	keyRange := map[string]hcl.Range{}
	valRange := map[string]hcl.Range{}
	if oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range oc.Items {
			kv, kd := item.KeyExpr.Value(c.Eval)
			if kd.HasErrors() || !kv.IsKnown() || kv.IsNull() || kv.Type() != cty.String {
				continue
			}
			keyRange[kv.AsString()] = item.KeyExpr.Range()
			valRange[kv.AsString()] = item.ValueExpr.Range()
		}
	}
	rangeOf := func(m map[string]hcl.Range, k string) *hcl.Range {
		if r, ok := m[k]; ok {
			return &r
		}
		return a.Expr.Range().Ptr()
	}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		if problem := envNameProblem(name); problem != "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid environment variable name",
				Detail: fmt.Sprintf("The name %q %s. Use a name of letters, digits and underscores, such as LANG or MY_TOOL_MODE.",
					name, problem),
				Subject:    rangeOf(keyRange, name),
				Expression: a.Expr,
			})
		}
		if val.IsKnown() && !val.IsNull() {
			if problem := argProblem(val); problem != "" {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid env",
					Detail: fmt.Sprintf("The value of environment variable %s %s, and it must be a string. "+
						"Write a string value, such as env = %s.", name, problem, example),
					Subject:    rangeOf(valRange, name),
					Expression: a.Expr,
				})
			}
		} else if !val.IsKnown() && !argType(val.Type()) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid env",
				Detail: fmt.Sprintf("The value of environment variable %s is %s, and it must be a string. "+
					"Write a string value, such as env = %s.", name, adapters.TypeName(val.Type()), example),
				Subject:    rangeOf(valRange, name),
				Expression: a.Expr,
			})
		}
	}
	if diags.HasErrors() {
		return diags
	}
	if v.IsWhollyKnown() {
		env, err := envMap(v)
		if err == nil {
			e.envConst = env
			e.envKnown = true
		}
	}
	return diags
}

func (c *compiler) stdin(e *Exec, a *hcl.Attribute) hcl.Diagnostics {
	e.stdin = a.Expr
	v, diags := c.Value(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	if !argType(v.Type()) {
		return append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid stdin",
			Detail: fmt.Sprintf("The stdin argument is fed to the command's standard input and must be a string, and this is %s. "+
				"Write a string, such as stdin = param.text, or use jsonencode(...) to pass structured data.", adapters.TypeName(v.Type())),
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		})
	}
	if d := c.stdinScript(a.Expr); d != nil {
		return append(diags, d)
	}
	if v.IsWhollyKnown() {
		s := ""
		if !v.IsNull() {
			s, _ = argString(v)
		}
		e.stdinConst = &s
	}
	return diags
}

// Call runs the command once and returns its standard output. A call
// whose context ends stops its command (kill_signal, then SIGKILL after
// kill_timeout) and returns once it has ended; when the context ended
// because the host is exiting (ErrHostExiting), it returns at once, and the
// command is stopped and reaped all the same.
func (e *Exec) Call(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ectx *hcl.EvalContext
	if in != nil {
		ectx = in.Eval
	}
	// The budget is for building what the command gets; what is
	// evaluated again later (secrets to redact) is not held to it.
	bctx, done := adapters.WithBudget(ctx, ectx, e.timeout)
	defer done()
	// An error of evaluating the command may quote a sensitive parameter.
	argv, err := e.buildArgv(bctx)
	if err != nil {
		return nil, redact.Error(err, e.sensitiveValues(ectx))
	}
	env, err := e.buildEnv(bctx)
	if err != nil {
		return nil, redact.Error(err, e.sensitiveValues(ectx))
	}
	stdin, err := e.buildStdin(bctx)
	if err != nil {
		return nil, redact.Error(err, e.sensitiveValues(ectx))
	}
	path, err := e.resolveProgram(argv[0], env)
	if err != nil {
		return nil, err
	}
	if err := e.checkDir(); err != nil {
		return nil, err
	}

	runCtx, cancel := context.WithTimeout(ctx, e.timeout)
	// What the call holds is released when it returns, unless its command
	// is still running (detached): then once the command has ended.
	var held []func()
	detached := false
	defer func() {
		if !detached {
			release(held)
		}
	}()
	held = append(held, cancel)
	cmd := exec.CommandContext(runCtx, path)
	cmd.Args = argv
	cmd.Dir = e.dir
	cmd.Env = env
	// Standard input, when there is one, is a pipe of our own too: were
	// os/exec to copy it, Wait would wait for the copy (WaitDelay, which
	// is kill_timeout and more) after the command exited, should what it
	// left in its group hold the pipe without reading it. Without one,
	// os/exec connects standard input to the null device.
	var inPipe *stdinPipe
	if stdin != nil {
		if inPipe, err = newStdinPipe(*stdin); err != nil {
			return nil, fmt.Errorf("cannot run %q: %v", argv[0], err)
		}
		held = append(held, inPipe.close)
		cmd.Stdin = inPipe.r
	}
	stdout := &capWriter{max: e.maxOutput}
	stderr := &stderrWriter{tail: tailWriter{max: stderrKeep}}
	// Log lines and progress messages go to the client, and a line cut
	// short ends the tail kept for the error: the secrets are worked out
	// once, when the first one needs it.
	var cutSecrets []string
	var cutSecretsOnce sync.Once
	lineSecrets := func() []string {
		cutSecretsOnce.Do(func() { cutSecrets = e.cutSecrets(ectx, argv, stdin) })
		return cutSecrets
	}
	stderr.maskEnd = func(raw string) string { return redact.MaskCutEnd(raw, redact.MaskedForms(lineSecrets())) }
	if in != nil && in.Report != nil {
		stderr.report = in.Report
		stderr.level = e.stderrLog
		stderr.redact = func(line string, n int, cut bool) (string, bool) {
			return redact.RedactHead(e.scrub(ectx, line), n, lineSecrets(), cut)
		}
		if e.charset != nil {
			stderr.decode = func(b []byte) []byte { return e.decode(b, false) }
		}
	}
	// The output pipes are the command's own files, not writers os/exec
	// copies from: Wait then returns when the command exits, and what it
	// left running is killed at once rather than waited for (it may hold
	// the pipes open for as long as it runs).
	outPipe, err := newPipe(stdout)
	if err != nil {
		return nil, fmt.Errorf("cannot run %q: %v", argv[0], err)
	}
	held = append(held, outPipe.close)
	errPipe, err := newPipe(stderr)
	if err != nil {
		return nil, fmt.Errorf("cannot run %q: %v", argv[0], err)
	}
	held = append(held, errPipe.close)
	cmd.Stdout = outPipe.w
	cmd.Stderr = errPipe.w
	setProcessGroup(cmd)
	run := &process{grace: e.killTimeout, signal: e.killSignal}
	// killed records that the context ended the command, rather than the
	// command exiting by itself: a command that exits in time but leaves
	// the pipes to a process that escaped its group is drained past the
	// deadline, and is not a timeout.
	var killed atomic.Bool
	cmd.Cancel = func() error {
		// os/exec may call this before Start has returned.
		run.setPid(cmd.Process.Pid)
		// A command that ended by itself as the context ended is not
		// stopped: os/exec then reports how it ended, not the context.
		if err := run.stop(); err != nil {
			return err
		}
		killed.Store(true)
		return nil
	}
	// Should the command outlive its kill_timeout, the group's SIGKILL
	// comes first; os/exec's own kill of the command is a last resort.
	cmd.WaitDelay = e.killTimeout + waitDelay

	prepareFds()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errors.New("the tool was stopped because its configuration was unloaded; call it again")
	}
	err = cmd.Start()
	var pid int
	if err == nil {
		pid = cmd.Process.Pid
		run.setPid(pid)
		e.running[pid] = run
		live.add(run)
	}
	e.mu.Unlock()
	outPipe.started()
	errPipe.started()
	if inPipe != nil {
		inPipe.started()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, e.startError(argv[0], path, err)
	}

	// The command is waited for on a goroutine of its own, so that a call
	// stopped because the host is exiting is answered at once, while its
	// command still has its kill_timeout (ErrHostExiting).
	ended := make(chan outcome, 1)
	go func() { ended <- e.wait(cmd, run, inPipe, outPipe, errPipe, stderr) }()
	var end outcome
	select {
	case end = <-ended:
	case <-ctx.Done():
		if adapters.Exiting(ctx) {
			// The pipes stay open until the command has ended: one that
			// cleans up on its kill_signal must not die of SIGPIPE.
			detached = true
			go func() {
				<-ended
				release(held)
			}()
			return nil, ctx.Err()
		}
		end = <-ended
	}
	werr, closed, forced, cut := end.werr, end.closed, end.forced, end.cut

	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case killed.Load() && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("command timed out after %s (timeout) and %s", adapters.FormatDuration(e.timeout), e.howStopped(forced, cut))
		if s := e.lastWords(ectx, stderr, stdout, argv, stdin); s != "" {
			msg += "; the end of what it printed: " + s
		}
		return nil, errors.New(msg)
	case closed && run.wasStopped():
		return nil, fmt.Errorf("the command %s because the tool's configuration was unloaded; call the tool again", e.howStopped(forced, cut))
	}
	if werr != nil && !errors.Is(werr, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			msg := exitDescription(ee.ProcessState)
			if s := e.lastWords(ectx, stderr, stdout, argv, stdin); s != "" {
				msg += ": " + s
			}
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("command %q failed: %v", argv[0], werr)
	}

	// What the output may echo: the secrets, and the sensitive parameters.
	secrets := func() []string {
		return append(e.secrets(ectx, argv, stdin), e.sensitiveValues(ectx)...)
	}
	body := stdout.buf
	if e.binary {
		mt := e.mimeType
		if mt == "" {
			mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		}
		return &adapters.Output{Body: body, MIMEType: mt, Truncated: stdout.truncated, Binary: true, Secrets: secrets}, nil
	}
	if e.charset != nil {
		body = e.decode(body, stdout.truncated)
	}
	if stdout.truncated {
		body = trimPartialRune(body)
	}
	if !utf8.Valid(body) {
		if in != nil && in.Report != nil {
			in.Report.Log("warning", fmt.Sprintf("the command's output is not valid UTF-8, and its invalid bytes were replaced with U+FFFD; "+
				"set charset = \"gbk\" (or the encoding it writes) in the exec block, or binary = true for bytes that are not text"))
		}
		body = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	mime := "text/plain"
	if json.Valid(body) {
		mime = "application/json"
	}
	return &adapters.Output{Body: body, MIMEType: mime, Truncated: stdout.truncated, Secrets: secrets}, nil
}

// lastWords is the end of what a failed command printed, for its error:
// its standard error, or its standard output when that is empty (some
// programs report errors there); decoded, scrubbed and with secrets
// hidden. "" when it printed nothing.
//
// The secrets are masked before the end is cut from the rest (see
// RedactTail), so that one the cut falls inside is masked whole, and so is
// the end of one the kept tail starts inside.
func (e *Exec) lastWords(ectx *hcl.EvalContext, stderr *stderrWriter, stdout *capWriter, argv []string, stdin *string) string {
	tail, cut := stderr.tail.bytes(), stderr.tail.dropped()
	if len(bytes.TrimSpace(tail)) == 0 {
		tail, cut = stdout.end(stderrKeep)
	}
	if e.charset != nil {
		tail = e.decode(tail, false)
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(tail), "\uFFFD"))
	if s == "" {
		return ""
	}
	s = e.scrub(ectx, s)
	return lastPart(redact.RedactTail(s, stderrShown, e.cutSecrets(ectx, argv, stdin), cut))
}

// cutSecrets are the secrets masked in a text cut from a command's
// output: those of secrets, and the values of the parameters marked
// sensitive, which scrub masks whole but not cut.
func (e *Exec) cutSecrets(ectx *hcl.EvalContext, argv []string, stdin *string) []string {
	return append(e.secrets(ectx, argv, stdin), e.scrubValues(ectx)...)
}

// charsetText describes a charset value for a message.
func charsetText(v cty.Value) string {
	if v.Type() == cty.String {
		return fmt.Sprintf("%q", v.AsString())
	}
	return adapters.TypeName(v.Type())
}

// decode converts output in the command's charset to UTF-8; a byte the
// charset has no character for becomes U+FFFD. Output cut short
// (max_output) loses a character cut in two, as UTF-8 output does.
func (e *Exec) decode(b []byte, cut bool) []byte {
	dec := e.charset.NewDecoder()
	if cut {
		// Three bytes of UTF-8 at most for each byte of input.
		dst := make([]byte, 3*len(b)+16)
		if n, _, err := dec.Transform(dst, b, false); err == nil || errors.Is(err, transform.ErrShortSrc) {
			return dst[:n]
		}
		dec.Reset()
	}
	out, err := dec.Bytes(b)
	if err != nil {
		return b
	}
	return out
}

// howStopped says how a stopped command ended, after "and" or "the
// command": forced is set when it had to be killed with SIGKILL, cut when
// KillCommands did that before its kill_timeout was over.
func (e *Exec) howStopped(forced, cut bool) string {
	switch {
	case e.killTimeout == 0:
		return "was killed"
	case forced && cut:
		return fmt.Sprintf("was killed as toolhost exited, within its kill_timeout of %s after %s", adapters.FormatDuration(e.killTimeout), e.killSignal)
	case forced:
		return fmt.Sprintf("was killed: it was still running %s after %s (kill_timeout)", adapters.FormatDuration(e.killTimeout), e.killSignal)
	}
	return "was stopped with " + e.killSignal
}

// Close stops the commands still running, as a timeout does: kill_signal
// to each process group, then SIGKILL once kill_timeout has passed. Calls
// made after Close fail.
func (e *Exec) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, run := range e.running {
		_ = run.stop()
	}
	return nil
}

// process is one running command, as stopping it sees it.
type process struct {
	grace  time.Duration // kill_timeout
	signal string        // kill_signal

	mu       sync.Mutex
	pid      int         // the command's, and its process group's
	stopped  bool        // stop was called
	deadline time.Time   // when SIGKILL is due, once stopped
	timer    *time.Timer // sends SIGKILL at the deadline
	forced   bool        // SIGKILL found processes in the group
	cut      bool        // KillCommands sent it, before the deadline
	done     bool        // no signal is sent any more
}

// setPid records the command's pid once it has started.
func (r *process) setPid(pid int) {
	r.mu.Lock()
	r.pid = pid
	r.mu.Unlock()
}

// stop asks the command's process group to exit: kill_signal now, SIGKILL
// once kill_timeout has passed (at once when it is zero). Only the first
// call does anything. A group with nothing left running (the command
// ended by itself, and was perhaps reaped already) is not stopped, and
// gets no signal then or later: its number may be another group's by
// then. stop then returns os.ErrProcessDone.
func (r *process) stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	if r.done {
		return os.ErrProcessDone
	}
	if groupGone(r.pid) {
		r.done = true
		return os.ErrProcessDone
	}
	if r.grace <= 0 {
		r.stopped = true
		r.killLocked()
		return nil
	}
	if err := signalGroup(r.pid, r.signal); err != nil {
		r.done = true // gone meanwhile
		return os.ErrProcessDone
	}
	r.stopped = true
	r.deadline = time.Now().Add(r.grace)
	r.timer = time.AfterFunc(r.grace, r.kill)
	return nil
}

// wasStopped reports whether stop was called.
func (r *process) wasStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// kill kills the process group with SIGKILL, unless that was done already.
func (r *process) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.killLocked()
}

func (r *process) killLocked() {
	if r.done {
		return
	}
	r.done = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.stopped && !groupGone(r.pid) {
		r.forced = true
	}
	_ = killGroup(r.pid)
}

// finish ends the command's process group once its leader has exited and
// been waited for, and reports whether it took SIGKILL to stop it, and
// whether that came from KillCommands. What a command that exited by
// itself left running is killed at once; a stopped command's group has
// until its deadline to exit, and is killed then.
func (r *process) finish() (forced, cut bool) {
	r.mu.Lock()
	pid, stopped, deadline, done := r.pid, r.stopped, r.deadline, r.done
	r.mu.Unlock()
	if stopped && !done {
		for wait := time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 20*time.Millisecond) {
			if groupGone(pid) {
				r.mu.Lock()
				r.done = true
				r.timer.Stop()
				r.mu.Unlock()
				break
			}
			time.Sleep(min(wait, time.Until(deadline)))
		}
	}
	r.kill()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forced, r.cut
}

// wait waits for a started command to exit, kills what it left behind in
// its process group (a stopped command's group gets what is left of its
// kill_timeout first), then reads what is left in the pipes.
func (e *Exec) wait(cmd *exec.Cmd, run *process, inPipe *stdinPipe, outPipe, errPipe *pipe, stderr *stderrWriter) outcome {
	werr := cmd.Wait()
	e.mu.Lock()
	delete(e.running, cmd.Process.Pid)
	closed := e.closed
	e.mu.Unlock()
	forced, cut := run.finish()
	live.remove(run)
	if inPipe != nil {
		inPipe.close() // a process that left the group may hold it
	}
	deadline := time.Now().Add(waitDelay)
	outPipe.drain(deadline)
	errPipe.drain(deadline)
	stderr.flush()
	return outcome{werr: werr, closed: closed, forced: forced, cut: cut}
}

// outcome is how a command ended, once it has been waited for, its group
// ended and its output read.
type outcome struct {
	werr        error // from Wait
	closed      bool  // the backend was closed (its config unloaded)
	forced, cut bool  // from process.finish
}

// release calls the functions of held, the last first.
func release(held []func()) {
	for i := len(held) - 1; i >= 0; i-- {
		held[i]()
	}
}

// live is every command running, in every exec backend: what
// KillCommands kills and WaitCommands waits for.
var live = runSet{runs: map[*process]struct{}{}}

type runSet struct {
	mu   sync.Mutex
	runs map[*process]struct{}
	// idle is closed when the set becomes empty, for the waiters of
	// WaitCommands; nil when nobody waits.
	idle chan struct{}
}

func (s *runSet) add(r *process) {
	s.mu.Lock()
	s.runs[r] = struct{}{}
	s.mu.Unlock()
}

func (s *runSet) remove(r *process) {
	s.mu.Lock()
	delete(s.runs, r)
	if len(s.runs) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

// waitCommands waits until no command runs any more, in any exec backend,
// or until ctx ends; it reports whether none runs: the exec kind's Wait
// (see adapters.WaitCommands).
func waitCommands(ctx context.Context) bool {
	live.mu.Lock()
	if len(live.runs) == 0 {
		live.mu.Unlock()
		return true
	}
	if live.idle == nil {
		live.idle = make(chan struct{})
	}
	idle := live.idle
	live.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}

// killCommands kills the process group of every command still running,
// with SIGKILL, without waiting for what is left of their kill_timeout: the
// exec kind's Kill (see adapters.KillCommands). The kernel kills a command
// whose parent dies (on Linux), but not what the command started.
func killCommands() {
	live.mu.Lock()
	defer live.mu.Unlock()
	for r := range live.runs {
		r.mu.Lock()
		r.cut = r.stopped && !r.done
		r.killLocked()
		r.mu.Unlock()
	}
}

// scrub replaces the values of sensitive parameters in msg, which quotes
// the command's output, so that messages never show them.
func (e *Exec) scrub(ectx *hcl.EvalContext, msg string) string {
	for _, s := range e.scrubValues(ectx) {
		msg = strings.ReplaceAll(msg, s, redact.SensitiveMark)
	}
	return msg
}

// scrubValues are the values scrub masks: those of the call's parameters
// marked sensitive, as they are passed to the command.
func (e *Exec) scrubValues(ectx *hcl.EvalContext) []string {
	if ectx == nil {
		return nil
	}
	params, ok := ectx.Variables["param"]
	if !ok {
		return nil
	}
	params, _ = params.UnmarkDeep()
	if !params.IsKnown() || params.IsNull() || !params.Type().IsObjectType() {
		return nil
	}
	var out []string
	for name, info := range e.params {
		if !info.Sensitive || !params.Type().HasAttribute(name) {
			continue
		}
		v := params.GetAttr(name)
		if !v.IsKnown() || v.IsNull() || !v.Type().IsPrimitiveType() {
			continue
		}
		if s, problem := argString(v); problem == "" && len(s) >= 4 {
			out = append(out, s)
		}
	}
	return out
}

// sensitiveValues are the values of the call's parameters marked sensitive.
func (e *Exec) sensitiveValues(ectx *hcl.EvalContext) []string {
	return adapters.SensitiveParamValues(ectx, adapters.SensitiveNames(e.params))
}

// secrets returns the values hidden from what a call reports: the secret
// environment variables (see envSecrets), the command's elements wrapped
// in sensitive(...) and the credentials inside the others (see
// ValueSecrets), and the stdin wrapped in sensitive(...).
func (e *Exec) secrets(ectx *hcl.EvalContext, argv []string, stdin *string) []string {
	out := e.envSecrets(ectx)
	for i, a := range argv {
		out = append(out, redact.Named("", []string{a}, slices.Contains(e.sensitiveArgs, i))...)
	}
	if stdin != nil && e.stdin != nil && adapters.CallsSensitive(e.stdin) {
		out = append(out, *stdin)
	}
	return out
}

// envSecrets returns the values of the child's environment variables that
// hold credentials: named like them (API_TOKEN, AWS_SECRET_ACCESS_KEY, ...)
// or wrapped in sensitive(...) in the block's env, and the credentials
// inside the others (the password of a DATABASE_URL, see ValueSecrets);
// with inherit_env, those of the host's variables too.
func (e *Exec) envSecrets(ectx *hcl.EvalContext) []string {
	var out []string
	extra := e.envConst
	if !e.envKnown && e.env != nil {
		if v, diags := e.env.Value(ectx); !diags.HasErrors() {
			extra, _ = envMap(v)
		}
	}
	marked := map[string]bool{}
	if e.env != nil {
		marked = adapters.MarkedSensitive(e.env)
	}
	for k, v := range extra {
		if v != nil {
			out = append(out, redact.Named(redact.EnvSecretName(k), []string{*v}, marked[k])...)
		}
	}
	if e.inheritEnv {
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out = append(out, redact.Named(redact.EnvSecretName(k), []string{v}, false)...)
			}
		}
	}
	return out
}

// buildArgv evaluates the command for one call and applies the rules on
// leading dashes.
func (e *Exec) buildArgv(ectx *hcl.EvalContext) ([]string, error) {
	if e.argv != nil {
		return e.argv, nil
	}
	v, diags := e.command.Value(ectx)
	if diags.HasErrors() {
		return nil, evalError("command", diags)
	}
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		return nil, errors.New("the command of this tool did not evaluate to a list; the tool's configuration needs fixing")
	}
	elems := v.AsValueSlice()
	if len(elems) == 0 {
		return nil, errors.New("the command of this tool evaluated to an empty list, so there is no program to run")
	}
	sources := e.sources
	if e.concatArgs != nil {
		sources = e.concatSources(ectx)
	}
	if len(sources) != len(elems) {
		sources = nil
	}
	argv := make([]string, len(elems))
	for i, el := range elems {
		s, problem := argString(el)
		if problem != "" {
			return nil, fmt.Errorf("command[%d]%s %s, and each element of the command must be a string, number or bool%s",
				i, e.fromParams(sources, i), problem, e.giveValueHint(sources, i, el))
		}
		if strings.ContainsRune(s, 0) {
			return nil, &argRefusal{fmt.Sprintf("command[%d]%s contains a NUL character, which a command argument cannot hold; remove it",
				i, e.fromParams(sources, i))}
		}
		argv[i] = s
	}
	if argv[0] == "" {
		return nil, errors.New("the command of this tool has an empty program name; the tool's configuration needs fixing")
	}

	for i := 1; i < len(argv); i++ {
		var src argSource
		if sources != nil {
			src = sources[i]
		} else {
			src.params = e.allRefs
		}
		if src.separator {
			break // later elements are operands, not options
		}
		if !strings.HasPrefix(argv[i], "-") {
			continue
		}
		for _, p := range src.params {
			if !e.params[p].AllowFlags {
				return nil, &argRefusal{fmt.Sprintf("parameter %q value may not start with \"-\": it would be read as an option; "+
					"use a value that does not start with \"-\" (for a file name, prefix it with \"./\")", p)}
			}
		}
	}
	return argv, nil
}

// argRefusal is buildArgv's refusal of an argument value: one that
// would start an option, or that holds a NUL.
type argRefusal struct{ msg string }

func (e *argRefusal) Error() string { return e.msg }

// CheckArguments reports whether the command refuses the call's argument
// values (see ArgumentChecker). It runs nothing: an error of evaluating the
// command, such as an unset env(), is left for Call.
func (e *Exec) CheckArguments(in *adapters.Input) error {
	var ectx *hcl.EvalContext
	if in != nil {
		ectx = in.Eval
	}
	bctx, done := adapters.WithBudget(context.Background(), ectx, e.timeout)
	defer done()
	_, err := e.buildArgv(bctx)
	var refusal *argRefusal
	if !errors.As(err, &refusal) {
		return nil
	}
	return redact.Error(err, e.sensitiveValues(ectx))
}

// concatSources says where each element of a command written
// concat([...], ...) comes from, in one call: each list is evaluated again
// for its length. nil when one cannot be.
func (e *Exec) concatSources(ectx *hcl.EvalContext) []argSource {
	var sources []argSource
	for _, arg := range e.concatArgs {
		if arg.literal != nil {
			sources = append(sources, arg.literal...)
			continue
		}
		v, diags := arg.expr.Value(ectx)
		if diags.HasErrors() {
			return nil
		}
		v, _ = v.UnmarkDeep()
		if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
			return nil
		}
		if ls, ok := e.listSources(arg.expr, ectx); ok && len(ls) == v.LengthInt() {
			sources = append(sources, ls...)
			continue
		}
		for range v.LengthInt() {
			sources = append(sources, argSource{params: arg.params})
		}
	}
	return sources
}

// listSources says where each element of one list of a command written
// concat([...], ...) comes from, in one call, when the list is a literal
// chosen by a conditional, as in param.oneline ? ["--oneline"] : []: the
// elements of the branch taken, not every parameter the condition names.
// ok is false when x is not such a list.
func (e *Exec) listSources(x hcl.Expression, ectx *hcl.EvalContext) ([]argSource, bool) {
	switch x := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		return e.listSources(x.Expression, ectx)
	case *hclsyntax.ConditionalExpr:
		cv, diags := x.Condition.Value(ectx)
		if diags.HasErrors() {
			return nil, false
		}
		cv, _ = cv.UnmarkDeep()
		cv, err := convert.Convert(cv, cty.Bool)
		if err != nil || !cv.IsKnown() || cv.IsNull() {
			return nil, false
		}
		if cv.True() {
			return e.listSources(x.TrueResult, ectx)
		}
		return e.listSources(x.FalseResult, ectx)
	case *hclsyntax.TupleConsExpr:
		sources := make([]argSource, len(x.Exprs))
		for i, el := range x.Exprs {
			if len(el.Variables()) > 0 {
				sources[i].params = leadingParamRefs(el, e.paramNames)
				continue
			}
			v, diags := el.Value(ectx)
			if diags.HasErrors() {
				return nil, false
			}
			s, _ := argString(v)
			sources[i].separator = s == "--"
		}
		return sources, true
	}
	return nil, false
}

// fromParams names the parameters element i comes from, for messages.
func (e *Exec) fromParams(sources []argSource, i int) string {
	var ps []string
	if sources != nil {
		ps = sources[i].params
	} else {
		ps = e.allRefs
	}
	switch len(ps) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (from parameter %q)", ps[0])
	default:
		return fmt.Sprintf(" (from parameters %s)", adapters.QuoteList(ps))
	}
}

func (e *Exec) giveValueHint(sources []argSource, i int, v cty.Value) string {
	if v.IsNull() && e.fromParams(sources, i) != "" {
		return "; give the parameter a value"
	}
	return ""
}

// buildEnv returns the environment of one call.
func (e *Exec) buildEnv(ectx *hcl.EvalContext) ([]string, error) {
	extra := e.envConst
	if !e.envKnown {
		v, diags := e.env.Value(ectx)
		if diags.HasErrors() {
			return nil, evalError("env", diags)
		}
		var err error
		if extra, err = envMap(v); err != nil {
			return nil, err
		}
	}

	vars := map[string]string{}
	for _, kv := range os.Environ() {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if e.inheritEnv || strings.HasPrefix(k, "LC_") || slices.Contains(minimalEnv, k) {
			vars[k] = val
		}
	}
	for k, val := range extra {
		if val == nil {
			delete(vars, k)
		} else {
			vars[k] = *val
		}
	}
	if _, ok := vars["PATH"]; !ok {
		vars["PATH"] = defaultPath
	}
	env := make([]string, 0, len(vars))
	for k, val := range vars {
		env = append(env, k+"="+val)
	}
	sort.Strings(env)
	return env, nil
}

// buildStdin returns the standard input of one call; nil means empty.
func (e *Exec) buildStdin(ectx *hcl.EvalContext) (*string, error) {
	if e.stdin == nil {
		return nil, nil
	}
	if e.stdinConst != nil {
		return e.stdinConst, nil
	}
	v, diags := e.stdin.Value(ectx)
	if diags.HasErrors() {
		return nil, evalError("stdin", diags)
	}
	v, _ = v.UnmarkDeep()
	if v.IsKnown() && v.IsNull() {
		return nil, nil
	}
	s, problem := argString(v)
	if problem != "" {
		return nil, fmt.Errorf("the stdin of the command %s, and it must be a string", problem)
	}
	return &s, nil
}

// resolveProgram finds the program to run. A name without a slash is looked
// up in the PATH of the command's environment; a relative path is relative
// to the configuration file's directory.
func (e *Exec) resolveProgram(prog string, env []string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.baseDir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("command %q not found", prog)
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
			return "", fmt.Errorf("command %q not found", prog)
		case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
			return "", fmt.Errorf("command %q is not an executable file", prog)
		}
		return abs, nil
	}
	pathList := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathList = v
		}
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // never look in the working directory
		}
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if hint := e.localProgramHint(prog); hint != "" {
		return "", fmt.Errorf("command %q not found on PATH; %s", prog, hint)
	}
	return "", fmt.Errorf("command %q not found on PATH", prog)
}

// localProgramHint says how to run prog, a name without a slash that is
// not on the PATH, when the config file's directory holds a file of that
// name: a program's name is looked up on the PATH only, never in that
// directory. "" when there is no such file.
func (e *Exec) localProgramHint(prog string) string {
	if e.baseDir == "" {
		return ""
	}
	fi, err := os.Stat(filepath.Join(e.baseDir, prog))
	if err != nil || fi.IsDir() {
		return ""
	}
	return fmt.Sprintf("the config file's directory has a file %s, and a name without a slash is looked up on the PATH only: write %q to run it", prog, "./"+prog)
}

// checkDir checks the working directory before the command starts: with a
// process group of its own, a failing chdir in the child would be reported
// as a failing exec of the program.
func (e *Exec) checkDir() error {
	if e.dir == "" {
		return nil
	}
	fi, err := os.Stat(e.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the working directory of the command (dir) %q does not exist", e.dir)
	case err != nil:
		return fmt.Errorf("cannot use the working directory of the command (dir) %q: %v", e.dir, unwrapPathError(err))
	case !fi.IsDir():
		return fmt.Errorf("the working directory of the command (dir) %q is not a directory", e.dir)
	}
	return nil
}

// startError turns an error of Start into a message; path is the program
// file that was found.
func (e *Exec) startError(prog, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "chdir" {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the working directory of the command (dir) %q does not exist", e.dir)
		}
		return fmt.Errorf("cannot enter the working directory of the command (dir) %q: %v", e.dir, pe.Err)
	}
	// The program file is there (resolveProgram found it): what is
	// missing, or cannot run, is what its #! line names.
	interp, shebang := shebang(path)
	if errors.Is(err, fs.ErrNotExist) {
		switch {
		case shebang && strings.HasSuffix(interp, "\r"):
			return fmt.Errorf("command %q could not be started: its first line (#!%s) ends with a carriage return, so the system looks for an interpreter whose name ends with one; "+
				"the file has Windows line endings: convert it to Unix ones (dos2unix, or your editor's LF setting)", prog, strings.TrimSuffix(interp, "\r"))
		case shebang:
			return fmt.Errorf("command %q could not be started: the interpreter its first line names (#!%s) is not found; install it, or correct the #! line", prog, interp)
		}
		return fmt.Errorf("command %q not found", prog)
	}
	if notExecutable(err) && !shebang {
		return fmt.Errorf("command %q could not be started: the file is not a program the system can run; "+
			"if it is a script, make its first line name its interpreter (such as #!/bin/sh), or run it through one, as in command = [\"sh\", %q]", prog, prog)
	}
	return fmt.Errorf("command %q could not be started: %v", prog, unwrapPathError(err))
}

// shebang returns what follows "#!" on the first line of the file at
// path, and whether it starts so. A path that is not a regular file (a
// FIFO with its execute bits set) is not opened, as a FIFO would hold the
// call until a writer came.
func shebang(path string) (string, bool) {
	f, err := regular.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, ok := bytes.CutPrefix(buf[:n], []byte("#!"))
	if !ok {
		return "", false
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return strings.TrimLeft(string(line), " \t"), true
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// evalError turns the diagnostics of evaluating an attribute at call time
// into an error.
func evalError(attr string, diags hcl.Diagnostics) error {
	what := "the command's " + attr
	if attr == "command" {
		what = "the command"
	}
	return fmt.Errorf("evaluating %s failed: %s", what, adapters.EvalMessage(diags))
}

// envMap converts an env value; a nil entry removes the variable.
func envMap(v cty.Value) (map[string]*string, error) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, errors.New("the env of this tool did not evaluate to an object; the tool's configuration needs fixing")
	}
	m := map[string]*string{}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		if problem := envNameProblem(name); problem != "" {
			return nil, fmt.Errorf("environment variable name %q %s", name, problem)
		}
		if val.IsKnown() && val.IsNull() {
			m[name] = nil
			continue
		}
		s, problem := argString(val)
		if problem != "" {
			return nil, fmt.Errorf("the value of environment variable %s %s, and it must be a string", name, problem)
		}
		if strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("the value of environment variable %s contains a NUL character; remove it", name)
		}
		m[name] = &s
	}
	return m, nil
}

// refsArgs reports whether expr refers to what the caller chooses: the
// parameters, or the answers of an ask form.
func refsArgs(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if r := tr.RootName(); r == "param" || r == "answer" {
			return true
		}
	}
	return false
}

// envArgRefs refuses an env whose names depend on the arguments, and
// arguments in the variables that choose the code that runs: a model that
// picks PATH or LD_PRELOAD picks the program, which must be fixed in the
// configuration.
func envArgRefs(a *hcl.Attribute) hcl.Diagnostics {
	const fix = "Write env as an object with literal names, and use parameters only in the values of other variables, such as env = { GREETING = param.text }."
	oc, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		if !refsArgs(a.Expr) {
			return nil
		}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Environment names must be constant",
			Detail: "This env is computed from parameters, so the model calling the tool would choose the names of the command's environment variables " +
				"(PATH, LD_PRELOAD, ...), and with them the program that runs. " + fix,
			Subject:    a.Expr.Range().Ptr(),
			Expression: a.Expr,
		}}
	}
	var diags hcl.Diagnostics
	for _, item := range oc.Items {
		name := hcl.ExprAsKeyword(item.KeyExpr)
		if name == "" {
			if refsArgs(item.KeyExpr) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Name must be constant",
					Detail: "An environment variable name is fixed when the config loads, so it cannot refer to param: the model calling the tool would choose " +
						"which variable it sets (PATH, LD_PRELOAD, ...), and with it the program that runs. " + fix,
					Subject:    item.KeyExpr.Range().Ptr(),
					Expression: a.Expr,
				})
				continue
			}
			if kv, kd := item.KeyExpr.Value(nil); !kd.HasErrors() && kv.IsKnown() && !kv.IsNull() && kv.Type() == cty.String {
				name = kv.AsString()
			}
		}
		if why := programEnv(name); why != "" && refsArgs(item.ValueExpr) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Parameter chooses the program",
				Detail: fmt.Sprintf("The environment variable %s chooses the code the command runs (%s), so its value cannot refer to param: "+
					"the model calling the tool would choose the program. Write a constant value, or leave it out.%s", name, why, programEnvHint(name)),
				Subject:    item.ValueExpr.Range().Ptr(),
				Expression: a.Expr,
			})
		}
	}
	return diags
}

// envNameProblem says what is wrong with an environment variable name, or
// returns "".
func envNameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case strings.ContainsAny(name, "=\x00"):
		return `contains "=" or a NUL character`
	}
	return ""
}

// argType reports whether values of ty can be one command argument.
func argType(ty cty.Type) bool {
	return ty == cty.DynamicPseudoType || ty.IsPrimitiveType()
}

// concatHead returns a command written as concat([...], ...), and the first
// element of its first list; a nil head when the command is not one.
func concatHead(x hcl.Expression) (*hclsyntax.FunctionCallExpr, hcl.Expression) {
	call, ok := x.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "concat" || len(call.Args) == 0 || call.ExpandFinal {
		return nil, nil
	}
	first, ok := call.Args[0].(*hclsyntax.TupleConsExpr)
	if !ok || len(first.Exprs) == 0 {
		return nil, nil
	}
	return call, first.Exprs[0]
}

// argProblem says why v cannot be one command argument, or returns "".
// Unknown values of a fitting type are fine.
func argProblem(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	switch {
	case !argType(v.Type()):
		return "is " + adapters.TypeName(v.Type())
	case !v.IsKnown():
		return ""
	case v.IsNull():
		return "is null"
	}
	return ""
}

// argString converts a known value to one command argument.
func argString(v cty.Value) (string, string) {
	v, _ = v.UnmarkDeep()
	if problem := argProblem(v); problem != "" {
		return "", problem
	}
	if !v.IsKnown() {
		return "", "is not known"
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", "cannot be converted to a string"
	}
	return sv.AsString(), ""
}

// paramRefs lists the parameters expr refers to, sorted. A reference to the
// whole param object refers to all of all.
func paramRefs(expr hcl.Expression, all []string) []string {
	set := map[string]bool{}
	for _, tr := range expr.Variables() {
		name, ok := adapters.ParamName(tr)
		switch {
		case !ok:
		case name == "":
			for _, n := range all {
				set[n] = true
			}
		default:
			set[name] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// leadingParamRefs lists the parameters whose values can make up the start
// of expr's value. A template starting with literal text is fixed at the
// start; a conditional starts with one of its results; anything else may
// start with any parameter it refers to.
func leadingParamRefs(expr hclsyntax.Expression, all []string) []string {
	switch x := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return nil
	case *hclsyntax.ParenthesesExpr:
		return leadingParamRefs(x.Expression, all)
	case *hclsyntax.TemplateWrapExpr:
		return leadingParamRefs(x.Wrapped, all)
	case *hclsyntax.TemplateExpr:
		if len(x.Parts) > 0 {
			if lit, ok := x.Parts[0].(*hclsyntax.LiteralValueExpr); ok &&
				lit.Val.Type() == cty.String && lit.Val.IsKnown() && !lit.Val.IsNull() && lit.Val.AsString() != "" {
				return nil
			}
		}
	case *hclsyntax.FunctionCallExpr:
		// format("--limit=%d", param.n) starts with its format's text,
		// up to the first verb.
		if x.Name == "format" && len(x.Args) > 0 && !x.ExpandFinal {
			if f, ok := literalString(x.Args[0]); ok && f != "" && f[0] != '%' {
				return nil
			}
		}
	case *hclsyntax.ConditionalExpr:
		set := map[string]bool{}
		for _, n := range leadingParamRefs(x.TrueResult, all) {
			set[n] = true
		}
		for _, n := range leadingParamRefs(x.FalseResult, all) {
			set[n] = true
		}
		if len(set) == 0 {
			return nil
		}
		out := make([]string, 0, len(set))
		for n := range set {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	return paramRefs(expr, all)
}

// literalString returns the value of expr when it is a string written
// out, without interpolations.
func literalString(expr hclsyntax.Expression) (string, bool) {
	if w, ok := expr.(*hclsyntax.TemplateExpr); ok && len(w.Parts) == 1 {
		expr = w.Parts[0]
	}
	lit, ok := expr.(*hclsyntax.LiteralValueExpr)
	if !ok || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() {
		return "", false
	}
	return lit.Val.AsString(), true
}

// pipe is an output pipe of a command: the command writes to w, and a
// goroutine copies what it reads from r to a writer.
type pipe struct {
	r, w *os.File
	done chan struct{}
}

// newPipe makes a pipe whose output goes to dst.
func newPipe(dst io.Writer) (*pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &pipe{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_, _ = io.Copy(dst, r)
	}()
	return p, nil
}

// started closes the parent's copy of the write end, once the command has
// its own (or failed to start): the reader sees the end of the output when
// every process holding the pipe has exited.
func (p *pipe) started() { _ = p.w.Close() }

// drain waits for the rest of the output, until deadline at most: a
// process that left the command's process group may hold the pipe open.
// After drain the writer is not written to any more.
func (p *pipe) drain(deadline time.Time) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.r.Close()
		<-p.done
	}
}

// close releases both ends and waits for the copy to stop.
func (p *pipe) close() {
	_ = p.w.Close()
	_ = p.r.Close()
	<-p.done
}

// stdinPipe is the standard input of a command: a goroutine writes
// the input to w, the command reads r.
type stdinPipe struct {
	r, w *os.File
	once sync.Once
	done chan struct{}
}

// newStdinPipe makes a pipe that gives the command s.
func newStdinPipe(s string) (*stdinPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &stdinPipe{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		// A command that does not read all of it is no error.
		_, _ = io.WriteString(w, s)
		p.closeWrite()
	}()
	return p, nil
}

// started closes the parent's copy of the read end, once the command has
// its own (or failed to start).
func (p *stdinPipe) started() { _ = p.r.Close() }

func (p *stdinPipe) closeWrite() { p.once.Do(func() { _ = p.w.Close() }) }

// close ends the writing, should a process still hold the pipe without
// reading it, and waits for the writer to stop.
func (p *stdinPipe) close() {
	_ = p.r.Close()
	p.closeWrite()
	<-p.done
}

// capWriter keeps the first max bytes written to it and, of the rest,
// only about the last stderrKeep bytes (for the error message of a
// command that fails), so the writer never blocks and never grows past
// max by much.
type capWriter struct {
	buf       []byte
	max       int
	truncated bool
	rest      tailWriter // the end of what was cut; max set on first use
}

func (w *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	if room := w.max - len(w.buf); room > 0 {
		if len(p) <= room {
			w.buf = append(w.buf, p...)
			return n, nil
		}
		w.buf = append(w.buf, p[:room]...)
		p = p[room:]
	}
	if len(p) > 0 {
		w.truncated = true
		w.rest.max = stderrKeep
		_, _ = w.rest.Write(p)
	}
	return n, nil
}

// end returns about the last n bytes written, cut or not, and whether
// bytes written before them were dropped.
func (w *capWriter) end(n int) ([]byte, bool) {
	if !w.truncated {
		return w.buf, false
	}
	rest := w.rest.bytes()
	if len(rest) >= n {
		return rest, len(w.buf) > 0 || w.rest.dropped()
	}
	head := w.buf[max(0, len(w.buf)-(n-len(rest))):]
	return append(slices.Clip(head), rest...), len(head) < len(w.buf)
}

// tailWriter keeps about the last max bytes written to it.
type tailWriter struct {
	buf     []byte
	max     int
	written int64 // all the bytes written
}

func (w *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.written += int64(n)
	if len(p) > w.max {
		p = p[len(p)-w.max:]
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return n, nil
}

func (w *tailWriter) bytes() []byte {
	if len(w.buf) > w.max {
		return w.buf[len(w.buf)-w.max:]
	}
	return w.buf
}

// dropped reports whether bytes written before those bytes returns were
// dropped.
func (w *tailWriter) dropped() bool { return w.written > int64(len(w.bytes())) }

// stderrWriter takes a command's standard error: it keeps its end for error
// messages, and, line by line, reports progress lines ("::progress 40/100
// Downloading") and forwards the other lines as log messages when the tool
// says stderr_log. Progress lines are left out of error messages.
type stderrWriter struct {
	tail   tailWriter
	report adapters.Reporter
	level  string // "" forwards no log lines
	// redact hides the secrets in a log line or a progress message and
	// cuts it to n bytes (see RedactHead); cut says the text was cut
	// already.
	redact func(text string, n int, cut bool) (string, bool)
	// maskEnd hides what the end of a line cut short holds of a secret,
	// before it goes into the tail.
	maskEnd func(raw string) string
	// decode turns a line in the command's charset into UTF-8, for log
	// messages and progress; nil when the command writes UTF-8.
	decode func([]byte) []byte
	line   []byte // the line read so far
	long   bool   // the line grew past stderrLineRead
}

const (
	// stderrLine caps a line that is forwarded, and a progress
	// message; the rest of a longer line is dropped from the log message.
	stderrLine = 4 << 10
	// stderrLineRead is how much of a line is read: past
	// stderrLine by the longest lookahead of RedactHead, so that the
	// secrets are masked before the line is cut, and a secret the cut
	// falls inside is masked whole. The rest of a longer line is dropped.
	stderrLineRead = stderrLine + redact.MaxLookahead
)

// progressPrefix starts a progress line on standard error.
const progressPrefix = "::progress "

func (w *stderrWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := stderrLineRead - len(w.line); room > 0 {
			if len(chunk) > room {
				w.line = append(w.line, chunk[:room]...)
				w.long = true
			} else {
				w.line = append(w.line, chunk...)
			}
		} else if len(chunk) > 0 {
			w.long = true
		}
		if i < 0 {
			break
		}
		w.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// flush ends the last line when the command did not end it with a newline.
func (w *stderrWriter) flush() {
	if len(w.line) > 0 {
		w.endLine()
	}
}

func (w *stderrWriter) endLine() {
	raw := strings.TrimRight(string(w.line), "\r")
	long := w.long
	w.line, w.long = w.line[:0], false
	// The tail keeps the bytes as written; lastWords decodes it whole.
	line := raw
	if w.decode != nil {
		line = string(w.decode([]byte(raw)))
	}
	if rest, ok := strings.CutPrefix(line, progressPrefix); ok {
		if prog, total, msg, ok := ParseProgress(rest); ok {
			if w.report != nil {
				msg = strings.ToValidUTF8(msg, "\uFFFD")
				if msg != "" {
					msg, _ = w.cut(msg, long)
				}
				w.report.Progress(prog, total, msg)
			}
			return
		}
	}
	if long && w.maskEnd != nil {
		raw = w.maskEnd(raw)
	}
	_, _ = w.tail.Write([]byte(raw + "\n"))
	if w.report == nil || w.level == "" || strings.TrimSpace(line) == "" {
		return
	}
	line = strings.ToValidUTF8(line, "\uFFFD")
	line, cut := w.cut(line, long)
	if cut || long {
		line += " [line truncated]"
	}
	w.report.Log(w.level, line)
}

// cut returns text, a log line or a progress message, with the secrets
// hidden and cut to stderrLine, and whether it was cut; long says the
// line was cut already.
func (w *stderrWriter) cut(text string, long bool) (string, bool) {
	if w.redact != nil {
		return w.redact(text, stderrLine, long)
	}
	if len(text) > stderrLine {
		return text[:redact.RuneStartBefore(text, stderrLine)], true
	}
	return text, false
}

// ParseProgress parses what follows "::progress " on a command's standard
// error: "N", "N/TOTAL" or "N%", then an optional message. N and TOTAL are
// non-negative numbers; a percentage is N out of 100.
func ParseProgress(s string) (progress, total float64, message string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	num, message, _ := strings.Cut(s, " ")
	message = strings.TrimSpace(message)
	parse := func(x string) (float64, bool) {
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil && f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	switch {
	case strings.HasSuffix(num, "%"):
		progress, ok = parse(strings.TrimSuffix(num, "%"))
		total = 100
	case strings.Contains(num, "/"):
		a, b, _ := strings.Cut(num, "/")
		var ok2 bool
		progress, ok = parse(a)
		total, ok2 = parse(b)
		ok = ok && ok2 && total > 0
	default:
		progress, ok = parse(num)
	}
	return progress, total, message, ok
}

var _ io.Writer = (*stderrWriter)(nil)
var _ io.Writer = (*capWriter)(nil)
var _ io.Writer = (*tailWriter)(nil)

// lastPart returns tail, the end of a longer text when cut (of at most
// stderrShown bytes), trimmed and starting at a line when it can.
func lastPart(tail string, cut bool) string {
	if !cut {
		return tail
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 && i < stderrShown/2 {
		tail = tail[i+1:]
	}
	return "…" + strings.TrimSpace(tail)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, left
// there by cutting output at the size cap.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// DescribeOutput says what the command's output is (see OutputDescriber).
func (e *Exec) DescribeOutput() string {
	switch {
	case !e.binary:
		return "text"
	case e.mimeType != "":
		return "the command's bytes, as " + e.mimeType
	}
	return "the command's bytes, of the media type they are sniffed as"
}

var _ adapters.Backend = (*Exec)(nil)
var _ adapters.OutputDescriber = (*Exec)(nil)
