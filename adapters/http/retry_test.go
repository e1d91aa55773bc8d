package http

import (
	"context"
	"fmt"
	"github.com/zclconf/go-cty/cty"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flaky is a loopback upstream that answers with the statuses it is
// given, one a request, the last repeated, and with its header; the body
// says the status, the request's number and its query parameter q.
type flaky struct {
	srv      *httptest.Server
	mu       sync.Mutex
	statuses []int
	header   map[string]string
	count    int
}

// newFlaky starts a flaky upstream.
func newFlaky(t *testing.T, statuses ...int) *flaky {
	t.Helper()
	f := &flaky{statuses: statuses}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.count++
		n, status := f.count, f.statuses[0]
		if len(f.statuses) > 1 {
			f.statuses = f.statuses[1:]
		}
		for k, v := range f.header {
			w.Header().Set(k, v)
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"status":%d,"n":%d,"q":%q}`, status, n, r.URL.Query().Get("q"))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// requests returns how many requests the upstream has had.
func (f *flaky) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count
}

// script sets what the next requests are answered with.
func (f *flaky) script(statuses ...int) {
	f.mu.Lock()
	f.statuses = statuses
	f.mu.Unlock()
}

// waits records the waits between retries instead of waiting.
type waits struct {
	mu   sync.Mutex
	seen []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	w.seen = append(w.seen, d)
	w.mu.Unlock()
	return nil
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name     string
		block    string // inside the http block
		statuses []int
		header   map[string]string
		want     int    // requests the upstream sees
		wantErr  string // "" for success
		wantWait time.Duration
	}{
		{"GET retried until it succeeds", `retry { backoff = "10ms" }`, []int{503, 502, 200}, nil, 3, "", 0},
		{"GET gives up after attempts", `retry { attempts = 2  backoff = "10ms" }`, []int{503}, nil, 2, "HTTP 503", 0},
		{"404 is not retried", `retry { backoff = "10ms" }`, []int{404}, nil, 1, "HTTP 404", 0},
		{"500 is not retried", `retry { backoff = "10ms" }`, []int{500}, nil, 1, "HTTP 500", 0},
		{"POST is never retried", `method = "POST"` + "\n" + `retry { backoff = "10ms" }`, []int{503, 200}, nil, 1, "HTTP 503", 0},
		{"POST declared idempotent is", `method = "POST"` + "\n" + `retry { backoff = "10ms"  idempotent = true }`, []int{503, 200}, nil, 2, "", 0},
		{"PUT is retried", `method = "PUT"` + "\n" + `retry { backoff = "10ms" }`, []int{504, 200}, nil, 2, "", 0},
		{"Retry-After in seconds is waited for", `retry { backoff = "10ms" }`, []int{429, 429, 200}, map[string]string{"Retry-After": "2"}, 3, "", 2 * time.Second},
		{"Retry-After of 0 waits the backoff", `retry { backoff = "10ms" }`, []int{503, 200}, map[string]string{"Retry-After": "0"}, 2, "", 0},
		{"Retry-After in the past waits the backoff", `retry { backoff = "10ms" }`, []int{503, 200}, map[string]string{"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, 2, "", 0},
		{"Retry-After that is not a number waits the backoff", `retry { backoff = "10ms" }`, []int{503, 200}, map[string]string{"Retry-After": "-5"}, 2, "", 0},
		{"Retry-After past max_backoff gives up and says when", `retry { backoff = "10ms"  max_backoff = "1s" }`, []int{503, 200}, map[string]string{"Retry-After": "120"}, 1, "asks to try again in 2m0s", 0},
		{"no retry block, no retry", ``, []int{503, 200}, nil, 1, "HTTP 503", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newFlaky(t, tc.statuses...)
			up.header = tc.header
			h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n %s\n}", up.srv.URL, multiline(tc.block)))
			w := &waits{}
			h.sleep = w.sleep
			_, err := testTool{}.call(context.Background(), h, nil)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("call failed: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if got := up.requests(); got != tc.want {
				t.Errorf("upstream saw %d requests, want %d", got, tc.want)
			}
			if len(w.seen) != tc.want-1 {
				t.Errorf("waited %d times (%v), want %d", len(w.seen), w.seen, tc.want-1)
			}
			for _, d := range w.seen {
				if tc.wantWait != 0 && d != tc.wantWait {
					t.Errorf("waited %s, want the Retry-After's %s", d, tc.wantWait)
				}
				if tc.wantWait == 0 && (d < 5*time.Millisecond || d > 20*time.Millisecond) {
					t.Errorf("waited %s, want the backoff of 10ms or 20ms, half of it jitter", d)
				}
			}
		})
	}
}

// TestRetryBudget checks that a failing upstream gets the retries the
// bank holds and then only a budget's fraction of its requests.
func TestRetryBudget(t *testing.T) {
	up := newFlaky(t, 503)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n retry {\n budget = 0.1\n backoff = \"1ms\"\n}\n}", up.srv.URL))
	h.sleep = (&waits{}).sleep
	var got []int
	for range 10 {
		before := up.requests()
		if _, err := (testTool{}).call(context.Background(), h, nil); err == nil {
			t.Fatal("call succeeded against an upstream answering 503")
		}
		got = append(got, up.requests()-before)
	}
	// The bank of 10 pays two retries for five calls (each adds 0.1);
	// then 0.5 to 0.9 is left: no retry.
	want := []int{3, 3, 3, 3, 3, 1, 1, 1, 1, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("requests per call = %v, want %v", got, want)
	}
}

// TestRetryCanceled checks that a canceled call stops retrying.
func TestRetryCanceled(t *testing.T) {
	up := newFlaky(t, 503)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n retry { attempts = 5 }\n}", up.srv.URL))
	ctx, cancel := context.WithCancel(context.Background())
	h.sleep = func(ctx context.Context, _ time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}
	_, err := testTool{}.call(ctx, h, nil)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("error = %v, want the call canceled", err)
	}
	if n := up.requests(); n != 1 {
		t.Fatalf("upstream saw %d requests, want 1", n)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"120", 2 * time.Minute, true},
		{" 0 ", 0, true},
		{"Sun, 29 Nov 2026 08:00:30 GMT", 30 * time.Second, true},
		{"Sunday, 29-Nov-26 08:01:00 GMT", time.Minute, true},
		{"Sun, 29 Nov 2026 07:00:00 GMT", 0, true},
		{"99999999999", maxRetryAfter, true},
		{"99999999999999999999999999", maxRetryAfter, true},
		{"Tue, 29 Nov 2033 08:00:00 GMT", maxRetryAfter, true},
		{"", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseRetryAfter(tc.in, now)
			if got != tc.want || ok != tc.wantOK {
				t.Fatalf("parseRetryAfter(%q) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestBreaker(t *testing.T) {
	up := newFlaky(t, 500)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n breaker {\n failures = 2\n open_for = \"30s\"\n}\n}", up.srv.URL))
	u := upstreamFor(mustParseURL(t, up.srv.URL), h.upstream)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u.mu.Lock()
	u.now = func() time.Time { return clock }
	u.mu.Unlock()
	advance := func(d time.Duration) {
		u.mu.Lock()
		clock = clock.Add(d)
		u.mu.Unlock()
	}
	call := func() error {
		_, err := testTool{}.call(context.Background(), h, nil)
		return err
	}
	for range 2 {
		if err := call(); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Fatalf("error = %v, want HTTP 500", err)
		}
	}
	err := call()
	if err == nil || !strings.Contains(err.Error(), "circuit breaker open") || !strings.Contains(err.Error(), "try again in 30s") {
		t.Fatalf("error = %v, want the breaker open for 30s", err)
	}
	if n := up.requests(); n != 2 {
		t.Fatalf("upstream saw %d requests, want 2: the open breaker sends none", n)
	}

	// Half-open: one probe goes; it fails, and the breaker opens again.
	advance(30 * time.Second)
	if err := call(); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("probe error = %v, want HTTP 500", err)
	}
	if err := call(); err == nil || !strings.Contains(err.Error(), "circuit breaker open") {
		t.Fatalf("error after a failed probe = %v, want the breaker open again", err)
	}
	if n := up.requests(); n != 3 {
		t.Fatalf("upstream saw %d requests, want 3", n)
	}

	// The next probe succeeds, and the breaker closes.
	advance(30 * time.Second)
	up.script(200)
	for i := range 3 {
		if err := call(); err != nil {
			t.Fatalf("call %d after the upstream recovered: %v", i, err)
		}
	}
	if n := up.requests(); n != 6 {
		t.Fatalf("upstream saw %d requests, want 6", n)
	}
}

// TestBreakerProbeAlone checks that while the half-open probe is out,
// other calls fail fast.
func TestBreakerProbeAlone(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		f := fail
		mu.Unlock()
		if f {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n breaker {\n failures = 1\n open_for = \"1s\"\n}\n}", srv.URL))
	u := upstreamFor(mustParseURL(t, srv.URL), h.upstream)
	clock := time.Now()
	u.mu.Lock()
	u.now = func() time.Time { return clock }
	u.mu.Unlock()
	if _, err := (testTool{}).call(context.Background(), h, nil); err == nil {
		t.Fatal("want HTTP 502")
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	u.mu.Lock()
	clock = clock.Add(time.Second)
	u.mu.Unlock()
	probe := make(chan error, 1)
	go func() {
		_, err := testTool{}.call(context.Background(), h, nil)
		probe <- err
	}()
	<-arrived
	_, err := testTool{}.call(context.Background(), h, nil)
	if err == nil || !strings.Contains(err.Error(), "one request tests whether it has recovered") {
		t.Errorf("error during the probe = %v, want a fast failure", err)
	}
	close(release)
	if err := <-probe; err != nil {
		t.Fatalf("probe: %v", err)
	}
}

// TestLimitConcurrent checks that the upstream never sees more requests
// at once than max_concurrent, from two tools sharing its limit, also
// when one of them has a retry block and the other none.
func TestLimitConcurrent(t *testing.T) {
	for _, other := range []string{"", "retry { attempts = 2 }"} {
		t.Run(other, func(t *testing.T) { testLimitConcurrent(t, other) })
	}
}

// testLimitConcurrent is TestLimitConcurrent with other in the second
// tool's http block.
func testLimitConcurrent(t *testing.T, other string) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	arrived, release := make(chan struct{}, 16), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		arrived <- struct{}{}
		<-release
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	src := "http {\n url = %q\n limit { max_concurrent = 2 }\n %s\n}"
	a, b := testTool{}.mustCompile(t, fmt.Sprintf(src, srv.URL, "")), testTool{}.mustCompile(t, fmt.Sprintf(src, srv.URL, multiline(other)))
	target := mustParseURL(t, srv.URL)
	if upstreamFor(target, a.upstream).sem != upstreamFor(target, b.upstream).sem {
		t.Fatal("the two tools have a limit each, not the host's one")
	}
	const calls = 6
	errs := make(chan error, calls)
	for i := range calls {
		h := a
		if i%2 == 1 {
			h = b
		}
		go func() {
			_, err := testTool{}.call(context.Background(), h, nil)
			errs <- err
		}()
	}
	for range calls {
		<-arrived
		release <- struct{}{}
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if most > 2 {
		t.Fatalf("the upstream saw %d requests at once, want at most 2", most)
	}
}

// TestLimitReleasedOnError checks that a request that fails gives its
// concurrency slot back: the next call fails as the first did, instead of
// waiting for the slot until its timeout.
func TestLimitReleasedOnError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there now
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n timeout = \"1m\"\n limit {\n max_concurrent = 1\n }\n}", addr))
	for i := range 3 {
		_, err := testTool{}.call(context.Background(), h, nil)
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("call %d: error = %v, want the connection refused", i, err)
		}
	}
}

// TestLimitRate checks that a call the rate cannot let through before
// its timeout fails at once, saying why.
func TestLimitRate(t *testing.T) {
	up := newFlaky(t, 200)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n timeout = \"5s\"\n limit { rate = \"1/h\" }\n}", up.srv.URL))
	if _, err := (testTool{}).call(context.Background(), h, nil); err != nil {
		t.Fatal(err)
	}
	_, err := testTool{}.call(context.Background(), h, nil)
	if err == nil || !strings.Contains(err.Error(), "over their rate") {
		t.Fatalf("error = %v, want the rate's", err)
	}
	if n := up.requests(); n != 1 {
		t.Fatalf("upstream saw %d requests, want 1", n)
	}
}

func TestUpstreamCompileErrors(t *testing.T) {
	tests := []struct{ block, want string }{
		{`retry { attempts = 11 }`, "attempts out of range"},
		{`retry { backoff = "2s"  max_backoff = "1s" }`, "max_backoff below backoff"},
		{`retry { budget = 1.5 }`, "budget out of range"},
		{`retry { idempotent = "yes" }`, "Invalid idempotent"},
		{`breaker { failures = 0 }`, "failures out of range"},
		{`breaker { open_for = "1h" }`, "open_for out of range"},
		{`limit { }`, "Empty limit block"},
		{`limit { rate = "ten a second" }`, "Invalid rate"},
		{`limit { rate = "100000/s" }`, "Invalid rate"},
		{`limit { max_concurrent = 2  burst = 3 }`, "burst without rate"},
		{"retry {}\nretry {}", "Duplicate retry block"},
		{`cache { ttl = "5m" }` + "\n" + `method = "POST"`, "Cache of a POST request"},
		{`cache { }`, "Missing required argument"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, diags := testTool{}.compile(t, "http {\n url = \"https://api.example.com/\"\n "+multiline(tc.block)+"\n}")
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
				t.Fatalf("diagnostics = %v, want %q", diags, tc.want)
			}
		})
	}
	_, diags := testTool{}.compile(t, "http {\n url = \"https://api.example.com/\"\n method = \"POST\"\n retry {}\n}")
	if diags.HasErrors() || len(diags) != 1 || !strings.Contains(diags[0].Summary, "Retry of a POST") {
		t.Fatalf("diagnostics = %v, want the warning of a retry that does nothing", diags)
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"10/s", 10, true}, {"120/m", 2, true}, {"36 / h", 0.01, true}, {"2.5/sec", 2.5, true},
		{"10", 0, false}, {"0/s", 0, false}, {"10/d", 0, false}, {"x/s", 0, false}, {"20000/s", 0, false},
	}
	for _, tc := range tests {
		got, err := parseRate(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseRate(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// mustParseURL parses a test server's URL.
func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// multiline writes a block written on one line, its attributes apart by
// two spaces, on lines: HCL takes one attribute in a one-line block.
func multiline(block string) string {
	return strings.NewReplacer("  ", "\n", "{ ", "{\n", " }", "\n}").Replace(block)
}

// TestUpstreamSharedAcrossReload checks that a backend compiled again
// from the same block (as a reload does) finds the same breaker and
// limits, and one with other settings does not.
func TestUpstreamSharedAcrossReload(t *testing.T) {
	up := newFlaky(t, 500)
	src := func(failures int) string {
		return fmt.Sprintf("http {\n url = %q\n breaker {\n failures = %d\n }\n}", up.srv.URL, failures)
	}
	before := testTool{}.mustCompile(t, src(1))
	if _, err := (testTool{}).call(context.Background(), before, nil); err == nil {
		t.Fatal("want HTTP 500")
	}
	reloaded := testTool{}.mustCompile(t, src(1))
	_, err := testTool{}.call(context.Background(), reloaded, nil)
	if err == nil || !strings.Contains(err.Error(), "circuit breaker open") {
		t.Fatalf("after a reload that changes nothing: %v, want the breaker still open", err)
	}
	changed := testTool{}.mustCompile(t, src(2))
	_, err = testTool{}.call(context.Background(), changed, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("after a reload that changes the breaker: %v, want a request sent", err)
	}
	if n := up.requests(); n != 2 {
		t.Fatalf("upstream saw %d requests, want 2", n)
	}
}

// TestUpstreamSpellings checks that a model choosing the url cannot
// escape an open breaker by writing its host another way, and that a
// port that is no port does not open the breaker of the real one.
func TestUpstreamSpellings(t *testing.T) {
	up := newFlaky(t, 500)
	port := mustParseURL(t, up.srv.URL).Port()
	tt := testTool{params: map[string]cty.Type{"u": cty.String}}
	h := tt.mustCompile(t, "http {\n url = param.u\n allow_hosts = [\"127.0.0.1\", \"::ffff:127.0.0.1\"]\n breaker {\n failures = 2\n }\n}")
	call := func(u string) error {
		_, err := tt.call(context.Background(), h, map[string]cty.Value{"u": cty.StringVal(u)})
		return err
	}
	for range 2 {
		if err := call(up.srv.URL); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Fatalf("error = %v, want HTTP 500", err)
		}
	}
	for _, u := range []string{
		"http://127.0.0.1:0" + port + "/",
		"HTTP://127.0.0.1:00" + port,
		"http://[::ffff:127.0.0.1]:" + port,
	} {
		t.Run(u, func(t *testing.T) {
			if err := call(u); err == nil || !strings.Contains(err.Error(), "circuit breaker open") {
				t.Fatalf("error = %v, want the breaker open", err)
			}
		})
	}
	if n := up.requests(); n != 2 {
		t.Fatalf("upstream saw %d requests, want 2", n)
	}
	for _, tc := range []struct{ a, b string }{
		{"https://api.example.com", "https://API.example.com.:443"},
		{"http://api.example.com", "http://api.example.com:80"},
	} {
		if a, b := upstreamHost(mustParseURL(t, tc.a)), upstreamHost(mustParseURL(t, tc.b)); a != b {
			t.Errorf("upstreamHost(%s) = %s, upstreamHost(%s) = %s, want the same", tc.a, a, tc.b, b)
		}
	}
	if a, b := upstreamHost(mustParseURL(t, "http://api.example.com:8080")), upstreamHost(mustParseURL(t, "http://api.example.com")); a == b {
		t.Errorf("ports 8080 and 80 share the upstream %s", a)
	}
}

// TestBreakerOpensOnHangs checks that requests that time out (the http
// block's timeout) count as failures: an upstream that hangs opens the
// breaker as one that fails does.
func TestBreakerOpensOnHangs(t *testing.T) {
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n breaker {\n failures = 2\n }\n}", srv.URL))
	h.timeout = 50 * time.Millisecond
	for range 2 {
		if _, err := (testTool{}).call(context.Background(), h, nil); err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("error = %v, want a timeout", err)
		}
	}
	if _, err := (testTool{}).call(context.Background(), h, nil); err == nil || !strings.Contains(err.Error(), "circuit breaker open") {
		t.Fatalf("error = %v, want the breaker open", err)
	}
	// A call canceled by its caller says nothing of the upstream.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if o := health(nil, ctx.Err(), ctx); o != unknown {
		t.Fatalf("health of a canceled call = %v, want unknown", o)
	}
	if n := count.Load(); n != 2 {
		t.Fatalf("upstream saw %d requests, want 2", n)
	}
}

// TestUpstreamsBounded checks that hosts that each failed once (as
// nonexistent names under a wildcard allow_hosts do) are forgotten past
// the cap, not kept for ever.
func TestUpstreamsBounded(t *testing.T) {
	s := upstreamSettings{failures: 5, openFor: time.Minute}
	for i := range 2 * maxUpstreams {
		u := upstreamFor(mustParseURL(t, fmt.Sprintf("https://h%d.bounded.example", i)), s)
		u.record(failed, false)
	}
	upstreams.Lock()
	n := len(upstreams.m)
	upstreams.Unlock()
	if n > maxUpstreams+1 {
		t.Fatalf("%d upstreams kept, want at most %d", n, maxUpstreams+1)
	}
}
