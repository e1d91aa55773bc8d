// Command toolhost serves tools declared in HCL files to MCP clients. A tool
// runs a command (exec), calls an HTTP API (http) or fills in a template
// (template).
//
// Usage:
//
//	toolhost serve [flags] [CONFIG...]       serve over stdio, or over HTTP with --listen
//	toolhost validate [flags] CONFIG...      check configs and run their examples
//	toolhost call CONFIG TOOL [name=value ...] [--json '{...}']
//	                                         run one tool and print its result
//	toolhost inspect [--json] CONFIG...      print tools, resources and prompts as a client sees them
//	toolhost fmt [-check] [CONFIG...]        rewrite configs in canonical style
//	toolhost init [DIR]                      write a starter tools.hcl
//	toolhost setup EDITOR [CONFIG]           register the config with an editor (claude-desktop,
//	                                         cursor, vscode, claude-code, windsurf)
//	toolhost bridge framed --connect HOST:PORT CONFIG...
//	                                         offer the tools to a framed-protocol server
//	toolhost version                         print the version
//	toolhost help [COMMAND]                  print the usage, or a command's flags
//
// CONFIG is a .hcl file or a directory of .hcl files; several are merged.
// The commands themselves are in internal/cli.
package main

import (
	"context"
	"os"

	_ "github.com/toolhost/toolhost/adapters/all" // the backends
	"github.com/toolhost/toolhost/internal/cli"
)

// main stops on SIGINT, SIGTERM and SIGHUP (the terminal or the editor that
// started toolhost went away) alike, and on Windows on Ctrl+C, Ctrl+Break
// and the console closing: calls in flight are cancelled and their
// commands killed before it exits.
func main() {
	ctx, stop := cli.Signals(context.Background())
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
