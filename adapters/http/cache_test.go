package http

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/identity"
	"github.com/toolhost/toolhost/internal/tasks/storetest"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"strings"
)

// cachedTool compiles a tool with a cache block against c, on a fake clock.
func cachedTool(t *testing.T, up *flaky, cacheBlock string) (testTool, *HTTP, *storetest.Clock) {
	t.Helper()
	tt := testTool{params: map[string]cty.Type{"q": cty.String}}
	h := tt.mustCompile(t, fmt.Sprintf("http {\n url = %q\n query = { q = param.q }\n %s\n}", up.srv.URL, multiline(cacheBlock)))
	clock := storetest.NewClock()
	h.cache.now = clock.Now
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
			up := newFlaky(t, http.StatusOK)
			if tc.cacheControl != "" {
				up.header = map[string]string{"Cache-Control": tc.cacheControl}
			}
			tt, h, clock := cachedTool(t, up, tc.block)
			for i, s := range tc.steps {
				clock.Advance(s.advance)
				out, err := tt.call(s.ctx, h, map[string]cty.Value{"q": cty.StringVal(s.q)})
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if want := fmt.Sprintf(`{"status":200,"n":%d,"q":%q}`, s.want, s.q); string(out.Body) != want {
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
		{"max-age=10000000000000", maxCacheTTL, true}, // seconds whose nanoseconds overflow
		{"max-age=9223372036854775807", maxCacheTTL, true},
	}
	for _, tc := range tests {
		maxAge, keep := parseCacheControl(tc.in)
		if maxAge != tc.maxAge || keep != tc.keep {
			t.Errorf("parseCacheControl(%q) = %s, %v; want %s, %v", tc.in, maxAge, keep, tc.maxAge, tc.keep)
		}
	}
}

// gated is a loopback upstream whose first request waits until the test
// releases it, or until its client goes away; the others are answered at
// once. Each answer says its request's number.
type gated struct {
	srv      *httptest.Server
	arrived  chan struct{}
	release  chan struct{}
	requests atomic.Int32
}

// newGated starts a gated upstream.
func newGated(t *testing.T) *gated {
	t.Helper()
	g := &gated{arrived: make(chan struct{}, 1), release: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := g.requests.Add(1)
		if n == 1 {
			g.arrived <- struct{}{}
			select {
			case <-g.release:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "answer %d", n)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// TestCacheCoalesces checks that calls with the same arguments that come
// while the first is answered wait for its answer instead of sending the
// request again.
func TestCacheCoalesces(t *testing.T) {
	g := newGated(t)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n cache {\n ttl = \"1m\"\n }\n}", g.srv.URL))
	joined := make(chan struct{}, 8)
	h.cache.joined = func() { joined <- struct{}{} }
	const calls = 3
	bodies := make(chan string, calls)
	call := func() {
		out, err := testTool{}.call(context.Background(), h, nil)
		if err != nil {
			bodies <- err.Error()
			return
		}
		bodies <- string(out.Body)
	}
	go call()
	<-g.arrived
	for range calls - 1 {
		go call()
	}
	for range calls - 1 {
		<-joined
	}
	close(g.release)
	for range calls {
		if b := <-bodies; b != "answer 1" {
			t.Errorf("a call got %q, want answer 1", b)
		}
	}
	if n := g.requests.Load(); n != 1 {
		t.Fatalf("upstream saw %d requests, want 1", n)
	}
}

// TestCacheCoalescedLeaderCanceled checks that when the call whose
// request the others wait for is canceled, one of them sends its own.
func TestCacheCoalescedLeaderCanceled(t *testing.T) {
	g := newGated(t)
	h := testTool{}.mustCompile(t, fmt.Sprintf("http {\n url = %q\n cache {\n ttl = \"1m\"\n }\n}", g.srv.URL))
	joined := make(chan struct{}, 8)
	h.cache.joined = func() { joined <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := testTool{}.call(ctx, h, nil)
		leader <- err
	}()
	<-g.arrived
	follower := make(chan string, 1)
	go func() {
		out, err := testTool{}.call(context.Background(), h, nil)
		if err != nil {
			follower <- err.Error()
			return
		}
		follower <- string(out.Body)
	}()
	<-joined
	cancel()
	if err := <-leader; err == nil {
		t.Fatal("the canceled call succeeded")
	}
	if b := <-follower; b != "answer 2" {
		t.Fatalf("the waiting call got %q, want answer 2, from a request of its own", b)
	}
}

// TestCacheKeyHasClaims checks that two tokens of one subject that
// differ in a claim the block reads do not share an answer, and that
// claims the block does not read do not split the cache.
func TestCacheKeyHasClaims(t *testing.T) {
	up := newFlaky(t, http.StatusOK)
	atCompile := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.DynamicPseudoType),
		Impl:   func([]cty.Value, cty.Type) (cty.Value, error) { return cty.DynamicVal, nil },
	})
	file, diags := hclsyntax.ParseConfig([]byte(fmt.Sprintf("http {\n url = %q\n query = { q = claim(\"org\") }\n cache {\n ttl = \"1m\"\n }\n}", up.srv.URL)), "tool.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	kind, _ := adapters.Lookup("http")
	b, diags := kind.Compile(file.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock(), &adapters.CompileContext{ToolName: "orgs",
		Eval: &hcl.EvalContext{Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}, Functions: map[string]function.Function{"claim": atCompile}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	h := b.(*HTTP)
	t.Cleanup(func() { h.Close() })
	call := func(org, jti string) string {
		caller := &identity.Caller{Subject: "alice", Claims: map[string]any{"org": org, "jti": jti}}
		claim := function.New(&function.Spec{
			Params: []function.Parameter{{Name: "name", Type: cty.String}},
			Type:   function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				return cty.StringVal(caller.Claims[args[0].AsString()].(string)), nil
			},
		})
		out, err := h.Call(identity.NewContext(context.Background(), caller), &adapters.Input{Caller: caller, Eval: &hcl.EvalContext{
			Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}, Functions: map[string]function.Function{"claim": claim}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(out.Body)
	}
	for i, tc := range []struct{ org, jti, want string }{
		{"acme", "1", `{"status":200,"n":1,"q":"acme"}`},
		{"globex", "2", `{"status":200,"n":2,"q":"globex"}`},
		{"acme", "3", `{"status":200,"n":1,"q":"acme"}`},
	} {
		if got := call(tc.org, tc.jti); got != tc.want {
			t.Fatalf("call %d: answer %s, want %s", i, got, tc.want)
		}
	}
}

// TestCacheAge checks that an answer a cache on the way kept already
// (its Age) is kept only for what is left of its max-age.
func TestCacheAge(t *testing.T) {
	up := newFlaky(t, http.StatusOK)
	up.header = map[string]string{"Cache-Control": "max-age=10", "Age": "8"}
	tt, h, clock := cachedTool(t, up, `cache { ttl = "1m"  respect_cache_control = true }`)
	for i, s := range []struct {
		advance time.Duration
		want    int
	}{{0, 1}, {time.Second, 1}, {time.Second, 2}} {
		clock.Advance(s.advance)
		out, err := tt.call(context.Background(), h, map[string]cty.Value{"q": cty.StringVal("a")})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if want := fmt.Sprintf(`{"status":200,"n":%d,"q":"a"}`, s.want); string(out.Body) != want {
			t.Fatalf("step %d: answer %s, want %s", i, out.Body, want)
		}
		if i == 0 && out.FreshFor != 2*time.Second {
			t.Fatalf("fresh for %s, want 2s", out.FreshFor)
		}
	}
}

// TestCacheCountsSecrets checks that the secrets an entry keeps (to hide
// them from the messages of its answer) count toward max_bytes.
func TestCacheCountsSecrets(t *testing.T) {
	up := newFlaky(t, http.StatusOK)
	tt := testTool{params: map[string]cty.Type{"token": cty.String}}
	h := tt.mustCompile(t, fmt.Sprintf("http {\n url = %q\n headers = { Authorization = \"Bearer ${param.token}\" }\n cache {\n ttl = \"1m\"\n max_bytes = 600\n }\n}", up.srv.URL))
	token := cty.StringVal(strings.Repeat("t", 400))
	for i, want := range []int{1, 2} {
		out, err := tt.call(context.Background(), h, map[string]cty.Value{"token": token})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf(`{"status":200,"n":%d,"q":""}`, want); string(out.Body) != got {
			t.Fatalf("call %d: answer %s, want %s: an entry over max_bytes with its secrets was kept", i, out.Body, got)
		}
	}
	if n := h.cache.len(); n != 0 {
		t.Fatalf("cache holds %d entries, want none", n)
	}
}
