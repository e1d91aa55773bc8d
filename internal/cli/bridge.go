package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/toolhost/toolhost/bridge"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/telemetry"
)

const bridgeUsage = `Usage: toolhost bridge framed --connect HOST:PORT [flags] CONFIG...

Connects to a server that speaks the framed protocol (##START ... ##END
frames, docs/framed-protocol.md) as its client, registers the config's tools
as services and answers the server's calls with them. Reconnects when the
connection drops; stops on SIGINT or SIGTERM.
`

// runBridge runs "toolhost bridge framed": the tools of a config offered to
// a framed-protocol server. stdout stays empty; logs go to stderr.
func runBridge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "framed" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, bridgeUsage)
			return ExitOK
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "toolhost bridge: unknown protocol %q; the one supported is framed\n\n", args[0])
		}
		fmt.Fprint(stderr, bridgeUsage)
		return ExitUsage
	}
	fs := newFlags("bridge framed", "bridge framed --connect HOST:PORT [flags] CONFIG...", flagOutput(args, stderr))
	addr := fs.String("connect", "", "the framed-protocol server's HOST:PORT (required)")
	taskID := fs.String("task-id", bridge.DefaultTaskID, "task id of the register frames: exactly 8 printable ASCII characters")
	maxFrame := fs.Int("max-frame", bridge.DefaultMaxFrame, "largest frame in bytes, both ways; larger inbound frames are skipped")
	maxHeld := fs.Int("max-held", bridge.DefaultMaxHeld, "most bytes of call frames read and not yet answered; a call past it is answered at once that the bridge is busy (at least --max-frame)")
	level := fs.String("log-level", "info", "log level on stderr (and --log-file): debug, info, warn or error; debug logs every call and result, secrets masked")
	watch := fs.Bool("watch", true, "reload the config when its files change, and register the new tools")
	logFile := addLogFileFlags(fs)
	format := addLogFormatFlag(fs)
	paths, err := parseFlags(fs, args[1:])
	if err != nil {
		return parseExit(err)
	}
	stderr, closeLog := logFile.open(stderr)
	defer closeLog()
	logger, stderr, err := newFormatLogger(stderr, *level, *format)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost bridge: %s\n", err)
		return ExitUsage
	}
	logFile.announce(logger)
	switch {
	case *addr == "":
		fmt.Fprintln(stderr, "toolhost bridge framed: give the server's address, as in: toolhost bridge framed --connect 127.0.0.1:8888 tools.hcl")
		return ExitUsage
	case len(paths) == 0:
		fmt.Fprintln(stderr, "toolhost bridge framed: give the config, as in: toolhost bridge framed --connect 127.0.0.1:8888 tools.hcl")
		return ExitUsage
	case *maxFrame < bridge.MinMaxFrame:
		fmt.Fprintf(stderr, "toolhost bridge framed: --max-frame must be at least %d bytes\n", bridge.MinMaxFrame)
		return ExitUsage
	}
	if err := checkDialAddr(*addr); err != nil {
		fmt.Fprintf(stderr, "toolhost bridge framed: --connect %s: %s; give HOST:PORT, as in --connect 127.0.0.1:8888\n", *addr, err)
		return ExitUsage
	}
	if err := bridge.CheckTaskID(*taskID); err != nil {
		fmt.Fprintf(stderr, "toolhost bridge framed: --task-id: %s\n", err)
		return ExitUsage
	}
	reg, ok := load("bridge", paths, stderr)
	if !ok {
		return ExitFailure
	}
	installSignals(ctx)
	slog.SetDefault(logger)
	tel, err := telemetry.FromEnv(ctx, thcl.Version, logger)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost bridge framed: OpenTelemetry: %s\n", err)
		return ExitUsage
	}
	defer flushTelemetry(tel, logger)
	srv := host.NewServer(reg, logger, host.Observe(tel, nil))
	client := &bridge.Client{Addr: *addr, Server: srv, Logger: logger, TaskID: *taskID, MaxFrame: *maxFrame, MaxHeld: *maxHeld, Hurry: signalsAgain(ctx),
		KillCommands: host.KillCommands}
	logger.Info("bridging to a framed-protocol server", "addr", *addr, "config", strings.Join(reg.Config.Paths, ","), "tools", len(reg.Tools), "watch", *watch)

	runCtx, cancel := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	if *watch {
		r := &host.Reloader{Paths: paths, Server: srv, Logger: logger, Diagnostics: stderr,
			OnReload: func(res host.ReloadResult) {
				c := res.Changes
				if !res.Applied || len(c.ToolsAdded)+len(c.ToolsRemoved)+len(c.ToolsChanged) == 0 {
					return
				}
				if err := client.Register(runCtx); err != nil && !errors.Is(err, bridge.ErrNotConnected) {
					logger.Warn("cannot register the reloaded tools; they are registered on the next connection", "error", err)
				}
			}}
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
	// On a signal the client stops reading and gives running calls
	// bridge.DefaultShutdownGrace to send their results; it cancels the
	// rest. The host is shut down after that (killing what is left).
	err = client.Run(runCtx)
	cancel()
	srv.ShutdownBecause(stopReason(ctx))
	<-watchDone
	srv.Registry().Retire()
	// The calls stopped have sent their results without waiting for their
	// commands: these get ShutdownGrace at most to exit on their
	// kill_signal, then what is left of them is killed.
	host.WaitCommands(context.Background(), signalsAgain(ctx))
	host.KillCommands() // what is left of a stopped command's kill_timeout
	if err != nil {
		logger.Error("bridge stopped", "error", err)
		return ExitFailure
	}
	logger.Info("bridge stopped")
	return ExitOK
}

// checkDialAddr reports what makes addr an address no connection attempt
// can use (no port, or a port that is not one), so that such a mistake is
// a usage error instead of retries that go on for ever.
func checkDialAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if port == "" {
		return errors.New("the port is missing")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("the port %q is not a port number from 1 to 65535", port)
	}
	if port == "0" {
		return errors.New("port 0 cannot be connected to")
	}
	return nil
}
