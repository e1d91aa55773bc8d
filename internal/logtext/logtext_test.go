package logtext

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// same writes r through a Handler and through slog.TextHandler, and
// fails when the lines differ.
func same(t *testing.T, opts *slog.HandlerOptions, r slog.Record) {
	t.Helper()
	var got, want bytes.Buffer
	if err := New(&got, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&want, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("line differs from slog.TextHandler's\n got: %q\nwant: %q", got.String(), want.String())
	}
}

func TestHandlerAsText(t *testing.T) {
	at := time.Date(2026, 11, 30, 2, 3, 4, 5_000_000, time.UTC)
	for _, c := range []struct {
		name  string
		time  time.Time
		level slog.Level
		msg   string
		attrs []slog.Attr
		opts  *slog.HandlerOptions
	}{
		{name: "tool call", time: at, msg: "tool call", attrs: []slog.Attr{
			slog.String("tool", "say_hello"), slog.String("outcome", "ok"), slog.Duration("duration", 12345*time.Nanosecond)}},
		{name: "no time", msg: "m", attrs: []slog.Attr{slog.Int("n", -3)}},
		{name: "whole second", time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), msg: "m"},
		{name: "quoted", time: at, level: slog.LevelWarn, msg: "tool call failed", attrs: []slog.Attr{
			slog.String("error", "bad \"value\"\nline"), slog.String("a=b", ""), slog.String("path", `C:\tools`)}},
		{name: "numbers", time: at, level: slog.LevelDebug, msg: "m", attrs: []slog.Attr{
			slog.Uint64("u", 18446744073709551615), slog.Float64("f", 1e21), slog.Float64("g", 0.5), slog.Bool("b", true)}},
		{name: "odd level", time: at, level: slog.LevelInfo + 2, msg: "m"},
		{name: "unicode", time: at, msg: "héllo", attrs: []slog.Attr{slog.String("k", "a\u00a0b"), slog.String("z", "\x7f"), slog.String("bad", "\xff")}},
		{name: "group: slog's path", time: at, msg: "m", attrs: []slog.Attr{slog.Group("g", slog.String("a", "b"))}},
		{name: "time value: slog's path", time: at, msg: "m", attrs: []slog.Attr{slog.Time("t", at)}},
		{name: "any: slog's path", time: at, msg: "m", attrs: []slog.Attr{slog.Any("e", io.EOF)}},
		{name: "empty key: slog's path", time: at, msg: "m", attrs: []slog.Attr{slog.String("", "v")}},
		{name: "ReplaceAttr: slog's path", time: at, msg: "m", attrs: []slog.Attr{slog.String("k", "v")},
			opts: &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == "k" {
					a.Value = slog.StringValue("replaced")
				}
				return a
			}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := slog.NewRecord(c.time, c.level, c.msg, 0)
			r.AddAttrs(c.attrs...)
			same(t, c.opts, r)
		})
	}
}

// TestHandlerClock writes the lines of several seconds through one
// handler, whose clock keeps each second's text, in two locations.
func TestHandlerClock(t *testing.T) {
	var got, want bytes.Buffer
	h, text := New(&got, nil), slog.NewTextHandler(&want, nil)
	start := time.Date(2026, 3, 29, 0, 59, 58, 999_000_000, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	for i := range 3000 {
		at := start.Add(time.Duration(i) * 1700 * time.Microsecond)
		if i%7 == 0 {
			at = at.In(paris) // across the change to summer time
		}
		r := slog.NewRecord(at, slog.LevelInfo, "tool call", 0)
		r.AddAttrs(slog.Int("i", i))
		_ = h.Handle(context.Background(), r)
		_ = text.Handle(context.Background(), r)
	}
	if got.String() != want.String() {
		g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d: got %q, want %q", i, g[i], w[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(g), len(w))
	}
}

func TestHandlerLevels(t *testing.T) {
	var lv slog.LevelVar
	lv.Set(slog.LevelWarn)
	var out bytes.Buffer
	h := New(&out, &slog.HandlerOptions{Level: &lv})
	if h.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("info enabled at warn")
	}
	lv.Set(slog.LevelDebug)
	if !h.Enabled(context.Background(), slog.LevelDebug) {
		t.Error("debug not enabled once the level var says debug")
	}
}

func TestHandlerWithAttrs(t *testing.T) {
	var got, want bytes.Buffer
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "m", 0)
	r.AddAttrs(slog.String("k", "v"))
	_ = New(&got, nil).WithAttrs([]slog.Attr{slog.String("a", "b")}).WithGroup("g").Handle(context.Background(), r)
	_ = slog.NewTextHandler(&want, nil).WithAttrs([]slog.Attr{slog.String("a", "b")}).WithGroup("g").Handle(context.Background(), r)
	if got.String() != want.String() || got.Len() == 0 {
		t.Errorf("got %q, want %q", got.String(), want.String())
	}
}

// TestHandlerWholeLines writes from many goroutines, through the fast
// path and slog's, to a writer that is not safe for concurrent use: every
// line comes out whole.
func TestHandlerWholeLines(t *testing.T) {
	var out bytes.Buffer
	h := New(&out, nil)
	logger := slog.New(h).With("via", "slog")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				if i%2 == 0 {
					logger.Info("tool call", "tool", strings.Repeat("x", 100))
				} else {
					r := slog.NewRecord(time.Now(), slog.LevelInfo, "tool call", 0)
					r.AddAttrs(slog.String("tool", strings.Repeat("y", 100)))
					_ = h.Handle(context.Background(), r)
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1600 {
		t.Fatalf("%d lines, want 1600", len(lines))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, strings.Repeat("x", 100)) && !strings.HasSuffix(l, strings.Repeat("y", 100)) {
			t.Fatalf("line mixed with another: %q", l)
		}
	}
}

func FuzzHandlerAsText(f *testing.F) {
	f.Add("tool call", "tool", "say_hello", int64(12345), int64(1764468184005000000), 0.5, uint8(0))
	f.Add("", "", "", int64(-1), int64(0), 1e300, uint8(7))
	f.Add("a b", "x=y", "\"q\"\\\t", int64(0), int64(1), -0.0, uint8(255))
	f.Fuzz(func(t *testing.T, msg, key, val string, n, nanos int64, fl float64, level uint8) {
		var at time.Time
		if nanos != 0 {
			at = time.Unix(0, nanos).In(time.FixedZone("z", int(n%50000)))
		}
		r := slog.NewRecord(at, slog.Level(int8(level)), msg, 0)
		r.AddAttrs(slog.String(key, val), slog.Int64(key+"n", n), slog.Duration("d", time.Duration(n)),
			slog.Float64("f", fl), slog.Bool(val, n%2 == 0), slog.Uint64("u", uint64(n)))
		same(t, nil, r)
	})
}

func BenchmarkHandle(b *testing.B) {
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{{"logtext", New(io.Discard, nil)}, {"slog", slog.NewTextHandler(io.Discard, nil)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "tool call", 0)
				r.AddAttrs(slog.String("tool", "say_hello"), slog.String("outcome", "ok"), slog.Duration("duration", 12345*time.Nanosecond))
				_ = c.h.Handle(ctx, r)
			}
		})
	}
}
