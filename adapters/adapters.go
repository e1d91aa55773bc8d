// Package adapters is the contract between toolhost and its tool backends:
// Backend, its Input and Output, the registry of kinds (Register, Lookup),
// what a block's Compile is given (CompileContext, and Attrs to read fixed
// arguments with one wording), and the optional capabilities the host finds
// by type assertion (ArgumentChecker, AnswerChecker, SizeCapper,
// OfflineCaller, NetworkCaller, OutputNamer, OutputDescriber, ParamChoicer). It names no backend: each
// lives in a package of its own below it (exec, http, template), registers
// its kind in init, and is linked into the program by adapters/all.
//
// A backend goes through three steps. Compile decodes the backend's block in
// the config (no I/O: no request is sent, no command runs), Call runs one tool
// call with a context, and Close releases what the backend holds (idle
// connections, for example) when its config is retired.
package adapters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tidwall/gjson"
	"github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/jsondepth"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/zclconf/go-cty/cty"
)

// Backend is a compiled tool backend: the thing that does the work of one
// tool. Backends are safe for concurrent use.
type Backend interface {
	// Call runs the tool once. The returned error's message is shown to the
	// model as an isError result, so it says what went wrong and what to try;
	// it never contains secrets.
	Call(ctx context.Context, in *Input) (*Output, error)
	// Close releases what the backend holds. Calls already running finish.
	Close() error
}

// ErrHostExiting marks the cause of a call's context when the host is
// exiting: a backend whose call then still waits for something slow to
// stop (exec, for a command within its kill_timeout) returns at once, so
// that the call's answer goes out before the host waits for the commands
// (WaitCommands) and kills what is left of them (KillCommands). Other
// cancellations wait as before: a call a client cancelled keeps its
// max_concurrent_calls slot until its command has ended.
var ErrHostExiting = errors.New("the host is exiting")

// HostExiting returns reason marked as the cause of an exit: errors.Is
// finds ErrHostExiting in it, and its text is reason's, for the answers
// of the calls it stops.
func HostExiting(reason error) error {
	if errors.Is(reason, ErrHostExiting) {
		return reason
	}
	return hostExiting{reason}
}

// hostExiting is a reason for an exit (HostExiting).
type hostExiting struct{ reason error }

func (e hostExiting) Error() string        { return e.reason.Error() }
func (e hostExiting) Unwrap() error        { return e.reason }
func (e hostExiting) Is(target error) bool { return target == ErrHostExiting }

// Exiting reports whether ctx ended because the host is Exiting.
func Exiting(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrHostExiting)
}

// ArgumentChecker is a Backend that refuses some argument values by itself,
// before it does any I/O (exec refuses a value that would start an option,
// or that holds a NUL). CheckArguments reports such a refusal, with the
// message Call would give, and does nothing else; other problems are
// Call's to find. toolhost validate uses it to run examples as calls run.
type ArgumentChecker interface {
	CheckArguments(in *Input) error
}

// OutputDescriber is a Backend that can say what its output is before any
// call, for toolhost inspect: "text", or what else it may be. A backend
// that is not one returns text.
type OutputDescriber interface {
	DescribeOutput() string
}

// SizeCapper is a Backend that cuts its output at a size cap its block
// sets. SizeCapSetting names that setting, such as "max_output in its exec
// block", for the message of an output that was cut at it.
type SizeCapper interface {
	SizeCapSetting() string
}

// OfflineCaller is a Backend whose calls do no I/O: no request is sent and
// no command runs (a template renders text). CallsOffline reports that;
// toolhost validate then runs its examples' calls for real instead of
// asking for a recorded response.
type OfflineCaller interface {
	CallsOffline() bool
}

// OutputNamer is a Backend that names where its output comes from, such as
// "the command's standard output", for messages that ask for a recorded
// one; messages say "the backend's output" of a backend that is not one.
type OutputNamer interface {
	OutputName() string
}

// AnswerChecker is a Backend that refuses some values of the answers a
// user gives to a tool's ask block, as it refuses arguments (exec refuses
// one that would pass for an option). CheckAnswer returns the refusal's
// message for the answer named name, or nil.
type AnswerChecker interface {
	CheckAnswer(name, value string) error
}

// ParamChoicer is a Backend that takes only some values of a parameter
// (an http block's select choices). ParamChoices returns them by the
// parameter's name: the values of a string parameter, or the items of a
// list of strings. The tool's input schema lists them as an enum, so that
// the model sees them.
type ParamChoicer interface {
	ParamChoices() map[string][]string
}

// PathPicker is a Backend one of whose parameters is a path that picks
// any part of its answer (an http block's select with gjson = true), so
// that a call may leave out any field. PathParam returns its name, or "".
type PathPicker interface {
	PathParam() string
}

// Input is one call of a backend.
type Input struct {
	// Eval is the evaluation context of the call: the variable "param" holds
	// the validated arguments (every declared parameter is present; absent
	// optional ones are null), and the functions are toolhost's library.
	Eval *hcl.EvalContext
	// Report receives what the backend reports while it runs: log lines
	// and progress. Nil when nobody listens.
	Report Reporter
	// Caller is who makes the call, as their verified token says; nil
	// without a token (stdio, the bridge, HTTP without auth). claim() in
	// Eval reads its claims.
	Caller *identity.Caller
}

// Claim returns the claim name of the caller's token, and whether the
// call has a caller whose token has it.
func (in *Input) Claim(name string) (any, bool) {
	if in == nil {
		return nil, false
	}
	return in.Caller.Claim(name)
}

// Reporter receives what a backend reports during a call. Its methods are
// safe for concurrent use; they may block briefly while a notification is
// written to the client.
type Reporter interface {
	// Log sends one log line at an MCP logging level ("debug", "info",
	// "notice", "warning", "error", "critical", "alert", "emergency").
	Log(level, msg string)
	// Progress reports how far the call has come: progress, the total when
	// known (0 when not) and a short message (may be empty).
	Progress(progress, total float64, message string)
}

// LogLevels are the MCP logging levels, lowest first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ValidLogLevel reports whether s is an MCP logging level.
func ValidLogLevel(s string) bool {
	for _, l := range LogLevels {
		if l == s {
			return true
		}
	}
	return false
}

// Output is what a backend produced.
type Output struct {
	// Body is the response body (http), standard output (exec) or rendered
	// text (template). Text is always UTF-8: backends decode other charsets.
	Body []byte
	// MIMEType is the media type without parameters, such as
	// "application/json" or "text/plain". Empty when unknown.
	MIMEType string
	// Truncated is set when Body was cut at the backend's size cap.
	Truncated bool
	// Binary is set when Body is bytes to pass on as they are (an image, a
	// sound, a file), not text.
	Binary bool
	// FreshFor is how long the output stays fresh in the backend's cache
	// (an http block's cache): a resource read says so to the client as
	// its ttlMs. Zero when the backend keeps none.
	FreshFor time.Duration
	// Private is set when the output is one caller's (the backend's cache
	// keys it by the caller): a resource read's cacheScope is then
	// "private".
	Private bool
	// Secrets returns the values the call sent that must not appear in a
	// message quoting the output (credentials, sensitive parameters); nil
	// when there are none. Called only when such a message is written.
	Secrets func() []string
	// jsonChecked is set once JSON has looked at Body; jsonValid and
	// jsonTooDeep are what it found.
	jsonChecked, jsonValid, jsonTooDeep bool
}

// TrimBOM drops a byte order mark at the start of a backend's output, so
// that JSON after one (Windows PowerShell and .NET write it; a UTF-16
// response keeps it once decoded) reads as JSON.
func TrimBOM(body []byte) []byte {
	return bytes.TrimPrefix(body, []byte("\ufeff"))
}

// JSON reports whether Body (after a UTF-8 byte order mark) is JSON that
// toolhost reads: tooDeep when it nests past jsondepth.Max, and is not read
// further; valid when it is JSON and not too deep. It looks once per
// output: the result fields and each content item ask, and each look
// reads the whole body. An output is one call's, read by one goroutine.
func (o *Output) JSON() (valid, tooDeep bool) {
	if !o.jsonChecked {
		body := TrimBOM(o.Body)
		o.jsonTooDeep = jsondepth.TooDeep(body, jsondepth.Max)
		o.jsonValid = !o.jsonTooDeep && gjson.ValidBytes(body)
		o.jsonChecked = true
	}
	return o.jsonValid, o.jsonTooDeep
}

// Redact removes from msg, a message about the output (a result field
// that does not match, output that is not JSON, ...), the secrets the call
// sent: an upstream or a command may echo them in its output. What is a
// credential by its form is masked too (see Redact).
func (o *Output) Redact(msg string) string {
	var secrets []string
	if o != nil && o.Secrets != nil {
		secrets = o.Secrets()
	}
	return redact.Redact(msg, secrets)
}

// RedactHead is Redact for the start of msg, at most n bytes of it: the
// secrets are masked before msg is cut, so that the cut never shows part
// of one (see RedactHead). It says whether msg was cut.
func (o *Output) RedactHead(msg string, n int) (string, bool) {
	var secrets []string
	if o != nil && o.Secrets != nil {
		secrets = o.Secrets()
	}
	return redact.RedactHead(msg, n, secrets, false)
}

// CompileContext is what a backend's Compile gets besides its block.
type CompileContext struct {
	// BaseDir is the directory of the config file the block is in; relative
	// paths in the block are relative to it.
	BaseDir string
	// Eval is a compile-time evaluation context: the functions of the
	// language, and "param" as an unknown value of the parameters' object
	// type. Evaluating an expression with it type-checks the expression and
	// reports references to undeclared parameters with a suggestion, without
	// knowing any argument. An expression whose value is wholly known under
	// Eval does not depend on arguments and can be evaluated once.
	Eval *hcl.EvalContext
	// ToolName is the label of the tool block, for messages.
	ToolName string
	// Params describes the tool's declared parameters by name.
	Params map[string]ParamInfo
	// Network is the server block's network policy for http tools.
	Network netpolicy.Policy
	// Sources are the config's source blocks by name, for sql blocks.
	Sources map[string]*Source
}

// ParamInfo is what a backend may need to know of a declared parameter.
type ParamInfo struct {
	// AllowFlags permits values starting with "-" where the parameter is a
	// command's positional argument (exec).
	AllowFlags bool
	// Sensitive marks values that must never appear in logs or messages.
	Sensitive bool
	// Optional marks a parameter with no default that a call may leave
	// out: its value is then null.
	Optional bool
}

// CompileFunc decodes a backend block into a Backend. It does no I/O and
// reports every problem it finds as diagnostics with the tightest range.
type CompileFunc func(block *hcl.Block, cc *CompileContext) (Backend, hcl.Diagnostics)

// Kind is one kind of backend, named by its block type in a tool block.
type Kind struct {
	// Name is the block type, such as "http".
	Name string
	// Summary is a one-line description for help texts.
	Summary string
	// Compile decodes the block.
	Compile CompileFunc
	// Keys are the arguments that mark a block of this kind (url for http,
	// command for exec): written straight in a tool block, which then has
	// no backend, they say which block they belong in.
	Keys []string
	// Wait, when set, waits until the work this kind's calls may leave
	// behind them (exec's commands, within their kill_timeout) has ended,
	// or until ctx ends; it reports whether all has ended.
	Wait func(ctx context.Context) bool
	// Kill, when set, ends at once what Wait waits for.
	Kill func()
}

// WaitCommands waits until the work that calls of every kind left behind
// them has ended (Kind.Wait), or until ctx ends; it reports whether all
// has. A host that is exiting calls it once the calls it stopped are
// answered (a call stopped with ErrHostExiting returns before its command
// has ended), to give their commands what is left of their kill_timeout,
// as much as it gives them, and then calls KillCommands.
func WaitCommands(ctx context.Context) bool {
	for _, k := range kinds() {
		if k.Wait != nil && !k.Wait(ctx) {
			return false
		}
	}
	return true
}

// KillCommands ends at once what WaitCommands waits for (Kind.Kill). A
// host calls it as it exits, once it has given calls the time it gives
// them, so that nothing it started outlives it.
func KillCommands() {
	for _, k := range kinds() {
		if k.Kill != nil {
			k.Kill()
		}
	}
}

// kinds returns the registered kinds.
func kinds() []Kind {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Collect(maps.Values(registry))
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Kind{}
)

// Register adds a backend kind. It panics when the name is taken: two kinds
// with one name are a programming error found at init.
func Register(k Kind) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if k.Name == "" || k.Compile == nil {
		panic("adapters: Register needs a name and a compile function")
	}
	if _, dup := registry[k.Name]; dup {
		panic(fmt.Sprintf("adapters: backend kind %q registered twice", k.Name))
	}
	registry[k.Name] = k
}

// Lookup returns the backend kind registered under name.
func Lookup(name string) (Kind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	k, ok := registry[name]
	return k, ok
}

// Names lists the registered backend kinds, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// EvalMessage joins the errors of evaluating an expression at call time
// into one message for the tool's error: each with the place in the config
// it comes from (the file's base name, line and column), so that the
// config's author can find the expression from what the model was told.
// What env() and sensitive() give in the expressions the errors come from
// is redacted: an error may quote a value that holds a credential (parseint
// of a string made from one), and the message goes to the client. An error
// is given once, however many iterations of a loop it came from.
func EvalMessage(diags hcl.Diagnostics) string {
	var parts []string
	var secrets []string
	seen := map[string]bool{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		s := d.Summary
		if detail := EvalDetail(d); detail != "" {
			s += ": " + detail
		}
		if r := d.Subject; r != nil && r.Filename != "" {
			s = fmt.Sprintf("%s:%d:%d: %s", filepath.Base(r.Filename), r.Start.Line, r.Start.Column, s)
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		parts = append(parts, s)
		secrets = append(secrets, credentialValues(d.Expression, d.EvalContext)...)
	}
	return redact.Redact(strings.Join(parts, "; "), secrets)
}

// EvalDetail is the detail of an error evaluating an expression at call
// time. HCL's for a null written into a string ("The expression result is
// null. Cannot include a null value in a string template.") names neither
// the value nor a remedy: it is replaced by one that does, when the value
// is a parameter, an attribute of one, or an answer.
func EvalDetail(d *hcl.Diagnostic) string {
	if d.Summary != "Invalid template interpolation value" || !strings.Contains(d.Detail, "null") || d.Expression == nil {
		return d.Detail
	}
	tr, td := hcl.AbsTraversalForExpr(d.Expression)
	if td.HasErrors() || len(tr) < 2 || tr.RootName() != "param" && tr.RootName() != "answer" {
		return d.Detail
	}
	name := TraversalString(tr)
	return fmt.Sprintf("%s is null (absent), and a null cannot be written into a string; pass a value for it, or, in the config, give it a default or write coalesce(%s, \"\")", name, name)
}

// TraversalString renders a traversal as it is written, such as
// param.tags or param.x[0], for messages.
func TraversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			} else if s.Key.Type() == cty.Number {
				b.WriteString("[" + s.Key.AsBigFloat().Text('f', -1) + "]")
			}
		}
	}
	return b.String()
}

// credentialValues are the values of the env() and sensitive() calls in
// expr, evaluated with ctx: the strings that may hold credentials.
func credentialValues(expr hcl.Expression, ctx *hcl.EvalContext) []string {
	if expr == nil || ctx == nil {
		return nil
	}
	var out []string
	_ = WalkExpr(expr, func(e hcl.Expression) {
		call, ok := e.(*hclsyntax.FunctionCallExpr)
		if !ok || (call.Name != "env" && call.Name != "sensitive") {
			return
		}
		v, d := call.Value(ctx)
		if d.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
			return
		}
		if v, _ = v.UnmarkDeep(); v.Type() == cty.String {
			out = append(out, v.AsString())
		}
	})
	return out
}
