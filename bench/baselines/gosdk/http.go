package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP serves s over streamable HTTP at addr/mcp, the way the SDK's
// documentation shows it: mcp.NewStreamableHTTPHandler with its defaults
// (sessions, or none when stateless). It writes "listening on ADDR" to
// stderr once it accepts connections, and exits when stdin ends, so that
// the driver stops it as it stops the stdio servers.
func serveHTTP(s *mcp.Server, addr string, stateless bool) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	fmt.Fprintf(os.Stderr, "listening on %s\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, mux))
}
