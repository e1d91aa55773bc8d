package exec

import (
	"context"
	"os/exec"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// BenchmarkCall runs printf through the exec backend ("tool") and as a
// bare fork/exec with os/exec ("bare"), one at a time and 16 at once:
// the backend's own cost per command is the difference.
func BenchmarkCall(b *testing.B) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		b.Skip("no printf")
	}
	f := defaultFixture()
	e := f.mustCompile(b, `command = ["printf", "%s", param.text]`)
	in := f.input(map[string]cty.Value{"text": cty.StringVal("bench")})
	tool := func() error {
		out, err := e.Call(context.Background(), in)
		if err == nil && string(out.Body) != "bench" {
			b.Fatalf("printed %q", out.Body)
		}
		return err
	}
	bare := func() error {
		out, err := exec.Command(printf, "%s", "bench").Output()
		if err == nil && string(out) != "bench" {
			b.Fatalf("printed %q", out)
		}
		return err
	}
	for _, c := range []struct {
		name string
		fn   func() error
	}{{"tool", tool}, {"bare", bare}} {
		b.Run(c.name+"/c=1", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/c=16", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(8) // 16 on 2 cores
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := c.fn(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// reportCPU starts measuring the CPU time the benchmark's process spends
// (its own, not its commands') and the times its threads wait, and
// returns the function that reports them per operation as "cpu-µs/op"
// and "waits/op".
func reportCPU(b *testing.B) func() {
	start, waits, ok := processCPU()
	if !ok {
		return func() {}
	}
	return func() {
		end, endWaits, _ := processCPU()
		b.ReportMetric(float64((end-start).Microseconds())/float64(b.N), "cpu-µs/op")
		b.ReportMetric(float64(endWaits-waits)/float64(b.N), "waits/op")
	}
}
