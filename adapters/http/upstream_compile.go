package http

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/zclconf/go-cty/cty"
)

// Limits of the breaker and limit blocks.
const (
	defaultFailures  = 5
	maxFailures      = 1000
	defaultOpenFor   = 30 * time.Second
	maxOpenFor       = 10 * time.Minute
	maxMaxConcurrent = 1024
	maxRate          = 10000 // requests a second
	maxBurst         = 1000
)

// nestedBlocks are the blocks an http block may hold, each at most once.
var nestedBlocks = []hcl.BlockHeaderSchema{{Type: "retry"}, {Type: "breaker"}, {Type: "limit"}, {Type: "cache"}, {Type: "select"}}

// retrySchema, breakerSchema and limitSchema are the schemas of the
// blocks of the same names.
var (
	retrySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "attempts"}, {Name: "backoff"}, {Name: "max_backoff"}, {Name: "idempotent"}, {Name: "budget"},
	}}
	breakerSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "failures"}, {Name: "open_for"}}}
	limitSchema   = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "max_concurrent"}, {Name: "rate"}, {Name: "burst"}}}
)

// nested returns the blocks of blocks by type, reporting a second block
// of a type.
func (c *compiler) nested(blocks hcl.Blocks) map[string]*hcl.Block {
	byType := map[string]*hcl.Block{}
	for _, b := range blocks {
		if first := byType[b.Type]; first != nil {
			c.errorf(b.DefRange, "Duplicate "+b.Type+" block",
				"An http block takes one %s block, and this is a second (the first is at %s). Merge them into one.", b.Type, first.DefRange)
			continue
		}
		byType[b.Type] = b
	}
	return byType
}

// compileUpstream reads the retry, breaker and limit blocks into h.
func (c *compiler) compileUpstream(h *HTTP, blocks map[string]*hcl.Block) {
	if b := blocks["retry"]; b != nil {
		c.compileRetry(h, b)
	}
	if b := blocks["breaker"]; b != nil {
		content, diags := b.Body.Content(breakerSchema)
		c.diags = append(c.diags, diags...)
		h.upstream.failures, h.upstream.openFor = defaultFailures, defaultOpenFor
		if a := content.Attributes["failures"]; a != nil {
			h.upstream.failures = c.intIn(a, 1, maxFailures, "a number of failures in a row such as 5")
		}
		if a := content.Attributes["open_for"]; a != nil {
			h.upstream.openFor = c.duration(a, attr.DurationRange{Min: time.Second, Max: maxOpenFor, Example: `"30s"`, Examples: `"10s", "30s" or "2m"`}, defaultOpenFor)
		}
	}
	if b := blocks["limit"]; b != nil {
		c.compileLimit(h, b)
	}
}

// compileRetry reads a retry block.
func (c *compiler) compileRetry(h *HTTP, b *hcl.Block) {
	content, diags := b.Body.Content(retrySchema)
	c.diags = append(c.diags, diags...)
	r := &retryPolicy{attempts: defaultAttempts, backoff: defaultBackoff, maxBackoff: defaultMaxBackoff}
	h.upstream.budget = defaultBudget
	at := content.Attributes
	if a := at["attempts"]; a != nil {
		r.attempts = c.intIn(a, 1, maxAttempts, "a number of requests such as 3 (the first included)")
	}
	waits := attr.DurationRange{Min: time.Millisecond, Max: maxMaxBackoff, Example: `"200ms"`, Examples: `"100ms", "200ms" or "1s"`}
	if a := at["backoff"]; a != nil {
		r.backoff = c.duration(a, waits, defaultBackoff)
	}
	if a := at["max_backoff"]; a != nil {
		r.maxBackoff = c.duration(a, attr.DurationRange{Min: time.Millisecond, Max: maxMaxBackoff, Example: `"5s"`, Examples: `"2s", "5s" or "30s"`}, defaultMaxBackoff)
		if r.maxBackoff < r.backoff {
			c.errorf(a.Expr.Range(), "max_backoff below backoff",
				"The max_backoff (%s) is shorter than the backoff (%s), the first wait. Make max_backoff at least the backoff.", r.maxBackoff, r.backoff)
		}
	} else {
		r.maxBackoff = max(r.maxBackoff, r.backoff)
	}
	if a := at["idempotent"]; a != nil {
		at := adapters.NewAttrs(c.cc)
		c.diags = append(c.diags, at.Boolean(a, &r.idempotent, "Write idempotent = true if sending the request twice does what sending it once does.")...)
	}
	if a := at["budget"]; a != nil {
		if v, ok := c.constant(a, cty.Number, "a fraction such as 0.2"); ok {
			f, _ := v.AsBigFloat().Float64()
			if f <= 0 || f > 1 {
				c.errorf(a.Expr.Range(), "budget out of range",
					"The budget is the fraction of requests to the host that may be retried, more than 0 and at most 1; %s is not. Write one such as 0.2 (a retry for every five requests).", strconv.FormatFloat(f, 'g', -1, 64))
			} else {
				h.upstream.budget = f
			}
		}
	}
	if !r.idempotent && !slices.Contains(idempotentMethods, h.method) {
		c.diags = append(c.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Retry of a " + h.method + " request",
			Detail:   fmt.Sprintf("A %s request may do its work twice if sent twice, so toolhost never retries one, and this retry block does nothing. If the API makes it safe (an idempotency key, say), add idempotent = true to the retry block.", h.method),
			Subject:  b.DefRange.Ptr(),
		})
	}
	h.retry = r
}

// compileLimit reads a limit block.
func (c *compiler) compileLimit(h *HTTP, b *hcl.Block) {
	content, diags := b.Body.Content(limitSchema)
	c.diags = append(c.diags, diags...)
	at := content.Attributes
	if a := at["max_concurrent"]; a != nil {
		h.upstream.maxConcurrent = c.intIn(a, 1, maxMaxConcurrent, "a number of requests such as 4")
	}
	if a := at["rate"]; a != nil {
		if v, ok := c.constant(a, cty.String, `a rate such as "10/s" or "100/m"`); ok {
			r, err := parseRate(v.AsString())
			if err != nil {
				c.errorf(a.Expr.Range(), "Invalid rate", "%s Write a number of requests per second, minute or hour, such as \"10/s\" or \"100/m\", up to %d/s.", err, maxRate)
			} else {
				h.upstream.rate, h.upstream.burst = r, 1
			}
		}
	}
	if a := at["burst"]; a != nil {
		n := c.intIn(a, 1, maxBurst, "a number of requests such as 5")
		if at["rate"] == nil {
			c.errorf(a.Expr.Range(), "burst without rate", "The burst is how many requests the rate lets through at once after a quiet time, and this limit block has no rate. Add one, such as rate = \"10/s\", or remove burst.")
		} else if h.upstream.rate > 0 {
			h.upstream.burst = n
		}
	}
	if at["max_concurrent"] == nil && at["rate"] == nil {
		c.errorf(b.DefRange, "Empty limit block", "The limit block sets neither max_concurrent nor rate. Add one, such as max_concurrent = 4 or rate = \"10/s\", or remove the block.")
	}
}

// parseRate reads "N/s", "N/m" or "N/h" as requests a second.
func parseRate(s string) (float64, error) {
	num, unit, ok := strings.Cut(strings.ReplaceAll(s, " ", ""), "/")
	per := map[string]float64{"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600}[strings.ToLower(unit)]
	n, err := strconv.ParseFloat(num, 64)
	switch {
	case !ok || per == 0:
		return 0, fmt.Errorf("%q is not a rate.", s)
	case err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n):
		return 0, fmt.Errorf("%q does not start with a number of requests above zero.", s)
	case n/per > maxRate:
		return 0, fmt.Errorf("%q is more than %d requests a second.", s, maxRate)
	}
	return n / per, nil
}

// intIn reads a whole number from lo to hi; lo when it is wrong (and
// reported).
func (c *compiler) intIn(a *hcl.Attribute, lo, hi int64, want string) int {
	n, ok := c.constantInt(a, want)
	if !ok {
		return int(lo)
	}
	if n < lo || n > hi {
		c.errorf(a.Expr.Range(), a.Name+" out of range", "The %s must be from %d to %d; %d is not. Write %s.", a.Name, lo, hi, n, want)
		return int(lo)
	}
	return int(n)
}

// duration reads a constant duration in r; def when it is wrong (and
// reported).
func (c *compiler) duration(a *hcl.Attribute, r attr.DurationRange, def time.Duration) time.Duration {
	at := adapters.NewAttrs(c.cc)
	d, diags, ok := at.Duration(a, r)
	c.diags = append(c.diags, diags...)
	if !ok {
		return def
	}
	return d
}

// readOnlyMethods are the methods whose answers a cache block may keep.
var readOnlyMethods = []string{http.MethodGet, http.MethodHead}
