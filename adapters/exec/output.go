package exec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/charset"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// charsetText describes a charset value for a message.
func charsetText(v cty.Value) string {
	if v.Type() == cty.String {
		return fmt.Sprintf("%q", v.AsString())
	}
	return attr.TypeName(v.Type())
}

// decode converts output in the command's charset to UTF-8; a byte the
// charset has no character for becomes U+FFFD. Output cut short
// (max_output) loses a character cut in two, as UTF-8 output does.
func (e *Exec) decode(b []byte, cut bool) []byte {
	dec := e.charset.NewDecoder()
	if cut {
		// Three bytes of UTF-8 at most for each byte of input.
		dst := make([]byte, 3*len(b)+16)
		if n, _, err := dec.Transform(dst, b, false); err == nil || errors.Is(err, transform.ErrShortSrc) {
			return dst[:n]
		}
		dec.Reset()
	}
	out, err := dec.Bytes(b)
	if err != nil {
		return b
	}
	return out
}

// defaultCharsetFor is the encoding of a command's output when its exec
// block sets no charset and the system writes text in code page cp (see
// defaultCharset): output starting with a byte order mark is decoded as
// the mark says (UTF-16, as some PowerShell cmdlets write, or UTF-8), other
// output from the code page. Output in UTF-8 or in a code page toolhost
// does not know passes through as it is.
func defaultCharsetFor(cp uint32) encoding.Encoding {
	enc, ok := charset.ByCodePage(cp)
	if !ok || charset.IsUTF8(enc) {
		enc = encoding.Nop
	}
	return bomCharset{enc}
}

// bomCharset is an encoding whose decoder follows a byte order mark at the
// start of the text, and decodes text without one as the encoding it
// embeds.
type bomCharset struct{ encoding.Encoding }

// NewDecoder returns a decoder that reads a byte order mark, if any.
func (c bomCharset) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: unicode.BOMOverride(c.Encoding.NewDecoder())}
}

// pipe is an output pipe of a command: the command writes to w, and a
// goroutine copies what it reads from r to a writer.
type pipe struct {
	r, w *os.File
	done chan struct{}
}

// copyBuffers are the buffers the pipes copy through: io.Copy would
// allocate (and clear) 32 KiB for each pipe of each call.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// newPipe makes a pipe whose output goes to dst.
func newPipe(dst io.Writer) (*pipe, error) {
	r, w, err := outputPipe()
	if err != nil {
		return nil, err
	}
	p := &pipe{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := copyBuffers.Get().(*[]byte)
		defer copyBuffers.Put(buf)
		for {
			n, err := r.Read(*buf)
			if n > 0 {
				if _, werr := dst.Write((*buf)[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return p, nil
}

// started closes the parent's copy of the write end, once the command has
// its own (or failed to start): the reader sees the end of the output when
// every process holding the pipe has exited.
func (p *pipe) started() { _ = p.w.Close() }

// drain waits for the rest of the output, until deadline at most: a
// process that left the command's process group may hold the pipe open.
// After drain the writer is not written to any more.
func (p *pipe) drain(deadline time.Time) {
	select {
	case <-p.done: // the usual case: no timer needed
		return
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.r.Close()
		<-p.done
	}
}

// close releases both ends and waits for the copy to stop.
func (p *pipe) close() {
	_ = p.w.Close()
	_ = p.r.Close()
	<-p.done
}

// stdinPipe is the standard input of a command: a goroutine writes
// the input to w, the command reads r.
type stdinPipe struct {
	r, w *os.File
	once sync.Once
	done chan struct{}
}

// newStdinPipe makes a pipe that gives the command s.
func newStdinPipe(s string) (*stdinPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &stdinPipe{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		// A command that does not read all of it is no error.
		_, _ = io.WriteString(w, s)
		p.closeWrite()
	}()
	return p, nil
}

// started closes the parent's copy of the read end, once the command has
// its own (or failed to start).
func (p *stdinPipe) started() { _ = p.r.Close() }

// closeWrite closes the writing end, once.
func (p *stdinPipe) closeWrite() { p.once.Do(func() { _ = p.w.Close() }) }

// close ends the writing, should a process still hold the pipe without
// reading it, and waits for the writer to stop.
func (p *stdinPipe) close() {
	_ = p.r.Close()
	p.closeWrite()
	<-p.done
}

// capWriter keeps the first max bytes written to it and, of the rest,
// only about the last stderrKeep bytes (for the error message of a
// command that fails), so the writer never blocks and never grows past
// max by much.
type capWriter struct {
	buf       []byte
	max       int
	truncated bool
	rest      tailWriter // the end of what was cut; max set on first use
}

// Write keeps p up to the cap, and the end of what passes it, and reports
// it all written.
func (w *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	if room := w.max - len(w.buf); room > 0 {
		if len(p) <= room {
			w.buf = append(w.buf, p...)
			return n, nil
		}
		w.buf = append(w.buf, p[:room]...)
		p = p[room:]
	}
	if len(p) > 0 {
		w.truncated = true
		w.rest.max = stderrKeep
		_, _ = w.rest.Write(p)
	}
	return n, nil
}

// end returns about the last n bytes written, cut or not, and whether
// bytes written before them were dropped.
func (w *capWriter) end(n int) ([]byte, bool) {
	if !w.truncated {
		return w.buf, false
	}
	rest := w.rest.bytes()
	if len(rest) >= n {
		return rest, len(w.buf) > 0 || w.rest.dropped()
	}
	head := w.buf[max(0, len(w.buf)-(n-len(rest))):]
	return append(slices.Clip(head), rest...), len(head) < len(w.buf)
}

// tailWriter keeps about the last max bytes written to it.
type tailWriter struct {
	buf     []byte
	max     int
	written int64 // all the bytes written
}

// Write keeps the end of p, and reports it all written.
func (w *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.written += int64(n)
	if len(p) > w.max {
		p = p[len(p)-w.max:]
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return n, nil
}

// bytes returns what is kept, the oldest first.
func (w *tailWriter) bytes() []byte {
	if len(w.buf) > w.max {
		return w.buf[len(w.buf)-w.max:]
	}
	return w.buf
}

// dropped reports whether bytes written before those bytes returns were
// dropped.
func (w *tailWriter) dropped() bool { return w.written > int64(len(w.bytes())) }

// stderrWriter takes a command's standard error: it keeps its end for error
// messages, and, line by line, reports progress lines ("::progress 40/100
// Downloading") and forwards the other lines as log messages when the tool
// says stderr_log. Progress lines are left out of error messages.
type stderrWriter struct {
	tail   tailWriter
	report adapters.Reporter
	level  string // "" forwards no log lines
	// redact hides the secrets in a log line or a progress message and
	// cuts it to n bytes (see RedactHead); cut says the text was cut
	// already.
	redact func(text string, n int, cut bool) (string, bool)
	// maskEnd hides what the end of a line cut short holds of a secret,
	// before it goes into the tail.
	maskEnd func(raw string) string
	// decode turns a line in the command's charset into UTF-8, for log
	// messages and progress; nil when the command writes UTF-8.
	decode func([]byte) []byte
	line   []byte // the line read so far
	long   bool   // the line grew past stderrLineRead
}

const (
	// stderrLine caps a line that is forwarded, and a progress
	// message; the rest of a longer line is dropped from the log message.
	stderrLine = 4 << 10
	// stderrLineRead is how much of a line is read: past
	// stderrLine by the longest lookahead of RedactHead, so that the
	// secrets are masked before the line is cut, and a secret the cut
	// falls inside is masked whole. The rest of a longer line is dropped.
	stderrLineRead = stderrLine + redact.MaxLookahead
)

// progressPrefix starts a progress line on standard error.
const progressPrefix = "::progress "

// Write splits p into lines and hands each whole one to endLine.
func (w *stderrWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := stderrLineRead - len(w.line); room > 0 {
			if len(chunk) > room {
				w.line = append(w.line, chunk[:room]...)
				w.long = true
			} else {
				w.line = append(w.line, chunk...)
			}
		} else if len(chunk) > 0 {
			w.long = true
		}
		if i < 0 {
			break
		}
		w.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// flush ends the last line when the command did not end it with a newline.
func (w *stderrWriter) flush() {
	if len(w.line) > 0 {
		w.endLine()
	}
}

// endLine reports the line held, as progress or as a log line, and
// empties it.
func (w *stderrWriter) endLine() {
	raw := strings.TrimRight(string(w.line), "\r")
	long := w.long
	w.line, w.long = w.line[:0], false
	// The tail keeps the bytes as written; lastWords decodes it whole.
	line := raw
	if w.decode != nil {
		line = string(w.decode([]byte(raw)))
	}
	if rest, ok := strings.CutPrefix(line, progressPrefix); ok {
		if prog, total, msg, ok := ParseProgress(rest); ok {
			if w.report != nil {
				msg = strings.ToValidUTF8(msg, "\uFFFD")
				if msg != "" {
					msg, _ = w.cut(msg, long)
				}
				w.report.Progress(prog, total, msg)
			}
			return
		}
	}
	if long && w.maskEnd != nil {
		raw = w.maskEnd(raw)
	}
	_, _ = w.tail.Write([]byte(raw + "\n"))
	if w.report == nil || w.level == "" || strings.TrimSpace(line) == "" {
		return
	}
	line = strings.ToValidUTF8(line, "\uFFFD")
	line, cut := w.cut(line, long)
	if cut || long {
		line += " [line truncated]"
	}
	w.report.Log(w.level, line)
}

// cut returns text, a log line or a progress message, with the secrets
// hidden and cut to stderrLine, and whether it was cut; long says the
// line was cut already.
func (w *stderrWriter) cut(text string, long bool) (string, bool) {
	if w.redact != nil {
		return w.redact(text, stderrLine, long)
	}
	if len(text) > stderrLine {
		return text[:redact.RuneStartBefore(text, stderrLine)], true
	}
	return text, false
}

// ParseProgress parses what follows "::progress " on a command's standard
// error: "N", "N/TOTAL" or "N%", then an optional message. N and TOTAL are
// non-negative numbers; a percentage is N out of 100.
func ParseProgress(s string) (progress, total float64, message string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	num, message, _ := strings.Cut(s, " ")
	message = strings.TrimSpace(message)
	parse := func(x string) (float64, bool) {
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil && f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	switch {
	case strings.HasSuffix(num, "%"):
		progress, ok = parse(strings.TrimSuffix(num, "%"))
		total = 100
	case strings.Contains(num, "/"):
		a, b, _ := strings.Cut(num, "/")
		var ok2 bool
		progress, ok = parse(a)
		total, ok2 = parse(b)
		ok = ok && ok2 && total > 0
	default:
		progress, ok = parse(num)
	}
	return progress, total, message, ok
}

// lastPart returns tail, the end of a longer text when cut (of at most
// stderrShown bytes), trimmed and starting at a line when it can.
func lastPart(tail string, cut bool) string {
	if !cut {
		return tail
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 && i < stderrShown/2 {
		tail = tail[i+1:]
	}
	return "…" + strings.TrimSpace(tail)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, left
// there by cutting output at the size cap.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

var _ io.Writer = (*stderrWriter)(nil)
var _ io.Writer = (*capWriter)(nil)
var _ io.Writer = (*tailWriter)(nil)
