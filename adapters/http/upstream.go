package http

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// upstreamSettings are what a tool declares of its upstream host: the
// retry budget (retry block), the circuit breaker (breaker block) and the
// concurrency and rate limits (limit block). Tools that declare the same
// settings for the same host share one upstream, and so one breaker and
// one budget; those that declare the same limit block share its limits
// whatever their other blocks (see hostLimits). A reload that leaves them unchanged finds
// the same upstream again, with its state.
type upstreamSettings struct {
	budget        float64       // fraction of requests that may be retried; 0: no retry block
	failures      int           // failures in a row that open the breaker; 0: no breaker
	openFor       time.Duration // how long the breaker stays open
	maxConcurrent int           // requests in flight at once; 0: no limit
	rate          float64       // requests a second; 0: no limit
	burst         int           // requests at once the rate allows after a quiet time
}

// active reports whether the settings ask for any shared state.
func (s upstreamSettings) active() bool {
	return s.budget > 0 || s.failures > 0 || s.maxConcurrent > 0 || s.rate > 0
}

// Limits of the shared upstream state.
const (
	// maxUpstreams bounds the hosts with state (a url chosen by a
	// parameter under allow_hosts may reach many): past it, idle ones are
	// forgotten.
	maxUpstreams = 1024
	// budgetBank is the most retries an upstream can save up, and what
	// a new one starts with.
	budgetBank = 10
)

// upstreamKey names an upstream's shared state.
type upstreamKey struct {
	host     string // scheme://host:port
	settings upstreamSettings
}

// upstreams holds the shared state of every upstream in use; limits
// holds their limits, which tools share when they declare the same limit
// block for the same host, whatever their retry and breaker blocks: a
// limit is the host's.
var upstreams = struct {
	sync.Mutex
	m      map[upstreamKey]*upstream
	limits map[limitKey]*hostLimits
}{m: map[upstreamKey]*upstream{}, limits: map[limitKey]*hostLimits{}}

// limitKey names the limits of a host under one limit block.
type limitKey struct {
	host          string
	maxConcurrent int
	rate          float64
	burst         int
}

// hostLimits are the limits of a host.
type hostLimits struct {
	sem     chan struct{} // nil: no concurrency limit
	limiter *rate.Limiter // nil: no rate limit
}

// upstream is the shared state of requests to one host under one set of
// settings: the breaker, the retry budget and the limits.
type upstream struct {
	name     string // host:port, for messages
	settings upstreamSettings
	sem      chan struct{} // nil: no concurrency limit
	limiter  *rate.Limiter // nil: no rate limit
	now      func() time.Time

	mu sync.Mutex
	// tokens is the retry budget: each request adds settings.budget, each
	// retry takes one.
	tokens float64
	// The breaker: open since openedAt after fails failures in a row;
	// probing while its one half-open request is out.
	fails    int
	open     bool
	openedAt time.Time
	probing  bool
	inFlight int
}

// upstreamFor returns the shared state of target's host under s, making
// it when it is new; nil when s asks for none.
func upstreamFor(target *url.URL, s upstreamSettings) *upstream {
	if !s.active() {
		return nil
	}
	key := upstreamKey{host: upstreamHost(target), settings: s}
	upstreams.Lock()
	defer upstreams.Unlock()
	if u := upstreams.m[key]; u != nil {
		return u
	}
	if len(upstreams.m) >= maxUpstreams {
		forgetIdleUpstreams()
	}
	u := &upstream{name: target.Host, settings: s, now: time.Now, tokens: budgetBank}
	lk := limitKey{host: key.host, maxConcurrent: s.maxConcurrent, rate: s.rate, burst: s.burst}
	l := upstreams.limits[lk]
	if l == nil {
		l = &hostLimits{}
		if s.maxConcurrent > 0 {
			l.sem = make(chan struct{}, s.maxConcurrent)
		}
		if s.rate > 0 {
			l.limiter = rate.NewLimiter(rate.Limit(s.rate), s.burst)
		}
		upstreams.limits[lk] = l
	}
	u.sem, u.limiter = l.sem, l.limiter
	upstreams.m[key] = u
	return u
}

// upstreamHost names target's upstream as scheme://host:port, in one
// spelling for each place a request may go: lower case, the default port
// written out, a port's leading zeros, a name's trailing dot and an
// address's other forms (::ffff:127.0.0.1 for 127.0.0.1) dropped. A
// model that chooses the url must not escape a breaker or a limit by
// writing the same host another way.
func upstreamHost(target *url.URL) string {
	scheme := strings.ToLower(target.Scheme)
	host := strings.TrimSuffix(strings.ToLower(target.Hostname()), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	}
	port := target.Port()
	switch n, err := strconv.ParseUint(port, 10, 16); {
	case err == nil:
		port = strconv.FormatUint(n, 10)
	case port != "": // not a port: its own upstream, which no request reaches
	case scheme == "https":
		port = "443"
	default:
		port = "80"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// forgetIdleUpstreams drops the state of upstreams with nothing in flight
// and a breaker that does not hold calls back: closed, or open past its
// open_for. A new one starts with about that state anyway (bar the saved
// retry budget and a count of failures short of opening it, which are
// lost: hosts that each fail once, nonexistent names under a wildcard
// allow_hosts say, must not hold their state past the cap). Called with
// upstreams locked.
func forgetIdleUpstreams() {
	for k, u := range upstreams.m {
		u.mu.Lock()
		idle := u.inFlight == 0 && !u.probing && (!u.open || u.now().Sub(u.openedAt) >= u.settings.openFor)
		u.mu.Unlock()
		if idle {
			delete(upstreams.m, k)
		}
	}
	used := map[limitKey]bool{}
	for k, u := range upstreams.m {
		used[limitKey{host: k.host, maxConcurrent: u.settings.maxConcurrent, rate: u.settings.rate, burst: u.settings.burst}] = true
	}
	for k := range upstreams.limits {
		if !used[k] {
			delete(upstreams.limits, k)
		}
	}
}

// request counts a call's first request toward the retry budget.
func (u *upstream) request() {
	u.mu.Lock()
	u.tokens = min(u.tokens+u.settings.budget, budgetBank)
	u.mu.Unlock()
}

// spendRetry takes a retry from the budget; false when none is left.
func (u *upstream) spendRetry() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.settings.budget <= 0 || u.tokens < 1 {
		return false
	}
	u.tokens--
	return true
}

// admit lets one request through the breaker, or says why not. probe is
// set for the one request let through while half-open: its outcome
// closes or reopens the breaker.
func (u *upstream) admit() (probe bool, err error) {
	if u.settings.failures == 0 {
		return false, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.open {
		return false, nil
	}
	left := u.settings.openFor - u.now().Sub(u.openedAt)
	if left > 0 || u.probing {
		wait := "a moment, while one request tests whether it has recovered"
		if left > 0 {
			wait = roundUp(left).String()
		}
		return false, upstreamErrorf("requests to %s are paused after %d failures in a row (circuit breaker open): the call was not sent; try again in %s, or check the upstream", u.name, u.fails, wait)
	}
	u.probing = true
	return true, nil
}

// roundUp rounds d up to a whole second, at least one, for messages.
func roundUp(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}

// outcome is what a request said of its upstream's health.
type outcome int

const (
	healthy outcome = iota // an answer, even an error status of the caller's making
	failed                 // no answer, or a 5xx: counts toward opening the breaker
	unknown                // abandoned (the call was canceled): says nothing
)

// record tells the breaker a request's outcome.
func (u *upstream) record(o outcome, probe bool) {
	if u.settings.failures == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if probe {
		u.probing = false
	}
	switch o {
	case healthy:
		if probe || !u.open {
			u.open, u.fails = false, 0
		}
	case failed:
		u.fails++
		if probe || (!u.open && u.fails >= u.settings.failures) {
			u.open, u.openedAt = true, u.now()
		}
	}
}

// acquire waits for the upstream's limits to let one request through:
// a concurrency slot and a rate token. It returns the release of the
// slot, or an error when ctx ends first or the rate cannot allow a
// request before ctx's deadline.
func (u *upstream) acquire(ctx context.Context) (release func(), err error) {
	if u.limiter != nil {
		if err := u.limiter.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, upstreamErrorf("requests to %s are over their rate (limit block) and the next one allowed comes after the call's timeout; call again later", u.name)
		}
	}
	if u.sem != nil {
		select {
		case u.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	u.mu.Lock()
	u.inFlight++
	u.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			u.inFlight--
			u.mu.Unlock()
			if u.sem != nil {
				<-u.sem
			}
		})
	}, nil
}

// upstreamError is a request this host did not send: the breaker was
// open, or the rate left no time. Its message is the call's error.
type upstreamError struct{ msg string }

func (e *upstreamError) Error() string { return e.msg }

// upstreamErrorf makes an upstreamError.
func upstreamErrorf(format string, args ...any) error {
	return &upstreamError{msg: fmt.Sprintf(format, args...)}
}
