// Package cli is the toolhost command line: serve, validate, call, inspect
// and version. main only wires it to the process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // invalid config or failed call
	ExitUsage   = 2
)

const usage = `toolhost serves tools declared in HCL to MCP clients.

Usage:
  toolhost serve [flags] [CONFIG...]      serve over stdio (default config: ./tools.hcl)
  toolhost validate CONFIG...             check configs; exit 0 valid, 1 invalid
  toolhost call CONFIG TOOL [name=value ...] [--json '{...}']
                                          run one tool and print its result
  toolhost inspect CONFIG...              print tools, resources and prompts as a client sees them
  toolhost bridge framed --connect HOST:PORT CONFIG...
                                          offer the tools to a framed-protocol server (docs/framed-protocol.md)
  toolhost version                        print the version

CONFIG is a .hcl file or a directory of .hcl files; several are merged.
Run 'toolhost COMMAND -h' for a command's flags.
`

// Run runs the command line args (without the program name) and returns the
// process exit code. stdout carries the protocol (serve) or the command's
// output; everything else goes to stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdin, stdout, stderr)
	case "validate":
		return runValidate(rest, stdout, stderr)
	case "call":
		return runCall(ctx, rest, stdout, stderr)
	case "inspect":
		return runInspect(rest, stdout, stderr)
	case "bridge":
		return runBridge(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "toolhost %s\n", thcl.Version)
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "toolhost: unknown command %q\n\n%s", cmd, usage)
	return ExitUsage
}

func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: toolhost %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses flags that may come before or after the positional
// arguments, as in "toolhost serve tools.hcl --log-level debug".
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// load is the one load-and-compile path of every command.
func load(paths []string, stderr io.Writer) (*host.Registry, bool) {
	reg, diags := host.Load(paths, nil)
	writeDiags(stderr, reg.Config, diags)
	if diags.HasErrors() {
		reg.Close()
		return nil, false
	}
	return reg, true
}

// writeDiags renders diagnostics the way HCL does, with a source snippet,
// in colour only on a terminal.
func writeDiags(w io.Writer, cfg *thcl.Config, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	files := map[string]*hcl.File{}
	if cfg != nil {
		files = cfg.Files
	}
	color, width := false, uint(0)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		color = true
		if wd, _, err := term.GetSize(int(f.Fd())); err == nil {
			width = uint(wd)
		}
	}
	wr := hcl.NewDiagnosticTextWriter(w, files, width, color)
	_ = wr.WriteDiagnostics(diags)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", "validate CONFIG...", stderr)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "toolhost validate: give at least one config file or directory, as in: toolhost validate tools.hcl")
		return ExitUsage
	}
	reg, ok := load(paths, stderr)
	if !ok {
		return ExitFailure
	}
	defer reg.Close()
	c := reg.Config
	fmt.Fprintf(stdout, "%s: valid (%d tools, %d resources, %d resource templates, %d prompts)\n",
		strings.Join(c.Paths, ", "), len(c.Tools), len(c.Resources), len(c.ResourceTemplates), len(c.Prompts))
	return ExitOK
}

// defaultConfig is what serve uses without a config argument.
const defaultConfig = "tools.hcl"

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "serve [flags] [CONFIG...]", stderr)
	level := fs.String("log-level", "info", "log level on stderr: debug, info, warn or error")
	maxMsg := fs.Int("max-message-size", host.DefaultMaxMessageSize, "largest inbound message in bytes")
	watch := fs.Bool("watch", true, "reload the config when its files change")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return ExitUsage
	}
	logger, err := newLogger(stderr, *level)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		return ExitUsage
	}
	if len(paths) == 0 {
		if _, err := os.Stat(defaultConfig); err != nil {
			wd, _ := os.Getwd()
			fmt.Fprintf(stderr, "toolhost serve: no config given, and there is no %s in the current directory (%s).\nGive the config's path, as in: toolhost serve path/to/tools.hcl\n", defaultConfig, wd)
			return ExitFailure
		}
		paths = []string{defaultConfig}
	}
	reg, ok := load(paths, stderr)
	if !ok {
		return ExitFailure
	}
	slog.SetDefault(logger)
	srv := host.NewServer(reg, logger)
	logger.Info("serving over stdio", "config", strings.Join(reg.Config.Paths, ","), "tools", len(reg.Tools), "resources", len(reg.Resources)+len(reg.Templates), "prompts", len(reg.Prompts), "watch", *watch)
	runCtx, cancel := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	if *watch {
		r := &host.Reloader{Paths: paths, Server: srv, Logger: logger, Diagnostics: stderr}
		r.Prime(reg)
		go func() {
			defer close(watchDone)
			if err := r.Watch(runCtx); err != nil {
				logger.Warn("hot reload is off", "error", err)
			}
		}()
	} else {
		close(watchDone)
	}
	err = srv.Run(runCtx, &host.StdioTransport{In: stdin, Out: stdout, MaxMessageSize: *maxMsg, Logger: logger})
	cancel()
	<-watchDone
	srv.Registry().Retire()
	if err != nil && !errors.Is(err, io.EOF) {
		logger.Error("server stopped", "error", err)
		return ExitFailure
	}
	return ExitOK
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("unknown log level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("call", "call CONFIG TOOL [name=value ...] [--json '{...}']", stderr)
	rawJSON := fs.String("json", "", "the arguments as one JSON object (merged under name=value pairs)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) < 2 {
		fs.Usage()
		return ExitUsage
	}
	reg, ok := load(pos[:1], stderr)
	if !ok {
		return ExitFailure
	}
	defer reg.Close()
	tool, ok := reg.Tool(pos[1])
	if !ok {
		names := make([]string, 0, len(reg.Tools))
		for _, t := range reg.Tools {
			names = append(names, t.Name)
		}
		fmt.Fprintf(stderr, "toolhost call: there is no tool %q in %s; the tools are: %s\n", pos[1], pos[0], strings.Join(names, ", "))
		return ExitFailure
	}
	argMap := map[string]json.RawMessage{}
	if *rawJSON != "" {
		if err := json.Unmarshal([]byte(*rawJSON), &argMap); err != nil {
			fmt.Fprintf(stderr, "toolhost call: --json must be a JSON object: %s\n", err)
			return ExitUsage
		}
	}
	types := map[string]*thcl.Type{}
	for _, p := range tool.Params {
		types[p.Name] = p.Type
	}
	for _, kv := range pos[2:] {
		name, value, found := strings.Cut(kv, "=")
		if !found {
			fmt.Fprintf(stderr, "toolhost call: argument %q is not name=value\n", kv)
			return ExitUsage
		}
		t, ok := types[name]
		switch {
		case ok && t.Kind == thcl.KindString:
			b, _ := json.Marshal(value)
			argMap[name] = b
		case json.Valid([]byte(value)):
			argMap[name] = json.RawMessage(value)
		default:
			b, _ := json.Marshal(value)
			argMap[name] = b
		}
	}
	argJSON, _ := json.Marshal(argMap)
	res, err := reg.CallTool(ctx, tool.Name, argJSON)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost call: %s\n", err)
		return ExitFailure
	}
	if res.IsError {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintf(stderr, "%s: %s\n", tool.Name, tc.Text)
			}
		}
		return ExitFailure
	}
	if res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return ExitOK
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			fmt.Fprint(stdout, tc.Text)
			if !strings.HasSuffix(tc.Text, "\n") {
				fmt.Fprintln(stdout)
			}
		}
	}
	return ExitOK
}

func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("inspect", "inspect [--json] CONFIG...", stderr)
	_ = fs.Bool("json", true, "print JSON (the default)")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(paths) == 0 {
		fs.Usage()
		return ExitUsage
	}
	reg, ok := load(paths, stderr)
	if !ok {
		return ExitFailure
	}
	defer reg.Close()
	s := reg.Config.Server
	out := map[string]any{
		"serverInfo":        map[string]any{"name": s.Name, "title": s.Title, "version": s.Version},
		"instructions":      s.Instructions,
		"tools":             nonNil(reg.Tools),
		"resources":         nonNil(reg.Resources),
		"resourceTemplates": nonNil(reg.Templates),
		"prompts":           nonNil(reg.Prompts),
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "toolhost inspect: %s\n", err)
		return ExitFailure
	}
	fmt.Fprintln(stdout, string(b))
	return ExitOK
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
