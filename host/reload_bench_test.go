package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testconfig"
)

func writeBenchConfig(b *testing.B, dir, src string) string {
	b.Helper()
	p := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkLoad measures a full load and compile of a config of 1, 100 and
// 1,000 tools: what every reload pays.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			path := writeBenchConfig(b, b.TempDir(), testconfig.Tools(n, "a"))
			b.ReportAllocs()
			for b.Loop() {
				reg, diags := Load([]string{path}, nil)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				reg.Close()
			}
		})
	}
}

// BenchmarkReloadToNotification measures the time from a save on disk to
// the client receiving notifications/tools/list_changed, through the real
// watcher (with its debounce, DefaultDebounce), the compile, the swap and
// an SDK client connected in memory.
func BenchmarkReloadToNotification(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			path := writeBenchConfig(b, dir, testconfig.Tools(n, "v0"))
			reg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			srv := NewServer(reg, logger)
			changed := make(chan struct{}, 16)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.MCP().Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			cs, err := client.Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			var compile time.Duration
			r := &Reloader{Paths: []string{path}, Server: srv, Logger: logger, Diagnostics: io.Discard,
				OnReload: func(res ReloadResult) { compile += res.Duration }}
			r.Prime(reg)
			go r.Watch(ctx)
			time.Sleep(50 * time.Millisecond) // let the watcher start
			variants := []string{testconfig.Tools(n, "v1"), testconfig.Tools(n, "v2")}
			b.ResetTimer()
			var total time.Duration
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if err := os.WriteFile(path, []byte(variants[i%2]), 0o644); err != nil {
					b.Fatal(err)
				}
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					b.Fatal("no tools/list_changed within 10s")
				}
				total += time.Since(start)
				// Drain a second batched notification, if any, before the
				// next save.
				for drained := false; !drained; {
					select {
					case <-changed:
					case <-time.After(30 * time.Millisecond):
						drained = true
					}
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/save-to-notify")
			b.ReportMetric(float64(compile.Microseconds())/1000/float64(b.N), "ms/reload")
		})
	}
}
