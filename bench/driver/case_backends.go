package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The backends case (-cases backends) measures what toolhost adds to the
// backend's own work: an http tool against the same GET made by a Go
// client in the driver, to the same upstream (a process of its own), and
// an exec tool against a bare fork/exec of the same program from the
// driver. It starts toolhost (and every -compare binary) on
// bench/backends.hcl, and interleaves the baseline's runs with theirs,
// round by round. A baseline named in -targets (floor, gosdk, libs, ts)
// is measured beside toolhost with the same calls: its fetch tool, with
// the doc server as its upstream, is the text row's tool, and its echo
// the exec rows'; it has no mapped tool. The floor's figures are what a
// minimal Go server over stdio adds to the same GET and fork/exec.

var (
	docCall     = callSpec{`{"name":"doc","arguments":{"id":"abc"}}`, []byte(`"skus"`)}
	docTextCall = callSpec{`{"name":"doc_text","arguments":{"id":"abc"}}`, []byte(`sku-0`)}
	// docFetchCall is a baseline's fetch tool, started with the doc server
	// as its upstream: the same document, as text, as doc_text gives it.
	docFetchCall = callSpec{`{"name":"fetch","arguments":{"id":"abc"}}`, []byte(`sku-0`)}
)

// baselineName is the column of the driver's own request or fork/exec.
const baselineName = "driver"

// docDocument is the 2 KB JSON document the doc tools read.
func docDocument(id string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"id":%q,"name":"A product with a long enough name","price":12.5,"currency":"EUR",`, id)
	b.WriteString(`"owner":{"login":"someone","id":42,"url":"https://example.com/users/someone"},"items":[`)
	for i := 0; i < 16; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"sku-%d","qty":%d,"note":"an item of the order, with a short note"}`, i, i+1)
	}
	b.WriteString(`],"description":"`)
	for b.Len() < 2000 {
		b.WriteString("Lorem ipsum dolor sit amet. ")
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// docsServerEnv makes the driver's own binary the doc tools' upstream
// (see startDocs).
const docsServerEnv = "TOOLHOST_BENCH_DOCS_SERVER"

func init() {
	if os.Getenv(docsServerEnv) == "1" {
		serveDocs()
	}
}

// serveDocs serves the doc tools' document on a loopback port, prints its
// URL, and exits when its standard input closes.
func serveDocs() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	doc := docDocument("abc")
	mux := http.NewServeMux()
	serve := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}
	mux.HandleFunc("/doc/", serve)
	// The baselines' fetch tool reads $BENCH_UPSTREAM/small/ID.
	mux.HandleFunc("/small/", serve)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("http://" + ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// startDocs starts the doc tools' upstream in a process of its own, so
// that toolhost's request and the driver's direct one both cross from one
// process to another, and returns its URL and how to stop it.
func startDocs() (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), docsServerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("the doc server did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// backends runs the case; it does nothing unless -cases names it.
func (b *bench) backends() error {
	if !b.cfg.cases["backends"] {
		return nil
	}
	url, stopDocs, err := startDocs()
	if err != nil {
		return err
	}
	defer stopDocs()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	get := func() error {
		resp, err := client.Get(url + "/doc/abc")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && (resp.StatusCode != 200 || len(body) < 2000) {
			err = fmt.Errorf("direct GET: status %d, %d bytes", resp.StatusCode, len(body))
		}
		return err
	}
	printf, err := exec.LookPath("printf")
	if err != nil {
		return err
	}
	fork := func() error {
		out, err := exec.Command(printf, "%s", "bench").Output()
		if err == nil && string(out) != "bench" {
			err = fmt.Errorf("bare fork/exec: printed %q", out)
		}
		return err
	}

	root := b.examples.dir
	var ths []backendTarget
	defer func() {
		for _, e := range ths {
			e.p.stop()
		}
	}()
	toolhosts := 0
	for _, t := range b.targets {
		e := backendTarget{name: t.name, text: docTextCall}
		var s spec
		if strings.HasPrefix(t.name, "toolhost") {
			toolhosts++
			e.mapped = &docCall
			s = spec{t.name, []string{t.bench.argv[0], "serve", filepath.Join(root, "bench", "backends.hcl")},
				append(slices.Clone(t.bench.env), "BENCH_DOCS="+url), root}
			if b.cfg.profile != "" && t.name == "toolhost" {
				s.env = append(s.env, "TOOLHOST_CPUPROFILE="+filepath.Join(b.cfg.profile, "backends.cpu.pprof"),
					"TOOLHOST_MEMPROFILE="+filepath.Join(b.cfg.profile, "backends.heap.pprof"))
			}
		} else {
			// A baseline serves the benchmark's tools: its fetch, with the
			// doc server as its upstream, is the text row's tool, and it
			// has echo and say_hello as toolhost's config does.
			e.text = docFetchCall
			s = t.bench
			s.env = append(slices.Clone(s.env), "BENCH_UPSTREAM="+url)
		}
		p, err := start(s, false)
		if err != nil {
			return err
		}
		e.p = p
		ths = append(ths, e)
		if err := p.initialize(); err != nil {
			return err
		}
		type warmUp struct {
			c callSpec
			n int
		}
		warm := []warmUp{{helloCall, 500}, {e.text, 500}, {echoCall, 50}}
		if e.mapped != nil {
			warm = append(warm, warmUp{*e.mapped, 500})
		}
		for _, w := range warm {
			if _, err := p.run(w.c, 4, w.n, 10*time.Second, false); err != nil {
				return err
			}
		}
	}
	if toolhosts == 0 {
		return fmt.Errorf("-cases backends needs a toolhost target")
	}
	for i := 0; i < 200; i++ {
		if err := get(); err != nil {
			return err
		}
	}

	if err := b.backendsHTTP(ths, get); err != nil {
		return err
	}
	return b.backendsExec(ths, fork)
}

// backendTarget is a server of the backends case: toolhost on
// bench/backends.hcl, or a baseline with the doc server as its upstream.
type backendTarget struct {
	name   string
	p      *proc
	text   callSpec  // the 2 KB document as text: doc_text, or a baseline's fetch
	mapped *callSpec // the document through a result mapping: toolhost's doc; nil for a baseline
}

// backendOrder is round r's order of the baseline (-1) and the n
// toolhosts.
func backendOrder(r, n int) []int {
	o := []int{-1}
	for i := 0; i < n; i++ {
		o = append(o, i)
	}
	k := r % len(o)
	return append(o[k:], o[:k]...)
}

// backendsHTTP measures the http tools against get, the driver's own GET.
func (b *bench) backendsHTTP(ths []backendTarget, get func() error) error {
	var err error
	n := b.pick(500, 2000)
	logf("backends: %d rounds of %d sequential http calls, and exec calls at 1 and 16 in flight", b.cfg.rounds, n)
	// perCall is the mean time of a call over one run, in µs.
	perCall := func(r runResult) float64 { return us(r.elapsed) / float64(r.calls) }
	direct := func(n int) (float64, error) {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			if err := get(); err != nil {
				return 0, err
			}
		}
		return us(time.Since(t0)) / float64(n), nil
	}

	httpRows := map[string]map[string][]float64{} // row -> target -> per round
	put := func(rowName, target string, v float64) {
		if httpRows[rowName] == nil {
			httpRows[rowName] = map[string][]float64{}
		}
		httpRows[rowName][target] = append(httpRows[rowName][target], v)
	}
	var directs []float64
	for r := 0; r < b.cfg.rounds; r++ {
		got := map[string]map[string]float64{}
		var d float64
		for _, i := range backendOrder(r, len(ths)) {
			if i < 0 {
				if d, err = direct(n); err != nil {
					return err
				}
				directs = append(directs, d)
				continue
			}
			e := ths[i]
			got[e.name] = map[string]float64{}
			pid := e.p.cmd.Process.Pid
			type namedCall struct {
				name string
				c    callSpec
			}
			var calls []namedCall
			if e.mapped != nil {
				calls = append(calls, namedCall{"doc", *e.mapped})
			}
			calls = append(calls, namedCall{"doc_text", e.text}, namedCall{"say_hello", helloCall})
			for _, c := range calls {
				cpu0 := procCPU(pid)
				res, err := e.p.run(c.c, 1, n, 30*time.Second, false)
				if err != nil {
					return err
				}
				got[e.name][c.name] = perCall(res)
				got[e.name][c.name+" cpu"] = us(procCPU(pid)-cpu0) / float64(res.calls)
			}
		}
		for name, g := range got {
			if _, ok := g["doc"]; ok {
				put("http tool, mapped (doc), per call", name, g["doc"])
				put("http tool, mapped (doc), over the direct GET", name, g["doc"]-d)
				put("same, less a template call (the MCP round trip)", name, g["doc"]-d-g["say_hello"])
				put("server CPU per call, mapped (doc)", name, g["doc cpu"])
			}
			put("http tool, text (doc_text; a baseline's fetch), over the direct GET", name, g["doc_text"]-d)
			put("template call (say_hello), per call", name, g["say_hello"])
			put("server CPU per call, text (doc_text; a baseline's fetch)", name, g["doc_text cpu"])
			put("server CPU per call, template (say_hello)", name, g["say_hello cpu"])
		}
	}
	sec := "Backends: http tool (2 KB JSON) over the same GET made directly, 1 in flight"
	note := fmt.Sprintf("the driver's GET: %.1f µs", median(directs))
	for _, name := range []string{"http tool, mapped (doc), per call", "http tool, mapped (doc), over the direct GET",
		"same, less a template call (the MCP round trip)", "http tool, text (doc_text; a baseline's fetch), over the direct GET", "template call (say_hello), per call",
		"server CPU per call, mapped (doc)", "server CPU per call, text (doc_text; a baseline's fetch)", "server CPU per call, template (say_hello)"} {
		b.add(row{section: sec, name: name, unit: "µs", vals: medians(httpRows[name]), note: note})
		note = ""
	}
	return nil
}

// backendsExec measures the exec tool against fork, a bare fork/exec of
// the same program.
func (b *bench) backendsExec(ths []backendTarget, fork func() error) error {
	var err error
	// exec: calls per second of the echo tool and of a bare fork/exec, at
	// 1 and 16 in flight; the ratio is the bare one's ÷ toolhost's, per
	// round, then the median.
	dur := time.Duration(b.pick(500, 1500)) * time.Millisecond
	bare := func(k int) (float64, error) {
		var calls atomic.Int64
		var firstErr error
		var once sync.Once
		ctx, cancel := context.WithTimeout(context.Background(), dur)
		defer cancel()
		var wg sync.WaitGroup
		t0 := time.Now()
		for j := 0; j < k; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					if err := fork(); err != nil {
						once.Do(func() { firstErr = err })
						return
					}
					calls.Add(1)
				}
			}()
		}
		wg.Wait()
		return float64(calls.Load()) / time.Since(t0).Seconds(), firstErr
	}
	for _, k := range []int{1, 16} {
		ratios := map[string][]float64{}
		cps := map[string][]float64{}
		cpu := map[string][]float64{} // µs of the server's CPU per call
		for r := 0; r < b.cfg.rounds; r++ {
			var base float64
			got := map[string]float64{}
			for _, i := range backendOrder(r, len(ths)) {
				if i < 0 {
					if base, err = bare(k); err != nil {
						return err
					}
					cps[baselineName] = append(cps[baselineName], base)
					continue
				}
				pid := ths[i].p.cmd.Process.Pid
				cpu0 := procCPU(pid)
				res, err := ths[i].p.run(echoCall, k, 1_000_000, dur, false)
				if err != nil {
					return err
				}
				cpu[ths[i].name] = append(cpu[ths[i].name], us(procCPU(pid)-cpu0)/float64(res.calls))
				got[ths[i].name] = res.perSecond()
				cps[ths[i].name] = append(cps[ths[i].name], res.perSecond())
			}
			for name, v := range got {
				ratios[name] = append(ratios[name], base/v)
			}
		}
		sec := "Backends: exec tool (printf) over a bare fork/exec of the same program"
		m := medians(cps)
		note := fmt.Sprintf("bare fork/exec: %.0f calls/s", m[baselineName])
		delete(m, baselineName)
		b.add(row{section: sec, name: fmt.Sprintf("%d in flight, calls/s", k), unit: "calls/s", higherBetter: true, vals: m, note: note})
		b.add(row{section: sec, name: fmt.Sprintf("%d in flight, bare ÷ the server", k), unit: "x", vals: medians(ratios)})
		b.add(row{section: sec, name: fmt.Sprintf("%d in flight, server CPU per call (its own, not the command's)", k), unit: "µs", vals: medians(cpu)})
	}
	return nil
}
