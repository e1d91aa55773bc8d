package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// scaleTools is the number of tools of the scale case.
const scaleTools = 10000

// scale measures a server of 10,000 generated tools: its peak RSS (VmHWM)
// once a client has listed every page of tools/list, against the
// baselines serving as many tools; and, for the toolhost targets, a reload
// of that config: one tool edited in place (its description, the same
// length), one tool edited in the middle of the file so that what follows
// moves, and every tool edited, from the save to notifications/tools/list_changed
// (and, after the edit that moves tools, to the answer of a call of the
// last tool sent at that notification),
// with the peak RSS during the last against the RSS before it. It runs 3
// rounds (1 with -quick), or -rounds.
func (b *bench) scale() error {
	rounds := b.pick(1, 3)
	if b.cfg.roundsSet {
		rounds = b.cfg.rounds
	}
	logf("scale: %d rounds of %d tools", rounds, scaleTools)
	sec := fmt.Sprintf("Reload and memory at scale (%d tools)", scaleTools)
	src := testconfig.Tools(scaleTools, "v0")
	peak, listed := map[string][]float64{}, map[string][]float64{}
	rt := newReloadTimes()
	for r := 0; r < rounds; r++ {
		for _, t := range b.rotated(r) {
			th := strings.HasPrefix(t.name, "toolhost")
			s := t.big
			var path string
			if th {
				dir := filepath.Join(b.tmp, fmt.Sprintf("scale-%d-%s", r, strings.NewReplacer("@", "-", "[", "-", "]", "-", "=", "-", ",", "-").Replace(t.name)))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				path = filepath.Join(dir, "tools.hcl")
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					return err
				}
				s.argv = []string{s.argv[0], "serve", path}
				s.dir = dir
			} else {
				s.argv = slices.Clone(s.argv)
				if i := slices.Index(s.argv, "1000"); i >= 0 {
					s.argv[i] = fmt.Sprint(scaleTools)
				}
			}
			p, err := start(s, th)
			if err != nil {
				return err
			}
			if err := p.initialize(); err != nil {
				p.stop()
				return err
			}
			n, err := listAll(p)
			if err != nil {
				p.stop()
				return err
			}
			if n < scaleTools {
				p.stop()
				return fmt.Errorf("%s lists %d tools, want %d at least", t.name, n, scaleTools)
			}
			rss, hwm := p.memory()
			peak[t.name] = append(peak[t.name], mb(hwm))
			listed[t.name] = append(listed[t.name], mb(rss))
			if th {
				err = b.scaleReloads(p, path, src, r, rt, t.name)
			}
			p.stop()
			if err != nil {
				return err
			}
		}
	}
	b.add(row{section: sec, name: "peak RSS (VmHWM) once every page of tools/list is read", unit: "MB", vals: medians(peak)})
	b.add(row{section: sec, name: "RSS once every page of tools/list is read", unit: "MB", vals: medians(listed)})
	b.add(row{section: sec, name: "one tool edited in place: save to tools/list_changed", unit: "ms", vals: medians(rt.oneSame)})
	b.add(row{section: sec, name: "one tool in the middle edited longer (what follows moves): save to tools/list_changed", unit: "ms", vals: medians(rt.oneLonger)})
	b.add(row{section: sec, name: "same: save to the answer of a call of the last tool (moved), sent at that notification", unit: "ms", vals: medians(rt.movedCall)})
	b.add(row{section: sec, name: "every tool edited: save to tools/list_changed", unit: "ms", vals: medians(rt.all)})
	b.add(row{section: sec, name: "every tool edited: RSS before (1 s after the edits above)", unit: "MB", vals: medians(rt.allIdle)})
	b.add(row{section: sec, name: "every tool edited: peak RSS (VmHWM) during the reload", unit: "MB", vals: medians(rt.allPeak)})
	b.add(row{section: sec, name: "every tool edited: that peak ÷ the RSS before", unit: "x", vals: medians(rt.allRatio)})
	return nil
}

// reloadTimes are the scale case's reload figures, by target name.
type reloadTimes struct {
	oneSame, oneLonger, movedCall, all map[string][]float64 // ms
	allPeak, allIdle                   map[string][]float64 // MB
	allRatio                           map[string][]float64
}

func newReloadTimes() *reloadTimes {
	m := func() map[string][]float64 { return map[string][]float64{} }
	return &reloadTimes{oneSame: m(), oneLonger: m(), movedCall: m(), all: m(), allPeak: m(), allIdle: m(), allRatio: m()}
}

// scaleReloads makes the edits of the scale case on a toolhost serving
// path (src), and records their times under name.
func (b *bench) scaleReloads(p *proc, path, src string, round int, rt *reloadTimes, name string) error {
	time.Sleep(300 * time.Millisecond) // the watcher starts after the answer
	// saveCalling saves text and returns when tools/list_changed came;
	// with call set, it then calls the last tool, which an edit above it
	// moves, and returns when that call was answered too.
	saveCalling := func(text string, call bool) (notified, answered time.Duration, err error) {
		drainLines(p.stderrLines)
		drainMsgs(p)
		start := time.Now()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return 0, 0, err
		}
		at, err := p.waitNotification("notifications/tools/list_changed", 60*time.Second)
		if err != nil {
			return 0, 0, err
		}
		if call {
			last := fmt.Sprintf(`{"name":"tool_%d","arguments":{"name":"x"}}`, scaleTools-1)
			if _, err := p.call("tools/call", last, 60*time.Second); err != nil {
				return 0, 0, err
			}
			answered = time.Since(start)
		}
		if _, err := reloadDuration(p.stderrLines, 60*time.Second); err != nil {
			return 0, 0, err
		}
		time.Sleep(250 * time.Millisecond) // let a batched second notification pass
		return at.Sub(start), answered, nil
	}
	save := func(text string) (time.Duration, error) {
		d, _, err := saveCalling(text, false)
		return d, err
	}
	cur := src
	for i := 1; i <= 3; i++ {
		cur = strings.Replace(src, "Generated tool 0 (v0)", fmt.Sprintf("Generated tool 0 (v%d)", i), 1)
		d, err := save(cur)
		if err != nil {
			return err
		}
		rt.oneSame[name] = append(rt.oneSame[name], ms(d))
	}
	mid := fmt.Sprintf("Generated tool %d (v0)", scaleTools/2)
	cur = strings.Replace(cur, mid, mid+strings.Repeat("!", round+1), 1)
	d, called, err := saveCalling(cur, true)
	if err != nil {
		return err
	}
	rt.oneLonger[name] = append(rt.oneLonger[name], ms(d))
	rt.movedCall[name] = append(rt.movedCall[name], ms(called))
	time.Sleep(time.Second)
	idle, _ := p.memory()
	if !p.resetPeak() {
		return fmt.Errorf("%s: cannot reset the peak RSS (/proc/PID/clear_refs)", name)
	}
	if d, err = save(testconfig.Tools(scaleTools, fmt.Sprintf("w%d", round))); err != nil {
		return err
	}
	_, hwm := p.memory()
	rt.all[name] = append(rt.all[name], ms(d))
	rt.allIdle[name] = append(rt.allIdle[name], mb(idle))
	rt.allPeak[name] = append(rt.allPeak[name], mb(hwm))
	rt.allRatio[name] = append(rt.allRatio[name], float64(hwm)/float64(idle))
	return nil
}

// listAll reads every page of tools/list and returns how many tools it
// lists.
func listAll(p *proc) (int, error) {
	n := 0
	params := `{}`
	for {
		m, err := p.call("tools/list", params, 60*time.Second)
		if err != nil {
			return n, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(m.result, &page); err != nil {
			return n, fmt.Errorf("%s: tools/list: %w", p.name, err)
		}
		n += len(page.Tools)
		if page.NextCursor == "" {
			return n, nil
		}
		c, _ := json.Marshal(page.NextCursor)
		params = `{"cursor":` + string(c) + `}`
	}
}
