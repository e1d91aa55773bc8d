package main

// The cold-start case (-cases start): process spawn to the initialize
// answer, for examples/tools.hcl (and, for the Go SDK baseline and libs,
// the same definitions written by hand) and for 1,000 generated tools,
// and the idle RSS of the 1,000-tool servers.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// coldStart measures process spawn to the initialize response.
func (b *bench) coldStart() error {
	if err := b.checkExamples(); err != nil {
		return err
	}
	rounds := b.pick(3, 30)
	if b.cfg.roundsSet {
		rounds = b.cfg.rounds
	}
	// The small starts are cheap and their ratio is what the target is
	// judged by: each round runs their pass smallPasses times.
	smallPasses := b.pick(1, 4)
	logf("cold start: %d rounds, %d passes of the small starts in each", rounds, smallPasses)
	ex := map[string][]float64{}
	exSame := map[string][]float64{}
	big := map[string][]float64{}
	idle1000 := map[string]float64{}
	// Each round has two passes: the small starts (examples/tools.hcl, and
	// gosdk's hand-written copy of it) of every target, then the 1,000-tool
	// starts, each pass in rotated order. A start right after a 1,000-tool
	// one finds the caches and the TLB cold and takes longer: starts of the
	// same kind in one pass share that fate equally, where one target's
	// small start after another's large one would not.
	type sample struct {
		t     *target
		s     spec
		into  map[string][]float64
		large bool
	}
	for r := 0; r < rounds; r++ {
		var small, large []sample
		for _, t := range b.rotated(r) {
			small = append(small, sample{t, t.ex, ex, false})
			if t.exSame != nil {
				small = append(small, sample{t, *t.exSame, exSame, false})
			}
			large = append(large, sample{t, t.big, big, true})
		}
		// Rotate the small passes too, so that no start is always the first
		// after the previous round's large ones.
		var starts []sample
		for i := range smallPasses {
			k := (r*smallPasses + i) % len(small)
			starts = append(starts, small[k:]...)
			starts = append(starts, small[:k]...)
		}
		for _, x := range append(starts, large...) {
			d, p, err := spawnToInit(x.s)
			if err != nil {
				return err
			}
			x.into[x.t.name] = append(x.into[x.t.name], ms(d))
			if x.large && r == rounds-1 {
				// Idle memory with 1,000 tools: after a tools/list, settled.
				m, err := p.call("tools/list", `{}`, 30*time.Second)
				if err != nil {
					p.stop()
					return err
				}
				var list struct {
					Tools []json.RawMessage `json:"tools"`
				}
				if err := json.Unmarshal(m.result, &list); err != nil || len(list.Tools) < 1000 {
					p.stop()
					return fmt.Errorf("%s: tools/list of the 1,000-tool server has %d tools", x.t.name, len(list.Tools))
				}
				time.Sleep(500 * time.Millisecond)
				rss, _ := p.memory()
				idle1000[x.t.name] = mb(rss)
			}
			p.stop()
		}
	}
	b.add(row{section: "Cold start", name: "spawn to initialize response, examples/tools.hcl (baselines: their 5 tools)", unit: "ms", vals: medians(ex)})
	// The same start for toolhost (the same samples as the row above);
	// only gosdk (and libs, which is gosdk with more packages linked) has a
	// hand-written copy of the examples' definitions.
	same := medians(exSame)
	for _, t := range b.targets {
		if strings.HasPrefix(t.name, "toolhost") {
			same[t.name] = median(ex[t.name])
		}
	}
	sameRow := row{section: "Cold start", name: "spawn to initialize response, examples/tools.hcl (baselines: the same definitions written by hand; gosdk and libs only)", unit: "ms", vals: same}
	var notes []string
	for _, base := range []string{"gosdk", "libs"} {
		if th, g := ex["toolhost"], exSame[base]; len(th) > 1 && len(g) > 1 {
			lo, hi := ratioInterval(th, g)
			notes = append(notes, fmt.Sprintf("toolhost ÷ %s: 95%% interval %.2f–%.2f, by bootstrap over %d and %d starts", base, lo, hi, len(th), len(g)))
		}
	}
	if g, l := exSame["gosdk"], exSame["libs"]; len(g) > 1 && len(l) > 1 {
		lo, hi := ratioInterval(l, g)
		notes = append(notes, fmt.Sprintf("libs ÷ gosdk: %.2f–%.2f", lo, hi))
	}
	sameRow.note = strings.Join(notes, "; ")
	b.add(sameRow)
	b.add(row{section: "Cold start", name: "spawn to initialize response, 1,000 tools", unit: "ms", vals: medians(big)})
	b.add(row{section: "Memory", name: "RSS idle, 1,000 tools (after tools/list)", unit: "MB", vals: idle1000})
	return nil
}

// checkExamples checks that every hand-written copy of examples/tools.hcl
// (gosdk -examples) serves the tools toolhost serves for it, so that the
// copy cannot drift from the file unnoticed.
func (b *bench) checkExamples() error {
	var want []string
	for _, t := range b.targets {
		if t.exSame == nil {
			continue
		}
		if want == nil {
			var err error
			if want, err = toolNames(b.examples); err != nil {
				return err
			}
		}
		got, err := toolNames(*t.exSame)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s %s serves the tools %s; toolhost serves %s for examples/tools.hcl",
				t.name, strings.Join(t.exSame.argv[1:], " "), strings.Join(got, ","), strings.Join(want, ","))
		}
	}
	return nil
}

// toolNames starts the server and returns the names of its tools, sorted.
func toolNames(s spec) ([]string, error) {
	p, err := start(s, false)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	if err := p.initialize(); err != nil {
		return nil, err
	}
	var names []string
	cursor := ""
	for page := 0; page < 100; page++ {
		params := `{}`
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = `{"cursor":` + string(c) + `}`
		}
		m, err := p.call("tools/list", params, 30*time.Second)
		if err != nil {
			return nil, err
		}
		var list struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(m.result, &list); err != nil {
			return nil, fmt.Errorf("%s: tools/list: %w", s.name, err)
		}
		for _, t := range list.Tools {
			names = append(names, t.Name)
		}
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(names)
	return names, nil
}

// spawnToInit starts s and returns the time from the spawn to its answer to
// initialize, and the initialized server.
func spawnToInit(s spec) (time.Duration, *proc, error) {
	// Each start allocates megabytes here (the message channel and the
	// stdout buffer): without a collection first, the driver's GC would
	// run during every other start, on one of the cores the server starts
	// on, and slow most the servers that start on both.
	runtime.GC()
	start := time.Now()
	p, err := start1(s)
	if err != nil {
		return 0, nil, err
	}
	if _, err := p.send("initialize", initParams); err != nil {
		p.stop()
		return 0, nil, err
	}
	m, err := p.next(30 * time.Second)
	if err != nil {
		p.stop()
		return 0, nil, err
	}
	d := m.at.Sub(start)
	if m.err != nil {
		p.stop()
		return 0, nil, fmt.Errorf("%s: initialize failed: %s", s.name, m.err)
	}
	if err := p.notify("notifications/initialized"); err != nil {
		p.stop()
		return 0, nil, err
	}
	return d, p, nil
}
