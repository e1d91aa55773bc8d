//go:build unix

package host

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// TestStdioCancelledIDReuse: a cancelled call whose backend is still
// running keeps its id; a new request with that id is refused with -32600
// (under that id) and the server keeps serving; the cancelled call's reply
// is never sent; once the call has ended the id can be used again.
func TestStdioCancelledIDReuse(t *testing.T) {
	reg := loadSource(t, stdioIDConfig)
	p := startStdio(t, reg)
	p.initialize()
	dir := t.TempDir()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"linger","arguments":{"dir":%q}}}`, dir))
	testconfig.WaitFor(t, "the backend starts", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	p.send(helloLine("7"))
	wantError(t, p.next(), "7", jsonrpc.CodeInvalidRequest, "request id 7 is still in use")

	p.send(helloLine("8"))
	wantHello(t, p.next(), "8")

	// Once the cancelled call has ended (its reply dropped), id 7 is free.
	// Every request gets exactly one reply, so the replies under id 7 are
	// the polls' own: refusals until one succeeds.
	deadline := time.Now().Add(15 * time.Second)
	for {
		p.send(helloLine("7"))
		r := p.next()
		if r.Error == nil {
			wantHello(t, r, "7")
			break
		}
		wantError(t, r, "7", jsonrpc.CodeInvalidRequest, "request id 7 is still in use")
		if time.Now().After(deadline) {
			t.Fatal("id 7 is still in use 15s after its call was cancelled")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The input ends: nothing more is written, in particular not the
	// cancelled call's reply.
	p.in.Close()
	for r := range p.lines {
		t.Errorf("unexpected reply after the last request: %s", r.line)
	}
	if err := <-p.done; err != nil {
		t.Errorf("Run: %v", err)
	}
	p.done <- nil // for the cleanup
}
