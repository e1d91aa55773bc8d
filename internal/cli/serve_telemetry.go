package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/telemetry"
)

// telemetryFlags are serve's flags for metrics; OpenTelemetry itself is
// configured with the standard OTEL_* environment variables.
type telemetryFlags struct {
	metricsListen string
}

// addTelemetryFlags declares the telemetry flags on serve's flag set.
func addTelemetryFlags(fs *flag.FlagSet) *telemetryFlags {
	f := &telemetryFlags{}
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "serve Prometheus metrics at /metrics on this address of their own, as in 127.0.0.1:9464 (a bare port binds to 127.0.0.1), without the checks of --listen: for a scraper on a network you trust. Without it, --listen serves /metrics behind the same Host, Origin and --auth-token-env checks as /mcp (not while the config has an auth block)")
	return f
}

// observed is what serve observes itself with: OpenTelemetry, when the
// environment asks for it, and the Prometheus metrics, when served.
type observed struct {
	tel     *telemetry.Telemetry
	metrics *telemetry.Metrics
	srv     atomic.Pointer[host.Server]
	ln      net.Listener // --metrics-listen's, until serve is called
	hs      *http.Server
	logger  *slog.Logger
}

// start sets up telemetry from the environment and the metrics, and
// decides where /metrics is served: on --metrics-listen, or on the
// --listen listener (httpOpts) while the config in service has no auth
// block, whose tokens a scraper would not have. It listens on --metrics-listen
// at once, so that a busy port is reported before serving starts.
func (f *telemetryFlags) start(ctx context.Context, httpOpts *host.HTTPOptions, cfg *thcl.Config, logger *slog.Logger, stderr io.Writer) (*observed, int) {
	o := &observed{logger: logger}
	tel, err := telemetry.FromEnv(ctx, thcl.Version, logger)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: OpenTelemetry: %s\n", err)
		return nil, ExitUsage
	}
	o.tel = tel
	if tel != nil {
		logger.Info("OpenTelemetry on", "traces", tel.Tracing())
	}
	if f.metricsListen == "" && httpOpts == nil {
		return o, ExitOK
	}
	o.metrics = telemetry.NewMetrics(o.sessions)
	if f.metricsListen == "" {
		if cfg != nil && cfg.Server != nil && cfg.Server.Auth != nil {
			logger.Info("/metrics is not served on --listen while the config has an auth block; serve it on a port of its own with --metrics-listen")
		}
		// The handler refuses while the config in service has an auth
		// block, so that a reload removing it serves /metrics again.
		httpOpts.Metrics = o.metrics.Handler()
		return o, ExitOK
	}
	addr, err := host.NormalizeListenAddr(f.metricsListen)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost serve: --metrics-listen: %s\n", err)
		return nil, ExitUsage
	}
	if o.ln, err = net.Listen("tcp", addr); err != nil {
		fmt.Fprintf(stderr, "toolhost serve: --metrics-listen %s: %s; choose another address, or stop what listens there\n", f.metricsListen, err)
		o.close()
		return nil, ExitFailure
	}
	return o, ExitOK
}

// serve starts serving the metrics of srv on --metrics-listen, when given.
func (o *observed) serve(srv *host.Server) {
	o.srv.Store(srv)
	if o.ln == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", o.metrics.Handler())
	o.hs = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	o.logger.Info("serving metrics over HTTP", "addr", o.ln.Addr().String())
	go func() {
		if err := o.hs.Serve(o.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.logger.Warn("metrics listener stopped", "error", err)
		}
	}()
}

// sessions counts the MCP sessions open, for toolhost_sessions_open.
func (o *observed) sessions() int {
	srv := o.srv.Load()
	if srv == nil {
		return 0
	}
	n := 0
	for range srv.MCP().Sessions() {
		n++
	}
	return n
}

// reloaded counts a reload by its outcome, as Reloader.OnReload.
func (o *observed) reloaded(res host.ReloadResult) {
	switch {
	case res.Applied:
		o.metrics.Reloaded("applied")
	case res.Diagnostics.HasErrors():
		o.metrics.Reloaded("failed")
	default:
		o.metrics.Reloaded("unchanged")
	}
}

// close stops the metrics listener and flushes the spans and metrics not
// yet exported, within telemetry.ShutdownTimeout.
func (o *observed) close() {
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
	defer cancel()
	if o.hs != nil {
		_ = o.hs.Shutdown(ctx)
	} else if o.ln != nil {
		_ = o.ln.Close()
	}
	flushTelemetry(o.tel, o.logger)
}

// flushTelemetry flushes the spans and metrics of tel not yet exported,
// within telemetry.ShutdownTimeout, as bridge exits.
func flushTelemetry(tel *telemetry.Telemetry, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.ShutdownTimeout)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		logger.Warn("telemetry not flushed at exit", "error", err)
	}
}
