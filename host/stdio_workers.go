package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The goroutines of the direct call path. A call started a goroutine of
// its own, whose stack then grew (copied whole) once the call reached the
// tool's handler: together a twentieth of the server's CPU for a template
// call. A goroutine that has run a call now waits for the next one, while
// fewer than maxIdleDirect others wait, and ends with the connection.

// maxIdleDirect is how many goroutines of the direct path may wait for a
// call on one connection.
const maxIdleDirect = 64

// directJob is one call for the direct path's goroutines.
type directJob struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     jsonrpc.ID
	call   *mcp.CallToolRequest
}

// startDirect runs j on a waiting goroutine, or on a new one if none waits.
func (c *stdioConn) startDirect(j directJob) {
	select {
	case c.fast.jobs <- j:
	default:
		go c.directWorker(j)
	}
}

// directWorker runs j, then the calls handed to it while it waits.
func (c *stdioConn) directWorker(j directJob) {
	for {
		c.runDirect(j.ctx, j.cancel, j.id, j.call)
		j = directJob{} // nothing of the call is kept while waiting
		if c.fast.idle.Add(1) > maxIdleDirect {
			c.fast.idle.Add(-1)
			return
		}
		select {
		case j = <-c.fast.jobs:
			c.fast.idle.Add(-1)
		case <-c.closed:
			c.fast.idle.Add(-1)
			return
		}
	}
}
