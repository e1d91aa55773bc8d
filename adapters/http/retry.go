package http

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
)

// retryPolicy is a tool's retry block: how often and how patiently a
// failed request is sent again.
type retryPolicy struct {
	attempts   int           // requests at most, the first included
	backoff    time.Duration // the wait before the first retry; doubled for each next one
	maxBackoff time.Duration // the longest wait, and the longest Retry-After waited for
	idempotent bool          // the author says a POST or PATCH may be sent twice
}

// Defaults and limits of the retry block.
const (
	defaultAttempts   = 3
	maxAttempts       = 10
	defaultBackoff    = 200 * time.Millisecond
	defaultMaxBackoff = 5 * time.Second
	maxMaxBackoff     = time.Minute
	defaultBudget     = 0.2
	// drainBytes is how much of a failed attempt's body is read so that
	// its connection can be reused; more, and it is closed instead.
	drainBytes = 64 << 10
)

// idempotentMethods may be sent twice with the effect of once.
var idempotentMethods = []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions}

// retries reports whether the block's requests may be retried at all.
func (h *HTTP) retries() bool {
	return h.retry != nil && h.retry.attempts > 1 && (h.retry.idempotent || slices.Contains(idempotentMethods, h.method))
}

// exchange sends out under the tool's upstream settings: through the
// circuit breaker and the limits of its host, again after a failure the
// retry block allows. It returns the response to read, with the release
// of its concurrency slot, which the caller calls once the body is read;
// with an error, the slot is released already.
func (h *HTTP) exchange(callCtx context.Context, out *outgoing, report adapters.Reporter) (*http.Response, func(), error) {
	up := upstreamFor(out.target, h.upstream)
	if up == nil {
		resp, err := h.send(callCtx, out)
		return resp, func() {}, err
	}
	up.request()
	for attempt := 1; ; attempt++ {
		probe, err := up.admit()
		if err != nil {
			return nil, nil, err
		}
		release, err := up.acquire(callCtx)
		if err != nil {
			up.record(unknown, probe)
			return nil, nil, err
		}
		resp, err := h.send(callCtx, out)
		up.record(health(resp, err, callCtx), probe)
		wait, why, again := h.retryAfter(attempt, resp, err, callCtx)
		if !again || !up.spendRetry() {
			if err != nil {
				release()
				return nil, nil, err
			}
			return resp, release, nil
		}
		discard(resp)
		release()
		if report != nil {
			report.Log("info", fmt.Sprintf("%s to %s: %s; trying again in %s (attempt %d of %d)", h.method, up.name, why, wait.Round(time.Millisecond), attempt+1, h.retry.attempts))
		}
		if err := h.pause(callCtx, wait); err != nil {
			return nil, nil, err
		}
	}
}

// errTimeout is the cause of a call's context that ends at the http
// block's timeout.
var errTimeout = errors.New("the http block's timeout passed")

// health says what a request's answer tells of its upstream: no answer
// (in the block's timeout too: an upstream that hangs is failing) or a
// server error (bar 501, which is about the request) is a failure.
func health(resp *http.Response, err error, callCtx context.Context) outcome {
	switch {
	case err != nil && callCtx.Err() != nil && context.Cause(callCtx) == errTimeout:
		return failed
	case err != nil && callCtx.Err() != nil:
		return unknown
	case err != nil:
		var pe *netpolicy.Error
		var re *redirectError
		if errors.As(err, &pe) || errors.As(err, &re) {
			return healthy // refused here, not there
		}
		return failed
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return failed
	}
	return healthy
}

// retryAfter decides whether attempt's result is worth another: again
// says so, wait is how long to wait first and why says what failed. It
// never retries a method that is not idempotent, a request refused here
// (network policy, redirects), an answer that is not 408, 429, 502, 503
// or 504, a wait the call's deadline would not outlast, nor a Retry-After
// longer than max_backoff. A shorter Retry-After is waited for, or the
// backoff when that is longer.
func (h *HTTP) retryAfter(attempt int, resp *http.Response, err error, callCtx context.Context) (wait time.Duration, why string, again bool) {
	if !h.retries() || attempt >= h.retry.attempts || callCtx.Err() != nil {
		return 0, "", false
	}
	wait = h.backoff(attempt)
	switch {
	case err != nil:
		var pe *netpolicy.Error
		var re *redirectError
		if errors.As(err, &pe) || errors.As(err, &re) || !transient(err) {
			return 0, "", false
		}
		why = "the request failed"
	default:
		code := resp.StatusCode
		switch code {
		case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		default:
			return 0, "", false
		}
		why = fmt.Sprintf("HTTP %d", code)
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			if d > h.retry.maxBackoff {
				return 0, "", false // the error says when (see retryAfterNote)
			}
			wait = max(wait, d) // no sooner than the backoff: a Retry-After of 0 or a past date is no licence to hammer
		}
	}
	if deadline, ok := callCtx.Deadline(); ok && time.Until(deadline) <= wait {
		return 0, "", false
	}
	return wait, why, true
}

// transient reports whether a request error may go away on its own: a
// connection refused, dropped or timed out; not a name that does not
// resolve or a certificate that is not accepted.
func transient(err error) bool {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	return !errors.As(err, &dnsErr) && !errors.As(err, &certErr) && !errors.As(err, &unknownCA) &&
		!errors.As(err, &hostErr) && !errors.As(err, &recErr)
}

// backoff is the wait before retry number attempt: backoff doubled for
// each retry before it, at most max_backoff, of which a random half
// (jitter, so that clients that failed together do not retry together).
func (h *HTTP) backoff(attempt int) time.Duration {
	d := h.retry.backoff
	for i := 1; i < attempt && d < h.retry.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, h.retry.maxBackoff)
	half := d / 2
	return half + rand.N(half+1)
}

// pause waits d, or until ctx ends. Tests replace h.sleep to see the
// waits without waiting.
func (h *HTTP) pause(ctx context.Context, d time.Duration) error {
	if h.sleep != nil {
		return h.sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// discard reads a little of a failed attempt's body and closes it.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
	_ = resp.Body.Close()
}

// maxRetryAfter bounds the Retry-After a message quotes.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a Retry-After header: a number of seconds or an
// HTTP date, as of now. ok is false for a missing or malformed one; a
// date in the past is zero, and anything past a day is a day.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	secs, err := strconv.ParseUint(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange), err == nil && secs > uint64(maxRetryAfter/time.Second):
		return maxRetryAfter, true // more digits than a number holds is long, not malformed
	case err == nil:
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), maxRetryAfter), true
}

// retryAfterNote is what an error answer adds when it says when to try
// again: " (the upstream asks to try again in 30s)", or "".
func retryAfterNote(header http.Header) string {
	d, ok := parseRetryAfter(header.Get("Retry-After"), time.Now())
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (the upstream asks to try again in %s)", roundUp(d))
}
