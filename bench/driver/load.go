package main

import (
	"bytes"
	"fmt"
	"time"
)

// callSpec is one tool call the driver repeats.
type callSpec struct {
	params string // tools/call params
	expect []byte // a response's result must contain this
}

var (
	helloCall = callSpec{`{"name":"say_hello","arguments":{"name":"world"}}`, []byte(`hello world`)}
	fetchCall = callSpec{`{"name":"fetch","arguments":{"id":"abc"}}`, []byte(`ok\":true`)}
	echoCall  = callSpec{`{"name":"echo","arguments":{"text":"bench"}}`, []byte(`bench`)}
	slowCall  = callSpec{`{"name":"slow","arguments":{"id":"abc"}}`, []byte(`ok\":true`)}
	bigCall   = callSpec{`{"name":"big","arguments":{}}`, []byte(`"count"`)}
)

// runResult is what one run of calls measured.
type runResult struct {
	calls   int
	elapsed time.Duration
	lat     []time.Duration // per call, client-side, send to response read
}

func (r runResult) perSecond() float64 { return float64(r.calls) / r.elapsed.Seconds() }

// run keeps inflight calls of c outstanding until maxCalls have been sent
// or dur has passed, then waits for the outstanding ones. Every response
// is checked. It is bounded in count, time and by a per-response timeout.
func (p *proc) run(c callSpec, inflight, maxCalls int, dur time.Duration, keepLat bool) (runResult, error) {
	var res runResult
	sentAt := make(map[int64]time.Time, inflight)
	start := time.Now()
	deadline := start.Add(dur)
	sent := 0
	send := func() error {
		t := time.Now()
		id, err := p.send("tools/call", c.params)
		if err != nil {
			return fmt.Errorf("%s: writing a request: %w", p.name, err)
		}
		sentAt[id] = t
		sent++
		return nil
	}
	for sent < inflight && sent < maxCalls {
		if err := send(); err != nil {
			return res, err
		}
	}
	for len(sentAt) > 0 {
		m, err := p.next(30 * time.Second)
		if err != nil {
			return res, err
		}
		t0, ok := sentAt[m.id]
		if !ok {
			return res, fmt.Errorf("%s: a response with an unexpected id: %s", p.name, m.raw)
		}
		delete(sentAt, m.id)
		if m.err != nil || m.result == nil || bytes.Contains(m.result, []byte(`"isError":true`)) || !bytes.Contains(m.result, c.expect) {
			return res, fmt.Errorf("%s: unexpected response to %s: %.300s", p.name, c.params, m.raw)
		}
		res.calls++
		if keepLat {
			res.lat = append(res.lat, m.at.Sub(t0))
		}
		if sent < maxCalls && m.at.Before(deadline) {
			if err := send(); err != nil {
				return res, err
			}
		}
	}
	res.elapsed = time.Since(start)
	return res, nil
}
