package http

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/identity"
	"github.com/zclconf/go-cty/cty"
)

// counter is a loopback upstream that answers each request with its
// number, and a Cache-Control header when one is set.
type counter struct {
	srv          *httptest.Server
	mu           sync.Mutex
	n            int
	cacheControl string
}

// newCounter starts a counter.
func newCounter(t *testing.T) *counter {
	t.Helper()
	c := &counter{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n++
		n, cc := c.n, c.cacheControl
		c.mu.Unlock()
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"n":%d,"q":%q}`, n, r.URL.Query().Get("q"))
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// requests returns how many requests the counter has had.
func (c *counter) requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// cachedTool compiles a tool with a cache block against c, on a fake clock.
func cachedTool(t *testing.T, c *counter, cacheBlock string) (testTool, *HTTP, *fakeClock) {
	t.Helper()
	tt := testTool{params: map[string]cty.Type{"q": cty.String}}
	h := tt.mustCompile(t, fmt.Sprintf("http {\n url = %q\n query = { q = param.q }\n %s\n}", c.srv.URL, multiline(cacheBlock)))
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h.cache.now = clock.now
	return tt, h, clock
}

func TestCache(t *testing.T) {
	alice := identity.NewContext(context.Background(), &identity.Caller{Subject: "alice"})
	bob := identity.NewContext(context.Background(), &identity.Caller{Subject: "bob"})
	type step struct {
		ctx     context.Context
		q       string
		advance time.Duration // before the call
		want    int           // the upstream's count in the answer
	}
	bg := context.Background()
	tests := []struct {
		name         string
		block        string
		cacheControl string
		steps        []step
	}{
		{"hit, miss on other arguments, expiry", `cache { ttl = "1m" }`, "", []step{
			{bg, "a", 0, 1}, {bg, "a", 0, 1}, {bg, "b", 0, 2}, {bg, "a", 59 * time.Second, 1}, {bg, "a", time.Second, 3}, {bg, "a", 0, 3},
		}},
		{"two callers never share", `cache { ttl = "1m" }`, "", []step{
			{alice, "a", 0, 1}, {bob, "a", 0, 2}, {alice, "a", 0, 1}, {bg, "a", 0, 3}, {bob, "a", 0, 2},
		}},
		{"no-store is kept when not respected", `cache { ttl = "1m" }`, "no-store", []step{
			{bg, "a", 0, 1}, {bg, "a", 0, 1},
		}},
		{"no-store respected", `cache { ttl = "1m"  respect_cache_control = true }`, "no-store", []step{
			{bg, "a", 0, 1}, {bg, "a", 0, 2},
		}},
		{"max-age shortens the ttl", `cache { ttl = "1m"  respect_cache_control = true }`, "public, max-age=10", []step{
			{bg, "a", 0, 1}, {bg, "a", 9 * time.Second, 1}, {bg, "a", time.Second, 2},
		}},
		{"max_entries drops the least recently used", `cache { ttl = "1m"  max_entries = 2 }`, "", []step{
			{bg, "a", 0, 1}, {bg, "b", 0, 2}, {bg, "a", 0, 1}, {bg, "c", 0, 3}, {bg, "a", 0, 1}, {bg, "b", 0, 4},
		}},
		{"max_bytes bounds the bytes", `cache { ttl = "1m"  max_bytes = 300 }`, "", []step{
			{bg, "a", 0, 1}, {bg, "b", 0, 2}, {bg, "a", 0, 3},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCounter(t)
			c.cacheControl = tc.cacheControl
			tt, h, clock := cachedTool(t, c, tc.block)
			for i, s := range tc.steps {
				clock.advance(s.advance)
				out, err := tt.call(s.ctx, h, map[string]cty.Value{"q": cty.StringVal(s.q)})
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if want := fmt.Sprintf(`{"n":%d,"q":%q}`, s.want, s.q); string(out.Body) != want {
					t.Fatalf("step %d: answer %s, want %s", i, out.Body, want)
				}
			}
		})
	}
}

// TestCacheKeepsNoError checks that an error answer is not kept.
func TestCacheKeepsNoError(t *testing.T) {
	up := newFlaky(t, 503, 200)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n cache {\n ttl = \"1m\"\n }\n}", up.srv.URL))
	if _, err := (testTool{}).call(context.Background(), h, nil); err == nil {
		t.Fatal("want HTTP 503")
	}
	for range 2 {
		if _, err := (testTool{}).call(context.Background(), h, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := up.requests(); n != 2 {
		t.Fatalf("upstream saw %d requests, want 2", n)
	}
	if n := h.cache.len(); n != 1 {
		t.Fatalf("cache holds %d entries, want 1", n)
	}
}

func TestParseCacheControl(t *testing.T) {
	tests := []struct {
		in     string
		maxAge time.Duration
		keep   bool
	}{
		{"", -1, true},
		{"public", -1, true},
		{"max-age=60", time.Minute, true},
		{"private, max-age=0", 0, true},
		{`max-age="30"`, 30 * time.Second, true},
		{"s-maxage=10", -1, true},
		{"no-store", 0, false},
		{"max-age=60, no-cache", 0, false},
		{"max-age=soon", 0, false},
		{"max-age=999999999", maxCacheTTL, true},
	}
	for _, tc := range tests {
		maxAge, keep := parseCacheControl(tc.in)
		if maxAge != tc.maxAge || keep != tc.keep {
			t.Errorf("parseCacheControl(%q) = %s, %v; want %s, %v", tc.in, maxAge, keep, tc.maxAge, tc.keep)
		}
	}
}
