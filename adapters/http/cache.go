package http

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/identity"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Defaults and limits of the cache block.
const (
	maxCacheTTL            = 24 * time.Hour
	defaultCacheEntries    = 256
	maxCacheEntries        = 100000
	defaultCacheBytes      = 16 << 20 // 16 MiB
	maxCacheBytes          = 1 << 30  // 1 GiB
	maxCacheBytesText      = "1024 MiB"
	cacheEntryOverheadSize = 256 // bytes an entry costs besides its body
)

// cacheSchema is the schema of the cache block.
var cacheSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "ttl", Required: true}, {Name: "respect_cache_control"}, {Name: "max_entries"}, {Name: "max_bytes"},
}}

// responseCache keeps the outputs of one tool's successful calls for ttl,
// keyed by the call's arguments and its caller (see cacheKey), the least
// recently used dropped first past maxEntries entries or maxBytes bytes.
// A reload makes a new backend, and so a new, empty cache.
type responseCache struct {
	ttl                 time.Duration
	respectCacheControl bool
	maxEntries          int
	maxBytes            int64
	// claims are the claims of the caller's token the http block reads
	// with claim(), whose values are part of the key.
	claims []string
	// now is the clock; tests replace it.
	now func() time.Time

	// joined, when set, is called by a call that waits for another's
	// answer (tests).
	joined func()

	mu      sync.Mutex
	flights map[[sha256.Size]byte]*flight
	entries map[[sha256.Size]byte]*list.Element
	order   *list.List // of *cacheEntry, most recently used first
	bytes   int64
}

// cacheEntry is one kept output.
type cacheEntry struct {
	key     [sha256.Size]byte
	out     adapters.Output
	expires time.Time
	size    int64
}

// compileCache reads a cache block; attrs are the http block's.
func (c *compiler) compileCache(h *HTTP, b *hcl.Block, attrs hcl.Attributes) {
	content, diags := b.Body.Content(cacheSchema)
	c.diags = append(c.diags, diags...)
	for _, d := range diags {
		if d.Summary == "Missing required argument" {
			d.Subject = b.DefRange.Ptr()
			d.Detail += ` Add it to the cache block, for example ttl = "5m".`
		}
	}
	if !slices.Contains(readOnlyMethods, h.method) {
		c.errorf(b.DefRange, "Cache of a "+h.method+" request",
			"A cache answers a call again without sending its request, which is only right for a request that reads: GET or HEAD. Remove the cache block, or use method = \"GET\" if the API reads with it.")
	}
	rc := &responseCache{maxEntries: defaultCacheEntries, maxBytes: defaultCacheBytes, now: time.Now,
		entries: map[[sha256.Size]byte]*list.Element{}, flights: map[[sha256.Size]byte]*flight{}, order: list.New()}
	at := content.Attributes
	if a := at["ttl"]; a != nil {
		rc.ttl = c.duration(a, attr.DurationRange{Min: time.Second, Max: maxCacheTTL, Example: `"5m"`, Examples: `"30s", "5m" or "1h"`}, 0)
	}
	if a := at["respect_cache_control"]; a != nil {
		ats := adapters.NewAttrs(c.cc)
		c.diags = append(c.diags, ats.Boolean(a, &rc.respectCacheControl, "Write respect_cache_control = true to let the upstream's Cache-Control shorten or forbid the keeping.")...)
	}
	if a := at["max_entries"]; a != nil {
		rc.maxEntries = c.intIn(a, 1, maxCacheEntries, "a number of entries such as 256")
	}
	if a := at["max_bytes"]; a != nil {
		ats := adapters.NewAttrs(c.cc)
		n, diags, ok := ats.ByteCount(a, maxCacheBytes, maxCacheBytesText)
		c.diags = append(c.diags, diags...)
		if ok {
			rc.maxBytes = int64(n)
		}
	}
	for _, a := range attrs {
		for _, name := range adapters.ClaimRefs(a.Expr) {
			if !slices.Contains(rc.claims, name) {
				rc.claims = append(rc.claims, name)
			}
		}
	}
	slices.Sort(rc.claims)
	h.cache = rc
}

// cacheKey is the key of a call: the tool, the caller's subject when the
// call has one (so that two callers never share an answer), the values
// of the claims the block reads (one subject's tokens may differ in
// them, an organization say, and so may the request), and the arguments
// in a canonical form (cty's JSON, whose object keys are sorted). It is
// a hash, so that the cache holds no sensitive argument.
func cacheKey(ctx context.Context, tool string, claims []string, in *adapters.Input) ([sha256.Size]byte, bool) {
	param := cty.EmptyObjectVal
	if in != nil && in.Eval != nil {
		if v, ok := in.Eval.Variables[paramRoot]; ok {
			param = v
		}
	}
	param, _ = param.UnmarkDeep()
	if !param.IsWhollyKnown() {
		return [sha256.Size]byte{}, false
	}
	args, err := ctyjson.Marshal(param, param.Type())
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	caller := identity.FromContext(ctx)
	if in != nil && in.Caller != nil {
		caller = in.Caller
	}
	who := "-"
	if caller != nil {
		who = "sub:" + caller.Subject
	}
	parts := [][]byte{[]byte(tool), []byte(who), args}
	for _, name := range claims {
		v, _ := caller.Claim(name)
		val, err := json.Marshal(v) // a map's keys sorted
		if err != nil {
			return [sha256.Size]byte{}, false
		}
		parts = append(parts, []byte(name), val)
	}
	hash := sha256.New()
	for _, part := range parts {
		hash.Write([]byte(strconv.Itoa(len(part)) + ":"))
		hash.Write(part)
	}
	var key [sha256.Size]byte
	copy(key[:], hash.Sum(nil))
	return key, true
}

// get returns the kept output of key, unexpired, as a copy.
func (rc *responseCache) get(key [sha256.Size]byte) (*adapters.Output, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el := rc.entries[key]
	if el == nil {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !rc.now().Before(e.expires) {
		rc.remove(el)
		return nil, false
	}
	rc.order.MoveToFront(el)
	out := e.out
	out.FreshFor = e.expires.Sub(rc.now())
	return &out, true
}

// put keeps out under key for the ttl, shortened (or refused) by the
// upstream's Cache-Control when the block respects it, less the Age of
// an answer a cache on the way kept already, and sets out.FreshFor to
// how long it is kept.
func (rc *responseCache) put(key [sha256.Size]byte, out *adapters.Output, header http.Header) {
	ttl := rc.ttl
	if rc.respectCacheControl {
		if maxAge, keep := parseCacheControl(header.Get("Cache-Control")); !keep {
			return
		} else if maxAge >= 0 {
			ttl = min(ttl, maxAge-parseAge(header.Get("Age")))
		}
	}
	size := int64(len(out.Body)) + cacheEntryOverheadSize
	kept := *out
	if out.Secrets != nil {
		// The entry keeps the secrets its output's messages must hide,
		// and counts them: not the call's request, which the function
		// would keep, its headers and query whole.
		secrets := slices.Clone(out.Secrets())
		for _, s := range secrets {
			size += int64(len(s))
		}
		kept.Secrets = func() []string { return secrets }
	}
	if ttl <= 0 || size > rc.maxBytes {
		return
	}
	out.FreshFor = ttl
	kept.FreshFor = ttl
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if el := rc.entries[key]; el != nil {
		rc.remove(el)
	}
	e := &cacheEntry{key: key, out: kept, expires: rc.now().Add(ttl), size: size}
	rc.entries[key] = rc.order.PushFront(e)
	rc.bytes += size
	for len(rc.entries) > rc.maxEntries || rc.bytes > rc.maxBytes {
		rc.remove(rc.order.Back())
	}
}

// remove drops an entry. Called with rc.mu held.
func (rc *responseCache) remove(el *list.Element) {
	e := rc.order.Remove(el).(*cacheEntry)
	delete(rc.entries, e.key)
	rc.bytes -= e.size
}

// len returns the number of entries kept, expired ones included.
func (rc *responseCache) len() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.entries)
}

// parseCacheControl reads a response's Cache-Control: keep is false for
// no-store or no-cache (which asks to check with the upstream before
// every use), and maxAge is its max-age (s-maxage is for shared caches,
// and this cache is one tool's), or -1 when it has none.
func parseCacheControl(v string) (maxAge time.Duration, keep bool) {
	maxAge = -1
	for _, dir := range strings.Split(v, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(dir), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-store", "no-cache":
			return 0, false
		case "max-age":
			secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
			if err != nil || secs < 0 {
				return 0, false // malformed: treat as stale
			}
			maxAge = time.Duration(min(secs, int64(maxCacheTTL/time.Second))) * time.Second // capped before it is multiplied, which would overflow
		}
	}
	return maxAge, true
}

// parseAge reads an Age header: how long a cache on the way has kept the
// answer; 0 when there is none or it is malformed.
func parseAge(v string) time.Duration {
	secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(min(secs, int64(maxCacheTTL/time.Second))) * time.Second
}

// flight is a miss being answered: the calls with its key that come
// meanwhile wait for it instead of sending the same request.
type flight struct {
	done chan struct{}
	// out and err are the answer, once done is closed; abandoned says
	// the call that sent the request was canceled, so that those waiting
	// send one of their own.
	out       *adapters.Output
	err       error
	abandoned bool
}

// join returns the flight of key, and whether the caller leads it (it
// is new: the caller sends the request and lands it).
func (rc *responseCache) join(key [sha256.Size]byte) (*flight, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if f := rc.flights[key]; f != nil {
		return f, false
	}
	f := &flight{done: make(chan struct{})}
	rc.flights[key] = f
	return f, true
}

// land ends a flight with the leader's answer.
func (rc *responseCache) land(key [sha256.Size]byte, f *flight, out *adapters.Output, err error, abandoned bool) {
	rc.mu.Lock()
	delete(rc.flights, key)
	rc.mu.Unlock()
	if out != nil {
		kept := *out // those waiting get copies: the leader's caller may change out
		f.out = &kept
	}
	f.err, f.abandoned = err, abandoned
	close(f.done)
}

// cached answers a call from the cache, or makes it and keeps its
// output (see responseCache). Calls with the same key that come while
// it is made wait for its answer, so that a burst of them sends one
// request.
func (h *HTTP) cached(ctx context.Context, in *adapters.Input) (*adapters.Output, error) {
	key, ok := cacheKey(ctx, h.tool, h.cache.claims, in)
	if !ok {
		return h.uncached(ctx, in, nil)
	}
	for {
		if out, hit := h.cache.get(key); hit {
			if in != nil && in.Report != nil {
				in.Report.Log("debug", fmt.Sprintf("%s: answered from the cache", h.tool))
			}
			return out, nil
		}
		f, leader := h.cache.join(key)
		if leader {
			var header http.Header
			out, err := h.uncached(ctx, in, &header)
			if err == nil && !out.Truncated {
				out.Private = identity.FromContext(ctx) != nil
				h.cache.put(key, out, header)
			}
			h.cache.land(key, f, out, err, ctx.Err() != nil)
			return out, err
		}
		if h.cache.joined != nil {
			h.cache.joined()
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, errors.New("the call was canceled while it waited for the answer of the same call, made just before")
		}
		switch {
		case f.abandoned:
			continue // its caller went away: send the request anew
		case f.err != nil:
			return nil, f.err
		}
		out := *f.out
		return &out, nil
	}
}
