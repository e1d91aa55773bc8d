package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// BenchmarkReloadOneOf measures a reload of a config of 1,000 and 10,000
// tools of which one tool changed, as the Reloader does it (the load
// taking what did not change from the registry in service, and Apply),
// beside the parse of the whole file alone with hclsyntax.ParseConfig,
// the floor of a reload that parsed the file again.
func BenchmarkReloadOneOf(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		src := testconfig.Tools(n, "v0")
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			benchReload(b, src, [2]string{strings.Replace(src, "(v0)", "(v1)", 1), strings.Replace(src, "(v0)", "(v2)", 1)}, 1, false)
		})
		b.Run(fmt.Sprintf("tools=%d/ParseConfig", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, diags := hclsyntax.ParseConfig([]byte(src), "tools.hcl", hcl.InitialPos); diags.HasErrors() {
					b.Fatal(diags)
				}
			}
		})
	}
}

// BenchmarkReloadAll measures a reload of a config of 1,000 and 10,000
// tools of which every tool changed (each description, at the same
// length, as the bench driver's scale case edits it), as the Reloader
// does it: under RelaxGC, the load taking what it can from the registry
// in service, and Apply. It reports the load's and Apply's shares.
func BenchmarkReloadAll(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			benchReload(b, testconfig.Tools(n, "v0"), [2]string{testconfig.Tools(n, "w1"), testconfig.Tools(n, "w2")}, n, true)
		})
	}
}

// benchReload serves src, then saves the variants in turn and reloads
// each as the Reloader does (under RelaxGC when relax is set), checking
// that want tools changed.
func benchReload(b *testing.B, src string, variants [2]string, want int, relax bool) {
	path := writeBenchConfig(b, b.TempDir(), src)
	reg, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	srv := NewServer(reg, nil)
	b.ReportAllocs()
	var load, apply time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := os.WriteFile(path, []byte(variants[i%2]), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		restore := func() {}
		if relax {
			restore = RelaxGC()
		}
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
		if len(ch.ToolsChanged) != want {
			b.Fatalf("changed %d tools, want %d", len(ch.ToolsChanged), want)
		}
		old.Retire()
		restore()
	}
	b.ReportMetric(float64(load.Microseconds())/1000/float64(b.N), "ms/load")
	b.ReportMetric(float64(apply.Microseconds())/1000/float64(b.N), "ms/apply")
}

// BenchmarkReloadLonger measures a reload of a config of 10,000 tools
// after the tool in the middle is made longer, or short again, so that
// every tool after it moves, as the Reloader does it: the first load
// applied (ms/applied, what clients wait for before tools/list_changed;
// see reload_moved.go), and the reload with its second load, which parses
// the moved tools where they are (ms/settled).
func BenchmarkReloadLonger(b *testing.B) {
	src := testconfig.Tools(10000, "v0")
	longer := strings.Replace(src, "Generated tool 5000 (v0)", "Generated tool 5000, made longer (v0)", 1)
	path := writeBenchConfig(b, b.TempDir(), src)
	reg, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	var applied time.Time
	r := &Reloader{Paths: []string{path}, Server: NewServer(reg, nil), Logger: slog.New(slog.DiscardHandler),
		OnReload: func(ReloadResult) { applied = time.Now() }}
	r.Prime(reg)
	b.ReportAllocs()
	var first, all time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		variant := longer
		if i%2 == 1 {
			variant = src
		}
		if err := os.WriteFile(path, []byte(variant), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		res := r.Reload(context.Background())
		all += time.Since(t0)
		first += applied.Sub(t0)
		if !res.Applied || len(res.Changes.ToolsChanged) != 1 {
			b.Fatalf("reload: %+v", res)
		}
	}
	b.ReportMetric(float64(first.Microseconds())/1000/float64(b.N), "ms/applied")
	b.ReportMetric(float64(all.Microseconds())/1000/float64(b.N), "ms/settled")
}

// BenchmarkReloadOneOfEnv measures a reload of a config of 2,000 http
// tools whose URL reads an environment variable at load, as toolhost
// import writes them, of which one tool changed (see benchReload).
func BenchmarkReloadOneOfEnv(b *testing.B) {
	var src strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&src, "tool \"get_item_%d\" {\n  description = \"Gets item %d (v0)\"\n  http {\n    method = \"GET\"\n    url    = \"${env(\"ITEMS_BASE_URL\", \"https://api.example.com\")}/items/%d\"\n  }\n}\n", i, i, i)
	}
	s := src.String()
	benchReload(b, s, [2]string{strings.Replace(s, "(v0)", "(v1)", 1), strings.Replace(s, "(v0)", "(v2)", 1)}, 1, false)
}
