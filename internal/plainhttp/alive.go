//go:build (unix && !aix) || windows

package plainhttp

import (
	"net"
	"syscall"
)

// rawConn is the socket of a connection, for alive to look at; nil for a
// connection that is not a socket's.
func rawConn(nc net.Conn) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}
