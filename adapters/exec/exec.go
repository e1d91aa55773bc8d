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
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/text/encoding"

	"github.com/toolhost/toolhost/adapters"
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
)

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

// init registers the exec kind.
func init() {
	adapters.Register(adapters.Kind{
		Name:    "exec",
		Summary: "run a command (an argv list, never a shell) and return its standard output",
		Keys:    []string{"command", "stdin"},
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
	// charset decodes standard output and error to UTF-8: the block's
	// charset, or else the platform's default (defaultCharset: on Windows
	// the console's code page, with a byte order mark winning); nil when
	// the command writes UTF-8.
	charset  encoding.Encoding
	mimeType string // media type of binary output; "" sniffs it

	// sensitiveArgs are the indexes of the command's elements wrapped in
	// sensitive(...): their values are hidden like secret variables.
	sensitiveArgs []int
	// sensitiveExprs are what the command passes to sensitive(...)
	// anywhere in it (inside concat, say, where an element has no fixed
	// index): their values at a call are hidden too.
	sensitiveExprs []hcl.Expression
	// envCreds are the credential-named variables the block reads with
	// env() (see adapters.EnvCredentialNames).
	envCreds []string
	// plain is set when no expression a call evaluates calls a function
	// or runs a for expression: building the command then needs no
	// Budget.
	plain bool
	// lastFound is the program resolveProgram found on PATH last.
	lastFound atomic.Pointer[foundProgram]
	// lastEnv is the environment buildEnv built last, when envKnown.
	lastEnv atomic.Pointer[builtEnv]

	mu      sync.Mutex
	closed  bool
	running map[int]*process // running commands, by process group
}

// foundProgram is a program name found on a PATH: in file.
type foundProgram struct {
	prog, path, file string
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

var _ adapters.Backend = (*Exec)(nil)
