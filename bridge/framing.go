// Package bridge offers the tools of a toolhost config to servers that speak
// the framed protocol of the seed document 000_5a0c012152cac273.txt instead
// of MCP: toolhost connects to such a server as a client, registers its
// tools as services and answers the server's calls. docs/framed-protocol.md
// describes the wire format and the choices made where the document is
// ambiguous.
//
// framing.go is the codec: frames are
//
//	##START <type byte> <task id: 8 bytes> <sequence: [digits] or 4 digits> <payload> ##END
//
// with no spaces. The payload of an MCP frame (type 0x06) is one JSON value,
// whose extent is found by scanning it, so that "##END" inside a JSON string
// does not end the frame; other payloads end at the first "##END".
package bridge

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// Frame types of the seed document.
const (
	// TypeEnd (0x03) ends a task's text.
	TypeEnd byte = 0x03
	// TypeText (0x04) carries user text.
	TypeText byte = 0x04
	// TypeMCP (0x06) carries one MCP-style JSON message: register, call or
	// result.
	TypeMCP byte = 0x06
)

// Sizes of the fixed parts of a frame.
const (
	// TaskIDLen is the width of the task id: the document's examples use 8
	// characters ("mcp00001", "task1234") and nothing delimits the id, so
	// the width is fixed.
	TaskIDLen = 8
	// SeqLen is the number of digits of a bare (unbracketed) sequence
	// number, as in "task12340000".
	SeqLen = 4
	// maxBracketedSeq is the most digits accepted inside "[...]".
	maxBracketedSeq = 10
	// DefaultMaxFrame is the default cap on a whole frame, markers
	// included: 1 MiB.
	DefaultMaxFrame = 1 << 20
	// MinMaxFrame is the smallest frame cap a Decoder accepts.
	MinMaxFrame = 64
)

const (
	startMarker = "##START"
	endMarker   = "##END"
	headerLen   = len(startMarker) + 1 + TaskIDLen
	readSize    = 32 << 10
)

// Frame is one frame of the framed protocol.
type Frame struct {
	// Type is the type byte: TypeMCP, TypeText, TypeEnd or another value.
	Type byte
	// TaskID is the TaskIDLen-byte task id.
	TaskID string
	// Seq is the sequence number's digits, without brackets.
	Seq string
	// Bracketed reports whether the sequence number was in square brackets
	// on the wire (decoding only; EncodeFrame decides by type).
	Bracketed bool
	// Payload is the JSON value of an MCP frame, or the bytes between the
	// sequence number and "##END" for other types.
	Payload []byte
}

// EncodeFrame renders f. The sequence number is written in square brackets
// for MCP frames ("mcp00001[0000]{...}") and bare for other types
// ("task12340000text"), as in the document's examples. It fails when the task
// id or sequence number cannot be represented, or when the payload of a
// non-MCP frame contains "##END".
func EncodeFrame(f Frame) ([]byte, error) {
	if err := CheckTaskID(f.TaskID); err != nil {
		return nil, err
	}
	if !allDigits(f.Seq) || len(f.Seq) == 0 || len(f.Seq) > maxBracketedSeq {
		return nil, fmt.Errorf("sequence number %q is not 1 to %d digits", f.Seq, maxBracketedSeq)
	}
	if f.Type != TypeMCP && len(f.Seq) != SeqLen {
		return nil, fmt.Errorf("sequence number %q of a frame of type 0x%02x must be %d digits", f.Seq, f.Type, SeqLen)
	}
	if f.Type != TypeMCP && bytes.Contains(f.Payload, []byte(endMarker)) {
		return nil, fmt.Errorf("the payload of a frame of type 0x%02x cannot contain %q", f.Type, endMarker)
	}
	b := make([]byte, 0, headerLen+len(f.Seq)+2+len(f.Payload)+len(endMarker))
	b = append(b, startMarker...)
	b = append(b, f.Type)
	b = append(b, f.TaskID...)
	if f.Type == TypeMCP {
		b = append(b, '[')
		b = append(b, f.Seq...)
		b = append(b, ']')
	} else {
		b = append(b, f.Seq...)
	}
	b = append(b, f.Payload...)
	return append(b, endMarker...), nil
}

// CheckTaskID reports whether id can be a task id: exactly TaskIDLen
// printable ASCII characters other than '#', '[' and ']'.
func CheckTaskID(id string) error {
	if len(id) != TaskIDLen {
		return fmt.Errorf("task id %q is %d bytes; it must be exactly %d printable ASCII characters, such as mcp00001", id, len(id), TaskIDLen)
	}
	for i := 0; i < len(id); i++ {
		if !taskIDByte(id[i]) {
			return fmt.Errorf("task id %q has the byte %q; use printable ASCII characters other than '#', '[' and ']'", id, id[i])
		}
	}
	return nil
}

func taskIDByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '#' && c != '[' && c != ']'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SkipError is returned by Decoder.Next for input it skipped: bytes outside
// any frame, or a frame that is malformed, oversized or cut short by the end
// of the stream. It is not fatal: call Next again.
type SkipError struct {
	// Offset is the stream offset of the skipped frame's "##START", or of
	// the first skipped byte outside frames.
	Offset int64
	// Len is the number of bytes skipped outside frames (0 for frames).
	Len int64
	// Reason says what was wrong.
	Reason string
	// Head, for a frame skipped for its size, for a fault in its JSON
	// payload, for what follows a complete JSON payload other than
	// "##END", or cut short by the end of the stream, whose header was
	// read, is that header and the bytes of its payload read up to the
	// frame cap, the fault, the end of the JSON value or of the stream:
	// enough to find whom to answer (a call's call_id) when that comes
	// within them.
	Head *Frame
	// TooLarge reports a frame skipped for its size.
	TooLarge bool
}

func (e *SkipError) Error() string {
	if e.Len > 0 {
		return fmt.Sprintf("skipped %d bytes at offset %d: %s", e.Len, e.Offset, e.Reason)
	}
	return fmt.Sprintf("skipped the frame at offset %d: %s", e.Offset, e.Reason)
}

// Decoder reads frames from a stream. It resynchronises on the next
// "##START" after anything it cannot read, so one bad frame costs only
// itself. A frame's decoding never depends on how the stream was split
// into reads.
type Decoder struct {
	r   io.Reader
	max int

	raw   []byte // raw[start:] is the unconsumed input
	start int
	off   int64 // stream offset of raw[start]
	err   error // sticky read error

	// Bytes outside frames, reported once the next frame starts.
	junkStart   int64
	junkLen     int64
	junkVisible bool // some junk byte is not whitespace
	// quiet: the bytes before the next "##START" belong to a frame already
	// reported as skipped.
	quiet bool

	scan jsonScan
	// head and tooLarge are the Head and TooLarge of the SkipError parse
	// is about to return.
	head     *Frame
	tooLarge bool
	// partial is the header of the frame parse last found unfinished and
	// where its payload starts in the input, for the Head of a frame the
	// end of the stream cuts short.
	partial   *Frame
	partialAt int

	// OnStall, when set, is called (from another goroutine) when the
	// decoder has waited StallAfter for more input while holding a partial
	// frame that already contains "##END": its JSON payload most likely
	// has an unclosed string or bracket, so the frame only ends when the
	// string does, or is skipped at the size cap. pending is how many bytes
	// are held.
	OnStall    func(pending int)
	StallAfter time.Duration
}

// NewDecoder returns a decoder reading from r that skips frames longer than
// maxFrame bytes (DefaultMaxFrame when 0; at least MinMaxFrame).
func NewDecoder(r io.Reader, maxFrame int) *Decoder {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	maxFrame = max(maxFrame, MinMaxFrame)
	return &Decoder{r: r, max: maxFrame}
}

// Next returns the next frame. A *SkipError reports input that was skipped;
// any other error is the reader's (io.EOF at the end of the stream) and is
// returned again by every later call.
func (d *Decoder) Next() (Frame, error) {
	for {
		buf := d.raw[d.start:]
		i := bytes.Index(buf, []byte(startMarker))
		if i < 0 {
			// Keep what may be the beginning of a marker.
			keep := min(len(buf), len(startMarker)-1)
			if d.err != nil {
				keep = 0
			}
			d.discard(len(buf) - keep)
			if d.err != nil {
				if se := d.flushJunk(); se != nil {
					return Frame{}, se
				}
				return Frame{}, d.err
			}
			d.fill()
			continue
		}
		d.discard(i)
		if se := d.flushJunk(); se != nil {
			return Frame{}, se
		}
		d.quiet = false
		d.partial = nil
		n, f, reason, more := d.parse(d.raw[d.start:])
		if more && d.err != nil {
			reason, more = "the stream ended inside the frame", false
			if h := d.partial; h != nil {
				// What came of the payload may hold a call's call_id
				// (an unclosed string never ends the frame).
				h.Payload = bytes.Clone(d.raw[d.start+d.partialAt:])
				d.head = h
			}
		}
		if more {
			d.fill()
			continue
		}
		if reason != "" {
			se := &SkipError{Offset: d.off, Reason: reason, Head: d.head, TooLarge: d.tooLarge}
			d.head, d.tooLarge = nil, false
			// Resynchronise on the next "##START" after this one; the
			// bytes up to it belong to this frame, not to junk.
			d.quiet = true
			d.discard(1)
			return Frame{}, se
		}
		d.quiet = true
		d.discard(n)
		d.quiet = false
		return f, nil
	}
}

// discard consumes n bytes, counting them as junk unless they belong to a
// frame (parse succeeded) or to one already reported.
func (d *Decoder) discard(n int) {
	if n <= 0 {
		return
	}
	if !d.quiet {
		b := d.raw[d.start : d.start+n]
		if d.junkLen == 0 {
			d.junkStart = d.off
		}
		d.junkLen += int64(n)
		if !d.junkVisible && len(bytes.TrimLeft(b, " \t\r\n")) > 0 {
			d.junkVisible = true
		}
	}
	d.start += n
	d.off += int64(n)
	d.scan = jsonScan{}
}

// flushJunk returns a SkipError for the junk counted so far, if any of it is
// not whitespace, and resets the count. Whitespace between frames is
// accepted silently.
func (d *Decoder) flushJunk() *SkipError {
	visible, start, n := d.junkVisible, d.junkStart, d.junkLen
	d.junkLen, d.junkVisible = 0, false
	if !visible {
		return nil
	}
	return &SkipError{Offset: start, Len: n, Reason: "bytes outside a frame"}
}

// fill reads more input.
func (d *Decoder) fill() {
	if d.err != nil {
		return
	}
	// Only a frame that has begun can stall; the tail of a skipped frame
	// kept while looking for the next "##START" cannot.
	if pending := d.raw[d.start:]; d.OnStall != nil && d.StallAfter > 0 &&
		bytes.HasPrefix(pending, []byte(startMarker)) && bytes.Contains(pending, []byte(endMarker)) {
		n, stall := len(pending), d.OnStall
		t := time.AfterFunc(d.StallAfter, func() { stall(n) })
		defer t.Stop()
	}
	if d.start > 0 {
		n := copy(d.raw, d.raw[d.start:])
		d.raw = d.raw[:n]
		d.start = 0
	}
	if cap(d.raw)-len(d.raw) < readSize {
		nb := make([]byte, len(d.raw), 2*cap(d.raw)+readSize)
		copy(nb, d.raw)
		d.raw = nb
	}
	for tries := 0; ; tries++ {
		n, err := d.r.Read(d.raw[len(d.raw):cap(d.raw)])
		d.raw = d.raw[:len(d.raw)+n]
		if err != nil {
			d.err = err
			return
		}
		if n > 0 {
			return
		}
		if tries >= 100 {
			d.err = io.ErrNoProgress
			return
		}
	}
}

// parse reads the frame at the start of b, which begins with "##START". It
// returns the frame and its length, or a reason to skip it, or more=true
// when b ends before the frame does. It decides from the first max bytes
// only, so that its answer is the same however the input was split.
//
// It is one function, longer than most, because its steps (header,
// sequence number, JSON payload, end marker) share the state that short
// and bad record for a frame cut off or skipped: split, each step would
// take and return all of it.
func (d *Decoder) parse(b []byte) (n int, f Frame, reason string, more bool) {
	limit := min(len(b), d.max)
	payloadAt := 0 // where the payload starts, once the header is read
	short := func() (int, Frame, string, bool) {
		if len(b) >= d.max {
			d.tooLarge = true
			if payloadAt > 0 {
				d.head = &Frame{Type: f.Type, TaskID: f.TaskID, Seq: f.Seq, Bracketed: f.Bracketed,
					Payload: bytes.Clone(b[payloadAt:limit])}
			}
			return 0, Frame{}, fmt.Sprintf("the frame is larger than %d bytes", d.max), false
		}
		if payloadAt > 0 {
			d.partial = &Frame{Type: f.Type, TaskID: f.TaskID, Seq: f.Seq, Bracketed: f.Bracketed}
			d.partialAt = payloadAt
		}
		return 0, Frame{}, "", true
	}
	bad := func(format string, args ...any) (int, Frame, string, bool) {
		return 0, Frame{}, fmt.Sprintf(format, args...), false
	}
	p := len(startMarker)
	if limit > p && b[p] == '\\' {
		return bad(`the type is written as text (such as \x06) instead of as one byte`)
	}
	for ; p < limit && p < headerLen; p++ {
		if p > len(startMarker) && !taskIDByte(b[p]) {
			return bad("the task id is not %d printable characters (byte %q at %d)", TaskIDLen, b[p], p-len(startMarker)-1)
		}
	}
	if limit < headerLen {
		return short()
	}
	f.Type = b[len(startMarker)]
	f.TaskID = string(b[len(startMarker)+1 : headerLen])

	// The sequence number: "[digits]" or SeqLen bare digits.
	if limit <= p {
		return short()
	}
	if b[p] == '[' {
		j := p + 1
		for j < limit && j-(p+1) < maxBracketedSeq && isDigit(b[j]) {
			j++
		}
		if j == limit {
			return short()
		}
		if j == p+1 || b[j] != ']' {
			return bad("the sequence number is not [digits]")
		}
		f.Seq, f.Bracketed = string(b[p+1:j]), true
		p = j + 1
	} else {
		for j := p; j < p+SeqLen; j++ {
			if j == limit {
				return short()
			}
			if !isDigit(b[j]) {
				return bad("the sequence number is not %d digits or [digits]", SeqLen)
			}
		}
		f.Seq = string(b[p : p+SeqLen])
		p += SeqLen
	}

	payloadAt = p
	if f.Type == TypeMCP {
		q := p
		for q < limit && isSpace(b[q]) {
			q++
		}
		if q == limit {
			return short()
		}
		if b[q] == '{' || b[q] == '[' {
			if !d.scan.active {
				d.scan = jsonScan{active: true, pos: q}
			}
			end, why, done := d.scan.run(b, limit)
			if why != "" {
				headEnd := d.scan.pos
				if d.scan.inStr {
					// A control byte inside a string: the frame is
					// skipped, but a call_id after the byte is read
					// too, up to the first ##END after it, when no
					// ##START comes in the payload before that (it
					// would be the next frame's, if an unclosed string
					// ran into it); until either comes, the frame
					// waits.
					e := bytes.Index(b[d.scan.pos:limit], []byte(endMarker))
					st := bytes.Index(b[payloadAt:limit], []byte(startMarker))
					switch {
					case e >= 0 && (st < 0 || payloadAt+st > d.scan.pos+e):
						headEnd = d.scan.pos + e
					case e < 0 && st < 0:
						return short()
					}
				}
				d.head = &Frame{Type: f.Type, TaskID: f.TaskID, Seq: f.Seq, Bracketed: f.Bracketed,
					Payload: bytes.Clone(b[payloadAt:headEnd])}
				return bad("the JSON payload is malformed: %s", why)
			}
			if !done {
				return short()
			}
			r := end
			for r < limit && isSpace(b[r]) {
				r++
			}
			avail := b[r:limit]
			// notFollowed skips a frame whose JSON value is complete but
			// followed by something other than "##END" (a second value,
			// a stray bracket or comma, a NUL): the value is its Head, so
			// that a call in it is answered.
			notFollowed := func() (int, Frame, string, bool) {
				d.head = &Frame{Type: f.Type, TaskID: f.TaskID, Seq: f.Seq, Bracketed: f.Bracketed,
					Payload: bytes.Clone(b[q:end])}
				return bad("the JSON payload is not followed by %s", endMarker)
			}
			if len(avail) < len(endMarker) {
				if !bytes.HasPrefix([]byte(endMarker), avail) {
					return notFollowed()
				}
				return short()
			}
			if !bytes.HasPrefix(avail, []byte(endMarker)) {
				return notFollowed()
			}
			f.Payload = bytes.Clone(b[q:end])
			return r + len(endMarker), f, "", false
		}
	}
	e := bytes.Index(b[p:limit], []byte(endMarker))
	if e < 0 {
		return short()
	}
	f.Payload = bytes.Clone(b[p : p+e])
	return p + e + len(endMarker), f, "", false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// jsonScan finds the extent of a JSON object or array: it tracks strings
// (with escapes) and nesting, and refuses bytes that cannot appear in JSON,
// such as '#' outside a string or a control byte inside one (the type byte
// of a following frame is one). It checks structure only; the message is
// parsed for real once the frame is complete. Its state survives between
// reads so that a large frame arriving in pieces is scanned once.
type jsonScan struct {
	active bool
	pos    int // next byte to scan, relative to the frame's start
	depth  int
	inStr  bool
	esc    bool
	end    int // the end of the value, once found
}

// run scans b[s.pos:limit]. It returns the end of the value when done, or
// why the bytes cannot be JSON, with s.pos at the byte at fault.
func (s *jsonScan) run(b []byte, limit int) (end int, why string, done bool) {
	if s.end > 0 {
		return s.end, "", true
	}
	for i := s.pos; i < limit; i++ {
		c := b[i]
		if s.inStr {
			switch {
			case c < 0x20:
				s.pos = i
				return 0, fmt.Sprintf("control byte 0x%02x inside a string", c), false
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				s.pos, s.end = i+1, i+1
				return i + 1, "", true
			}
		case ' ', '\t', '\r', '\n', ':', ',':
		default:
			if !literalByte(c) {
				s.pos = i
				return 0, fmt.Sprintf("unexpected byte %q", c), false
			}
		}
	}
	s.pos = limit
	return 0, "", false
}

// literalByte reports whether c can be part of a number, true, false or
// null.
func literalByte(c byte) bool {
	switch c {
	case '-', '+', '.', 'e', 'E', 't', 'r', 'u', 'f', 'a', 'l', 's', 'n':
		return true
	}
	return isDigit(c)
}
