package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/host"
)

// httpFlags are serve's flags for the HTTP transports; --listen switches
// serve from stdio to HTTP.
type httpFlags struct {
	listen             string
	stateless          bool
	allowedHosts       string
	allowedOrigins     string
	authTokenEnv       string
	shutdownTimeout    time.Duration
	requestTimeout     time.Duration
	sessionIdleTimeout time.Duration
	maxSessions        int
}

// addHTTPFlags declares the HTTP flags on serve's flag set.
func addHTTPFlags(fs *flag.FlagSet) *httpFlags {
	f := &httpFlags{}
	fs.StringVar(&f.listen, "listen", "", "serve MCP over HTTP on this address instead of stdio, as in 127.0.0.1:8080 (a bare port binds to 127.0.0.1; 0.0.0.0:8080 accepts other machines, with --allowed-hosts naming how they reach this one): streamable HTTP at /mcp, legacy SSE at /sse, health at /healthz and /readyz")
	fs.BoolVar(&f.stateless, "stateless", false, "with --listen: serve streamable HTTP without sessions, so that any replica behind a load balancer can answer any request")
	fs.StringVar(&f.allowedHosts, "allowed-hosts", "", "with --listen: comma-separated Host header values to accept besides the listen host, localhost, 127.0.0.1 and [::1] (a name without a port matches any port; * accepts any)")
	fs.StringVar(&f.allowedOrigins, "allowed-origins", "", "with --listen: comma-separated browser origins to accept (scheme://host[:port]; * accepts any); requests without an Origin header are always accepted")
	fs.StringVar(&f.authTokenEnv, "auth-token-env", "", "with --listen: require the header Authorization: Bearer TOKEN, where TOKEN is the value of this environment variable")
	durationVar(fs, &f.shutdownTimeout, "shutdown-timeout", host.DefaultShutdownTimeout, "with --listen: on SIGTERM, how long calls in flight may take to finish before they are cancelled")
	durationVar(fs, &f.requestTimeout, "request-timeout", host.DefaultRequestTimeout, "with --listen: the longest an MCP request may run (0: no limit)")
	durationVar(fs, &f.sessionIdleTimeout, "session-idle-timeout", DefaultSessionIdleTimeout, "with --listen: close a session that has had no request open for this long (a GET stream waiting for notifications counts), so that clients that vanish without ending their session do not hold memory (0: keep it until the client ends it)")
	fs.IntVar(&f.maxSessions, "max-sessions", host.DefaultMaxSessions, "with --listen: the most sessions open at once (streamable HTTP and SSE together; about 15 KB each while idle), and the open subscriptions/listen streams (about 100 KB each); a client that would open one more gets 503, to try again later")
	return f
}

// durationFlag is a time.Duration flag whose error says how to write one:
// the flag package's own says only "parse error", and --shutdown-timeout
// 30 (seconds, as Kubernetes counts its grace period) is an easy mistake.
type durationFlag time.Duration

func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	// The back-quoted word names the value's type in the usage, as the
	// flag package's own duration flags do.
	fs.Var((*durationFlag)(p), name, usage+" (a `duration`, as in 30s or 5m)")
}

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if f, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			if f < 0 {
				return errors.New("a duration cannot be negative: give one with a unit, as in 30s (or 0 where the flag says what 0 does)")
			}
			return fmt.Errorf("a duration needs a unit: give %ss for %s seconds, or ms, m or h", s, s)
		}
		return errors.New("give a duration as a number with a unit (ms, s, m or h), as in 30s, 5m or 1h30m")
	}
	*d = durationFlag(v)
	return nil
}

// flagError is a misused flag (exit code 2); other errors, such as a token
// variable that is not set, exit with 1.
type flagError struct{ error }

// options turns the HTTP flags into HTTPOptions, or nil for stdio. maxBody
// is --max-message-size, which bounds HTTP request bodies too.
func (f *httpFlags) options(fs *flag.FlagSet, maxBody int, logger *slog.Logger) (*host.HTTPOptions, error) {
	if f.listen == "" {
		var misused []string
		fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "stateless", "allowed-hosts", "allowed-origins", "auth-token-env", "shutdown-timeout", "request-timeout", "session-idle-timeout", "max-sessions":
				misused = append(misused, "--"+fl.Name)
			}
		})
		if len(misused) > 0 {
			return nil, flagError{fmt.Errorf("%s only applies when serving over HTTP: add --listen 127.0.0.1:8080 (or drop %s to serve over stdio)", strings.Join(misused, ", "), strings.Join(misused, ", "))}
		}
		return nil, nil
	}
	if f.shutdownTimeout <= 0 {
		return nil, flagError{fmt.Errorf("--shutdown-timeout %s: give a positive duration, as in 10s", f.shutdownTimeout)}
	}
	if f.maxSessions < 1 {
		return nil, flagError{fmt.Errorf("--max-sessions %d: give the most sessions open at once, 1 or more (the default is %d)", f.maxSessions, host.DefaultMaxSessions)}
	}
	if f.requestTimeout < 0 || f.sessionIdleTimeout < 0 {
		return nil, flagError{errors.New("--request-timeout and --session-idle-timeout take a duration of 0 or more, as in 5m")}
	}
	opts := &host.HTTPOptions{
		Addr:               f.listen,
		Stateless:          f.stateless,
		AllowedHosts:       splitList(f.allowedHosts),
		AllowedOrigins:     splitList(f.allowedOrigins),
		MaxBodyBytes:       int64(maxBody),
		RequestTimeout:     f.requestTimeout,
		ShutdownTimeout:    f.shutdownTimeout,
		SessionIdleTimeout: f.sessionIdleTimeout,
		MaxSessions:        f.maxSessions,
		Logger:             logger,
	}
	if f.requestTimeout == 0 {
		opts.RequestTimeout = -1 // no limit
	}
	if err := opts.Validate(); err != nil {
		return nil, flagError{err}
	}
	if f.authTokenEnv != "" {
		tok, set := os.LookupEnv(f.authTokenEnv)
		switch {
		case !set:
			if err := tokenValueGiven(f.authTokenEnv); err != nil {
				return nil, flagError{err}
			}
			return nil, fmt.Errorf("--auth-token-env %s: the environment variable %s is not set; set it to the token clients must send (as in export %s=$(openssl rand -hex 32)), or drop --auth-token-env", f.authTokenEnv, f.authTokenEnv, f.authTokenEnv)
		case strings.TrimSpace(tok) == "":
			return nil, fmt.Errorf("--auth-token-env %s: the environment variable %s is empty; an empty token would let anyone in, so set it to a secret (as in export %s=$(openssl rand -hex 32))", f.authTokenEnv, f.authTokenEnv, f.authTokenEnv)
		}
		opts.AuthToken = strings.TrimSpace(tok)
	}
	return opts, nil
}

// tokenValueGiven reports, without repeating it, a value given to
// --auth-token-env that is no variable's name: most often the token itself,
// the shell having expanded --auth-token-env $VAR. Echoing it back, as the
// name of a variable that is not set, would write the secret to the log.
func tokenValueGiven(name string) error {
	if rest, ok := strings.CutPrefix(name, "$"); ok && envName(rest) {
		return fmt.Errorf("--auth-token-env %s: give the variable's name without the $: --auth-token-env %s", name, rest)
	}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); v == name && k != "" {
			return fmt.Errorf("--auth-token-env: no environment variable has the name given, but %s has it as its value (it is not repeated here, in case it is the token): if the shell expanded $%s, write --auth-token-env %s, without the $; if not, set the variable named to the token", k, k, k)
		}
	}
	if !envName(name) {
		return errors.New("--auth-token-env takes the name of the environment variable that holds the token, as in --auth-token-env TOOLHOST_TOKEN, and what it was given is no variable's name (it is not repeated here, in case it is the token): write the name without $")
	}
	return nil
}

// envName reports whether s is the name of an environment variable a
// shell can set: a letter or '_', then letters, digits and '_'. A loop,
// not a regular expression compiled at every start.
func envName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// splitList splits a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// serveHTTP serves srv over HTTP until ctx ends (SIGINT or SIGTERM), then
// shuts down gracefully.
func serveHTTP(ctx context.Context, srv *host.Server, opts *host.HTTPOptions) error {
	hs, err := host.NewHTTPServer(srv, *opts)
	if err != nil {
		return err
	}
	return hs.ListenAndServe(ctx)
}

// DefaultSessionIdleTimeout is --session-idle-timeout's default: long
// enough for a person's pause, short enough that abandoned sessions, each
// holding memory, do not pile up on a shared server.
const DefaultSessionIdleTimeout = 30 * time.Minute
