package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkServeHTTP is one tools/call of the template tool as a client
// sees it over streamable HTTP, in process: a loopback listener, the whole
// HTTPServer (with sessions, and --stateless) and the SDK, with 1 and 16
// requests in flight; and as a 2026-07-28 client calls, with the
// Mcp-Method and Mcp-Name headers and the version in the call's _meta,
// with --stateless and beside the sessions of a server that keeps them.
// B/op and allocs/op count the client's share too, the same in every mode.
func BenchmarkServeHTTP(b *testing.B) {
	for _, mode := range []string{"sessions", "stateless", "stateless-2026-07-28", "beside-sessions-2026-07-28"} {
		for _, inflight := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/inflight=%d", mode, inflight), func(b *testing.B) {
				benchServeHTTP(b, strings.HasPrefix(mode, "stateless"), strings.HasSuffix(mode, "2026-07-28"), inflight)
			})
		}
	}
}

// benchServeHTTP is BenchmarkServeHTTP with or without sessions, as a
// 2026-07-28 client (newProtocol) or a 2025-11-25 one, with inflight
// requests in flight.
func benchServeHTTP(b *testing.B, stateless, newProtocol bool, inflight int) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logger) // the call log
	srv := NewServer(benchRegistry(b), logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs, err := NewHTTPServer(srv, HTTPOptions{Addr: ln.Addr().String(), Stateless: stateless, Logger: logger})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-served
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	defer client.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/mcp"
	sid := ""
	post := func(msg string) (http.Header, []byte, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(msg)))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if newProtocol {
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "say_hello")
		}
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode/100 != 2 {
			err = fmt.Errorf("%s: %s", resp.Status, body)
		}
		return resp.Header, body, err
	}
	if !stateless && !newProtocol {
		h, _, err := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		if err != nil {
			b.Fatal(err)
		}
		sid = h.Get("Mcp-Session-Id")
		if _, _, err := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			b.Fatal(err)
		}
	}
	meta := ""
	if newProtocol {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	var ids atomic.Int64
	call := func() error {
		_, body, err := post(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(ids.Add(1), 10) + `,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"world"}` + meta + `}}`)
		if err == nil && !bytes.Contains(body, []byte("hello world")) {
			err = fmt.Errorf("unexpected answer: %s", body)
		}
		return err
	}
	for range 100 {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	for range inflight {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
}
