package host

import (
	"fmt"
	"os"
	"testing"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// BenchmarkReloadAll measures a reload of a config of 1,000 and 10,000
// tools of which every tool changed (each description, at the same
// length, as the bench driver's scale case edits it), as the Reloader
// does it: under RelaxGC, the load taking what it can from the registry
// in service, and Apply.
func BenchmarkReloadAll(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			path := writeBenchConfig(b, b.TempDir(), testconfig.Tools(n, "v0"))
			reg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			srv := NewServer(reg, nil)
			variants := []string{testconfig.Tools(n, "w1"), testconfig.Tools(n, "w2")}
			b.ReportAllocs()
			var load, apply time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				if err := os.WriteFile(path, []byte(variants[i%2]), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				restore := RelaxGC()
				t0 := time.Now()
				cur := srv.Registry()
				next, diags := loadAfter([]string{path}, &thcl.Options{Previous: cur.Config}, cur)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				t1 := time.Now()
				old, ch := srv.Apply(next)
				load += t1.Sub(t0)
				apply += time.Since(t1)
				if len(ch.ToolsChanged) != n {
					b.Fatalf("changed %d tools, want %d", len(ch.ToolsChanged), n)
				}
				old.Retire()
				restore()
			}
			b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "ms/load")
			b.ReportMetric(float64(apply.Milliseconds())/float64(b.N), "ms/apply")
		})
	}
}
