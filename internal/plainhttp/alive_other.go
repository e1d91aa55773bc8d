//go:build (!unix && !windows) || aix

package plainhttp

import "net"

// canCheckAlive is whether alive can tell. Here it cannot: a peek at a
// socket would wait, so the fast path is off and every request goes to
// net/http.
const canCheckAlive = false

// alive is never asked here (canCheckAlive is false).
func alive(net.Conn) bool { return false }
