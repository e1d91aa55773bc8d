package host

import (
	"fmt"
	"os"
	"strings"
	"testing"

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
			path := writeBenchConfig(b, b.TempDir(), src)
			reg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			srv := NewServer(reg, nil)
			variants := []string{strings.Replace(src, "(v0)", "(v1)", 1), strings.Replace(src, "(v0)", "(v2)", 1)}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				if err := os.WriteFile(path, []byte(variants[i%2]), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cur := srv.Registry()
				next, diags := loadAfter([]string{path}, &thcl.Options{Previous: cur.Config}, cur)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				old, ch := srv.Apply(next)
				if len(ch.ToolsChanged) != 1 {
					b.Fatalf("changed %v, want one tool", ch.ToolsChanged)
				}
				old.Retire()
			}
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
