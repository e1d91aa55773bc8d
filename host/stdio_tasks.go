package host

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/tasks"
)

// answerTask answers a tasks/get, tasks/cancel or tasks/update request on
// stdio, which the SDK would refuse as a method it does not know. It is
// answered on the reading goroutine, in order, like a malformed line: the
// store of a stdio server is its memory.
func (c *stdioConn) answerTask(req *jsonrpc.Request) {
	res, rpcErr := c.tasks.taskMethod(context.Background(), req.Method, req.Params, c.tasksDeclared.Load())
	if rpcErr != nil {
		c.writeLine(map[string]any{"jsonrpc": "2.0", "id": req.ID.Raw(), "error": rpcErr})
		return
	}
	c.writeLine(map[string]any{"jsonrpc": "2.0", "id": req.ID.Raw(), "result": res})
}

// noteInitialize records whether an initialize request declares the tasks
// extension among the client's capabilities.
func (c *stdioConn) noteInitialize(params json.RawMessage) {
	var p struct {
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(params, &p) == nil {
		_, ok := p.Capabilities.Extensions[tasks.ExtensionID]
		c.tasksDeclared.Store(ok)
	}
}

// writeLine writes one message built here, outside the SDK.
func (c *stdioConn) writeLine(msg map[string]any) {
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	_ = c.queue(append(b, '\n'), 0, true)
}
