package host

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioRequestIDs is the map in which the stdio connection of srv notes
// the ids of the calls it reads, for the spans' jsonrpc.request.id: the
// SDK gives middleware the request but not its id. It is nil, and nothing
// is noted, when srv traces no requests.
func stdioRequestIDs(srv *Server) *sync.Map {
	if srv == nil || !srv.observe.tracing() {
		return nil
	}
	return &srv.observe.stdioIDs
}

// noteID gives a call read a RequestExtra of its own, which the SDK hands
// to middleware with the request, and notes the call's id under it. c.mu
// is held. It returns nil when ids are not noted.
func (c *stdioConn) noteID(req *jsonrpc.Request) *mcp.RequestExtra {
	if c.ids == nil || req.Extra != nil {
		return nil
	}
	ex := &mcp.RequestExtra{}
	req.Extra = ex
	c.ids.Store(ex, requestIDString(req.ID))
	return ex
}

// forgetID forgets the id of a call whose reply is out, or that ends
// unanswered. c.mu is held.
func (c *stdioConn) forgetID(cl call) {
	if cl.extra != nil {
		c.ids.Delete(cl.extra)
	}
}
