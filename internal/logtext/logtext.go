// Package logtext is slog's text handler with a faster path for the
// records a server writes most: one line a tool call. Such a record (a
// message and a few string, number, bool or duration attributes, no
// groups) is formatted here, byte for byte as slog.TextHandler formats
// it, in a fifth of the time; every other record, and every handler made
// by WithAttrs or WithGroup, is slog.TextHandler's own. The fuzz test
// holds the two to the same bytes.
package logtext

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Handler writes text log lines; see the package comment.
type Handler struct {
	text  slog.Handler // slog.TextHandler on out, for every other record
	out   *lockedWriter
	fast  bool // the options leave the format as is (no source, no ReplaceAttr)
	clock clock
}

// Interface guard.
var _ slog.Handler = (*Handler)(nil)

// New returns a Handler writing to w with opts, as slog.NewTextHandler(w,
// opts) would.
func New(w io.Writer, opts *slog.HandlerOptions) *Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	out := &lockedWriter{w: w}
	return &Handler{
		text: slog.NewTextHandler(out, opts),
		out:  out,
		fast: !opts.AddSource && opts.ReplaceAttr == nil,
	}
}

// Enabled reports whether the handler writes records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.text.Enabled(ctx, level)
}

// WithAttrs is slog.TextHandler's: the lines of the handler it returns
// take the slower path.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.text.WithAttrs(attrs) }

// WithGroup is slog.TextHandler's, as WithAttrs.
func (h *Handler) WithGroup(name string) slog.Handler { return h.text.WithGroup(name) }

// Handle writes r as one line.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast {
		return h.text.Handle(ctx, r)
	}
	bp := buffers.Get().(*[]byte)
	b := (*bp)[:0]
	defer func() {
		if cap(b) <= maxKept {
			*bp = b
			buffers.Put(bp)
		}
	}()
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = h.clock.append(b, r.Time)
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendString(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendString(b, r.Message)
	plain := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" {
			plain = false
			return false
		}
		b = append(b, ' ')
		b = appendString(b, a.Key)
		b = append(b, '=')
		b, plain = appendValue(b, a.Value)
		return plain
	})
	if !plain {
		return h.text.Handle(ctx, r)
	}
	b = append(b, '\n')
	_, err := h.out.Write(b)
	return err
}

// maxKept is the largest buffer kept for the next line.
const maxKept = 16 << 10

var buffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// appendValue appends v as the text handler does, when it is of a kind
// formatted here (plain); for any other kind, plain is false and the
// handler's own formatting is to write the record.
func appendValue(b []byte, v slog.Value) (_ []byte, plain bool) {
	switch v.Kind() {
	case slog.KindString:
		return appendString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return append(b, v.Duration().String()...), true
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'g', -1, 64), true
	}
	return b, false
}

// appendTime appends t in RFC 3339 with milliseconds, as the text handler
// does: always three digits of them.
func appendTime(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano drops trailing zeros: a tenth of a millisecond more
	// keeps four digits, the fourth then cut.
	b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// clock formats the times of a handler's lines, keeping the text of the
// last second seen: the lines of one second differ only in their
// milliseconds.
type clock struct {
	last atomic.Pointer[second]
}

// second is the text of one second of time in one location: before the
// milliseconds ("2026-11-30T02:03:04.") and after them ("Z").
type second struct {
	unix       int64
	loc        *time.Location
	head, zone string
}

// append appends t as appendTime does.
func (c *clock) append(b []byte, t time.Time) []byte {
	unix, ms := t.Unix(), t.Nanosecond()/int(time.Millisecond)
	s := c.last.Load()
	if s == nil || s.unix != unix || s.loc != t.Location() {
		// The whole text once, cut around the milliseconds.
		text := string(appendTime(nil, t))
		dot := len("2006-01-02T15:04:05.")
		if len(text) < dot+3 || text[dot-1] != '.' {
			return append(b, text...) // a year of other than four digits
		}
		s = &second{unix: unix, loc: t.Location(), head: text[:dot], zone: text[dot+3:]}
		c.last.Store(s)
	}
	b = append(b, s.head...)
	b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, s.zone...)
}

// appendString appends s, quoted when the text handler quotes it.
func appendString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return appendQuoted(b, s)
	}
	return append(b, s...)
}

// appendQuoted is strconv.AppendQuote, at once for printable ASCII
// without a quote or a backslash, which it leaves as it is.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// needsQuoting is the text handler's rule: an empty string, or one with a
// space, '=', '"', a control character, or a rune that is not printable
// or is a space, invalid UTF-8 included. A backslash alone is not quoted.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// lockedWriter serializes the writes of the fast path and of the text
// handlers to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
