package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// runCall runs one tool as a client would and prints the result as the
// client sees it: structuredContent pretty-printed when the tool has a
// result block, else the text content. A tool error (isError) goes to
// stderr and exits 1; a malformed command line exits 2.
func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("call", "call CONFIG TOOL [name=value ...] [--json '{...}']", stderr)
	rawJSON := fs.String("json", "", "the arguments as one JSON object (merged under name=value pairs)")
	yes := fs.Bool("yes", false, "answer yes when the tool asks for confirmation (confirm)")
	logLevel := fs.String("log-level", "info", "the least level of the tool's log lines shown on stderr: debug, info, notice, warning or error")
	offline := addOfflineFlag(fs)
	var answerFlags multiFlag
	fs.Var(&answerFlags, "answer", "an answer to the tool's ask form, as name=value (repeatable)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) < 2 {
		fs.Usage()
		if len(pos) == 1 {
			// The tool's name is missing: name the ones the config has.
			if reg, diags := host.Load(pos[:1], nil); !diags.HasErrors() {
				names := make([]string, 0, len(reg.Tools))
				for _, t := range reg.Tools {
					names = append(names, t.Name)
				}
				reg.Close()
				fmt.Fprintf(stderr, "toolhost call: name the tool to call after %s; its tools are: %s\n", pos[0], strings.Join(names, ", "))
			}
		}
		return ExitUsage
	}
	reg, callCtx, done, ok := loadToRun(ctx, "call", pos[:1], loadOptions(*offline), stderr)
	if !ok {
		return ExitFailure
	}
	defer done()
	tool, ok := reg.Tool(pos[1])
	if !ok {
		if hint := otherKind(reg, pos[0], pos[1], "tool"); hint != "" {
			fmt.Fprintf(stderr, "toolhost call: %s\n", hint)
			return ExitFailure
		}
		names := make([]string, 0, len(reg.Tools))
		for _, t := range reg.Tools {
			names = append(names, t.Name)
		}
		fmt.Fprintf(stderr, "toolhost call: there is no tool %q in %s%s; the tools are: %s\n", pos[1], pos[0], closeHint(pos[1], names), strings.Join(names, ", "))
		return ExitFailure
	}
	argJSON, ok := callArguments(tool, *rawJSON, pos[2:], stderr)
	if !ok {
		return ExitUsage
	}
	if strings.EqualFold(*logLevel, "warn") { // slog's name, as serve takes it
		*logLevel = "warning"
	}
	minLevel, ok := logLevelRank[mcp.LoggingLevel(strings.ToLower(*logLevel))]
	if !ok {
		fmt.Fprintf(stderr, "toolhost call: unknown --log-level %q: use debug, info, notice, warning or error\n", *logLevel)
		return ExitUsage
	}
	// The call's failure is printed below, as the result: the log line
	// serve writes for it (at warning) would say it twice, in another form.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	peer := &cliPeer{yes: *yes, stderr: stderr, minLevel: minLevel}
	if tool.Ask != nil {
		peer.form = tool.Ask.Schema
		for _, f := range tool.Ask.Fields {
			peer.fields = append(peer.fields, f.Name)
		}
	}
	if len(answerFlags) > 0 {
		if tool.Ask == nil {
			fmt.Fprintf(stderr, "toolhost call: --answer: the tool %s has no ask form\n", tool.Name)
			return ExitUsage
		}
		answers, ok := nameValues(answerFlags, tool.Ask.Fields, stderr)
		if !ok {
			return ExitUsage
		}
		peer.answers = answers
	}
	res, err := reg.CallToolFrom(callCtx, tool.Name, argJSON, peer)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost call: %s\n", err)
		return ExitFailure
	}
	offlineNote(stderr, tool.Name, res)
	return printResult(tool.Name, res, stdout, stderr)
}

// callArguments makes the arguments of a call to tool from --json and the
// name=value pairs, which it checks; it reports false, having said why on
// stderr, when they are malformed.
func callArguments(tool *thcl.Tool, rawJSON string, pairs []string, stderr io.Writer) (json.RawMessage, bool) {
	argMap := map[string]json.RawMessage{}
	if rawJSON != "" {
		// Only an object: null would leave argMap nil (and name=value
		// pairs would then panic), and Go's own message for an array or a
		// string names Go types, not what was typed.
		trimmed := strings.TrimSpace(rawJSON)
		if !strings.HasPrefix(trimmed, "{") {
			fmt.Fprintf(stderr, "toolhost call: --json must be a JSON object, as in --json '{\"name\": \"value\"}'; got %s\n", jsonKindOf(trimmed))
			return nil, false
		}
		if err := json.Unmarshal([]byte(trimmed), &argMap); err != nil {
			fmt.Fprintf(stderr, "toolhost call: --json must be a JSON object: %s\n", err)
			return nil, false
		}
	}
	// Parameters whose values are strings: name=value is sent as it is
	// for them, as JSON for the others.
	isString := map[string]bool{}
	// Parameters whose values are lists or objects, which name=value
	// can give only as JSON.
	composite := map[string]*thcl.Type{}
	for _, p := range tool.Params {
		isString[p.Name] = p.Type.Kind == thcl.KindString
		switch p.Type.Kind {
		case thcl.KindList, thcl.KindSet, thcl.KindTuple, thcl.KindMap, thcl.KindObject:
			composite[p.Name] = p.Type
		}
	}
	if tool.RawInput != nil {
		for _, name := range tool.RawInput.Properties {
			isString[name] = schemaIsString(gjson.GetBytes(tool.RawInput.Schema, "properties."+gjson.Escape(name)+".type"))
		}
	}
	nvs, ok := splitNameValues("call", pairs, func(name string) string {
		return fmt.Sprintf(" (a list is one value, as in %s='[\"a\",\"b\"]')", name)
	}, stderr)
	if !ok {
		return nil, false
	}
	for _, nv := range nvs {
		name, value, kv := nv.name, nv.value, nv.name+"="+nv.value
		switch {
		case isString[name]:
			b, _ := json.Marshal(value)
			argMap[name] = b
		case json.Valid([]byte(value)):
			argMap[name] = json.RawMessage(value)
		case composite[name] != nil:
			fmt.Fprintf(stderr, "toolhost call: %s is not JSON, and %q is a %s, which name=value takes as JSON: write %s\n",
				kv, name, composite[name], jsonExample(name, value, composite[name]))
			return nil, false
		default:
			b, _ := json.Marshal(value)
			argMap[name] = b
		}
	}
	argJSON, _ := json.Marshal(argMap)
	return argJSON, true
}

// nameValue is one name=value argument of a command line.
type nameValue struct{ name, value string }

// splitNameValues splits the name=value arguments of a command (call,
// prompt) in their order. It reports false, having said why on stderr,
// when one is not of that form or a name is given twice; twiceHint, when
// not nil, adds to the message for a name given twice.
func splitNameValues(cmd string, pairs []string, twiceHint func(name string) string, stderr io.Writer) ([]nameValue, bool) {
	var out []nameValue
	given := map[string]bool{}
	for _, kv := range pairs {
		name, value, found := strings.Cut(kv, "=")
		if !found {
			fmt.Fprintf(stderr, "toolhost %s: argument %q is not name=value; write it as %s=VALUE (%s= for an empty string)\n", cmd, kv, kv, kv)
			return nil, false
		}
		if name == "" {
			fmt.Fprintf(stderr, "toolhost %s: argument %q has no name before the =; write the parameter's name first, as in NAME%s\n", cmd, kv, kv)
			return nil, false
		}
		if given[name] {
			hint := ""
			if twiceHint != nil {
				hint = twiceHint(name)
			}
			fmt.Fprintf(stderr, "toolhost %s: argument %q is given twice; give it once%s\n", cmd, name, hint)
			return nil, false
		}
		given[name] = true
		out = append(out, nameValue{name, value})
	}
	return out, true
}

// printResult prints the result of a call to the tool name as a
// client sees it (see runCall) and returns the exit code.
func printResult(name string, res *mcp.CallToolResult, stdout, stderr io.Writer) int {
	if res.IsError {
		for _, c := range res.Content {
			fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimRight(contentText(c), "\n"))
		}
		return ExitFailure
	}
	if res.StructuredContent != nil {
		b, err := indentForReading(res.StructuredContent)
		if err != nil {
			fmt.Fprintf(stderr, "toolhost call: %s\n", err)
			return ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
		// The first item is the same JSON; print the items after it.
		for _, c := range res.Content[1:] {
			fmt.Fprintln(stdout, strings.TrimRight(contentText(c), "\n"))
		}
		return ExitOK
	}
	for _, c := range res.Content {
		text := contentText(c)
		fmt.Fprint(stdout, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(stdout)
		}
	}
	return ExitOK
}

// stoppable returns the context of the call toolhost call makes, and the
// function to call once its result is printed. The stop signals of ctx
// (from Signals) are installed: the first stops the call at once, as
// serve stops its calls, with a reason that names the signal, and the
// call returns without waiting for its command, which gets its
// kill_signal. The function returned then gives such a command
// ShutdownGrace at most to end, whatever its kill_timeout, and kills what
// is left: nothing the call started outlives it. A second signal kills
// at once.
func stoppable(ctx context.Context) (context.Context, func()) {
	installSignals(ctx)
	callCtx, stopCall := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := func() { stopCall(host.Exiting(stopReason(ctx))) }
	stopOnSignal := context.AfterFunc(ctx, stop)
	called := make(chan struct{})
	go func() {
		select {
		case <-signalsAgain(ctx):
			// Stopped first, should the first signal's stop not have
			// run yet, so that the result says why, not that the
			// command was killed.
			stop()
			host.KillCommands()
		case <-called:
		}
	}()
	return callCtx, func() {
		close(called)
		stopOnSignal()
		stopCall(nil)
		if ctx.Err() != nil {
			host.WaitCommands(context.Background(), signalsAgain(ctx))
		}
		host.KillCommands()
	}
}

// jsonKindOf names what a --json value that is not an object is.
func jsonKindOf(s string) string {
	if !json.Valid([]byte(s)) {
		return fmt.Sprintf("%q, which is not JSON", s)
	}
	switch s[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// jsonExample shows how to give a list or object argument on the command
// line, from what was given: tags=a,b becomes tags='["a","b"]'.
func jsonExample(name, value string, t *thcl.Type) string {
	var v any
	switch t.Kind {
	case thcl.KindList, thcl.KindSet, thcl.KindTuple:
		// Items of a list of numbers or bools stay as they were written.
		raw := t.Elem != nil && (t.Elem.Kind == thcl.KindNumber || t.Elem.Kind == thcl.KindInteger || t.Elem.Kind == thcl.KindBool)
		items := []any{}
		for _, s := range strings.Split(value, ",") {
			switch s = strings.TrimSpace(s); {
			case s == "":
			case raw && json.Valid([]byte(s)):
				items = append(items, json.RawMessage(s))
			default:
				items = append(items, s)
			}
		}
		if len(items) == 0 {
			items = append(items, "a", "b")
		}
		v = items
	default:
		v = map[string]string{"key": "value"}
	}
	b, _ := json.Marshal(v)
	return name + "='" + strings.ReplaceAll(string(b), "'", `'\''`) + "'"
}

// schemaIsString reports whether a JSON Schema "type" allows strings and,
// but for null, nothing else: "string", or ["string", "null"].
func schemaIsString(t gjson.Result) bool {
	if !t.IsArray() {
		return t.String() == "string"
	}
	str := false
	for _, x := range t.Array() {
		switch x.String() {
		case "string":
			str = true
		case "null":
		default:
			return false
		}
	}
	return str
}

// indentForReading pretty-prints structured content for a person: indented,
// and with &, < and > as themselves (host.UnescapeHTML).
func indentForReading(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	return host.UnescapeHTML(buf.Bytes()), nil
}

// contentText renders one content item: text as it is, anything else as a
// one-line description of what a client would receive.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image, %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio, %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			if c.Resource.Text != "" {
				return c.Resource.Text
			}
			return fmt.Sprintf("[resource %s, %s, %d bytes]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
		}
	case *mcp.ResourceLink:
		return fmt.Sprintf("[resource link %s]", c.URI)
	}
	return fmt.Sprintf("[%T]", c)
}

// cliPeer is the client of toolhost call: log lines of the tool go to
// stderr, and a confirmation is answered by --yes.
type cliPeer struct {
	yes     bool
	answers map[string]any // --answer values for an ask form
	// form is the requestedSchema of the tool's ask form, and fields the
	// names of its fields; nil when the tool has none. An elicitation
	// with another schema is the tool's confirm.
	form   json.RawMessage
	fields []string
	stderr io.Writer
	// minLevel is the rank of the least level shown (--log-level).
	minLevel int
}

var _ host.Peer = (*cliPeer)(nil)

// logLevelRank orders the MCP log levels, least severe first.
var logLevelRank = map[mcp.LoggingLevel]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

func (p *cliPeer) Log(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	if rank, ok := logLevelRank[level]; ok && rank < p.minLevel {
		return
	}
	fmt.Fprintf(p.stderr, "%s: %s: %s\n", logger, level, msg)
}

func (p *cliPeer) Progress(context.Context, float64, float64, string) {}

func (p *cliPeer) WantsProgress() bool { return false }

// CanElicit is true with --yes or --answer: the person running the command
// has answered already. Without them, the tool's confirm_fallback decides.
func (p *cliPeer) CanElicit() bool { return p.yes || p.answers != nil }

// Elicit answers the tool's ask form with the --answer values, and its
// confirm with --yes: each only with its own flag, so that --answer does
// not confirm a call, nor --yes send an empty form.
func (p *cliPeer) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p.isForm(params.RequestedSchema) {
		if p.answers == nil {
			return nil, fmt.Errorf("--yes confirms a call but does not fill in a form; give the answers with --answer %s=...", strings.Join(p.fields, "=... --answer "))
		}
		fmt.Fprintf(p.stderr, "%s (answered with --answer)\n", params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: p.answers}, nil
	}
	if !p.yes {
		return nil, errors.New("--answer fills in the tool's form but does not confirm the call; confirm it with --yes")
	}
	fmt.Fprintf(p.stderr, "%s yes (--yes)\n", params.Message)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

// isForm reports whether an elicitation's schema is the tool's ask form.
func (p *cliPeer) isForm(schema any) bool {
	if p.form == nil || schema == nil {
		return false
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return false
	}
	var got, want bytes.Buffer
	return json.Compact(&got, b) == nil && json.Compact(&want, p.form) == nil && bytes.Equal(got.Bytes(), want.Bytes())
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// nameValues turns name=value pairs into values for the given fields: text
// for string fields, JSON (a number, true, a list) for the others.
func nameValues(pairs []string, fields []*thcl.Param, stderr io.Writer) (map[string]any, bool) {
	out := map[string]any{}
	for _, kv := range pairs {
		name, value, found := strings.Cut(kv, "=")
		if !found {
			fmt.Fprintf(stderr, "toolhost call: --answer %q is not name=value; write it as --answer %s=VALUE (--answer %s= for an empty string)\n", kv, kv, kv)
			return nil, false
		}
		if name == "" {
			fmt.Fprintf(stderr, "toolhost call: --answer %q has no name before the =; write the field's name first, as in --answer NAME%s\n", kv, kv)
			return nil, false
		}
		if _, twice := out[name]; twice {
			fmt.Fprintf(stderr, "toolhost call: --answer %s is given twice; give each field once\n", name)
			return nil, false
		}
		var field *thcl.Param
		for _, f := range fields {
			if f.Name == name {
				field = f
			}
		}
		var v any = value
		if field == nil || field.Type.Kind != thcl.KindString {
			if err := json.Unmarshal([]byte(value), &v); err != nil {
				v = value
			}
		}
		out[name] = v
	}
	return out, true
}
