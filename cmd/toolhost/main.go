// Command toolhost serves tools declared in HCL files to MCP clients.
package main

import (
	"context"
	"os"

	_ "github.com/toolhost/toolhost/adapters/all" // the backends
	"github.com/toolhost/toolhost/internal/cli"
)

// main stops on SIGINT, SIGTERM and SIGHUP (the terminal or the editor that
// started toolhost went away) alike: calls in flight are cancelled and
// their commands killed before it exits.
func main() {
	ctx, stop := cli.Signals(context.Background())
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
