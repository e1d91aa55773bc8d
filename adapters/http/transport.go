package http

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/plainhttp"
	"github.com/toolhost/toolhost/internal/telemetry"
)

// sharedTransport is shared by every http backend so that connections to one
// upstream are reused across tools and calls. Plain http:// requests go
// over plainhttp's connections (sharedPlain), the rest over its own.
var sharedTransport = &http.Transport{
	Proxy: http.ProxyFromEnvironment,
	DialContext: (&net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
	}).DialContext,
	ForceAttemptHTTP2:      true,
	MaxIdleConns:           256,
	MaxIdleConnsPerHost:    64,
	IdleConnTimeout:        90 * time.Second,
	TLSHandshakeTimeout:    10 * time.Second,
	ExpectContinueTimeout:  time.Second,
	MaxResponseHeaderBytes: maxResponseHeader,
}

// maxResponseHeader caps the header of an upstream's response.
const maxResponseHeader = 1 << 20

// sharedPlain sends sharedTransport's plain http:// requests on the
// caller's goroutine (see plainhttp).
var sharedPlain = plainhttp.New(sharedTransport)

var (
	denyPrivateOnce      sync.Once
	denyPrivateTransport *plainhttp.Transport
)

// transportFor returns the shared transport for a policy: the ordinary one,
// or one whose dialer refuses private addresses. The latter uses no proxy,
// since the check must see the real destination.
func transportFor(p netpolicy.Policy) *plainhttp.Transport {
	if !p.DenyPrivate {
		return sharedPlain
	}
	denyPrivateOnce.Do(func() {
		t := sharedTransport.Clone()
		t.Proxy = nil
		t.DialContext = (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
			Control:   netpolicy.DenyPrivateControl,
		}).DialContext
		denyPrivateTransport = plainhttp.New(t)
	})
	return denyPrivateTransport
}

// newClient builds the HTTP client of a backend. It does no I/O.
func newClient(h *HTTP) *http.Client {
	// No cookie jar: calls share no state. The transport traces the
	// requests of traced calls (telemetry.Transport).
	return &http.Client{
		Transport:     telemetry.Transport(transportFor(netpolicy.Policy{DenyPrivate: h.denyPrivate()})),
		CheckRedirect: h.checkRedirect,
	}
}
