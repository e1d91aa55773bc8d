package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRatioInterval(t *testing.T) {
	spread := func(n int, base, step float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = base + step*float64(i%10)
		}
		return xs
	}
	for _, tc := range []struct {
		name   string
		a, b   []float64
		lo, hi float64 // the interval must lie within [lo, hi] and contain want
		want   float64
	}{
		{"constant samples: the exact ratio", spread(50, 3, 0), spread(40, 2, 0), 1.5, 1.5, 1.5},
		{"the same spread samples", spread(100, 5, 0.1), spread(100, 5, 0.1), 0.9, 1.1, 1},
		{"twice as slow", spread(100, 10, 0.2), spread(100, 5, 0.1), 1.8, 2.2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := ratioInterval(tc.a, tc.b)
			if lo > hi || lo < tc.lo || hi > tc.hi || tc.want < lo || tc.want > hi {
				t.Fatalf("interval %.3f–%.3f, want within %.3f–%.3f and containing %.3f", lo, hi, tc.lo, tc.hi, tc.want)
			}
			lo2, hi2 := ratioInterval(tc.a, tc.b)
			if lo2 != lo || hi2 != hi {
				t.Fatalf("not reproducible: %.4f–%.4f, then %.4f–%.4f", lo, hi, lo2, hi2)
			}
		})
	}
	// Noisy samples: the interval widens with the noise.
	narrow := func() float64 { lo, hi := ratioInterval(spread(60, 7, 0.05), spread(60, 5, 0.05)); return hi - lo }()
	wide := func() float64 { lo, hi := ratioInterval(spread(60, 7, 0.5), spread(60, 5, 0.5)); return hi - lo }()
	if !(wide > narrow) || math.IsNaN(wide) {
		t.Fatalf("interval width %.3f for noisy samples, %.3f for quiet ones: want wider", wide, narrow)
	}
}

// TestPairedNote: the note of a row with -compare builds gives, for each,
// the median and range of toolhost's samples over theirs round by round,
// and nothing for a build with a round missing or with no build.
func TestPairedNote(t *testing.T) {
	b := &bench{targets: []*target{{name: "toolhost"}, {name: "toolhost@main"}, {name: "toolhost@old"}, {name: "gosdk"}}}
	for _, tc := range []struct {
		name string
		xs   map[string][]float64
		want string
	}{
		{"two builds", map[string][]float64{
			"toolhost":      {9, 12, 10},
			"toolhost@main": {10, 12, 8},
			"toolhost@old":  {18, 24, 20},
			"gosdk":         {1, 1, 1},
		}, "; toolhost ÷ toolhost@main round by round: 1.00 (0.90–1.25); toolhost ÷ toolhost@old round by round: 0.50 (0.50–0.50)"},
		{"a round missing", map[string][]float64{"toolhost": {9, 12}, "toolhost@main": {10}}, ""},
		{"no build to compare", map[string][]float64{"toolhost": {9, 12}, "gosdk": {1, 1}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.pairedNote(tc.xs); got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestProcCPU: the CPU time read from /proc grows as this process works,
// and a process that does not exist has none.
func TestProcCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the CPU time is read from Linux's /proc")
	}
	start := procCPU(os.Getpid())
	x := 0
	deadline := time.Now().Add(time.Minute)
	for procCPU(os.Getpid()) <= start {
		if time.Now().After(deadline) {
			t.Fatalf("procCPU(self) stayed at %v for a minute of work", start)
		}
		for i := range 1_000_000 {
			x ^= i
		}
	}
	_ = x
	if got := procCPU(-1); got != 0 {
		t.Errorf("procCPU(-1) = %v, want 0", got)
	}
}

// TestLibsTarget: the libs target imports the packages toolhost links and
// the Go SDK baseline does not (and none of toolhost's own, or another
// module's internal ones), and built with its overlay it is the Go SDK
// baseline, answering initialize with the examples' definitions. It needs
// the go command, which a Windows test binary run under wine does not
// have; the Linux run lists and builds the same packages.
func TestLibsTarget(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("there is no go command to list and build the packages with")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// Without the driver's build tags: the build then shares the cache of
	// cmd/toolhost's tests, which build it so.
	const tags = ""
	imports, err := libsImports(root, tags)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/hashicorp/hcl/v2/hclsyntax", "modernc.org/sqlite", "google.golang.org/grpc", "github.com/jackc/pgx/v5"} {
		if !slices.Contains(imports, want) {
			t.Errorf("libs does not import %s", want)
		}
	}
	for _, p := range imports {
		if strings.HasPrefix(p, "github.com/toolhost/") || strings.Contains(p, "/internal") || p == "github.com/modelcontextprotocol/go-sdk/mcp" {
			t.Errorf("libs imports %s: toolhost's own, internal, or already the baseline's", p)
		}
	}
	if t.Failed() {
		return
	}

	dir := t.TempDir()
	overlay, n, err := libsOverlay(root, dir, tags)
	if err != nil || n != len(imports) {
		t.Fatalf("libsOverlay: %d imports, %v; want %d", n, err, len(imports))
	}
	bin := filepath.Join(dir, "libs")
	cmd := exec.Command("go", "build", "-tags", tags, "-overlay", overlay, "-o", bin, "./bench/baselines/gosdk")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building libs: %v\n%s", err, out)
	}
	d, p, err := spawnToInit(spec{"libs", []string{bin, "-examples"}, nil, filepath.Join(root, "examples")})
	if err != nil {
		t.Fatal(err)
	}
	p.stop()
	if d <= 0 {
		t.Fatalf("spawn to initialize took %v", d)
	}
	// The packages are linked: the binary names the largest of them.
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"modernc.org/sqlite", "google.golang.org/grpc"} {
		if !bytes.Contains(data, []byte(pkg+".init")) {
			t.Errorf("the libs binary has no init of %s", pkg)
		}
	}
}
