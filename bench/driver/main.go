// Command driver is toolhost's benchmark suite: one program that starts
// toolhost and three baselines (a hand-written server on the official Go
// SDK, one on the official TypeScript SDK, and a hand-written JSON-RPC loop
// as the floor), speaks MCP to each over pipes, interleaves the rounds
// (A B C D, B C D A, ...) so that noise hits all alike, and prints a table
// of medians with ratios.
//
// Run it from the repository root:
//
//	(cd bench && npm ci)     # once: the TypeScript SDK baseline
//	go run ./bench/driver            # the full run, about 5 minutes
//	go run ./bench/driver -quick     # a short run, about a minute
//
// Flags:
//
//	-quick        fewer rounds and calls
//	-rounds N     rounds of each interleaved measurement (default 5; 2 with
//	              -quick; the cold-start case defaults to 30, 3 with -quick:
//	              a start takes milliseconds, and its median over 10 moved
//	              by a third from run to run on a shared machine)
//	-targets LIST comma-separated subset of toolhost,gosdk,ts,floor,libs
//	              (default toolhost,gosdk,ts,floor; libs is the Go SDK
//	              baseline linked with every package toolhost links, the
//	              floor those packages set: libs.go)
//	-cases LIST   comma-separated subset of start,latency,throughput,slow,big,memory,reload,http
//	              (http: the template tool over streamable HTTP, with sessions
//	              and stateless, at 1, 16 and 64 in flight; case_http.go);
//	              not run unless named: scale (10,000 tools) and backends
//	              (the http and exec tools over the same GET and fork/exec
//	              made by the driver; the baselines in -targets beside
//	              toolhost, with the same calls)
//	-throughput LIST
//	              the tools of the throughput case: template,http,exec
//	-node PATH    the node binary (default: node on PATH); the ts baseline is
//	              skipped when node or bench/node_modules is missing
//	-variant ENV  also measure toolhost with extra environment, e.g. GOGC=400
//	-compare NAME=PATH
//	              also measure another toolhost binary (say, the previous
//	              commit's), interleaved with the others
//	-profile DIR  write toolhost.cpu.pprof and toolhost.heap.pprof of the
//	              long-running toolhost server into DIR (for go tool pprof)
//
// Every server runs on this machine; the http tools call a keep-alive HTTP
// server the driver runs on 127.0.0.1. Every loop is bounded in count and
// in time.
//
// Beside each throughput table the driver reports the server's CPU time
// per call: the utime and stime of the server process (all its threads,
// from /proc/PID/stat, in steps of 10 ms) over each run, divided by the
// calls answered in it; where /proc cannot be read, the rows are empty.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

type config struct {
	quick     bool
	rounds    int
	roundsSet bool // -rounds was given: the cold-start case uses it too
	targets   []string
	cases     map[string]bool
	node      string
	profile   string
	variants  listFlag
	compare   listFlag
	kinds     map[string]bool
}

// target is one server under test.
type target struct {
	name  string
	bench spec // the benchmark's tools
	ex    spec // cold start: examples/tools.hcl for toolhost, the same five tools for the baselines
	// exSame is, for a baseline, the cold start of examples/tools.hcl's
	// definitions written by hand (gosdk -examples); nil when it has none.
	// toolhost's value in that row is its ex start.
	exSame *spec
	big    spec // cold start: 1,000 generated tools
	p      *proc
	idle   int64 // RSS after start, bytes
}

// allTargets are the servers the driver knows; libs (libs.go) is measured
// only when named.
var allTargets = []string{"toolhost", "gosdk", "ts", "floor", "libs"}

// defaultTargets are the servers measured when -targets is not given.
var defaultTargets = []string{"toolhost", "gosdk", "ts", "floor"}

// buildTags are the build tags of every Go server the driver builds.
const buildTags = "grpcnotrace"

func main() {
	var cfg config
	var targets, cases string
	flag.BoolVar(&cfg.quick, "quick", false, "a short run: fewer rounds and calls")
	flag.IntVar(&cfg.rounds, "rounds", 0, "rounds of each interleaved measurement (default 5, or 2 with -quick)")
	flag.StringVar(&targets, "targets", strings.Join(defaultTargets, ","), "servers to measure")
	flag.StringVar(&cases, "cases", "start,latency,throughput,slow,big,memory,reload,http", "cases to run")
	flag.StringVar(&cfg.node, "node", "node", "the node binary, for the TypeScript baseline")
	kinds := flag.String("throughput", "template,http,exec", "the tools of the throughput case")
	flag.Var(&cfg.variants, "variant", "also measure toolhost with this environment, as KEY=VAL[,KEY=VAL] (repeatable), e.g. GOGC=400")
	flag.Var(&cfg.compare, "compare", "also measure another toolhost binary, as NAME=PATH (repeatable), e.g. head=/tmp/toolhost-head")
	flag.StringVar(&cfg.profile, "profile", "", "write CPU and heap profiles of the long-running toolhost server into this directory (uses bench/profiled, cmd/toolhost with pprof)")
	flag.Parse()
	cfg.roundsSet = cfg.rounds > 0
	if cfg.rounds <= 0 {
		cfg.rounds = 5
		if cfg.quick {
			cfg.rounds = 2
		}
	}
	cfg.targets = strings.Split(targets, ",")
	cfg.kinds = map[string]bool{}
	for _, k := range strings.Split(*kinds, ",") {
		cfg.kinds[strings.TrimSpace(k)] = true
	}
	cfg.cases = map[string]bool{}
	for _, c := range strings.Split(cases, ",") {
		cfg.cases[strings.TrimSpace(c)] = true
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// repoRoot finds the toolhost module root from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/toolhost/toolhost\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the driver inside the toolhost repository (go run ./bench/driver)")
		}
		dir = parent
	}
}

// run builds the servers, starts the upstream and runs each case in turn.
// It is long because it is the suite's script, one case after another in
// the order the report prints them.
func run(cfg config) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "toolhost-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	env := machine(cfg, root)
	logf("building the servers")
	builds := [][]string{{"toolhost", "./cmd/toolhost"}, {"gosdk", "./bench/baselines/gosdk"}, {"floor", "./bench/baselines/floor"}}
	if slices.Contains(cfg.targets, "libs") {
		overlay, n, err := libsOverlay(root, tmp, buildTags)
		if err != nil {
			return err
		}
		logf("libs: the Go SDK baseline with %d more packages, those cmd/toolhost links", n)
		builds = append(builds, []string{"libs", "./bench/baselines/gosdk", "-overlay", overlay})
	}
	for _, b := range builds {
		// As .goreleaser.yaml builds toolhost for release: -trimpath, and
		// the grpcnotrace tag, which keeps golang.org/x/net/trace and
		// html/template out of the binary (a fifth of its size).
		args := append([]string{"build", "-trimpath", "-tags", buildTags, "-o", filepath.Join(tmp, b[0])}, b[2:]...)
		cmd := exec.Command("go", append(args, b[1])...)
		cmd.Dir = root
		// Static binaries, as toolhost is built for release (README.md,
		// examples/deploy/Dockerfile): without cgo a process starts
		// without the dynamic loader and creates its threads itself.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", b[1], err)
		}
	}
	if cfg.profile != "" {
		if err := os.MkdirAll(cfg.profile, 0o755); err != nil {
			return err
		}
		if cfg.profile, err = filepath.Abs(cfg.profile); err != nil {
			return err
		}
		cmd := exec.Command("go", "build", "-trimpath", "-tags", buildTags, "-o", filepath.Join(tmp, "toolhost-profiled"), "./bench/profiled")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building ./bench/profiled: %w", err)
		}
	}
	gen1000 := filepath.Join(tmp, "gen1000", "tools.hcl")
	if err := os.MkdirAll(filepath.Dir(gen1000), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(gen1000, []byte(testconfig.Tools(1000, "a")), 0o644); err != nil {
		return err
	}

	up, err := startUpstream()
	if err != nil {
		return err
	}
	defer up.close()
	upEnv := []string{"BENCH_UPSTREAM=" + up.url}

	var ts []*target
	for _, name := range cfg.targets {
		t := &target{name: name}
		switch name {
		case "toolhost":
			*t = toolhostTarget(name, filepath.Join(tmp, "toolhost"), nil, root, gen1000, upEnv)
			if cfg.profile != "" {
				t.bench.argv[0] = filepath.Join(tmp, "toolhost-profiled")
				t.bench.env = append(slices.Clone(upEnv),
					"TOOLHOST_CPUPROFILE="+filepath.Join(cfg.profile, "toolhost.cpu.pprof"),
					"TOOLHOST_MEMPROFILE="+filepath.Join(cfg.profile, "toolhost.heap.pprof"))
			}
		case "gosdk", "libs", "floor":
			bin := filepath.Join(tmp, name)
			t.bench = spec{name, []string{bin}, upEnv, root}
			t.ex = t.bench
			t.big = spec{name, []string{bin, "-tools", "1000"}, upEnv, root}
			if name != "floor" {
				// Its files are relative to the working directory, as
				// examples/tools.hcl's are to the config's folder.
				t.exSame = &spec{name, []string{bin, "-examples"}, upEnv, filepath.Join(root, "examples")}
			}
		case "ts":
			if _, err := exec.LookPath(cfg.node); err != nil {
				logf("skipping ts: no %s on PATH", cfg.node)
				continue
			}
			if _, err := os.Stat(filepath.Join(root, "bench", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
				logf("skipping ts: run (cd bench && npm ci) first")
				continue
			}
			script := filepath.Join(root, "bench", "baselines", "ts", "server.mjs")
			t.bench = spec{name, []string{cfg.node, script}, upEnv, root}
			t.ex = t.bench
			t.big = spec{name, []string{cfg.node, script, "--tools", "1000"}, upEnv, root}
		default:
			return fmt.Errorf("unknown target %q; use %s", name, strings.Join(allTargets, ","))
		}
		ts = append(ts, t)
	}
	for _, v := range cfg.variants {
		env := strings.Split(v, ",")
		t := toolhostTarget("toolhost["+v+"]", filepath.Join(tmp, "toolhost"), env, root, gen1000, upEnv)
		ts = append(ts, &t)
	}
	for _, c := range cfg.compare {
		name, bin, ok := strings.Cut(c, "=")
		if !ok {
			return fmt.Errorf("-compare %q: use NAME=PATH", c)
		}
		if bin, err = filepath.Abs(bin); err != nil {
			return err
		}
		t := toolhostTarget("toolhost@"+name, bin, nil, root, gen1000, upEnv)
		ts = append(ts, &t)
	}
	if len(ts) == 0 {
		return errors.New("no targets")
	}

	b := &bench{cfg: cfg, targets: ts, up: up, tmp: tmp,
		examples: spec{"toolhost", []string{filepath.Join(tmp, "toolhost"), "serve", filepath.Join(root, "examples", "tools.hcl")}, nil, root}}
	if cfg.cases["start"] {
		if err := b.coldStart(); err != nil {
			return err
		}
	}
	needServers := false
	for _, c := range []string{"latency", "throughput", "slow", "big", "memory"} {
		needServers = needServers || cfg.cases[c]
	}
	if needServers {
		if err := b.startAll(); err != nil {
			return err
		}
		defer func() {
			for _, t := range ts {
				if t.p != nil {
					t.p.stop()
				}
			}
		}()
		steps := []struct {
			name string
			fn   func() error
		}{
			{"latency", b.latency},
			{"throughput", b.throughput},
			{"slow", b.slow},
			{"big", b.bigResponses},
			{"memory", b.memory},
		}
		for _, s := range steps {
			if cfg.cases[s.name] {
				if err := s.fn(); err != nil {
					return err
				}
			}
		}
	}
	if cfg.cases["reload"] {
		if err := b.reload(); err != nil {
			return err
		}
	}
	if cfg.cases["scale"] {
		if err := b.scale(); err != nil {
			return err
		}
	}
	if err := b.backends(); err != nil { // case_backends.go; only with -cases backends
		return err
	}
	if cfg.cases["http"] {
		if err := b.httpThroughput(); err != nil {
			return err
		}
	}
	env = append(env, "load average at the end: "+loadavg())
	b.print(os.Stdout, env)
	return nil
}

// toolhostTarget is toolhost built as bin, with env added.
func toolhostTarget(name, bin string, env []string, root, gen1000 string, upEnv []string) target {
	return target{
		name:  name,
		bench: spec{name, []string{bin, "serve", filepath.Join(root, "bench", "tools.hcl")}, append(slices.Clone(upEnv), env...), root},
		ex:    spec{name, []string{bin, "serve", filepath.Join(root, "examples", "tools.hcl")}, env, root},
		big:   spec{name, []string{bin, "serve", gen1000}, env, root},
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// machine describes the machine and the tools, for the report.
func machine(cfg config, root string) []string {
	var out []string
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	out = append(out, fmt.Sprintf("CPU: %s, nproc %d", cpu, runtime.NumCPU()))
	if b, err := exec.Command("go", "version").Output(); err == nil {
		out = append(out, strings.TrimSpace(string(b)))
	}
	if b, err := exec.Command(cfg.node, "--version").Output(); err == nil {
		out = append(out, "node "+strings.TrimSpace(string(b)))
	}
	if b, err := os.ReadFile(filepath.Join(root, "bench", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		if m := regexp.MustCompile(`"version":\s*"([^"]+)"`).FindSubmatch(b); m != nil {
			out = append(out, "@modelcontextprotocol/sdk "+string(m[1]))
		}
	}
	out = append(out, "load average at the start: "+loadavg())
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
