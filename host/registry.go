// Package host runs toolhost: it compiles a loaded config into a Registry of
// tools, resources and prompts, and serves it to MCP clients.
package host

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/evalcap"
	"github.com/toolhost/toolhost/internal/files"
)

// Registry is one compiled config: the tools, resources and prompts it
// declares, ready to serve. A Registry does not change; a reload builds a
// new one and retires the old one with Close.
type Registry struct {
	Config    *thcl.Config
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt

	tools     map[string]*thcl.Tool
	prompts   map[string]*thcl.Prompt
	resources map[string]*thcl.Resource
	templates []*templateDir
	functions *hcl.EvalContext

	// use counts calls running on this registry, so that a retired
	// registry is closed only when the last of them is done.
	useMu   sync.Mutex
	active  int
	retired bool

	// slots holds a token for each tool call whose backend runs
	// (max_concurrent_calls).
	slots chan struct{}
}

type templateDir struct {
	decl *thcl.ResourceTemplate
	dir  *files.Dir
}

// matches reports whether uri is of the template's form. The value of a
// simple {path} holds no "/": clients write it as %2F, and the SDK matches
// a URI with one against no such template, so resources/read could not
// read what a tool's result embedded or linked.
func (t *templateDir) matches(uri string) bool {
	v, ok := t.value(uri)
	return ok && (t.decl.Reserved || !strings.Contains(v, "/"))
}

// value is the part of uri the template's variable stands for, when uri
// has the template's prefix and suffix.
func (t *templateDir) value(uri string) (string, bool) {
	d := t.decl
	if !strings.HasPrefix(uri, d.Prefix) || !strings.HasSuffix(uri, d.Suffix) || len(uri) <= len(d.Prefix)+len(d.Suffix) {
		return "", false
	}
	return uri[len(d.Prefix) : len(uri)-len(d.Suffix)], true
}

// name is the value of the template's variable in uri, decoded; false
// when uri does not match the template, or its value is empty, holds an
// encoded separator or NUL (%2F, %5C, %00) or does not decode.
func (t *templateDir) name(uri string) (string, bool) {
	if !t.matches(uri) {
		return "", false
	}
	raw, _ := t.value(uri)
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%00") {
		return "", false
	}
	name, err := url.PathUnescape(raw)
	return name, err == nil
}

// Load reads and compiles the config at paths. validate and serve share it;
// it starts nothing: no request is sent, no command runs.
func Load(paths []string, opts *thcl.Options) (*Registry, hcl.Diagnostics) {
	cfg, diags := thcl.Load(paths, opts)
	var lookup thcl.EnvLookup
	if opts != nil {
		lookup = opts.LookupEnv
	}
	if diags.HasErrors() {
		closeTools(cfg)
		// Not servable, but the functions let CheckExamples run the
		// examples of the tools that have no errors.
		return &Registry{Config: cfg, functions: thcl.StaticEval(lookup)}, sortDiagnostics(diags)
	}
	r, d := compile(cfg, lookup)
	return r, sortDiagnostics(append(diags, d...))
}

// sortDiagnostics orders diagnostics by file, line and column, so that a
// user fixes them top to bottom (blocks are decoded in parallel and checks
// run in phases). Diagnostics without a place come first.
func sortDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		case a.Start.Line != b.Start.Line:
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
	return diags
}

func closeTools(cfg *thcl.Config) {
	if cfg == nil {
		return
	}
	for _, t := range cfg.Tools {
		if t.Backend != nil {
			_ = t.Backend.Close()
		}
	}
	for _, r := range cfg.Resources {
		if r.Backend != nil {
			_ = r.Backend.Close()
		}
	}
	for _, r := range cfg.ResourceTemplates {
		if r.Backend != nil {
			_ = r.Backend.Close()
		}
	}
}

func compile(cfg *thcl.Config, lookup thcl.EnvLookup) (*Registry, hcl.Diagnostics) {
	r := &Registry{
		Config:    cfg,
		tools:     map[string]*thcl.Tool{},
		prompts:   map[string]*thcl.Prompt{},
		resources: map[string]*thcl.Resource{},
		functions: thcl.StaticEval(lookup),
	}
	slots := thcl.DefaultMaxConcurrentCalls
	if cfg.Server != nil && cfg.Server.MaxConcurrentCalls > 0 {
		slots = cfg.Server.MaxConcurrentCalls
	}
	r.slots = make(chan struct{}, slots)
	var diags hcl.Diagnostics
	for _, t := range cfg.Tools {
		// The schemas go to the SDK as JSON rendered once: it then neither
		// re-encodes them for every tools/list nor on registration.
		def := &mcp.Tool{
			Name:        t.Name,
			Title:       t.Title,
			Description: t.Description,
			InputSchema: t.InputSchemaJSON,
		}
		if t.OutputSchemaJSON != nil {
			def.OutputSchema = t.OutputSchemaJSON
		}
		for _, ic := range t.Icons {
			def.Icons = append(def.Icons, mcp.Icon{Source: ic.Src, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: mcp.IconTheme(ic.Theme)})
		}
		if a := t.Annotations; a != nil {
			def.Annotations = &mcp.ToolAnnotations{
				Title:           a.Title,
				ReadOnlyHint:    a.ReadOnlyHint,
				DestructiveHint: a.DestructiveHint,
				IdempotentHint:  a.IdempotentHint,
				OpenWorldHint:   a.OpenWorldHint,
			}
		}
		// The SDK panics on a schema it cannot use; check here so that a
		// bad schema is a diagnostic, never a crash.
		if err := checkSchemas(def); err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid schema",
				Detail:   fmt.Sprintf("The schema compiled for tool %q is not usable: %s.", t.Name, err),
				Subject:  t.DeclRange.Ptr(),
			})
			continue
		}
		r.tools[t.Name] = t
		r.Tools = append(r.Tools, def)
	}
	for _, res := range cfg.Resources {
		r.resources[res.URI] = res
		mt := res.MIMEType
		if mt == "" && res.File != "" {
			// What a read gives, when the name tells (resources/list
			// reads no file).
			mt = files.MIMEByName(res.File)
		}
		r.Resources = append(r.Resources, &mcp.Resource{
			URI:         res.URI,
			Name:        res.Name,
			Title:       res.Title,
			Description: res.Description,
			MIMEType:    mt,
		})
	}
	for _, rt := range cfg.ResourceTemplates {
		var dir *files.Dir
		var err error
		if rt.Backend == nil {
			dir, err = files.OpenDir(rt.Dir)
		}
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot open directory",
				Detail:   fmt.Sprintf("The directory of resource template %q cannot be opened: %s.", rt.Name, err),
				Subject:  rt.DeclRange.Ptr(),
			})
			continue
		}
		r.templates = append(r.templates, &templateDir{decl: rt, dir: dir})
		r.Templates = append(r.Templates, &mcp.ResourceTemplate{
			URITemplate: rt.URITemplate,
			Name:        rt.Name,
			Title:       rt.Title,
			Description: rt.Description,
			MIMEType:    rt.MIMEType,
		})
	}
	for _, p := range cfg.Prompts {
		r.prompts[p.Name] = p
		def := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Args {
			def.Arguments = append(def.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		r.Prompts = append(r.Prompts, def)
	}
	return r, diags
}

// checkSchemas checks what Server.AddTool would otherwise panic on: an input
// schema that is not an object schema. The compiler builds the schemas
// itself, so this guards against a compiler bug rather than a config
// mistake.
func checkSchemas(t *mcp.Tool) error {
	in, ok := t.InputSchema.(json.RawMessage)
	if !ok {
		return errors.New("the input schema must be an object schema")
	}
	// A schema the SDK cannot decode makes AddTool panic: check it here so
	// that it is a diagnostic, never a crash (and validate sees it too).
	if !json.Valid(in) {
		return errors.New("the input schema is not valid JSON")
	}
	if !bytes.HasPrefix(in, []byte(`{"type":"object"`)) { // compiled schemas start so
		var probe struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(in, &probe) != nil || probe.Type != "object" {
			return errors.New("the input schema must be an object schema")
		}
	}
	if out, ok := t.OutputSchema.(json.RawMessage); ok && !json.Valid(out) {
		return errors.New("the output schema is not valid JSON")
	}
	return nil
}

// acquire marks a call as running on r. It reports false when r is retired:
// the caller takes the registry in service instead.
func (r *Registry) acquire() bool {
	r.useMu.Lock()
	defer r.useMu.Unlock()
	if r.retired {
		return false
	}
	r.active++
	return true
}

func (r *Registry) release() {
	r.useMu.Lock()
	r.active--
	done := r.retired && r.active == 0
	r.useMu.Unlock()
	if done {
		_ = r.Close()
	}
}

// Retire takes r out of service: no new call starts on it, and it is closed
// as soon as the calls running on it are done.
func (r *Registry) Retire() {
	r.useMu.Lock()
	already := r.retired
	r.retired = true
	idle := r.active == 0
	r.useMu.Unlock()
	if !already && idle {
		_ = r.Close()
	}
}

// Close releases what the registry holds: backends release their resources
// and directories are closed. Use Retire for a registry that may be in use.
func (r *Registry) Close() error {
	closeTools(r.Config)
	for _, t := range r.templates {
		if t.dir != nil {
			_ = t.dir.Close()
		}
	}
	return nil
}

// Tool returns the compiled tool named name.
func (r *Registry) Tool(name string) (*thcl.Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// ErrUnknownTool is returned by CallTool for a name the config does not
// declare.
var ErrUnknownTool = errors.New("unknown tool")

// CallTool runs one tool call with no client to report to or ask (see
// CallToolFrom): it validates the arguments against the
// tool's parameters before anything runs, calls the backend, and shapes the
// output. Tool failures come back as a result with IsError set and a message
// a model can act on; only an unknown tool is an error.
func (r *Registry) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return r.CallToolFrom(ctx, name, args, nil)
}

// CallToolFrom runs one tool call for peer, the client that made it: log
// lines and progress of the backend go to it, and it is asked to confirm
// tools that say confirm. A nil peer is a call without a client.
func (r *Registry) CallToolFrom(ctx context.Context, name string, args json.RawMessage, peer Peer) (*mcp.CallToolResult, error) {
	t, ok := r.tools[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, shortName(name))
	}
	start := time.Now()
	res := r.callTool(ctx, t, args, peer)
	if slog.Default().Enabled(ctx, slog.LevelDebug) { // the arguments cost allocations
		slog.Debug("tool call", "tool", name, "error", res.IsError, "duration", time.Since(start))
	}
	return res, nil
}

// takeSlot waits for one of the max_concurrent_calls slots. It returns an
// error result when ctx ends first.
func (r *Registry) takeSlot(ctx context.Context, tool string, rep *callReporter) *mcp.CallToolResult {
	rep.setWaiting(true)
	ok := r.acquireSlot(ctx, "tool call", "tool", tool)
	rep.setWaiting(false)
	if !ok {
		return toolError(fmt.Sprintf("The call was cancelled while it waited for one of the %d calls running to finish (max_concurrent_calls in the server block)%s.", cap(r.slots), cancelReason(ctx)))
	}
	return nil
}

// acquireSlot waits for one of the max_concurrent_calls slots, shared by
// tool calls and reads of resources served by a backend, so that neither
// can start more commands or requests at once than the server block
// allows. It reports false when ctx ends first.
// what and key, name describe the waiter in the debug log line.
func (r *Registry) acquireSlot(ctx context.Context, what, key, name string) bool {
	select {
	case r.slots <- struct{}{}:
		return true
	default:
	}
	slog.Debug(what+" waits for a slot", key, name, "max_concurrent_calls", cap(r.slots))
	select {
	case r.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// callBackend runs the backend in the slot taken for it.
func (r *Registry) callBackend(ctx context.Context, t *thcl.Tool, in *adapters.Input) (*adapters.Output, error) {
	defer r.releaseSlot(ctx)
	return t.Backend.Call(ctx, in)
}

// releaseSlot gives back the slot of a call that has returned, unless the
// host stopped it as it exits: such a call returns before its command
// ends (see adapters.HostExiting), and its slot stays taken, so that a
// call waiting for one is not started by the same shutdown before its
// own context ends.
func (r *Registry) releaseSlot(ctx context.Context) {
	if errors.Is(context.Cause(ctx), adapters.ErrHostExiting) {
		return
	}
	<-r.slots
}

func (r *Registry) callTool(ctx context.Context, t *thcl.Tool, args json.RawMessage, peer Peer) *mcp.CallToolResult {
	// The decoded arguments are held until the call returns, also while
	// it waits for a slot. A call over MaxArgValues holds none:
	// DecodeArgs refuses it before it decodes.
	if n, _ := scanArgValues(args, MaxArgValues); n <= MaxArgValues {
		release, err := holdArgValues(n)
		if err != nil {
			return toolError(err.Error())
		}
		defer release()
	}
	params, err := DecodeArgs(t, args)
	if err != nil {
		return toolError(err.Error() + ".")
	}
	eval := &hcl.EvalContext{
		Functions: r.functions.Functions,
		Variables: map[string]cty.Value{"param": params},
	}
	if t.Confirm != nil {
		if res := r.confirm(ctx, t, eval, peer); res != nil {
			return res
		}
	}
	if t.Ask != nil {
		answers, res := r.ask(ctx, t, eval, peer)
		if res != nil {
			return res
		}
		eval.Variables["answer"] = answers
	}
	in := &adapters.Input{Eval: eval}
	rep := newCallReporter(ctx, peer, t.Name, r.heartbeat())
	if rep != nil {
		in.Report = rep
	}
	if res := r.takeSlot(ctx, t.Name, rep); res != nil {
		rep.finish()
		return res
	}
	out, err := r.callBackend(ctx, t, in)
	rep.finish()
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return toolError(cancelledMessage(ctx))
		}
		return toolError(err.Error())
	}
	if t.Result == nil {
		if out.Binary && out.Truncated {
			return toolError(fmt.Sprintf("the %s output was larger than the tool's size cap and was cut at %d bytes; raise the cap (%s)", out.MIMEType, len(out.Body), sizeCapAttr(t)))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{outputContent(t.Name, out)}}
	}
	if out.Truncated {
		return toolError(fmt.Sprintf("the output was larger than the tool's size cap and was cut at %d bytes, so the result cannot be read from it; raise the cap (%s) or narrow the request", len(out.Body), sizeCapAttr(t)))
	}
	res := &mcp.CallToolResult{}
	// A loop over the arguments or the output, a function that builds a
	// large value in it, or a slow function: each call of a function is
	// checked against the budget first.
	eval, _, done := loopBudget(ctx, eval, time.Now().Add(resultDeadline))
	defer done()
	if len(t.Result.Fields) > 0 {
		if out.Binary {
			return toolError(fmt.Sprintf("the output is %s, not JSON, so the result fields cannot be read from it", out.MIMEType))
		}
		structured, err := MapOutput(t.Result, out, eval)
		if err != nil {
			return toolError(out.Redact(err.Error()))
		}
		// The text item is for reading: a URL in it keeps its "&".
		res.Content = append(res.Content, &mcp.TextContent{Text: string(UnescapeHTML(structured))})
		res.StructuredContent = structured
	}
	for _, c := range t.Result.Content {
		item, err := r.renderContent(ctx, c, eval, out)
		if err != nil {
			return toolError(out.Redact(err.Error()))
		}
		res.Content = append(res.Content, item)
	}
	return res
}

// sizeCapAttr names the setting that caps a tool's output, for the message
// of an output cut at it.
func sizeCapAttr(t *thcl.Tool) string {
	if c, ok := t.Backend.(adapters.SizeCapper); ok {
		return c.SizeCapSetting()
	}
	return "max_output or max_response"
}

// confirm asks the user to confirm a call of a tool that says confirm. It
// returns nil to go on, or the result that refuses the call.
func (r *Registry) confirm(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, peer Peer) *mcp.CallToolResult {
	v, diags := t.Confirm.Value(eval)
	question := ""
	if !diags.HasErrors() {
		if sv, err := convert.Convert(v, cty.String); err == nil && !sv.IsNull() {
			question = sv.AsString()
		}
	}
	if question == "" {
		question = fmt.Sprintf("Run the tool %s?", t.Name)
	}
	if !canAsk(ctx, peer) {
		if t.ConfirmFallback == "allow" {
			return nil
		}
		return toolError(confirmRefusal(ctx, t.Name, question))
	}
	res, err := elicit(ctx, peer, &mcp.ElicitParams{
		Message:         question,
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	})
	switch {
	case err != nil:
		if errors.Is(err, errNoAnswer) {
			return toolError(fmt.Sprintf("nobody answered the confirmation (%q) within %s, so the tool %s did not run; call it again when the user is there to answer", question, elicitTimeout, t.Name))
		}
		if ctx.Err() != nil {
			return toolError(cancelledMessage(ctx))
		}
		return toolError(fmt.Sprintf("the tool %s needs the user's confirmation, and asking failed: %v", t.Name, err))
	case res.Action == "accept":
		return nil
	case res.Action == "decline":
		return toolError(fmt.Sprintf("the user declined: %q was answered no, so the tool %s did not run; do not retry it unless the user asks", question, t.Name))
	default:
		return toolError(fmt.Sprintf("the user cancelled the confirmation (%q), so the tool %s did not run", question, t.Name))
	}
}

// elicitTimeout bounds how long a call waits for the user to answer a
// confirmation or a form: a person may take minutes, but a client that
// never answers must not keep the call (and its request) open for ever.
var elicitTimeout = 10 * time.Minute

// errNoAnswer is the cause of an elicitation that ran out of time.
var errNoAnswer = errors.New("no answer in time")

// elicit asks the user through peer, for at most elicitTimeout. It
// returns an error wrapping errNoAnswer when the time ran out first.
func elicit(ctx context.Context, peer Peer, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	ectx, cancel := context.WithTimeoutCause(ctx, elicitTimeout, errNoAnswer)
	defer cancel()
	res, err := peer.Elicit(ectx, p)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(ectx), errNoAnswer) {
		return nil, fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	return res, err
}

// ask asks the user the tool's form and returns the answers, checked as
// arguments are, or the result that ends the call.
func (r *Registry) ask(ctx context.Context, t *thcl.Tool, eval *hcl.EvalContext, peer Peer) (cty.Value, *mcp.CallToolResult) {
	message := fmt.Sprintf("The tool %s needs some details.", t.Name)
	if v, diags := t.Ask.Message.Value(eval); !diags.HasErrors() {
		if sv, err := convert.Convert(v, cty.String); err == nil && !sv.IsNull() {
			message = sv.AsString()
		}
	}
	if !canAsk(ctx, peer) {
		fields := make([]string, len(t.Ask.Fields))
		for i, f := range t.Ask.Fields {
			fields[i] = f.Name
		}
		return cty.NilVal, toolError(askRefusal(ctx, t.Name, message, fields))
	}
	res, err := elicit(ctx, peer, &mcp.ElicitParams{Message: message, RequestedSchema: t.Ask.Schema})
	switch {
	case err != nil:
		if errors.Is(err, errNoAnswer) {
			return cty.NilVal, toolError(fmt.Sprintf("nobody answered the form (%q) within %s, so the tool %s did not run; call it again when the user is there to answer", message, elicitTimeout, t.Name))
		}
		if ctx.Err() != nil {
			return cty.NilVal, toolError(cancelledMessage(ctx))
		}
		// The SDK checks the answers against the form before we see them.
		if _, detail, ok := strings.Cut(err.Error(), "does not match requested schema: "); ok {
			detail = strings.TrimPrefix(detail, "validating root: ")
			return cty.NilVal, toolError(fmt.Sprintf("the user's answers do not fit the form (%s); the client let through an answer the form does not allow", detail))
		}
		return cty.NilVal, toolError(fmt.Sprintf("the tool %s needs the user's answers, and asking failed: %v", t.Name, err))
	case res.Action == "decline":
		return cty.NilVal, toolError(fmt.Sprintf("the user declined to answer (%q), so the tool %s did not run; do not retry it unless the user asks", message, t.Name))
	case res.Action != "accept":
		return cty.NilVal, toolError(fmt.Sprintf("the user cancelled the form (%q), so the tool %s did not run", message, t.Name))
	}
	raw, err := json.Marshal(res.Content)
	if err != nil || res.Content == nil {
		raw = []byte("{}")
	}
	answers, err := DecodeArgs(&thcl.Tool{Name: t.Name, Params: t.Ask.Fields}, raw)
	if err != nil {
		return cty.NilVal, toolError(fmt.Sprintf("the user's answers do not fit the form: %s", answerText(err)))
	}
	for _, f := range t.Ask.Fields {
		v := answers.GetAttr(f.Name)
		if v.IsNull() || !v.IsKnown() {
			continue
		}
		var values []cty.Value
		if v.Type().IsListType() {
			values = v.AsValueSlice()
		} else if v.Type() == cty.String {
			values = []cty.Value{v}
		}
		for _, e := range values {
			if len(f.Choices) > 0 && !containsValue(f.Choices, e) {
				return cty.NilVal, toolError(fmt.Sprintf("the user's answer %q is %q, which is not one of its choices", f.Name, shortName(e.AsString())))
			}
			if ac, ok := t.Backend.(adapters.AnswerChecker); ok {
				if err := ac.CheckAnswer(f.Name, e.AsString()); err != nil {
					return cty.NilVal, toolError(err.Error())
				}
			}
		}
	}
	return answers, nil
}

func containsValue(list []cty.Value, v cty.Value) bool {
	for _, e := range list {
		if e.Equals(v).True() {
			return true
		}
	}
	return false
}

// heartbeat is how often a call that reports no progress sends an
// elapsed-time progress notification.
func (r *Registry) heartbeat() time.Duration {
	if s := r.Config.Server; s != nil && s.ProgressHeartbeat > 0 {
		return s.ProgressHeartbeat
	}
	return DefaultHeartbeat
}

// toolError is an isError result. It never carries structuredContent, so
// that a client checking it against outputSchema sees the real error.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// ReadResource reads a declared resource, or a file of a resource template's
// directory. Anything not found or refused is mcp.ResourceNotFoundError.
func (r *Registry) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	if res, ok := r.resources[uri]; ok {
		if res.Backend != nil {
			return r.readFromBackend(ctx, uri, res.MIMEType, res.Backend, cty.EmptyObjectVal)
		}
		fc, err := files.Read(res.File, files.DefaultMaxSize)
		if err != nil {
			if errors.Is(err, files.ErrNotFound) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		return contents(uri, res.MIMEType, fc), nil
	}
	for _, t := range r.templates {
		d := t.decl
		if !t.matches(uri) {
			continue
		}
		name, ok := t.name(uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if d.Backend != nil {
			return r.readFromBackend(ctx, uri, d.MIMEType, d.Backend, cty.ObjectVal(map[string]cty.Value{d.Variable: cty.StringVal(name)}))
		}
		fc, err := t.dir.Read(name, files.DefaultMaxSize)
		if err != nil {
			if errors.Is(err, files.ErrNotFound) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		return contents(uri, d.MIMEType, fc), nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// readFromBackend reads a resource served by a backend: its output is the
// content, text or (for binary output) a blob. A backend's failure is a
// JSON-RPC error whose message says what failed, as for tools.
func (r *Registry) readFromBackend(ctx context.Context, uri, declared string, b adapters.Backend, params cty.Value) (*mcp.ReadResourceResult, error) {
	eval := &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"param": params}}
	// A value the backend refuses by itself (an exec argument that would
	// start an option) came from the URI: the client's to correct.
	if ac, ok := b.(adapters.ArgumentChecker); ok {
		if err := ac.CheckArguments(&adapters.Input{Eval: eval}); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("reading %s: %v", uri, err)}
		}
	}
	if !r.acquireSlot(ctx, "resource read", "uri", uri) {
		return nil, fmt.Errorf("reading %s: cancelled while it waited for one of the %d calls running to finish (max_concurrent_calls in the server block)%s", uri, cap(r.slots), cancelReason(ctx))
	}
	out, err := func() (*adapters.Output, error) {
		defer r.releaseSlot(ctx)
		return b.Call(ctx, &adapters.Input{Eval: eval})
	}()
	if err != nil {
		// Stopped as the host exits: the reason, as a tool call gives it,
		// not the backend's "context canceled".
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("reading %s: the read was cancelled%s", uri, cancelReason(ctx))
		}
		return nil, fmt.Errorf("reading %s: %v", uri, err)
	}
	if out.Truncated {
		return nil, fmt.Errorf("reading %s: the content was larger than the size cap and was cut at %d bytes", uri, len(out.Body))
	}
	mimeType := declared
	if mimeType == "" {
		mimeType = out.MIMEType
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: mimeType}
	if out.Binary {
		rc.Blob = out.Body
	} else {
		rc.Text = string(out.Body)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{keepEmpty(rc)}}, nil
}

func contents(uri, declared string, fc *files.Content) *mcp.ReadResourceResult {
	mimeType := declared
	if mimeType == "" {
		mimeType = fc.MIMEType
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: mimeType}
	if fc.Text {
		rc.Text = string(fc.Data)
	} else {
		rc.Blob = fc.Data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{keepEmpty(rc)}}
}

// PromptError is a prompts/get with arguments that do not fit the prompt.
type PromptError struct{ Msg string }

func (e *PromptError) Error() string { return e.Msg }

// GetPrompt renders a prompt with the given arguments.
func (r *Registry) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	p, ok := r.prompts[name]
	if !ok {
		return nil, &PromptError{Msg: fmt.Sprintf("unknown prompt %q", shortName(name))}
	}
	vals := make(map[string]cty.Value, len(p.Args))
	declared := map[string]bool{}
	for _, a := range p.Args {
		declared[a.Name] = true
		v, ok := args[a.Name]
		switch {
		case ok && len(a.Enum) > 0 && !slices.Contains(a.Enum, v):
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: argument %q is %q, and must be one of %s", name, a.Name, shortName(v), strings.Join(quoteAll(a.Enum), ", "))}
		case ok:
			vals[a.Name] = cty.StringVal(v)
		case a.Required:
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: missing required argument %q", name, a.Name)}
		default:
			vals[a.Name] = cty.NullVal(cty.String)
		}
	}
	for k := range args {
		if !declared[k] {
			return nil, &PromptError{Msg: fmt.Sprintf("prompt %q has no argument %q", name, shortName(k))}
		}
	}
	argObj := cty.EmptyObjectVal
	if len(vals) > 0 {
		argObj = cty.ObjectVal(vals)
	}
	eval := &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"arg": argObj}}
	// A prompt is held as a template with the default max_output and
	// timeout is.
	budget := evalcap.NewBudget(ctx, MaxPromptText, evalcap.TotalFactor*MaxPromptText, time.Now().Add(promptDeadline))
	plain := eval
	eval, done := evalcap.With(eval, budget)
	defer done()
	res := &mcp.GetPromptResult{Description: p.Description}
	// rendered is the length of the messages' text so far.
	rendered := 0
	for _, m := range p.Messages {
		if m.Content != nil {
			item, err := r.renderContent(ctx, m.Content, eval, nil)
			var je *jsonrpc.Error
			var nr *noResourceError
			noResource := errors.As(err, &nr) || errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound
			if noResource && m.Content.URI != nil && len(m.Content.URI.Variables()) > 0 {
				// A URI made of the arguments names no resource: the
				// client's to correct, as any other argument problem.
				return nil, &PromptError{Msg: fmt.Sprintf("prompt %q: %v", name, err)}
			}
			if err := budget.Err(); err != nil {
				return nil, promptLimitError(name, err)
			}
			if err != nil {
				return nil, fmt.Errorf("prompt %q: %v", name, err)
			}
			if tc, ok := item.(*mcp.TextContent); ok {
				if rendered += len(tc.Text); rendered > MaxPromptText {
					return nil, promptTooLong(name)
				}
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: item})
			continue
		}
		// A message's text answers at the deadline even if a function is
		// still running.
		v, diags, lerr := evalcap.Run(plain, budget, evalcap.Expr(m.Text))
		if lerr != nil {
			return nil, promptLimitError(name, lerr)
		}
		if diags.HasErrors() {
			return nil, fmt.Errorf("prompt %q: %s", name, diags.Error())
		}
		s, err := convert.Convert(v, cty.String)
		if err != nil || s.IsNull() {
			return nil, fmt.Errorf("prompt %q: a message rendered to null; use coalesce(arg.NAME, \"default\") for optional arguments", name)
		}
		if rendered += len(s.AsString()); rendered > MaxPromptText {
			return nil, promptTooLong(name)
		}
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: s.AsString()}})
	}
	return res, nil
}

// blobText is used by inspect and call to print binary resource contents.
func blobText(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// resourceSource says where a declared resource's content comes from, so
// that a reload that points a URI elsewhere counts as a change.
func (r *Registry) resourceSource(uri string) string {
	if res, ok := r.resources[uri]; ok {
		return res.File
	}
	return ""
}

// cancelledMessage is the error text of a call whose context ended: the
// reason, when the host is shutting down (a client that cancels a call
// gets no reply at all).
func cancelledMessage(ctx context.Context) string {
	return "the call was cancelled" + cancelReason(ctx)
}

// cancelReason is the reason a call's context ended, after ": ", when it
// has one (the host is shutting down); "" when the client cancelled it.
func cancelReason(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return ": " + cause.Error()
	}
	return ""
}
