// Package cli is the toolhost command line: serve, validate, call, read,
// prompt, inspect, fmt, init, setup, bridge, import and version. It parses flags
// and wires the packages that do the work (host serves over stdio and
// HTTP, and shuts down; setup registers a config with an editor); main
// only wires it to the process.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/diagtext"
	"github.com/toolhost/toolhost/internal/linebatch"
	"github.com/toolhost/toolhost/internal/logtext"
	"github.com/toolhost/toolhost/internal/setup"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // invalid config or failed call
	ExitUsage   = 2
)

const usage = `toolhost serves tools declared in HCL to MCP clients.

Usage:
  toolhost serve [flags] [CONFIG...]      serve over stdio (default config: ./tools.hcl),
                                          or over HTTP with --listen 127.0.0.1:8080
  toolhost validate [--format text|json|github] [--online] [CONFIG...]
                                          check configs and run their examples (--online: prepare sql
                                          statements on their databases); exit 0 valid, 1 invalid
  toolhost call CONFIG TOOL [name=value ...] [--json '{...}']
                                          run one tool and print its result
  toolhost read [CONFIG] URI [-o FILE]    read a resource and print its content
  toolhost prompt [CONFIG] NAME [name=value ...]
                                          render a prompt with its arguments and print its messages
  toolhost inspect [--json] [CONFIG...]   print tools, resources and prompts as a client sees them
  toolhost fmt [-check] [-diff] [CONFIG...]
                                          rewrite configs in canonical style (default: ./*.hcl)
  toolhost init [--sql] [DIR]             write a starter tools.hcl (never overwrites); --sql: one
                                          on a local SQLite database
  toolhost setup EDITOR [CONFIG]          register the config with an editor: claude-desktop, cursor,
                                          vscode, claude-code or windsurf
                                          (https://github.com/toolhost/toolhost/blob/main/docs/setup.md)
  toolhost bridge framed --connect HOST:PORT CONFIG...
                                          offer the tools to a framed-protocol server (docs/framed-protocol.md)
  toolhost import openapi SPEC [--tag T ...] [--operation ID ...] [-o FILE]
                                          write tools for an OpenAPI document's operations
  toolhost version                        print the version

CONFIG is a .hcl file or a directory of .hcl files; several are merged.
Without one, serve, validate, read, prompt and inspect use ./tools.hcl.
Run 'toolhost COMMAND -h' for a command's flags.
`

// Run runs the command line args (without the program name) and returns the
// process exit code. stdout carries the protocol (serve) or the command's
// output; everything else goes to stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	versionOnce.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			thcl.Version = moduleVersion(thcl.Version, bi.Main.Version)
		}
	})
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, stdin, stdout, stderr)
	case "validate":
		return runValidate(ctx, rest, stdout, stderr)
	case "call":
		return runCall(ctx, rest, stdout, stderr)
	case "read":
		return runRead(ctx, rest, stdout, stderr)
	case "prompt":
		return runPrompt(ctx, rest, stdout, stderr)
	case "inspect":
		return runInspect(rest, stdout, stderr)
	case "fmt":
		return runFmt(rest, stdout, stderr)
	case "init":
		return runInit(rest, stdout, stderr)
	case "setup":
		return runSetup(rest, stdout, stderr)
	case "bridge":
		return runBridge(ctx, rest, stdout, stderr)
	case "import":
		return runImport(rest, stdin, stdout, stderr)
	case "version", "--version", "-version":
		fs := newFlags("version", "version", stderr)
		args, err := parseFlags(fs, rest)
		if err != nil {
			return parseExit(err)
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "toolhost version takes no arguments (got %q)\n", args[0])
			return ExitUsage
		}
		fmt.Fprintf(stdout, "toolhost %s%s\n", thcl.Version, buildDetails())
		return ExitOK
	case "help", "-h", "--help":
		if cmd == "help" && len(rest) > 0 {
			return runHelp(ctx, rest, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	return unknownCommand("toolhost", cmd, stderr)
}

// versionOnce adopts the module's version once per process (moduleVersion).
var versionOnce sync.Once

// moduleVersion is the version toolhost reports: the one stamped at build
// time (-X, as the release builds do) when there is one, else the module's
// release version when go install github.com/toolhost/toolhost/cmd/toolhost@vX.Y.Z
// built it (main's version is "vX.Y.Z"); a checkout's build, whose version
// is "(devel)" or a pseudo-version, keeps stamped.
func moduleVersion(stamped, module string) string {
	if stamped != thcl.SourceVersion || !strings.HasPrefix(module, "v") {
		return stamped
	}
	v := module[1:]
	parts := strings.Split(v, ".")
	if len(parts) != 3 || strings.ContainsAny(v, "-+") {
		return stamped
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return stamped
		}
	}
	return v
}

// buildDetails says, for a bug report, what the binary was built from: the
// commit (and whether the tree had changes), the module version when
// installed with go install, the Go version and the platform, as
// " (commit 4d7be39, go1.26.8 linux/amd64)".
func buildDetails() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var parts []string
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// go install ...@v1.2.3 has the module's version and no commit; a
	// build in a checkout has a version made of the commit (a pseudo-
	// version), which the commit says better.
	if v := bi.Main.Version; v != "" && v != "(devel)" && (rev == "" || !strings.Contains(v, rev)) {
		parts = append(parts, "module "+v)
	}
	if rev != "" {
		if modified == "true" {
			rev += " with local changes"
		}
		parts = append(parts, "commit "+rev)
	}
	parts = append(parts, bi.GoVersion+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return " (" + strings.Join(parts, ", ") + ")"
}

// commands are the commands Run knows, for 'toolhost help COMMAND'.
var commands = []string{"serve", "validate", "call", "read", "prompt", "inspect", "fmt", "init", "setup", "bridge", "import", "version"}

// runHelp runs 'toolhost help COMMAND': the command's own usage, as
// 'toolhost COMMAND -h' prints it, but on stdout, where 'toolhost help'
// prints the overview.
func runHelp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintf(stderr, "toolhost help takes one command (got %q); run 'toolhost help' for the list\n", strings.Join(args, " "))
		return ExitUsage
	}
	switch name := args[0]; {
	case name == "help" || name == "-h" || name == "--help":
		fmt.Fprint(stdout, usage)
		return ExitOK
	case slices.Contains(commands, name):
		return Run(ctx, []string{name, "-h"}, stdin, stdout, stdout)
	default:
		return unknownCommand("toolhost help", name, stderr)
	}
}

func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: toolhost %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseAll parses flags that may come before or after the positional
// arguments, as in "toolhost serve tools.hcl --log-level debug".
func parseAll(fs *flag.FlagSet, args []string) ([]string, error) {
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

// parseExit is the exit code of a command whose flags did not parse: 0
// after -h or --help, which print the usage as asked, 2 otherwise.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitUsage
}

// load is the one load-and-compile path of every command. cmd names the
// command in the closing line that says why nothing ran, after the
// diagnostics, as validate's does.
func load(cmd string, paths []string, stderr io.Writer) (*host.Registry, bool) {
	return loadWith(cmd, paths, nil, stderr)
}

// loadWith is load with options (loadOptions).
func loadWith(cmd string, paths []string, opts *thcl.Options, stderr io.Writer) (*host.Registry, bool) {
	reg, diags := host.Load(paths, opts)
	writeDiags(stderr, reg.Config, diags)
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "toolhost %s: %s: %s; nothing %s until the config is valid\n",
			cmd, configNames(paths), countLine(diags), map[string]string{"serve": "is served", "call": "runs", "read": "is read", "prompt": "is rendered", "inspect": "is shown", "bridge": "is offered"}[cmd])
		if cmd == "serve" {
			serveRelativeHint(paths, stderr)
		}
		reg.Close()
		return nil, false
	}
	return reg, true
}

// serveRelativeHint says, when a relative config path is missing, that
// serve looked for it in the working directory, which an editor chooses:
// the usual reason an editor's server does not start.
func serveRelativeHint(paths []string, stderr io.Writer) {
	for _, p := range paths {
		if filepath.IsAbs(p) {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if strings.HasPrefix(p, "~") || strings.ContainsAny(p, "$%") {
				// Editors start servers without a shell: nothing expands
				// ~, $HOME or %USERPROFILE% in their arguments.
				fmt.Fprintf(stderr, "toolhost serve: %s is taken as it is written: editors start servers without a shell, so nothing expands ~, $VAR or %%VAR%% in their arguments. Write the config's full path, or run toolhost setup EDITOR CONFIG, which writes it.\n", p)
				return
			}
			wd, _ := os.Getwd()
			fmt.Fprintf(stderr, "toolhost serve: a relative path is looked for in the working directory (here %s), which an editor chooses when it starts a server. Give the config's absolute path, or run toolhost setup EDITOR %s where the config is (EDITOR is %s): it writes the editor's entry with absolute paths.\n",
				wd, p, strings.Join(setup.Names(), ", "))
			return
		}
	}
}

// configNames names the config of paths in a closing line: the files each
// path stands for, and a path that stands for none (missing, or a
// directory without *.hcl files) as itself, so that the line names every
// place with a problem, the files that could not be read among them.
func configNames(paths []string) string {
	var names []string
	seen := map[string]bool{}
	for _, p := range paths {
		files, _ := thcl.ConfigFiles([]string{p})
		if len(files) == 0 {
			files = []string{p}
		}
		for _, f := range files {
			key, err := filepath.Abs(f)
			if err != nil {
				key = f
			}
			if !seen[key] {
				seen[key] = true
				names = append(names, f)
			}
		}
	}
	return strings.Join(names, ", ")
}

// writeDiags renders diagnostics the way HCL does, with a source snippet
// and carets under the place, in colour only on a terminal.
func writeDiags(w io.Writer, cfg *thcl.Config, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	if dl, ok := w.(host.DiagnosticLogger); ok {
		dl.LogDiagnostics(diags)
		return
	}
	var files map[string]*hcl.File
	if cfg != nil {
		files = cfg.Files
	}
	diagtext.Write(w, files, diags)
}

// defaultConfig is what serve, validate, read, prompt and inspect use
// without a config argument (defaultConfigOr).
const defaultConfig = "tools.hcl"

// watchWithoutClient is how long serve over stdio waits for initialize
// before it watches the config anyway. Editors send initialize at once, and
// the watcher then starts after the answer, off its path.
const watchWithoutClient = time.Second

// runServe is toolhost serve: it parses the flags, opens the stores,
// loads the config and serves it over stdio or HTTP until the client or a
// signal ends it. It is long because it is the wiring of serve, one step
// after another, each a call into host or another file of this package.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "serve [flags] [CONFIG...]", flagOutput(args, stderr))
	level := fs.String("log-level", "info", "log level on stderr (and --log-file): debug, info, warn or error; debug logs every JSON-RPC message, secrets masked")
	maxMsg := fs.Int("max-message-size", host.DefaultMaxMessageSize, "largest inbound message in bytes")
	strict := fs.Bool("strict", false, strictUsage)
	watch := fs.Bool("watch", true, "reload the config when its files change")
	offline := addOfflineFlag(fs)
	sf := addStoreFlags(fs)
	hf := addHTTPFlags(fs)
	tf := addTelemetryFlags(fs)
	logFile := addLogFileFlags(fs)
	format := addLogFormatFlag(fs)
	af := addAuditFlags(fs)
	group := addGroupFlag(fs)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	// One log line per tool call: batched on stderr, not one write(2)
	// each. A --log-file is written as before, each line before the
	// answer it logs.
	batched := linebatch.New(stderr)
	defer batched.Flush()
	stderr, closeLog := logFile.open(batched)
	defer closeLog()
	logger, stderr, err := newFormatLogger(stderr, *level, *format)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		return ExitUsage
	}
	logFile.announce(logger)
	if *maxMsg <= 0 {
		fmt.Fprintf(stderr, "toolhost serve: --max-message-size %d: give the largest inbound message as a number of bytes above 0 (the default is %d, 4 MiB)\n", *maxMsg, host.DefaultMaxMessageSize)
		return ExitUsage
	}
	httpOpts, err := hf.options(fs, *maxMsg, logger)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: %s\n", err)
		if errors.As(err, new(flagError)) {
			return ExitUsage
		}
		return ExitFailure
	}
	paths, ok := defaultConfigOr("serve", paths, "", stderr)
	if !ok {
		if !*watch || *strict {
			return ExitFailure
		}
		paths = []string{defaultConfig}
	}
	stores, code := sf.open(ctx, fs, stderr)
	if code != ExitOK {
		return code
	}
	defer stores.close()
	auditOpts, closeAudit, code := af.open(httpOpts == nil, stderr, logger)
	if code != ExitOK {
		return code
	}
	defer closeAudit()
	restoreGC := host.RelaxGC()
	reg, ok := serveLoad(paths, loadOptions(*offline), *watch && !*strict, stderr, logger)
	if !ok {
		return ExitFailure
	}
	loadedOpts, obs, code := afterLoad(ctx, stores, *group, tf, httpOpts, reg, logger, stderr)
	if code != ExitOK {
		return code
	}
	defer obs.close() // last: spans of the shutdown are flushed too
	slog.SetDefault(logger)
	runCtx, cancel := context.WithCancel(ctx)
	// The watcher starts once initialize is answered, with the signal
	// handlers: its threads and its look at the files are then off the
	// path to the answer. An edit made before it starts is not lost: Watch
	// looks at the files once it watches them.
	var srv *host.Server
	watchDone := make(chan struct{})
	startWatch := sync.OnceFunc(func() {
		if !*watch || runCtx.Err() != nil {
			close(watchDone)
			return
		}
		r := &host.Reloader{Paths: paths, Server: srv, Logger: logger, Diagnostics: stderr, Options: loadOptions(*offline), OnReload: obs.reloaded}
		go func() {
			defer close(watchDone)
			r.Prime(reg)
			if err := r.Watch(runCtx); err != nil {
				logger.Warn("hot reload is off", "error", err)
			}
		}()
	})
	srvOpts := append([]host.ServerOption{host.ListChanged(*watch), host.BeforeWork(func() {
		installSignals(ctx)
		startWatch()
	}), host.Observe(obs.tel, obs.metrics)}, append(auditOpts, loadedOpts...)...)
	srv = host.NewServer(reg, logger, srvOpts...)
	obs.serve(srv)
	// The GC's settings come back once the first requests are answered:
	// one collection then instead of one in the middle of the first
	// answer.
	time.AfterFunc(host.StartGCDelay, restoreGC)
	msg := "serving over stdio"
	if httpOpts != nil {
		msg = "config loaded"
		startWatch()
	} else {
		// A client that has not sent initialize by now (someone trying
		// serve in a terminal) does not hold the watcher back: saves are
		// reloaded as they are once a client is initialized.
		time.AfterFunc(watchWithoutClient, startWatch)
	}
	logger.Info(msg, "config", strings.Join(reg.Config.Paths, ","), "tools", len(reg.Tools), "resources", len(reg.Resources)+len(reg.Templates), "prompts", len(reg.Prompts), "watch", *watch)
	logOffline(logger, reg)
	// stopped ends what serving started beside the server, once the
	// session or the HTTP server has ended.
	stopped := func() {
		cancel()
		srv.Shutdown()
		// Tasks still working are settled as failed, with the reason.
		settle, stopSettle := context.WithTimeout(context.Background(), host.ShutdownGrace)
		srv.SettleTasks(settle)
		stopSettle()
		// A session that never got to initialize never started the watcher.
		startWatch()
		<-watchDone
		srv.Registry().Retire()
	}
	err = serveOn(ctx, runCtx, srv, httpOpts, host.StdioTransport{In: stdin, Out: stdout, MaxMessageSize: *maxMsg, Logger: logger}, stopped)
	if err != nil && !errors.Is(err, io.EOF) {
		logger.Error("server stopped", "error", err)
		return ExitFailure
	}
	logger.Info("server stopped") // a log file read later shows the session's end
	return noValidConfig(srv, logger)
}

// afterLoad is what serve sets up once the config has loaded: the server
// options of the stores and of --group, and telemetry, started.
func afterLoad(ctx context.Context, st *stores, group string, tf *telemetryFlags, httpOpts *host.HTTPOptions, reg *host.Registry, logger *slog.Logger, stderr io.Writer) ([]host.ServerOption, *observed, int) {
	storeOpts, code := st.serverOptions(httpOpts, reg.Config, logger, stderr)
	if code != ExitOK {
		return nil, nil, code
	}
	groupOpts, code := groupOptions(group, reg, stderr)
	if code != ExitOK {
		return nil, nil, code
	}
	obs, code := tf.start(ctx, httpOpts, reg.Config, logger, stderr)
	if code != ExitOK {
		return nil, nil, code
	}
	return append(storeOpts, groupOpts...), obs, ExitOK
}

// serveOn serves srv over HTTP when httpOpts is set, else over stdio on
// tr, until the server or the session ends; stopped ends what serving
// started beside the server. runCtx ends the HTTP server.
func serveOn(ctx, runCtx context.Context, srv *host.Server, httpOpts *host.HTTPOptions, tr host.StdioTransport, stopped func()) error {
	if httpOpts != nil {
		installSignals(ctx)
		httpOpts.Hurry = signalsAgain(ctx)
		httpOpts.KillCommands = host.KillCommands
		// On a signal, calls in flight get --shutdown-timeout to finish.
		err := serveHTTP(runCtx, srv, httpOpts)
		stopped()
		// The calls stopped have been answered, without waiting for their
		// commands: these get ShutdownGrace at most to exit on their
		// kill_signal. A command still in its kill_timeout then is killed,
		// with what it started: nothing toolhost started outlives it.
		host.WaitCommands(context.Background(), signalsAgain(ctx))
		host.KillCommands()
		return err
	}
	// A signal stops the calls in flight at once; the end of stdin ends
	// the session after ShutdownGrace (see host.ServeStdio).
	return host.ServeStdio(ctx, srv, host.StdioOptions{
		Transport:  tr,
		StopReason: func() error { return stopReason(ctx) },
		Hurry:      signalsAgain(ctx),
		Stopped:    stopped,
	})
}

// ShutdownGrace is host.ShutdownGrace: how long calls in flight may go on
// after the client closes stdin, and how long the commands of the calls
// stopped as toolhost exits get to end before they are killed.
const ShutdownGrace = host.ShutdownGrace

// errSignalled is the reason calls cancelled by a stop signal give in
// their results when the signal is not known.
var errSignalled = errors.New("toolhost received a stop signal (SIGTERM, SIGINT or SIGHUP) and is exiting")

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	l, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	// slog's text format, a tool call's line written faster (logtext).
	return slog.New(logtext.New(w, &slog.HandlerOptions{Level: l})), nil
}

// parseLevel reads a --log-level.
func parseLevel(level string) (slog.Level, error) {
	var l slog.Level
	if strings.EqualFold(level, "warning") { // MCP's name, as call takes it
		level = "warn"
	}
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return l, fmt.Errorf("unknown log level %q: use debug, info, warn or error", level)
	}
	return l, nil
}
