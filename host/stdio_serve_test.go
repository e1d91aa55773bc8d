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
