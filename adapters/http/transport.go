package http

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/netpolicy"
)

var (
	denyPrivateOnce      sync.Once
	denyPrivateTransport *http.Transport
)

// transportFor returns the shared transport for a policy: the ordinary one,
// or one whose dialer refuses private addresses. The latter uses no proxy,
// since the check must see the real destination.
func transportFor(p netpolicy.Policy) *http.Transport {
	if !p.DenyPrivate {
		return sharedTransport
	}
	denyPrivateOnce.Do(func() {
		t := sharedTransport.Clone()
		t.Proxy = nil
		t.DialContext = (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
			Control:   netpolicy.DenyPrivateControl,
		}).DialContext
		denyPrivateTransport = t
	})
	return denyPrivateTransport
}
