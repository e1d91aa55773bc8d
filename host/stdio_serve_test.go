package host

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestServeStdioEnds: ServeStdio returns once stdin ends or the stop comes,
// having called Stopped once.
func TestServeStdioEnds(t *testing.T) {
	tests := []struct {
		name string
		stop bool
	}{
		{name: "stdin closed"},
		{name: "stop", stop: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := loadRegistry(t, "args.hcl")
			logger := slog.New(slog.DiscardHandler)
			srv := NewServer(reg, logger)
			stop, cancel := context.WithCancel(context.Background())
			defer cancel()
			var in io.Reader = strings.NewReader("")
			if tt.stop {
				r, w := io.Pipe()
				defer w.Close()
				in = r
			}
			stopped := 0
			done := make(chan error, 1)
			go func() {
				done <- ServeStdio(stop, srv, StdioOptions{
					Transport:  StdioTransport{In: in, Out: io.Discard, Logger: logger},
					StopReason: func() error { return errors.New("test stop") },
					Stopped:    func() { stopped++ },
				})
			}()
			if tt.stop {
				cancel()
			}
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, io.EOF) {
					t.Fatalf("ServeStdio: %v", err)
				}
			case <-time.After(3 * ShutdownGrace):
				t.Fatal("ServeStdio did not return")
			}
			if stopped != 1 {
				t.Errorf("Stopped called %d times, want 1", stopped)
			}
		})
	}
}

// TestServeStdioCountsForBallast: every request a stdio session receives
// counts toward the GC ballast (see ballastAfterRequests), calls on the
// direct path and lists through the SDK alike; notifications do not.
func TestServeStdioCountsForBallast(t *testing.T) {
	reg := loadRegistry(t, "args.hcl")
	logger := slog.New(slog.DiscardHandler)
	srv := NewServer(reg, logger)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nothing","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nothing","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`,
	}, "\n") + "\n"
	err := ServeStdio(context.Background(), srv, StdioOptions{
		Transport: StdioTransport{In: strings.NewReader(in), Out: io.Discard, Logger: logger},
	})
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("ServeStdio: %v", err)
	}
	if got := srv.ballastAt.requests.Load(); got != 4 {
		t.Errorf("%d requests counted for the ballast, want 4 (initialize, two calls, a list)", got)
	}
}
