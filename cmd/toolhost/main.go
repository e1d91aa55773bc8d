// Command toolhost serves tools declared in HCL files to MCP clients.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolhost/toolhost/internal/cli"
)

// main stops on SIGINT, SIGTERM and SIGHUP (the terminal or the editor that
// started toolhost went away) alike: calls in flight are cancelled and
// their commands killed before it exits.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
