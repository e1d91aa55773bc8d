package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The HTTP case: the template tool over streamable HTTP, with sessions and
// without, against each target's HTTP server: toolhost serve --listen
// (--stateless), the Go SDK baseline's -http (-stateless: the SDK's
// Stateless option) and the TypeScript baseline's --http (--stateless: a
// server and transport per request, the SDK's stateless pattern). Every
// target gets the same requests from the same client: a keep-alive
// net/http client with as many connections as calls in flight, each call
// a POST whose whole answer (an SSE event or a JSON body) is read and
// checked.

// httpVersion is the protocol version the HTTP case's client speaks: the
// newest one every target supports with sessions.
const httpVersion = "2025-11-25"

// httpServer is one HTTP server process under test.
type httpServer struct {
	name string
	p    *proc
	url  string // http://ADDR/mcp
	sid  string // the session's Mcp-Session-Id; empty when stateless
}

// listeningRE finds the address a server listens on in its log: toolhost's
// "serving over HTTP" line or the baselines' "listening on ADDR".
var listeningRE = regexp.MustCompile(`msg="serving over HTTP" addr=(\S+)|^listening on (\S+)`)

// httpSpec is how to start t's HTTP server, with sessions or stateless;
// false when t has none (the floor).
func (b *bench) httpSpec(t *target, stateless bool) (spec, bool) {
	s := t.bench
	s.argv = slices.Clone(s.argv)
	switch {
	case len(s.argv) >= 3 && s.argv[1] == "serve":
		// toolhost: bin serve CONFIG
		args := []string{s.argv[0], "serve", "--listen", "127.0.0.1:0"}
		if stateless {
			args = append(args, "--stateless")
		}
		s.argv = append(args, s.argv[2:]...)
	case t.name == "gosdk" || t.name == "libs":
		s.argv = append(s.argv, "-http", "127.0.0.1:0")
		if stateless {
			s.argv = append(s.argv, "-stateless")
		}
	case t.name == "ts":
		s.argv = append(s.argv, "--http", "127.0.0.1:0")
		if stateless {
			s.argv = append(s.argv, "--stateless")
		}
	default:
		return spec{}, false
	}
	return s, true
}

// startHTTP starts s and waits until it says where it listens; with
// sessions, it opens one.
func startHTTP(s spec, stateless bool, client *http.Client) (*httpServer, error) {
	p, err := start(s, true)
	if err != nil {
		return nil, err
	}
	hs := &httpServer{name: s.name, p: p}
	timeout := time.After(30 * time.Second)
	for hs.url == "" {
		select {
		case line := <-p.stderrLines:
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				hs.url = "http://" + m[1] + m[2] + "/mcp"
			}
		case <-p.stderrDone:
			p.stop()
			return nil, fmt.Errorf("%s exited before it listened: %s", s.name, p.stderrTail)
		case <-timeout:
			p.stop()
			return nil, fmt.Errorf("%s did not say where it listens within 30s: %s", s.name, p.stderrTail)
		}
	}
	go drainLines(p.stderrLines)
	if stateless {
		return hs, nil
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + httpVersion + `","capabilities":{},"clientInfo":{"name":"toolhost-bench","version":"1.0.0"}}}`
	resp, body, err := hs.post(client, []byte(init))
	if err == nil && resp.Header.Get("Mcp-Session-Id") == "" {
		err = fmt.Errorf("initialize answered %s without Mcp-Session-Id: %.300s", resp.Status, body)
	}
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	hs.sid = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := hs.post(client, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		p.stop()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return hs, nil
}

// post sends one JSON-RPC message and reads the whole answer.
func (hs *httpServer) post(client *http.Client, msg []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, hs.url, bytes.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", httpVersion)
	if hs.sid != "" {
		req.Header.Set("Mcp-Session-Id", hs.sid)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("POST %s answered %s: %.300s", hs.url, resp.Status, body)
	}
	return resp, body, nil
}

// run keeps inflight calls of c outstanding, each on its own goroutine and
// connection, until maxCalls have been answered or dur has passed. Every
// answer is checked; the first failure ends the run.
func (hs *httpServer) run(client *http.Client, c callSpec, inflight, maxCalls int, dur time.Duration) (runResult, error) {
	var (
		done  atomic.Int64
		ids   atomic.Int64
		first error
		once  sync.Once
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	start := time.Now()
	for range inflight {
		wg.Go(func() {
			for ctx.Err() == nil && done.Load() < int64(maxCalls) {
				msg := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(ids.Add(1), 10) + `,"method":"tools/call","params":` + c.params + `}`
				_, body, err := hs.post(client, []byte(msg))
				if err == nil && (!bytes.Contains(body, c.expect) || bytes.Contains(body, []byte(`"isError":true`))) {
					err = fmt.Errorf("unexpected answer to %s: %.300s", c.params, body)
				}
				if err != nil {
					once.Do(func() { first = fmt.Errorf("%s: %w", hs.name, err); cancel() })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return runResult{}, first
	}
	return runResult{calls: int(done.Load()), elapsed: time.Since(start)}, nil
}

// httpClient is a keep-alive client with a connection per call in flight.
func httpClient() *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// httpThroughput measures the template tool over streamable HTTP, with
// sessions and stateless, at 1, 16 and 64 calls in flight. The servers of
// one mode run together, and their rounds interleave.
func (b *bench) httpThroughput() error {
	dur := time.Duration(b.pick(400, 1500)) * time.Millisecond
	logf("HTTP: %d rounds of %s per target, mode and concurrency", b.cfg.rounds, dur)
	client := httpClient()
	defer client.CloseIdleConnections()
	for _, mode := range []struct {
		name      string
		stateless bool
	}{{"with sessions", false}, {"stateless", true}} {
		var servers []*httpServer
		stop := func() {
			for _, s := range servers {
				s.p.stop()
			}
		}
		for _, t := range b.targets {
			s, ok := b.httpSpec(t, mode.stateless)
			if !ok {
				continue
			}
			hs, err := startHTTP(s, mode.stateless, client)
			if err != nil {
				stop()
				return err
			}
			servers = append(servers, hs)
		}
		if len(servers) == 0 {
			return errors.New("no target serves HTTP")
		}
		for _, hs := range servers { // warm up
			if _, err := hs.run(client, helloCall, 16, 2000, 10*time.Second); err != nil {
				stop()
				return err
			}
		}
		for _, k := range []int{1, 16, 64} {
			cps := map[string][]float64{}
			for r := 0; r < b.cfg.rounds; r++ {
				for i := range servers {
					hs := servers[(i+r)%len(servers)]
					res, err := hs.run(client, helloCall, k, 200000, dur)
					if err != nil {
						stop()
						return err
					}
					cps[hs.name] = append(cps[hs.name], res.perSecond())
				}
			}
			b.add(row{section: "HTTP " + mode.name + ", template tool", name: fmt.Sprintf("%d in flight", k), unit: "calls/s", higherBetter: true, vals: medians(cps)})
		}
		stop()
	}
	return nil
}
