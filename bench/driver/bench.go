package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

type bench struct {
	cfg     config
	targets []*target
	up      *upstream
	tmp     string
	rows    []row
	// examples is toolhost serving examples/tools.hcl: the reference the
	// hand-written examples baselines are checked against.
	examples spec
}

// row is one line of the table: a median per target.
type row struct {
	section      string
	name         string
	unit         string // "ms", "µs", "calls/s", "MB", "x"
	higherBetter bool
	vals         map[string]float64
	note         string
}

func (b *bench) add(r row) { b.rows = append(b.rows, r) }

// rotated returns the targets in the order of round r: A B C D, B C D A, ...
func (b *bench) rotated(r int) []*target {
	n := len(b.targets)
	out := make([]*target, n)
	for i := range b.targets {
		out[i] = b.targets[(i+r)%n]
	}
	return out
}

func (b *bench) pick(quick, full int) int {
	if b.cfg.quick {
		return quick
	}
	return full
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratioInterval is a 95% bootstrap interval of median(a) ÷ median(b): the
// medians of 2,000 resamples of each, drawn with replacement, with a fixed
// seed so that a report can be reproduced from its samples. It says how
// far a ratio of medians could move from noise alone.
func ratioInterval(a, b []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 2000
	qs := make([]float64, n)
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	for i := range qs {
		for j := range ra {
			ra[j] = a[rng.IntN(len(a))]
		}
		for j := range rb {
			rb[j] = b[rng.IntN(len(b))]
		}
		qs[i] = median(ra) / median(rb)
	}
	slices.Sort(qs)
	return qs[n*25/1000], qs[n*975/1000-1]
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func mb(n int64) float64         { return float64(n) / 1e6 }

func medians(m map[string][]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = median(v)
	}
	return out
}

func start1(s spec) (*proc, error) { return start(s, false) }

// startAll starts the long-running servers and records their idle RSS.
func (b *bench) startAll() error {
	logf("starting the servers")
	for _, t := range b.targets {
		p, err := start(t.bench, false)
		if err != nil {
			return err
		}
		t.p = p
		if err := p.initialize(); err != nil {
			return err
		}
		m, err := p.call("tools/list", `{}`, 30*time.Second)
		if err != nil {
			return err
		}
		for _, name := range []string{"say_hello", "fetch", "slow", "big", "echo"} {
			if !strings.Contains(string(m.result), `"name":"`+name+`"`) {
				return fmt.Errorf("%s: tools/list has no %s", t.name, name)
			}
		}
	}
	time.Sleep(500 * time.Millisecond)
	idle := map[string]float64{}
	for _, t := range b.targets {
		rss, _ := t.p.memory()
		t.idle = rss
		idle[t.name] = mb(rss)
	}
	b.add(row{section: "Memory", name: "RSS idle, benchmark tools (after tools/list)", unit: "MB", vals: idle})

	logf("warming up")
	for _, t := range b.targets {
		for _, w := range []struct {
			c callSpec
			n int
		}{{helloCall, 2000}, {fetchCall, 500}, {echoCall, 50}} {
			if _, err := t.p.run(w.c, 8, w.n, 10*time.Second, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// latency measures sequential calls of the template tool.
func (b *bench) latency() error {
	n := b.pick(1000, 3000)
	logf("sequential latency: %d rounds of %d calls", b.cfg.rounds, n)
	lat := map[string][]time.Duration{}
	for r := 0; r < b.cfg.rounds; r++ {
		for _, t := range b.rotated(r) {
			res, err := t.p.run(helloCall, 1, n, 30*time.Second, true)
			if err != nil {
				return err
			}
			lat[t.name] = append(lat[t.name], res.lat...)
		}
	}
	p50, p99 := map[string]float64{}, map[string]float64{}
	for k, v := range lat {
		p50[k] = us(percentile(v, 50))
		p99[k] = us(percentile(v, 99))
	}
	b.add(row{section: "Sequential latency (template tool)", name: "p50", unit: "µs", vals: p50})
	b.add(row{section: "Sequential latency (template tool)", name: "p99", unit: "µs", vals: p99})
	return nil
}

// throughput measures calls per second at 1, 8 and 64 in flight.
func (b *bench) throughput() error {
	dur := time.Duration(b.pick(400, 1500)) * time.Millisecond
	logf("throughput: %d rounds of %s per target and case", b.cfg.rounds, dur)
	var cpuRows []row
	for _, c := range []struct {
		kind string
		name string
		c    callSpec
		max  int
	}{
		{"template", "template", helloCall, 200000},
		{"http", "http (keep-alive upstream)", fetchCall, 100000},
		{"exec", "exec (printf)", echoCall, 20000},
	} {
		if !b.cfg.kinds[c.kind] {
			continue
		}
		for _, k := range []int{1, 8, 64} {
			cps, cpu := map[string][]float64{}, map[string][]float64{}
			for r := 0; r < b.cfg.rounds; r++ {
				for _, t := range b.rotated(r) {
					cpu0 := t.p.cpuTime()
					res, err := t.p.run(c.c, k, c.max, dur, false)
					if err != nil {
						return err
					}
					cps[t.name] = append(cps[t.name], res.perSecond())
					if used := t.p.cpuTime() - cpu0; used > 0 && res.calls > 0 {
						cpu[t.name] = append(cpu[t.name], us(used)/float64(res.calls))
					}
				}
			}
			b.add(row{section: "Throughput, " + c.name, name: fmt.Sprintf("%d in flight", k), unit: "calls/s", higherBetter: true, vals: medians(cps)})
			cpuRows = append(cpuRows, row{section: "Server CPU per call, " + c.name, name: fmt.Sprintf("%d in flight", k), unit: "µs", vals: medians(cpu),
				note: "utime + stime of the server process over the run, ÷ calls" + b.pairedNote(cpu)})
		}
	}
	// The CPU rows follow the throughput tables, one section per tool.
	for _, r := range cpuRows {
		b.add(r)
	}
	return nil
}

// pairedNote says, for each -compare build, how toolhost's samples in xs
// compare with that build's round by round: the median and the range of
// the ratios of the two runs of each round, which ran one after the other.
// A figure such as CPU per call drifts with the machine's load from one
// round to the next more than between two runs of a round, so these
// ratios say more about a difference than the ratio of the medians. ""
// when there is no -compare build, or a round of one has no sample.
func (b *bench) pairedNote(xs map[string][]float64) string {
	note := ""
	own := xs["toolhost"]
	for _, t := range b.targets {
		other := xs[t.name]
		if !strings.HasPrefix(t.name, "toolhost@") || len(own) == 0 || len(other) != len(own) {
			continue
		}
		ratios := make([]float64, len(own))
		for i := range own {
			ratios[i] = own[i] / other[i]
		}
		note += fmt.Sprintf("; toolhost ÷ %s round by round: %.2f (%.2f–%.2f)", t.name, median(ratios), slices.Min(ratios), slices.Max(ratios))
	}
	return note
}

// slow sends 64 concurrent calls of a tool whose upstream takes 100 ms.
func (b *bench) slow() error {
	rounds := max(2, b.cfg.rounds)
	logf("slow upstream: %d rounds of 64 concurrent calls", rounds)
	wall := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, t := range b.rotated(r) {
			res, err := t.p.run(slowCall, 64, 64, time.Minute, false)
			if err != nil {
				return err
			}
			wall[t.name] = append(wall[t.name], ms(res.elapsed))
		}
	}
	b.add(row{section: "Slow upstream (100 ms)", name: "64 concurrent calls, wall time", unit: "ms", vals: medians(wall)})
	return nil
}

// bigResponses calls the tool that extracts from a 10 MB JSON body.
func (b *bench) bigResponses() error {
	rounds := b.pick(3, 7)
	logf("10 MB responses: %d rounds", rounds)
	before := map[string]int64{}
	peakOK := true
	for _, t := range b.targets {
		// One call first, checked in full.
		m, err := t.p.call("tools/call", bigCall.params, time.Minute)
		if err != nil {
			return err
		}
		var res struct {
			IsError    bool `json:"isError"`
			Structured struct {
				Count int               `json:"count"`
				Top   []json.RawMessage `json:"top"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(m.result, &res); err != nil || res.IsError || res.Structured.Count != b.up.bigSize || len(res.Structured.Top) != b.up.bigTop {
			return fmt.Errorf("%s: wrong big result (want count %d, top %d): %.300s", t.name, b.up.bigSize, b.up.bigTop, m.raw)
		}
		time.Sleep(200 * time.Millisecond)
		rss, _ := t.p.memory()
		before[t.name] = rss
		peakOK = t.p.resetPeak() && peakOK
	}
	times := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, t := range b.rotated(r) {
			res, err := t.p.run(bigCall, 1, 1, time.Minute, true)
			if err != nil {
				return err
			}
			times[t.name] = append(times[t.name], ms(res.lat[0]))
		}
	}
	peak, over := map[string]float64{}, map[string]float64{}
	for _, t := range b.targets {
		_, hwm := t.p.memory()
		peak[t.name] = mb(hwm)
		over[t.name] = float64(hwm-before[t.name]) / float64(len(b.up.big))
	}
	sec := "10 MB JSON body through a result mapping"
	b.add(row{section: sec, name: "time per call (fetch + extract + reply)", unit: "ms", vals: medians(times)})
	if peakOK {
		b.add(row{section: sec, name: "peak RSS during the calls", unit: "MB", vals: peak})
		b.add(row{section: sec, name: "peak RSS over the RSS before, ÷ body size", unit: "x", vals: over})
	}
	return nil
}

// memory runs 100,000 template calls (10,000 with -quick) at 64 in flight,
// in chunks interleaved across the targets, and records RSS.
func (b *bench) memory() error {
	chunk := b.pick(1000, 10000)
	chunks := 10
	logf("memory: %d calls per target, in %d interleaved chunks", chunk*chunks, chunks)
	after1, afterAll := map[string]float64{}, map[string]float64{}
	// rss holds each target's RSS after each chunk. One reading is at
	// the mercy of where the GC is in its cycle (the heap of a server
	// under load swings by several MB between collections), so growth
	// compares the medians of the first and the last three readings.
	rss := map[string][]float64{}
	cps := map[string][]float64{}
	for c := 0; c < chunks; c++ {
		for _, t := range b.rotated(c) {
			res, err := t.p.run(helloCall, 64, chunk, 5*time.Minute, false)
			if err != nil {
				return err
			}
			if res.calls != chunk {
				return fmt.Errorf("%s: %d of %d calls", t.name, res.calls, chunk)
			}
			cps[t.name] = append(cps[t.name], res.perSecond())
			r, _ := t.p.memory()
			if c == 0 {
				after1[t.name] = mb(r)
			}
			afterAll[t.name] = mb(r)
			rss[t.name] = append(rss[t.name], mb(r))
		}
	}
	growth := map[string]float64{}
	for k, v := range rss {
		growth[k] = median(v[len(v)-3:]) - median(v[:3])
	}
	n := chunk * chunks
	b.add(row{section: "Memory", name: fmt.Sprintf("RSS after %d more calls (64 in flight)", chunk), unit: "MB", vals: after1})
	b.add(row{section: "Memory", name: fmt.Sprintf("RSS after %d calls", n), unit: "MB", vals: afterAll})
	b.add(row{section: "Memory", name: fmt.Sprintf("RSS growth: median of the last 3 readings (calls %d to %d) minus that of the first 3 (calls %d to %d)", n-2*chunk, n, chunk, 3*chunk), unit: "MB", vals: growth, note: "≈0 means no growth"})
	b.add(row{section: "Memory", name: "template calls/s during this run (64 in flight)", unit: "calls/s", higherBetter: true, vals: medians(cps)})
	return nil
}

var durationRe = regexp.MustCompile(`msg="reloaded config".* duration=(\S+)`)

// reload measures save-to-notification and the reload's own time (read,
// compile, apply, as toolhost logs it), for 1, 100 and 1,000 tools all
// changed, and for 1,000 tools of which one changed (an edit). Only the
// toolhost targets reload; their rounds are interleaved.
func (b *bench) reload() error {
	rounds := b.pick(3, 7)
	var ths []*target
	for _, t := range b.targets {
		if strings.HasPrefix(t.name, "toolhost") {
			ths = append(ths, t)
		}
	}
	logf("reload: %d rounds for 1, 100 and 1,000 tools", rounds)
	sec := "Reload (toolhost only; save to notification includes the watcher's 30 ms debounce)"
	for _, c := range []struct {
		n   int
		one bool
	}{{1, false}, {100, false}, {1000, false}, {1000, true}} {
		variant := func(r int) string {
			v := fmt.Sprintf("v%d", r%2+1)
			if c.one {
				return strings.Replace(testconfig.Tools(c.n, "v0"), "(v0)", "("+v+")", 1)
			}
			return testconfig.Tools(c.n, v)
		}
		type live struct {
			t    *target
			p    *proc
			path string
		}
		var ls []live
		stopAll := func() {
			for _, l := range ls {
				l.p.stop()
			}
		}
		for i, t := range ths {
			dir := filepath.Join(b.tmp, fmt.Sprintf("reload-%d-%v-%d", c.n, c.one, i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			path := filepath.Join(dir, "tools.hcl")
			if err := os.WriteFile(path, []byte(testconfig.Tools(c.n, "v0")), 0o644); err != nil {
				return err
			}
			s := t.big
			s.argv = []string{s.argv[0], "serve", path}
			s.dir = dir
			p, err := start(s, true)
			if err != nil {
				stopAll()
				return err
			}
			ls = append(ls, live{t, p, path})
			if err := p.initialize(); err != nil {
				stopAll()
				return err
			}
		}
		time.Sleep(300 * time.Millisecond) // the watchers start after the servers
		notify, compile := map[string][]float64{}, map[string][]float64{}
		for r := 0; r < rounds; r++ {
			for i := range ls {
				l := ls[(i+r)%len(ls)]
				drainLines(l.p.stderrLines)
				drainMsgs(l.p)
				start := time.Now()
				if err := os.WriteFile(l.path, []byte(variant(r)), 0o644); err != nil {
					stopAll()
					return err
				}
				at, err := l.p.waitNotification("notifications/tools/list_changed", 20*time.Second)
				if err != nil {
					stopAll()
					return err
				}
				notify[l.t.name] = append(notify[l.t.name], ms(at.Sub(start)))
				d, err := reloadDuration(l.p.stderrLines, 20*time.Second)
				if err != nil {
					stopAll()
					return err
				}
				compile[l.t.name] = append(compile[l.t.name], ms(d))
				time.Sleep(250 * time.Millisecond) // let a batched second notification pass
			}
		}
		stopAll()
		what := fmt.Sprintf("%d tools, all changed", c.n)
		if c.one {
			what = fmt.Sprintf("%d tools, one changed", c.n)
		}
		b.add(row{section: sec, name: what + ": save to tools/list_changed", unit: "ms", vals: medians(notify)})
		b.add(row{section: sec, name: what + ": reload (read, compile, apply)", unit: "ms", vals: medians(compile)})
	}
	return nil
}

func drainLines(c chan string) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

func drainMsgs(p *proc) {
	for {
		select {
		case <-p.msgs:
		default:
			return
		}
	}
}

func reloadDuration(lines chan string, timeout time.Duration) (time.Duration, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case l := <-lines:
			if m := durationRe.FindStringSubmatch(l); m != nil {
				return time.ParseDuration(m[1])
			}
		case <-t.C:
			return 0, fmt.Errorf("toolhost logged no reload: %w", errTimeout)
		}
	}
}

// print writes the report as Markdown.
func (b *bench) print(w io.Writer, env []string) {
	names := make([]string, 0, len(b.targets))
	for _, t := range b.targets {
		names = append(names, t.name)
	}
	fmt.Fprintln(w, "## Environment")
	fmt.Fprintln(w)
	for _, e := range env {
		fmt.Fprintf(w, "- %s\n", e)
	}
	fmt.Fprintf(w, "- command: go run ./bench/driver %s\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(w, "- rounds: %d (interleaved, order rotated each round); figures are medians\n", b.cfg.rounds)
	fmt.Fprintln(w)
	var bases []string
	for _, n := range names {
		if !strings.HasPrefix(n, "toolhost") {
			bases = append(bases, n)
		}
	}
	hasTH := slices.Contains(names, "toolhost")
	section := ""
	for _, r := range b.rows {
		if r.section != section {
			section = r.section
			fmt.Fprintf(w, "\n### %s\n\n", section)
			hdr := "| | unit | " + strings.Join(names, " | ") + " |"
			sep := "|---|---|" + strings.Repeat("---:|", len(names))
			if hasTH {
				for _, bn := range bases {
					hdr += " toolhost ÷ " + bn + " |"
					sep += "---:|"
				}
			}
			fmt.Fprintln(w, hdr)
			fmt.Fprintln(w, sep)
		}
		name := r.name
		if r.note != "" {
			// In the first cell: a cell past the header's would not
			// render.
			name += " (" + r.note + ")"
		}
		line := "| " + name + " | " + r.unit + " |"
		for _, n := range names {
			v, ok := r.vals[n]
			if !ok {
				line += " – |"
				continue
			}
			line += " " + format(v, r.unit) + " |"
		}
		if hasTH {
			for _, bn := range bases {
				line += " " + ratio(r, bn) + " |"
			}
		}
		fmt.Fprintln(w, line)
	}
	if hasTH {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Ratios compare cost (time or memory): above 1 toolhost costs more; for calls/s the ratio is baseline calls/s ÷ toolhost calls/s.")
	}
}

func ratio(r row, base string) string {
	th, ok1 := r.vals["toolhost"]
	bv, ok2 := r.vals[base]
	if !ok1 || !ok2 || r.unit == "x" || strings.HasPrefix(r.name, "RSS growth") {
		return "–"
	}
	var q float64
	if r.higherBetter {
		q = bv / th
	} else {
		q = th / bv
	}
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f", q)
}

func format(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case unit == "calls/s":
		return fmt.Sprintf("%.0f", v)
	case unit == "x":
		return fmt.Sprintf("%.2f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
