package host

import (
	"runtime"
	"time"
)

// holdBallast makes the GC ballast (see gcHeapFloor) ballastDelay from now,
// off the path of the first answers (its allocation starts a collection),
// and keeps it until release is called: a stdio session holds one while it
// runs (Server.Run).
func holdBallast() (release func()) {
	return holdBallastWhen(time.After(ballastDelay))
}

// holdBallastWhen makes the GC ballast once start yields or is closed, and
// keeps it until release is called.
func holdBallastWhen[T any](start <-chan T) (release func()) {
	stop := make(chan struct{})
	held := make(chan []byte, 1)
	go func() {
		var ballast []byte
		select {
		case <-start:
			ballast = gcBallast()
		case <-stop:
		}
		held <- ballast
	}()
	return func() {
		close(stop)
		runtime.KeepAlive(<-held)
	}
}

// ballastAfterRequests is how many MCP requests an HTTP server answers
// before it makes its GC ballast. A server that sees a few requests now and
// then does not need one; under load the SDK's decoders leave more garbage
// per HTTP request than per stdio call, and the ballast makes the GC run
// several times less often (BENCHMARKS.md, "HTTP (issue 38)"). Making it
// costs a full collection, which is better not spent in the first moments
// of a server, when a reload or the first requests may be under way.
const ballastAfterRequests = 500

// countForBallast counts an MCP request, and starts the making of the
// ballast at the ballastAfterRequests-th.
func (h *HTTPServer) countForBallast() {
	if h.requests.Add(1) == ballastAfterRequests {
		close(h.busy)
	}
}
