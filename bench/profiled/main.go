// Command profiled is cmd/toolhost with profiling for the benchmark driver's
// -profile flag: it writes a CPU profile to $TOOLHOST_CPUPROFILE and a heap
// profile to $TOOLHOST_MEMPROFILE when it exits. It is not for users.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"

	_ "github.com/toolhost/toolhost/adapters/all" // the backends, as cmd/toolhost has them
	"github.com/toolhost/toolhost/internal/cli"
)

func main() {
	if path := os.Getenv("TOOLHOST_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer f.Close()
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if path := os.Getenv("TOOLHOST_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			runtime.GC()
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	if code != 0 {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}
