package host

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The stdio connection's output. Each answer was one write(2) to stdout,
// the writers taking turns under a mutex; with calls in flight those
// writes were a tenth of the server's CPU. Now the answers that are ready
// while one write is under way are written together by the next: the
// writer that finds no write under way writes, and goes on writing what
// the others queued meanwhile until nothing is left. An answer of the
// direct call path does not wait for its bytes to be out (the writer
// notes them as answered once they are, for the end of the input to wait
// on); every other message waits, and learns the write's error. At most
// maxOutPending bytes wait: past that, a writer waits for the write under
// way, so that a client that does not read slows the server as a blocking
// write would, instead of growing its memory.

// maxOutPending is how many bytes of answers may wait to be written
// before writers wait.
const maxOutPending = 256 << 10

// outBatch is the bytes written to the output in one write.
type outBatch struct {
	buf     []byte
	replies int   // answers of tracked requests in buf, for endReplies
	written bool  // buf has been written (or met err)
	err     error // the write's
}

// stdioOut queues the connection's output; see above.
type stdioOut struct {
	mu      sync.Mutex
	moved   *sync.Cond // broadcast after each write
	cur     *outBatch  // the batch being gathered
	writing bool       // a writer is writing
	spare   []byte     // the buffer of a written batch, for reuse
}

// queue writes data to c's output, as one write with whatever else is
// waiting; replies counts the tracked answers in data (c.endReplies
// counts them once they are written). With wait, it returns once data
// is written, with the write's error; without, possibly before.
func (c *stdioConn) queue(data []byte, replies int, wait bool) error {
	return c.queueFunc(len(data), func(buf []byte) []byte { return append(buf, data...) }, replies, wait)
}

// queueFunc is queue of the n bytes that add appends to the batch being
// gathered, in place: an answer is written into the batch as it is
// encoded, not encoded into a buffer of its own and then copied.
func (c *stdioConn) queueFunc(n int, add func([]byte) []byte, replies int, wait bool) error {
	o := &c.output
	o.mu.Lock()
	if o.moved == nil {
		o.moved = sync.NewCond(&o.mu)
	}
	for o.writing && o.cur != nil && len(o.cur.buf) > 0 && len(o.cur.buf)+n > maxOutPending {
		o.moved.Wait()
	}
	if o.cur == nil {
		o.cur = &outBatch{buf: o.spare[:0]}
		o.spare = nil
	}
	b := o.cur
	b.buf = add(b.buf)
	b.replies += replies
	if o.writing {
		if wait {
			for !b.written {
				o.moved.Wait()
			}
		}
		err := b.err
		o.mu.Unlock()
		return err
	}
	o.writing = true
	for o.cur != nil {
		batch := o.cur
		o.cur = nil
		o.moved.Broadcast() // writers held back by the cap may queue again
		o.mu.Unlock()
		_, err := c.out.Write(batch.buf)
		c.endReplies(batch.replies)
		o.mu.Lock()
		batch.err, batch.written = err, true
		if cap(batch.buf) <= maxOutPending {
			o.spare = batch.buf[:0]
		}
		batch.buf = nil
		o.moved.Broadcast()
	}
	o.writing = false
	err := b.err
	o.mu.Unlock()
	return err
}

// answerExtra is the most bytes appendAnswer adds to a result: the
// envelope and the newline (34) and an int64 id (at most 20).
const answerExtra = 54

// plainAnswer gives the id and result of msg when it is a successful
// response with a numeric id, by far the most frequent message: its line
// is written directly around its result (appendAnswer). The SDK has
// already encoded the result compactly (without HTML escaping, as
// jsonrpc.EncodeMessage writes it), so re-encoding the envelope, which
// copies and re-compacts the result, gives the same bytes at a cost.
func plainAnswer(msg jsonrpc.Message) (id int64, result []byte, ok bool) {
	resp, isResp := msg.(*jsonrpc.Response)
	if !isResp || resp.Error != nil || len(resp.Result) == 0 || resp.Result[0] != '{' || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return 0, nil, false
	}
	id, ok = resp.ID.Raw().(int64)
	return id, resp.Result, ok
}

// appendAnswer appends the line of a successful response with id and
// result (see plainAnswer), with its newline, to b.
func appendAnswer(b []byte, id int64, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}', '\n')
}

// encodeLine encodes a message as one line, with its newline: a plain
// answer as appendAnswer writes it, anything else through
// jsonrpc.EncodeMessage.
func encodeLine(msg jsonrpc.Message) ([]byte, error) {
	if id, result, ok := plainAnswer(msg); ok {
		return appendAnswer(make([]byte, 0, len(result)+answerExtra), id, result), nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
