package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// strictUsage is the usage of serve's --strict flag.
const strictUsage = "exit with status 1, before any client connects, when the config has errors at the start, instead of serving no tools until a save makes it valid (for scripts; with --watch=false serve always exits so, since nothing would load a fixed config)"

// serveLoad loads the config for serve. A config with errors ends serve
// (false) unless survive: serve then prints the errors as load does and
// serves a host.PlaceholderRegistry, with no tools, whose clients are told
// the errors; its Reloader loads the config once a save makes it valid.
// An editor that starts toolhost then shows the errors, where a server
// that exited before initialize shows only that the connection closed.
// A config path that does not exist is logged plainly, as a mistyped path
// must not pass for one about to be saved.
func serveLoad(paths []string, opts *thcl.Options, survive bool, stderr io.Writer, logger *slog.Logger) (*host.Registry, bool) {
	if !survive {
		return loadWith("serve", paths, opts, stderr)
	}
	reg, diags := host.Load(paths, opts)
	writeDiags(stderr, reg.Config, diags)
	if !diags.HasErrors() {
		return reg, true
	}
	fmt.Fprintf(stderr, "toolhost serve: %s: %s; serving no tools until the config is saved without errors (toolhost watches its files and loads it then; serve --strict exits instead)\n", configNames(paths), countLine(diags))
	serveRelativeHint(paths, stderr)
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			abs, aerr := filepath.Abs(p)
			if aerr != nil {
				abs = p
			}
			logger.Error("config not found: serving no tools until it is created; check the path if it is not about to be saved", "path", abs)
		}
	}
	errs, _, _ := countDiags(diags)
	logger.Error("the config has errors: serving no tools until it is saved without them", "errors", errs)
	return host.PlaceholderRegistry(reg, diags), true
}

// noValidConfig is serve's exit code once its clients are gone: 1 when no
// valid config ever loaded (a script that pipes nothing to a broken
// config's server sees it fail, as with --strict), 0 otherwise.
func noValidConfig(srv *host.Server, logger *slog.Logger) int {
	if !srv.Registry().Placeholder() {
		return ExitOK
	}
	logger.Error("exiting with status 1: the config never loaded without errors")
	return ExitFailure
}
