//go:build (unix && !aix) || windows

package plainhttp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// countingServer is an httptest server that counts the connections made to
// it and those closed.
type countingServer struct {
	*httptest.Server
	opened, closed atomic.Int32
}

// newCountingServer starts h on loopback, counting connections.
func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// do sends a request through tr and returns the response and its body.
func do(t *testing.T, tr http.RoundTripper, method, u string, body string, header http.Header) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, u, err)
	}
	return resp, string(b)
}

// echo answers with the method, the path and the body.
func echo(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, b)
}

func TestReusesConnections(t *testing.T) {
	s := newCountingServer(t, echo)
	tr := New(&http.Transport{})
	for i := range 20 {
		method, body := http.MethodGet, ""
		if i%2 == 1 {
			method, body = http.MethodPost, fmt.Sprint(i)
		}
		_, got := do(t, tr, method, s.URL+"/p", body, nil)
		if want := fmt.Sprintf("%s /p %s", method, body); got != want {
			t.Fatalf("request %d: body %q, want %q", i, got, want)
		}
	}
	if n := s.opened.Load(); n != 1 {
		t.Errorf("20 requests made %d connections, want 1", n)
	}
	if fast, left := tr.Sent(); fast != 20 || left != 0 {
		t.Errorf("Sent() = %d, %d; want 20 by the fast path, none left to net/http", fast, left)
	}
	// HEAD and 204 have no body: the connection goes back at once.
	for _, path := range []string{"/head", "/nocontent"} {
		method := http.MethodGet
		if path == "/head" {
			method = http.MethodHead
		}
		do(t, tr, method, s.URL+path, "", nil)
	}
	if n := s.opened.Load(); n != 1 {
		t.Errorf("after HEAD: %d connections, want 1", n)
	}
	tr.CloseIdleConnections()
	testconfig.WaitFor(t, "the idle connection closed", func() bool { return s.closed.Load() == 1 })
}

func TestConcurrentRequests(t *testing.T) {
	s := newCountingServer(t, echo)
	tr := New(&http.Transport{MaxIdleConnsPerHost: 4})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 30 {
				body := fmt.Sprintf("%d-%d", g, i)
				req, _ := http.NewRequest(http.MethodPost, s.URL+"/c", strings.NewReader(body))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != "POST /c "+body {
					errs <- fmt.Errorf("body %q, %v; want %q", b, err, "POST /c "+body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tr.mu.Lock()
	idle := len(tr.idle[strings.TrimPrefix(s.URL, "http://")])
	tr.mu.Unlock()
	if idle > 4 {
		t.Errorf("%d idle connections kept, want 4 at most (MaxIdleConnsPerHost)", idle)
	}
}

// rawServer accepts connections on loopback and gives each to serve, with
// its index.
func rawServer(t *testing.T, serve func(i int, c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(i, c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// readRequest reads one request from br, body included.
func readRequest(br *bufio.Reader) (*http.Request, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, req.Body)
	return req, err
}

// TestRequestOnClosedConnection: the upstream takes a request on a kept
// connection and closes it without an answer. A request that may be sent
// twice is sent again on a new connection; one that may not fails.
func TestRequestOnClosedConnection(t *testing.T) {
	for _, tc := range []struct {
		method string
		header http.Header
		retry  bool
	}{
		{http.MethodGet, nil, true},
		{http.MethodPost, http.Header{"Idempotency-Key": {"k1"}}, true},
		{http.MethodPost, nil, false},
	} {
		t.Run(tc.method+fmt.Sprint(tc.retry), func(t *testing.T) {
			var requests atomic.Int32
			u := rawServer(t, func(i int, c net.Conn) {
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					if _, err := readRequest(br); err != nil {
						return
					}
					requests.Add(1)
					if i == 0 && n == 1 {
						return // the second request on the first connection: closed unanswered
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			})
			tr := New(&http.Transport{})
			do(t, tr, http.MethodGet, u+"/", "", nil)
			req, _ := http.NewRequest(tc.method, u+"/", strings.NewReader("body"))
			for k, v := range tc.header {
				req.Header[k] = v
			}
			resp, err := tr.RoundTrip(req)
			if !tc.retry {
				if err == nil {
					resp.Body.Close()
					t.Fatal("a POST without an idempotency key was sent again")
				}
				if n := requests.Load(); n != 2 {
					t.Errorf("upstream got %d requests, want 2", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("not sent again: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "ok" {
				t.Errorf("body %q, want ok", b)
			}
			if n := requests.Load(); n != 3 {
				t.Errorf("upstream got %d requests, want 3", n)
			}
		})
	}
}

// TestIdleConnectionClosedByUpstream: a connection the upstream closed
// while it was idle is not used, even for a request that cannot be sent
// twice.
func TestIdleConnectionClosedByUpstream(t *testing.T) {
	closed := make(chan struct{}, 4)
	var conns atomic.Int32
	u := rawServer(t, func(i int, c net.Conn) {
		conns.Add(1)
		br := bufio.NewReader(c)
		if _, err := readRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		c.Close()
		closed <- struct{}{}
	})
	tr := New(&http.Transport{})
	do(t, tr, http.MethodPost, u+"/", "one", nil)
	<-closed
	// The FIN may trail the close by a moment.
	time.Sleep(20 * time.Millisecond)
	if _, got := do(t, tr, http.MethodPost, u+"/", "two", nil); got != "ok" {
		t.Errorf("body %q, want ok", got)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestUnaskedBytesNotReadAsAnswer: bytes an upstream sends beyond a
// response are never read as the next request's response.
func TestUnaskedBytesNotReadAsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration // before the extra bytes
	}{{"with the response", 0}, {"while idle", 30 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			u := rawServer(t, func(i int, c net.Conn) {
				br := bufio.NewReader(c)
				for {
					if _, err := readRequest(br); err != nil {
						return
					}
					if i > 0 {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ngood")
						continue
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
					time.Sleep(tc.delay)
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil")
				}
			})
			tr := New(&http.Transport{})
			do(t, tr, http.MethodGet, u+"/", "", nil)
			time.Sleep(2*tc.delay + 10*time.Millisecond)
			if _, got := do(t, tr, http.MethodGet, u+"/", "", nil); got != "good" {
				t.Errorf("second response %q, want good (from a new connection)", got)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	u := rawServer(t, func(i int, c net.Conn) {
		br := bufio.NewReader(c)
		req, err := readRequest(br)
		if err != nil {
			return
		}
		if req.URL.Path == "/body" {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
		}
		<-release
	})
	tr := New(&http.Transport{})
	t.Run("waiting for the answer", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u+"/wait", nil)
		start := time.Now()
		_, err := tr.RoundTrip(req)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("returned %s after the cancel", d)
		}
	})
	t.Run("reading the body", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u+"/body", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if string(b) != "0123456789" || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("read %q, %v; want the first 10 bytes and context.DeadlineExceeded", b, err)
		}
	})
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.nidle != 0 {
		t.Errorf("%d connections of cancelled requests kept idle", tr.nidle)
	}
}

func TestResponses(t *testing.T) {
	u := rawServer(t, func(i int, c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := readRequest(br)
			if err != nil {
				return
			}
			switch req.URL.Path {
			case "/1xx":
				io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal")
			case "/many1xx":
				io.WriteString(c, strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 6)+"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			case "/bigheader":
				io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Big: "+strings.Repeat("a", 8<<10)+"\r\nContent-Length: 0\r\n\r\n")
			case "/chunked":
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
			case "/close":
				io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end")
				return
			}
		}
	})
	tr := New(&http.Transport{MaxResponseHeaderBytes: 4 << 10})
	for _, tc := range []struct{ path, body, err string }{
		{"/1xx", "final", ""},
		{"/many1xx", "", "too many 1xx"},
		{"/bigheader", "", "exceeded 4096 bytes"},
		{"/chunked", "abcde", ""},
		{"/close", "until the end", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, u+tc.path, nil)
			resp, err := tr.RoundTrip(req)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(b) != tc.body {
				t.Fatalf("body %q, %v; want %q", b, err, tc.body)
			}
		})
	}
}

func TestGzip(t *testing.T) {
	const text = "the same text, compressed by the upstream when asked"
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			io.WriteString(w, text)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, text)
		zw.Close()
	})
	tr := New(&http.Transport{})
	resp, got := do(t, tr, http.MethodGet, s.URL, "", nil)
	if got != text || resp.Header.Get("Content-Encoding") != "" || !resp.Uncompressed {
		t.Errorf("asked by the transport: body %q, Content-Encoding %q, Uncompressed %v; want the text decoded", got, resp.Header.Get("Content-Encoding"), resp.Uncompressed)
	}
	resp, got = do(t, tr, http.MethodGet, s.URL, "", http.Header{"Accept-Encoding": {"gzip"}})
	if got == text || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("asked by the request: body %q, Content-Encoding %q; want it as sent", got, resp.Header.Get("Content-Encoding"))
	}
	resp, got = do(t, New(&http.Transport{DisableCompression: true}), http.MethodGet, s.URL, "", nil)
	if got != text || resp.Uncompressed {
		t.Errorf("DisableCompression: body %q, Uncompressed %v", got, resp.Uncompressed)
	}
}

func TestEarlyCloseAndTimeouts(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 64<<10))
	})
	tr := New(&http.Transport{IdleConnTimeout: 50 * time.Millisecond})
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, make([]byte, 10))
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Error("a read after Close did not fail")
	}
	do(t, tr, http.MethodGet, s.URL, "", nil)
	if n := s.opened.Load(); n != 2 {
		t.Errorf("a body closed early left its connection in use: %d connections, want 2", n)
	}
	time.Sleep(100 * time.Millisecond)
	do(t, tr, http.MethodGet, s.URL, "", nil)
	if n := s.opened.Load(); n != 3 {
		t.Errorf("a connection idle past IdleConnTimeout was used: %d connections, want 3", n)
	}
}

// TestLeftToNetHTTP: what the fast path does not cover goes to net/http,
// which sends it (or refuses it) as it always has.
func TestLeftToNetHTTP(t *testing.T) {
	plain := newCountingServer(t, echo)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(echo))
	t.Cleanup(tlsSrv.Close)
	proxy := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "via the proxy") })
	proxyURL, _ := url.Parse(proxy.URL)
	for _, tc := range []struct {
		name   string
		base   *http.Transport
		url    string
		method string
		body   string
		header http.Header
		want   string // the body, or with an "error: " prefix the error's text
	}{
		{"https", tlsSrv.Client().Transport.(*http.Transport).Clone(), tlsSrv.URL + "/s", "GET", "", nil, "GET /s "},
		{"a proxy", &http.Transport{Proxy: http.ProxyURL(proxyURL)}, plain.URL + "/p", "GET", "", nil, "via the proxy"},
		{"Expect", &http.Transport{}, plain.URL + "/e", "POST", "b", http.Header{"Expect": {"100-continue"}}, "POST /e b"},
		{"a large body", &http.Transport{}, plain.URL + "/l", "POST", strings.Repeat("z", BodyMax+1), nil, "POST /l " + strings.Repeat("z", BodyMax+1)},
		{"a CR LF in a header", &http.Transport{}, plain.URL + "/h", "GET", "", http.Header{"X-A": {"1\r\nX-Injected: 1"}}, "error: invalid header field value"},
		{"a framing header keyed in lower case", &http.Transport{}, plain.URL + "/h", "GET", "", http.Header{"connection": {"close"}}, "GET /h "},
		{"a bad header name", &http.Transport{}, plain.URL + "/h", "GET", "", http.Header{"X A": {"1"}}, "error: invalid header field name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(tc.base)
			var rd io.Reader
			if tc.body != "" {
				rd = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, tc.url, rd)
			for k, v := range tc.header {
				req.Header[k] = v
			}
			resp, err := tr.RoundTrip(req)
			if fast, left := tr.Sent(); fast != 0 || left != 1 {
				t.Errorf("Sent() = %d, %d; want the request left to net/http", fast, left)
			}
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one saying %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != tc.want {
				t.Errorf("body %.40q, want %.40q", b, tc.want)
			}
		})
	}
}

// TestDialError: a refused connection is net/http's error, a *net.OpError.
func TestDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
	_, err = New(&http.Transport{}).RoundTrip(req)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("error %v (%T), want a dial *net.OpError", err, err)
	}
}

// BenchmarkRoundTrip compares a GET of 2 KB through Transport with the same
// through net/http's Transport alone, to a loopback server.
func BenchmarkRoundTrip(b *testing.B) {
	page := bytes.Repeat([]byte("0123456789abcdef"), 128)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(page) }))
	defer s.Close()
	for _, tc := range []struct {
		name string
		tr   http.RoundTripper
	}{{"plainhttp", New(&http.Transport{})}, {"net_http", &http.Transport{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
				resp, err := tc.tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := io.Copy(io.Discard, resp.Body); n != int64(len(page)) {
					b.Fatalf("read %d bytes", n)
				}
				resp.Body.Close()
			}
		})
	}
}

// TestIdleSweep: idle connections past IdleConnTimeout, and those the
// upstream closed, are closed without waiting for another request.
func TestIdleSweep(t *testing.T) {
	t.Run("past IdleConnTimeout", func(t *testing.T) {
		s := newCountingServer(t, echo)
		tr := New(&http.Transport{IdleConnTimeout: 50 * time.Millisecond})
		do(t, tr, http.MethodGet, s.URL, "", nil)
		testconfig.WaitFor(t, "the idle connection closed", func() bool { return s.closed.Load() == 1 })
	})
	t.Run("closed by the upstream", func(t *testing.T) {
		u := rawServer(t, func(i int, c net.Conn) {
			if _, err := readRequest(bufio.NewReader(c)); err == nil {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		})
		tr := New(&http.Transport{})
		tr.sweepEvery = 20 * time.Millisecond
		do(t, tr, http.MethodGet, u, "", nil)
		testconfig.WaitFor(t, "the connection the upstream closed dropped, and the sweep done", func() bool {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			return tr.nidle == 0 && !tr.sweeping
		})
	})
}

// TestLikeNetHTTP: details in which the fast path answers as net/http's
// Transport does.
func TestLikeNetHTTP(t *testing.T) {
	s := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/nocontent" {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		io.WriteString(w, "body")
	})
	tr := New(&http.Transport{})
	t.Run("a read after the end", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		if n, err := resp.Body.Read(make([]byte, 4)); n != 0 || err != io.EOF {
			t.Errorf("a read after the end gave %d, %v; want 0, io.EOF", n, err)
		}
		resp.Body.Close()
		if _, err := resp.Body.Read(make([]byte, 4)); err != errClosedBody {
			t.Errorf("a read after Close gave %v, want %v", err, errClosedBody)
		}
	})
	t.Run("gzip said of no body", func(t *testing.T) {
		resp, _ := do(t, tr, http.MethodGet, s.URL+"/nocontent", "", nil)
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Uncompressed {
			t.Errorf("a 204 lost its Content-Encoding (%q) or says Uncompressed", resp.Header.Get("Content-Encoding"))
		}
	})
	t.Run("the cause of a cancel", func(t *testing.T) {
		stuck := rawServer(t, func(i int, c net.Conn) {
			readRequest(bufio.NewReader(c))
			time.Sleep(5 * time.Second)
		})
		cause := errors.New("the call's own timeout")
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(30*time.Millisecond, func() { cancel(cause) })
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, stuck, nil)
		if _, err := tr.RoundTrip(req); !errors.Is(err, cause) {
			t.Errorf("error %v, want the context's cause", err)
		}
	})
	t.Run("a body never closed, cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
		before := s.closed.Load()
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		cancel()
		testconfig.WaitFor(t, "the connection closed by the cancel", func() bool { return s.closed.Load() == before+1 })
	})
	t.Run("a host in Unicode", func(t *testing.T) {
		var dialed atomic.Value
		tr := New(&http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
			dialed.Store(addr)
			return nil, errors.New("not dialed")
		}})
		req, _ := http.NewRequest(http.MethodGet, "http://bücher.invalid/", nil)
		tr.RoundTrip(req)
		if got, _ := dialed.Load().(string); got != "xn--bcher-kva.invalid:80" {
			t.Errorf("dialed %q, want the punycode net/http dials", got)
		}
	})
}

// TestRetryOnNewConnection: a request sent again after a pooled
// connection closed under it goes on a new connection, not on another
// pooled one that the upstream may close the same way.
func TestRetryOnNewConnection(t *testing.T) {
	var firsts sync.WaitGroup
	firsts.Add(2)
	var conns atomic.Int32
	u := rawServer(t, func(i int, c net.Conn) {
		conns.Add(1)
		br := bufio.NewReader(c)
		for n := 0; ; n++ {
			if _, err := readRequest(br); err != nil {
				return
			}
			if i < 2 {
				if n == 1 {
					return // the second request on the first two connections: closed unanswered
				}
				firsts.Done()
				firsts.Wait() // both first requests in, so the client holds two connections
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	tr := New(&http.Transport{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, u+"/", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if _, got := do(t, tr, http.MethodGet, u+"/", "", nil); got != "ok" {
		t.Errorf("body %q, want ok", got)
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3 (the retry on a new one)", n)
	}
}
