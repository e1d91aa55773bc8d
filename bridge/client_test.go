package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/bridge"
	"github.com/toolhost/toolhost/bridge/bridgetest"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/testconfig"
)

// tlog is a log writer to t.Log.
type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// loadServer compiles src into a host.Server.
func loadServer(t *testing.T, src string) (*host.Server, string) {
	t.Helper()
	return loadServerIn(t, t.TempDir(), src)
}

// loadServerIn is loadServer with the config written in dir, beside the
// files it names. "[PROGRAM" in src starts the command of exec tools that
// run this test binary as a program (testconfig.RunProgram).
func loadServerIn(t *testing.T, dir, src string) (*host.Server, string) {
	t.Helper()
	p := filepath.Join(dir, "tools.hcl")
	src = strings.ReplaceAll(src, "[PROGRAM", strings.TrimSuffix(testconfig.ProgramList(), "]"))
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := host.Load([]string{p}, nil)
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	srv := host.NewServer(reg, slog.New(slog.NewTextHandler(tlog{t}, nil)))
	t.Cleanup(func() {
		srv.Registry().Retire()
		// What a test leaves running (a cancelled call's command, within
		// its kill_timeout) ends before dir, its working directory, is
		// removed: Windows removes no process's working directory.
		adapters.KillCommands()
		ctx, cancel := context.WithTimeout(context.Background(), bridgetest.Timeout)
		defer cancel()
		adapters.WaitCommands(ctx)
	})
	return srv, p
}

// running is a bridge.Client running against a test server.
type running struct {
	client *bridge.Client
	cancel context.CancelFunc
	done   chan error
}

// startClient runs a client for srv against ts until the test ends.
func startClient(t *testing.T, srv *host.Server, ts *bridgetest.Server, opts func(*bridge.Client)) *running {
	t.Helper()
	c := &bridge.Client{
		Addr:       ts.Addr,
		Server:     srv,
		Logger:     slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 100 * time.Millisecond,
	}
	if opts != nil {
		opts(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{client: c, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- c.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels the client and waits for Run to return nil.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
		r.done <- nil // later stops return at once
	case <-time.After(bridgetest.Timeout):
		t.Fatal("Run did not return after cancel")
	}
}

const toolsConfig = `
tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello ${param.name}" }
}
tool "defaults" {
  description = "has defaults"
  param "n" {
    type    = integer
    default = 3
    maximum = 10
  }
  template { text = "n=${param.n}" }
}
tool "structured" {
  description = "returns an object"
  exec { command = [PROGRAM, "print", "{\"a\":1,\"b\":\"x##END\"}"] }
  result {
    field "a" {
      path = "a"
      type = number
    }
    field "b" {
      path = "b"
      type = string
    }
  }
}
tool "fail" {
  description = "exits 3"
  exec { command = [PROGRAM, "stderr", "broken", "exit", "3"] }
}
tool "big" {
  description = "prints many bytes"
  exec { command = [PROGRAM, "repeat", "20000", "x"] }
}
tool "gate" {
  description = "waits for a file, then answers with its label"
  param "dir" { type = string }
  param "label" { type = string }
  exec {
    command = [PROGRAM, "touch", "${param.dir}/${param.label}.started", "await", "${param.dir}/${param.label}.go", "print", param.label]
    timeout = "60s"
  }
}
`

// TestSeedSession replays the seed document's example session byte for
// byte: toolhost registers get_current_time, the server sends the call as
// the document writes it, then the text and end frames of its reply to the
// user, which toolhost must ignore.
func TestSeedSession(t *testing.T) {
	src, err := os.ReadFile("testdata/seed-session.txt")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := bridgetest.ParseSession(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 7 {
		t.Fatalf("the seed session has %d frames, want 7", len(steps))
	}
	seedRegister, seedCall, seedResult := steps[0].Frame, steps[3].Frame, steps[4].Frame
	srv, _ := loadServer(t, `
tool "get_current_time" {
  description = "获取当前时间"
  param "format" {
    type    = string
    enum    = ["simple", "detailed"]
    default = "simple"
  }
  template {
    text = param.format == "simple" ? formatdate("YYYY-MM-DD hh:mm:ss", now()) : formatdate("EEEE, DD MMMM YYYY hh:mm:ss ZZZ", now())
  }
}
`)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()

	// 1. The register frame: the seed's header, and JSON that says at
	// least everything the seed's says.
	reg := conn.Next()
	raw := conn.Raw()
	const header = "##START\x06mcp00001[0000]"
	if !bytes.HasPrefix(raw, []byte(header)) || !bytes.HasPrefix(seedRegister, []byte(header)) {
		t.Fatalf("register frame starts %q, want %q", raw[:min(len(raw), 30)], header)
	}
	if !bytes.HasSuffix(raw, []byte("}##END")) {
		t.Fatalf("register frame ends %q", raw[max(0, len(raw)-20):])
	}
	wantReg := payloadJSON(t, seedRegister)
	gotReg := decodeJSON(t, reg.Payload)
	if p := subset(wantReg, gotReg, ""); p != "" {
		t.Fatalf("register message lacks what the seed's has: %s\ngot %s", p, reg.Payload)
	}

	// 3. The server's call, byte for byte.
	conn.Send(seedCall)

	// 4. The result: the seed's header, the same shape, a time in the
	// seed's format.
	res := conn.Next()
	if !bytes.HasPrefix(seedResult, []byte(header)) {
		t.Fatalf("the seed's result frame starts %q", seedResult[:30])
	}
	resFrame := append(append([]byte(header), res.Payload...), "##END"...)
	if raw := conn.Raw(); !bytes.Equal(raw[len(raw)-len(resFrame):], resFrame) {
		t.Fatalf("the result frame on the wire is not %q: %q", header+"JSON##END", raw)
	}
	gotRes := decodeJSON(t, res.Payload)
	data := gotRes["data"].(map[string]any)["result"].(map[string]any)["data"]
	if s, _ := data.(string); !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(s) {
		t.Fatalf("data = %v, want a time like the seed's 2025-01-22 14:30:25", data)
	}
	wantRes := payloadJSON(t, seedResult)
	wantRes["data"].(map[string]any)["result"].(map[string]any)["data"] = data
	if !reflect.DeepEqual(gotRes, wantRes) {
		t.Fatalf("result message = %s, want the seed's shape %v", res.Payload, wantRes)
	}

	// 5. The server's text and end frames for the user produce nothing:
	// the next frame answers the call after them.
	conn.Send(steps[5].Frame)
	conn.Send(steps[6].Frame)
	conn.Call("barrier", "get_current_time", map[string]any{"format": "detailed"})
	last := conn.Next()
	if id := decodeJSON(t, last.Payload)["data"].(map[string]any)["call_id"]; id != "barrier" {
		t.Fatalf("after the text frames toolhost sent %s", last.Payload)
	}
	// Everything toolhost sent is exactly these three frames.
	var all []byte
	for _, f := range []bridge.Frame{reg, res, last} {
		b, err := bridge.EncodeFrame(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if raw := conn.Raw(); !bytes.Equal(raw, all) {
		t.Fatalf("toolhost sent %q, want exactly the frames %q", raw, all)
	}
}

// payloadJSON decodes the JSON payload of a raw MCP frame.
func payloadJSON(t *testing.T, frame []byte) map[string]any {
	t.Helper()
	f, err := bridge.NewDecoder(bytes.NewReader(frame), 0).Next()
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, f.Payload)
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

// subset returns where want has something got has not, or "".
func subset(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		for k, v := range w {
			if p := subset(v, g[k], path+"."+k); p != "" {
				return p
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: %v, want %v", path, got, want)
		}
		return ""
	}
}

// TestRegisterOverFrameLimit: a register frame over the bridge's own
// --max-frame is still sent (the server's limit may be larger), with a
// warning that says what a server with the same limit will do and the fix.
func TestRegisterOverFrameLimit(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	logs := &logBuffer{}
	startClient(t, srv, ts, func(c *bridge.Client) {
		c.MaxFrame = 256
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	conn := ts.Accept()
	conn.NextRegister()
	logs.waitFor(t, "the register frame is larger than --max-frame", "max_frame=256", "raise --max-frame")
}

func TestRegister(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.TaskID = "dev12345" })
	conn := ts.Accept()
	f, m := conn.NextMessage()
	if f.TaskID != "dev12345" || f.Seq != "0000" || !f.Bracketed || m.Type != "register" {
		t.Fatalf("register frame: %+v %s", f, m.Type)
	}
	// The services are in the config's order.
	var order []string
	dec := json.NewDecoder(bytes.NewReader(m.Data))
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 2 && dec.More() {
				order = append(order, v)
				var skip json.RawMessage
				_ = dec.Decode(&skip)
			}
		}
	}
	want := []string{"hello", "defaults", "structured", "fail", "big", "gate"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("services in order %v, want %v", order, want)
	}
	var s bridgetest.Services
	_ = json.Unmarshal(m.Data, &s)
	hello := s.Services["hello"]
	if hello.Description != "greets" {
		t.Errorf("description = %q", hello.Description)
	}
	var params map[string]any
	_ = json.Unmarshal(hello.Parameters, &params)
	if params["type"] != "object" || !reflect.DeepEqual(params["required"], []any{"name"}) {
		t.Errorf("parameters = %s", hello.Parameters)
	}
	for _, tool := range srv.Registry().Tools {
		if string(s.Services[tool.Name].Parameters) != string(tool.InputSchema.(json.RawMessage)) {
			t.Errorf("%s: parameters %s, want the inputSchema %s", tool.Name, s.Services[tool.Name].Parameters, tool.InputSchema)
		}
	}
}

func TestCalls(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.MaxFrame = 8 << 10 })
	conn := ts.Accept()
	conn.NextRegister()
	for _, tc := range []struct {
		name   string
		data   map[string]any // the call's data; call_id is added
		ok     bool
		result string // JSON of data when ok; a substring of error when not
	}{
		{name: "text result", data: map[string]any{"method": "hello", "params": map[string]any{"name": "世界"}}, ok: true, result: `"hello 世界"`},
		{name: "structured result is the object", data: map[string]any{"method": "structured", "params": map[string]any{}}, ok: true, result: `{"a":1,"b":"x##END"}`},
		{name: "##END in arguments and result", data: map[string]any{"method": "hello", "params": map[string]any{"name": "a##END b"}}, ok: true, result: `"hello a##END b"`},
		{name: "params absent", data: map[string]any{"method": "defaults"}, ok: true, result: `"n=3"`},
		{name: "params null", data: map[string]any{"method": "defaults", "params": nil}, ok: true, result: `"n=3"`},
		{name: "tool error", data: map[string]any{"method": "fail", "params": map[string]any{}}, result: "status 3"},
		{name: "invalid argument", data: map[string]any{"method": "defaults", "params": map[string]any{"n": 99}}, result: `invalid argument "n": 99 is greater than the maximum 10`},
		{name: "missing argument", data: map[string]any{"method": "hello", "params": map[string]any{}}, result: `"name"`},
		{name: "unknown method", data: map[string]any{"method": "nope", "params": map[string]any{}}, result: `unknown service "nope"; the services are: hello, defaults, structured, fail, big, gate`},
		{name: "no method", data: map[string]any{"params": map[string]any{}}, result: "the call has no method"},
		{name: "method not a string", data: map[string]any{"method": 5}, result: "the call has no method"},
		{name: "params not an object", data: map[string]any{"method": "hello", "params": []any{"x"}}, result: "params must be a JSON object"},
		{name: "result over the frame cap", data: map[string]any{"method": "big", "params": map[string]any{}}, result: "larger than the frame limit of 8192 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := conn.For(t)
			id := strings.ReplaceAll(tc.name, " ", "_")
			tc.data["call_id"] = id
			conn.SendMessage("mcp00001", "0000", map[string]any{"type": "call", "data": tc.data})
			f, m := conn.NextMessage()
			var r bridgetest.Result
			if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" {
				t.Fatalf("not a result: %s %s", m.Type, m.Data)
			}
			if r.CallID != id || f.TaskID != "mcp00001" || f.Seq != "0000" {
				t.Fatalf("result for %q on %s[%s], want %q", r.CallID, f.TaskID, f.Seq, id)
			}
			// No "##" inside the payload: a server that looks for the first
			// "##END" finds the real end.
			if bytes.Contains(f.Payload, []byte("##")) {
				t.Errorf("payload contains ##: %s", f.Payload)
			}
			if r.Result.Success != tc.ok {
				t.Fatalf("success = %v, want %v: %s", r.Result.Success, tc.ok, m.Data)
			}
			if tc.ok {
				if !jsonEqual(r.Result.Data, []byte(tc.result)) {
					t.Fatalf("data = %s, want %s", r.Result.Data, tc.result)
				}
				if r.Result.Error != "" {
					t.Fatalf("error %q on success", r.Result.Error)
				}
				return
			}
			if !strings.Contains(r.Result.Error, tc.result) {
				t.Fatalf("error = %q, want it to contain %q", r.Result.Error, tc.result)
			}
			if r.Result.Data != nil {
				t.Fatalf("data %s on failure", r.Result.Data)
			}
		})
	}
	t.Run("numeric call_id comes back as a number", func(t *testing.T) {
		conn := conn.For(t)
		conn.SendMessage("mcp00001", "0000", map[string]any{"type": "call", "data": map[string]any{"call_id": 42, "method": "defaults"}})
		_, m := conn.NextMessage()
		if !bytes.Contains(m.Data, []byte(`"call_id":42`)) {
			t.Fatalf("result data %s", m.Data)
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestFramingRobustness sends what a sloppy or hostile server might, each
// followed by a call on the same connection, which must be answered next:
// nothing drops the connection, and nothing is answered that should not be.
func TestFramingRobustness(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.MaxFrame = 4096 })
	conn := ts.Accept()
	conn.NextRegister()
	callFrame := func(task, seq, id, name string) string {
		n, _ := json.Marshal(name)
		return fmt.Sprintf("##START\x06%s%s{\"type\":\"call\",\"data\":{\"call_id\":%q,\"method\":\"hello\",\"params\":{\"name\":%s}}}##END", task, seq, id, n)
	}
	for i, tc := range []struct {
		name   string
		writes []string // written one by one
		want   []string // call ids answered before the barrier, in any order
	}{
		{name: "junk between frames", writes: []string{"\x00garbage\r\n"}},
		{name: "malformed JSON", writes: []string{"##START\x06mcp00001[0000]{\"type\":\"call\",##END"}},
		{name: "not a message", writes: []string{"##START\x06mcp00001[0000][1,2]##END", "##START\x06mcp00001[0000]hello##END"}},
		// Answered with an error (TestOversizedCallAnswered), not run.
		{name: "oversized frame", writes: []string{callFrame("mcp00001", "[0000]", "huge", strings.Repeat("x", 10000))}, want: []string{"huge"}},
		// Its call_id comes after the bytes the decoder keeps: no answer.
		{name: "oversized frame, call_id late", writes: []string{`##START` + "\x06" + `mcp00001[0000]{"type":"call","data":{"params":{"name":"` + strings.Repeat("x", 10000) + `"},"call_id":"late"}}##END`}},
		{name: "truncated frame header", writes: []string{"##START\x06mcp"}},
		{name: "frame split across writes", writes: splitEvery(callFrame("mcp00001", "[0000]", "split", "s"), 7), want: []string{"split"}},
		{name: "several frames in one write", writes: []string{callFrame("mcp00001", "[0000]", "one", "1") + callFrame("mcp00001", "[0000]", "two", "2")}, want: []string{"one", "two"}},
		{name: "##END inside a JSON string", writes: []string{callFrame("mcp00001", "[0000]", "end", "x##END##START ##END")}, want: []string{"end"}},
		{name: "bare sequence number", writes: []string{callFrame("mcp00001", "0007", "bare", "b")}, want: []string{"bare"}},
		{name: "text and end frames of other tasks", writes: []string{"##START\x04task12340000现在几点了?##END##START\x03task12340001##END"}},
		{name: "text frame of our own task", writes: []string{"##START\x04mcp00001[0003]hello##END"}},
		{name: "unknown frame type", writes: []string{"##START\x01task12340000\x00\x01##END"}},
		{name: "call without call_id", writes: []string{`##START` + "\x06" + `mcp00001[0000]{"type":"call","data":{"method":"hello","params":{"name":"x"}}}##END`}},
		{name: "call with data not an object", writes: []string{`##START` + "\x06" + `mcp00001[0000]{"type":"call","data":"x"}##END`}},
		{name: "other message types", writes: []string{`##START` + "\x06" + `mcp00001[0000]{"type":"ack","data":{}}##END`, `##START` + "\x06" + `mcp00001[0000]{"type":"result","data":{"call_id":"c"}}##END`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := conn.For(t)
			for _, w := range tc.writes {
				conn.Send([]byte(w))
			}
			barrier := fmt.Sprintf("barrier%d", i)
			conn.Send([]byte(callFrame("mcp00001", "[0000]", barrier, "b")))
			got := map[string]bridge.Frame{}
			for len(got) < len(tc.want)+1 {
				f, m := conn.NextMessage()
				var r bridgetest.Result
				if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" {
					t.Fatalf("not a result: %s %s", m.Type, m.Data)
				}
				got[r.CallID] = f
			}
			for _, id := range append(tc.want, barrier) {
				if _, ok := got[id]; !ok {
					t.Fatalf("answered %v, want %v and %s", keys(got), tc.want, barrier)
				}
			}
			if f, ok := got["bare"]; ok && (f.Seq != "0007" || !f.Bracketed) {
				t.Errorf("the answer to a bare 0007 call went out as %q bracketed=%v, want [0007]", f.Seq, f.Bracketed)
			}
		})
	}
	if skips := conn.Skips(); len(skips) > 0 {
		t.Fatalf("toolhost sent bytes outside frames: %v", skips)
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitFile waits for a file to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(bridgetest.Timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentCallsOutOfOrder starts several calls that each wait for a
// file, then releases them in reverse order: each result comes as soon as
// its call is released, matched by call_id.
func TestConcurrentCallsOutOfOrder(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	const n = 5
	for i := range n {
		conn.Call(fmt.Sprintf("c%d", i), "gate", map[string]any{"dir": dir, "label": fmt.Sprintf("L%d", i)})
	}
	for i := range n {
		waitFile(t, filepath.Join(dir, fmt.Sprintf("L%d.started", i)))
	}
	for i := n - 1; i >= 0; i-- {
		touch(t, filepath.Join(dir, fmt.Sprintf("L%d.go", i)))
		r := conn.NextResult()
		if want := fmt.Sprintf("c%d", i); r.CallID != want || r.Text(t) != fmt.Sprintf("L%d", i) {
			t.Fatalf("got result %s %s, want %s", r.CallID, r.Result.Data, want)
		}
	}
}

// TestReconnectAfterDrop drops the connection: the client comes back and
// registers again.
func TestReconnectAfterDrop(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	for i := range 3 {
		conn := ts.Accept()
		if s := conn.NextRegister(); len(s.Services) != 6 {
			t.Fatalf("connection %d: registered %d services", i, len(s.Services))
		}
		conn.Call("c", "hello", map[string]any{"name": fmt.Sprint(i)})
		if r := conn.NextResult(); r.Text(t) != fmt.Sprintf("hello %d", i) {
			t.Fatalf("connection %d: %+v", i, r)
		}
		conn.Close()
	}
}

// TestReconnectAfterRestart stops the server, so that connections are
// refused for a while, then starts it again at the same address.
func TestReconnectAfterRestart(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()
	addr := ts.Addr
	ts.Close()
	conn.Close()
	ts = bridgetest.NewServerAt(t, addr)
	conn = ts.Accept()
	conn.NextRegister()
	conn.Call("after-restart", "hello", map[string]any{"name": "back"})
	if r := conn.NextResult(); r.Text(t) != "hello back" {
		t.Fatalf("after the restart: %+v", r)
	}
}

// TestReregister applies a new registry, as a reload does, and registers
// again on the live connection.
func TestReregister(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()

	newSrc := `
tool "fresh" {
  description = "new after the reload"
  template { text = "fresh" }
}
`
	p := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(p, []byte(newSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, diags := host.Load([]string{p}, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	old, _ := srv.Apply(reg)
	old.Retire()
	if err := run.client.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := conn.NextRegister()
	if len(s.Services) != 1 || s.Services["fresh"].Description != "new after the reload" {
		t.Fatalf("re-registered %+v", s.Services)
	}
	conn.Call("f", "fresh", nil)
	if r := conn.NextResult(); r.Text(t) != "fresh" {
		t.Fatalf("fresh: %+v", r)
	}
	conn.Call("h", "hello", map[string]any{"name": "x"})
	if r := conn.NextResult(); r.Result.Success || !strings.Contains(r.Result.Error, `unknown service "hello"; the services are: fresh`) {
		t.Fatalf("removed tool: %+v", r)
	}

	run.stop(t)
	if err := run.client.Register(context.Background()); !errors.Is(err, bridge.ErrNotConnected) {
		t.Fatalf("Register after stop = %v, want ErrNotConnected", err)
	}
}

// TestShutdown cancels the client while a call runs: the call still
// finishes and its result is sent, then the connection closes and Run
// returns nil.
func TestShutdown(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, func(c *bridge.Client) { c.ShutdownGrace = time.Minute })
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("inflight", "gate", map[string]any{"dir": dir, "label": "x"})
	waitFile(t, filepath.Join(dir, "x.started"))
	run.cancel()
	touch(t, filepath.Join(dir, "x.go"))
	if r := conn.NextResult(); r.CallID != "inflight" || r.Text(t) != "x" {
		t.Fatalf("in-flight call: %+v", r)
	}
	conn.WaitClosed()
	run.stop(t)
}

// TestRunRejectsBadTaskID checks the task id before connecting.
func TestRunRejectsBadTaskID(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	c := &bridge.Client{Addr: "127.0.0.1:1", Server: srv, TaskID: "short"}
	if err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "exactly 8") {
		t.Fatalf("Run = %v", err)
	}
}

// logBuffer collects a client's log output for a test.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) waitFor(t *testing.T, texts ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		out := l.b.String()
		l.mu.Unlock()
		all := true
		for _, s := range texts {
			all = all && strings.Contains(out, s)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q; it has:\n%s", texts, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOversizedCallAnswered: a call whose frame is over the frame limit is
// not run, but when its call_id comes in the frame's first bytes it is
// answered, on its task and sequence number, with an error that says why
// and what to do, so that the server does not wait for it for ever.
func TestOversizedCallAnswered(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.MaxFrame = 4096 })
	conn := ts.Accept()
	conn.NextRegister()
	for _, tc := range []struct{ name, frame, id string }{
		{"call_id first", `##START` + "\x06" + `task5678[0042]{"type":"call","data":{"call_id":"big","method":"hello","params":{"name":"` + strings.Repeat("x", 5000) + `"}}}##END`, "big"},
		{"type after data", `##START` + "\x06" + `task5678[0043]{"data":{"method":"hello","call_id":"typeless","params":{"name":"` + strings.Repeat("y", 5000) + `"}},"type":"call"}##END`, "typeless"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := conn.For(t)
			conn.Send([]byte(tc.frame))
			f, m := conn.NextMessage()
			var r bridgetest.Result
			if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" {
				t.Fatalf("not a result: %s %s", m.Type, m.Data)
			}
			if r.CallID != tc.id || r.Result.Success || !strings.Contains(r.Result.Error, "larger than the bridge's frame limit of 4096 bytes") ||
				!strings.Contains(r.Result.Error, "--max-frame") {
				t.Fatalf("answer: %+v", r)
			}
			if f.TaskID != "task5678" || !strings.HasPrefix(f.Seq, "004") {
				t.Errorf("answered on %s[%s], want the call's task and sequence number", f.TaskID, f.Seq)
			}
		})
	}
}

// TestUndecodableCallAnswered: a call frame the bridge cannot decode or
// run, but whose call_id it can read, is answered on its task and sequence
// number with an error that says why: params nested deeper than JSON
// decodes, with the call_id before them or after; a string escape that
// does not decode; a raw control character in a string, which ends the
// frame's scan; an oversized frame whose call_id comes after the first
// kilobytes of params. Such calls got no result at all, and the server
// waited for them. A message that is not a call gets no answer: the next
// result is the next call's.
func TestUndecodableCallAnswered(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.MaxFrame = 64 << 10 })
	conn := ts.Accept()
	conn.NextRegister()
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	const tooDeep = "nests arrays and objects more than 10000 levels deep, more than the bridge decodes, so it was not run"
	for i, tc := range []struct{ name, payload, want string }{
		{"deep params", `{"type":"call","data":{"call_id":"c","method":"hello","params":{"name":` + deep(20000) + `}}}`, tooDeep},
		{"deep params, call_id after", `{"type":"call","data":{"method":"hello","params":{"name":` + deep(10000) + `},"call_id":"c"}}`, tooDeep},
		{"deep params, type last", `{"data":{"params":` + deep(15000) + `,"call_id":"c","method":"hello"},"type":"call"}`, tooDeep},
		{"deep member after data", `{"type":"call","data":{"call_id":"c","method":"hello","params":{}},"x":` + deep(12000) + `}`, tooDeep},
		{"bad escape", `{"type":"call","data":{"call_id":"c","method":"hello","params":{"name":"\q"}}}`, `the call's JSON does not decode (`},
		{"bad escape, call_id after", `{"type":"call","data":{"method":"hello","params":{"name":"\q"},"call_id":"c"}}`, `escape`},
		{"raw newline", "{\"type\":\"call\",\"data\":{\"call_id\":\"c\",\"method\":\"hello\",\"params\":{\"name\":\"a\nb\"}}}", `the call's frame was skipped, so it was not run: the JSON payload is malformed: control byte 0x0a inside a string; send it as one JSON object`},
		{"oversized, call_id after params", `{"type":"call","data":{"method":"hello","params":{"name":"` + strings.Repeat("x", 20000) + `"},"call_id":"c","pad":"` + strings.Repeat("p", 70000) + `"}}`, "larger than the bridge's frame limit of 65536 bytes"},
		// A complete call followed by more than "##END".
		{"extra brace", `{"type":"call","data":{"call_id":"c","method":"hello"}}}`, "the JSON payload is not followed by ##END"},
		{"second object", `{"type":"call","data":{"call_id":"c","method":"hello"}} {}`, "the JSON payload is not followed by ##END"},
		{"NUL", "{\"type\":\"call\",\"data\":{\"call_id\":\"c\",\"method\":\"hello\"}}\x00", "the JSON payload is not followed by ##END"},
		{"trailing comma", `{"type":"call","data":{"call_id":"c","method":"hello"}},`, "the JSON payload is not followed by ##END"},
		{"text after", `{"type":"call","data":{"method":"hello","params":{"name":"z"},"call_id":"c"}} x`, "the JSON payload is not followed by ##END"},
		{"raw control byte, call_id after", "{\"type\":\"call\",\"data\":{\"method\":\"hello\",\"params\":{\"name\":\"a\x01b\"},\"call_id\":\"c\"}}", "control byte 0x01 inside a string"},
		{"raw tab, call_id after", "{\"type\":\"call\",\"data\":{\"method\":\"hello\",\"params\":{\"name\":\"a\tb\"},\"call_id\":\"c\"}}", "control byte 0x09 inside a string"},
		{"long unknown method", `{"type":"call","data":{"call_id":"c","method":"` + strings.Repeat("m", 5000) + `"}}`, `unknown service "` + strings.Repeat("m", 200) + `..."; the services are`},
		{"deep, but within what JSON decodes", `{"type":"call","data":{"call_id":"c","method":"hello","params":{"name":` + deep(9000) + `}}}`, `invalid argument "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := conn.For(t)
			seq := fmt.Sprintf("%04d", i)
			conn.Send([]byte("##START\x06task5678[" + seq + "]" + tc.payload + "##END"))
			f, m := conn.NextMessage()
			var r bridgetest.Result
			if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" {
				t.Fatalf("not a result: %s %.200s", m.Type, m.Data)
			}
			if r.CallID != "c" || r.Result.Success || !strings.Contains(r.Result.Error, tc.want) {
				t.Fatalf("answer %+v\nwant an error containing %q", r, tc.want)
			}
			if f.TaskID != "task5678" || f.Seq != seq {
				t.Errorf("answered on %s[%s], want task5678[%s]", f.TaskID, f.Seq, seq)
			}
		})
	}
	t.Run("not a call", func(t *testing.T) {
		conn := conn.For(t)
		for _, p := range []string{
			`{"type":"result","data":{"call_id":"r","x":` + deep(20000) + `}}`,
			`{"data":{"call_id":"r","x":` + deep(20000) + `}}`,
			`{"type":"call","data":{"method":"hello","x":` + deep(20000) + `}}`,
			`{"type":"call","data":{"call_id":null,"x":` + deep(20000) + `}}`,
		} {
			conn.Send([]byte("##START\x06task5678[0100]" + p + "##END"))
		}
		conn.Call("after", "hello", map[string]any{"name": "z"})
		if r := conn.NextResult(); r.CallID != "after" {
			t.Fatalf("the next result is for %q, want the call after the messages that are not calls", r.CallID)
		}
	})
}

// TestBridgeLogsWhatItSkips: a malformed frame and an oversized one are
// logged as skipped, and a frame whose JSON string never closes, which
// holds up reading, is logged too instead of waiting in silence.
func TestBridgeLogsWhatItSkips(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	logs := &logBuffer{}
	startClient(t, srv, ts, func(c *bridge.Client) {
		c.MaxFrame = 4096
		c.StallWarning = 50 * time.Millisecond
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	conn := ts.Accept()
	conn.NextRegister()

	conn.Send([]byte("##START\x06mcp00001[0000]{\"type\":\"call\",##END"))
	logs.waitFor(t, "skipped input from the server", "the JSON payload is malformed")

	conn.Send([]byte("##START\x06mcp00001[0000]{\"type\":\"call\",\"data\":{\"call_id\":\"big\",\"params\":{\"t\":\"" + strings.Repeat("x", 5000) + "\"}}}##END"))
	logs.waitFor(t, "larger than 4096 bytes")
	// The skipped frame's tail, which holds "##END", is not a frame that
	// stalls: no warning however long it waits (here 6 stall intervals).
	time.Sleep(300 * time.Millisecond)
	logs.mu.Lock()
	out := logs.b.String()
	logs.mu.Unlock()
	if strings.Contains(out, "has not ended") {
		t.Fatalf("a stall was reported for the tail of a skipped frame:\n%s", out)
	}
	if strings.Contains(out, "bytes=0") {
		t.Errorf("a skip was logged with bytes=0:\n%s", out)
	}
	conn.Send([]byte("##START\x06mcp00001[0000]not json at all##END"))
	logs.waitFor(t, "payload=\"not json at all\"")

	conn.Send([]byte("##START\x06mcp00001[0000]{\"type\":\"call\",\"data\":{\"call_id\":\"x\",\"params\":{\"t\":\"oops}}}##END"))
	logs.waitFor(t, "has not ended although it contains ##END", "unclosed string")
}

// TestShutdownSendsCancelledResults cancels the client while a call runs
// past ShutdownGrace: the call is cancelled, and its result, which says
// that the bridge is stopping, still reaches the server before the
// connection closes.
func TestShutdownSendsCancelledResults(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, func(c *bridge.Client) { c.ShutdownGrace = 100 * time.Millisecond })
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("late", "gate", map[string]any{"dir": dir, "label": "never"})
	waitFile(t, filepath.Join(dir, "never.started"))
	run.cancel()
	r := conn.NextResult()
	if r.CallID != "late" || r.Result.Success || !strings.Contains(r.Result.Error, "the bridge is stopping") {
		t.Fatalf("cancelled call: %+v", r)
	}
	conn.WaitClosed()
	run.stop(t)
}

// TestShutdownHurried: closing Hurry during the shutdown grace (a second
// Ctrl-C) cancels the call still running at once, and its result says so,
// long before ShutdownGrace ends.
func TestShutdownHurried(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	hurry := make(chan struct{})
	run := startClient(t, srv, ts, func(c *bridge.Client) {
		c.ShutdownGrace = time.Minute
		c.Hurry = hurry
	})
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("late", "gate", map[string]any{"dir": dir, "label": "never"})
	waitFile(t, filepath.Join(dir, "never.started"))
	start := time.Now()
	run.cancel()
	time.Sleep(100 * time.Millisecond) // in the grace
	close(hurry)
	r := conn.NextResult()
	if r.CallID != "late" || r.Result.Success || !strings.Contains(r.Result.Error, "a second signal stopped") {
		t.Fatalf("hurried call: %+v", r)
	}
	conn.WaitClosed()
	run.stop(t)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the stop took %v of the minute's grace", d)
	}
}

// TestCallResultContent: what the protocol cannot carry as such still
// reaches the server as text: an embedded text resource as its text, a
// link and an image as a line that says what they are.
func TestCallResultContent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Q4\nrevenue up"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
resource "doc" {
  uri       = "file:///doc.md"
  mime_type = "text/markdown"
  file      = "doc.md"
}
tool "report" {
  description = "text, an embedded resource and a link"
  result {
    text {
      text = "The report:"
    }
    resource {
      uri = "file:///doc.md"
    }
    resource_link {
      uri = "file:///doc.md"
    }
  }
}
tool "picture" {
  description = "a PNG"
  exec {
    command = [PROGRAM, "bytes", "89504e470d0a1a0a0000000d49484452"]
    binary  = true
  }
}
`
	srv, _ := loadServerIn(t, dir, src)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()

	conn.Call("r", "report", nil)
	if r := conn.NextResult(); !r.Result.Success || r.Text(t) != "The report:\n# Q4\nrevenue up\n[resource link file:///doc.md]" {
		t.Fatalf("report: %+v %s", r, r.Result.Data)
	}
	conn.Call("p", "picture", nil)
	if r := conn.NextResult(); !r.Result.Success || !strings.HasPrefix(r.Text(t), "[image, image/png, 16 bytes, not sent") {
		t.Fatalf("picture: %+v %s", r, r.Result.Data)
	}
}

// TestDropNoticedWhileSlotsBusy: with every slot taken by a long call and
// another call waiting, a dropped connection is still noticed at once:
// the running call is cancelled, the waiting one never starts, and the
// client reconnects and serves again.
func TestDropNoticedWhileSlotsBusy(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, func(c *bridge.Client) { c.MaxConcurrent = 1 })
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("long", "gate", map[string]any{"dir": dir, "label": "long"})
	waitFile(t, filepath.Join(dir, "long.started"))
	conn.Call("queued", "gate", map[string]any{"dir": dir, "label": "queued"})
	conn.Close()
	// The long call would run 60 s; the reconnect comes long before.
	conn = ts.Accept()
	conn.NextRegister()
	conn.Call("after", "hello", map[string]any{"name": "again"})
	if r := conn.NextResult(); r.CallID != "after" || r.Text(t) != "hello again" {
		t.Fatalf("after the reconnect: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "queued.started")); err == nil {
		t.Fatal("the call waiting for a slot ran after its connection was gone")
	}
}

// TestShutdownRefusesWaitingCalls: on stop, a call still waiting for a
// slot does not start, and its result says so at once; the running one
// is cancelled after the grace, as before.
func TestShutdownRefusesWaitingCalls(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, func(c *bridge.Client) {
		c.MaxConcurrent = 1
		c.ShutdownGrace = 300 * time.Millisecond
	})
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("running", "gate", map[string]any{"dir": dir, "label": "running"})
	waitFile(t, filepath.Join(dir, "running.started"))
	conn.Call("waiting", "gate", map[string]any{"dir": dir, "label": "waiting"})
	time.Sleep(50 * time.Millisecond) // the second call is read and waits
	run.cancel()
	got := map[string]string{}
	for range 2 {
		r := conn.NextResult()
		if r.Result.Success {
			t.Fatalf("%s succeeded: %+v", r.CallID, r)
		}
		got[r.CallID] = r.Result.Error
	}
	if !strings.Contains(got["waiting"], "the bridge is stopping; the call did not start") {
		t.Errorf("waiting call: %q", got["waiting"])
	}
	if !strings.Contains(got["running"], "the bridge is stopping") {
		t.Errorf("running call: %q", got["running"])
	}
	if _, err := os.Stat(filepath.Join(dir, "waiting.started")); err == nil {
		t.Error("the waiting call started during the shutdown")
	}
	conn.WaitClosed()
	run.stop(t)
}

// TestDropLogsOnce: when the connection drops with many calls running,
// their unsent results are one log line, not one warning each.
func TestDropLogsOnce(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	logs := &logBuffer{}
	startClient(t, srv, ts, func(c *bridge.Client) {
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	const calls = 12
	for i := range calls {
		conn.Call(fmt.Sprintf("c%d", i), "gate", map[string]any{"dir": dir, "label": fmt.Sprintf("g%d", i)})
	}
	for i := range calls {
		waitFile(t, filepath.Join(dir, fmt.Sprintf("g%d.started", i)))
	}
	conn.Close()
	logs.waitFor(t, "calls ended with the connection, their results not sent", fmt.Sprintf("calls=%d", calls))
	conn = ts.Accept()
	conn.NextRegister()
	logs.mu.Lock()
	out := logs.b.String()
	logs.mu.Unlock()
	if n := strings.Count(out, "cannot send a result"); n > 0 {
		t.Errorf("%d warnings of unsent results:\n%s", n, out)
	}
}

// TestHeldBytesCapped: the call frames read and not yet answered, running
// or waiting for a slot, hold at most MaxHeld bytes; a call frame that
// would pass it is answered at once with an error that names the limit,
// and is not run, while the calls held go on. Only the count of calls was
// capped: 320 frames of --max-frame bytes could wait, each decoding to
// many times its size. Once the calls held are answered, a large call is
// taken again.
func TestHeldBytesCapped(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	const maxHeld = 200 << 10
	startClient(t, srv, ts, func(c *bridge.Client) {
		c.MaxConcurrent = 1
		c.MaxFrame = 64 << 10
		c.MaxHeld = maxHeld
	})
	conn := ts.Accept()
	conn.NextRegister()
	dir := t.TempDir()
	conn.Call("running", "gate", map[string]any{"dir": dir, "label": "running"})
	waitFile(t, filepath.Join(dir, "running.started"))
	big := map[string]any{"name": strings.Repeat("x", 60<<10)}
	for i := range 3 {
		conn.Call(fmt.Sprintf("held%d", i), "hello", big)
	}
	conn.Call("over", "hello", big)
	r := conn.NextResult()
	if r.CallID != "over" || r.Result.Success {
		t.Fatalf("first result: %s (success %v), want the call over the limit refused at once", r.CallID, r.Result.Success)
	}
	for _, want := range []string{"the bridge is busy", fmt.Sprintf("limit of %d bytes", maxHeld), "not run"} {
		if !strings.Contains(r.Result.Error, want) {
			t.Errorf("error %q does not say %q", r.Result.Error, want)
		}
	}
	conn.Call("small", "hello", map[string]any{"name": "z"})
	if err := os.WriteFile(filepath.Join(dir, "running.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 5 {
		r := conn.NextResult()
		got[r.CallID] = r.Result.Success
	}
	if want := map[string]bool{"running": true, "held0": true, "held1": true, "held2": true, "small": true}; !reflect.DeepEqual(got, want) {
		t.Fatalf("results after the running call ended: %v, want %v", got, want)
	}
	conn.Call("again", "hello", big)
	if r := conn.NextResult(); r.CallID != "again" || !r.Result.Success {
		t.Fatalf("a large call once the others were answered: %+v", r.Result)
	}
}

// TestCallCutByEndOfStreamAnswered: a call frame whose JSON never ends (an
// unclosed string swallows its ##END) is answered, with why it was not
// run, when the server's stream ends, if its call_id came before; it was
// only logged as skipped.
func TestCallCutByEndOfStreamAnswered(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Send([]byte("##START\x06task5678[0007]" + `{"type":"call","data":{"call_id":"c","method":"hello","params":{"name":"abc}}}##END`))
	conn.CloseWrite()
	f, m := conn.NextMessage()
	var r bridgetest.Result
	if err := json.Unmarshal(m.Data, &r); err != nil || m.Type != "result" {
		t.Fatalf("not a result: %s %.200s", m.Type, m.Data)
	}
	if r.CallID != "c" || r.Result.Success || !strings.Contains(r.Result.Error, "the stream ended inside the frame") {
		t.Fatalf("answer %+v", r)
	}
	if f.TaskID != "task5678" || f.Seq != "0007" {
		t.Errorf("answered on %s[%s], want task5678[0007]", f.TaskID, f.Seq)
	}
}

// TestShutdownAnswersUnendedCall: a call frame whose JSON has not ended
// (an unclosed string swallowed its ##END) when the bridge stops is
// answered with why it was not run, if its call_id came.
func TestShutdownAnswersUnendedCall(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	run := startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Send([]byte("##START\x06task5678[0009]" + `{"type":"call","data":{"call_id":"c","method":"hello","params":{"name":"abc}}}##END`))
	time.Sleep(50 * time.Millisecond) // read, and held
	run.cancel()
	r := conn.NextResult()
	if r.CallID != "c" || r.Result.Success || !strings.Contains(r.Result.Error, "the bridge is stopping, and the call's frame had not ended") {
		t.Fatalf("answer %+v", r)
	}
	conn.WaitClosed()
	run.stop(t)
}

// TestUnclosedStringIntoNextFrame: a call whose string is not closed runs
// into the next frame, whose type byte is a control byte inside that
// string: the first call is answered with the fault (its call_id came
// before it), and the next frame's call is run, not taken for the first's.
func TestUnclosedStringIntoNextFrame(t *testing.T) {
	srv, _ := loadServer(t, toolsConfig)
	ts := bridgetest.NewServer(t)
	startClient(t, srv, ts, nil)
	conn := ts.Accept()
	conn.NextRegister()
	conn.Send([]byte("##START\x06task5678[0001]" + `{"type":"call","data":{"call_id":"a","method":"hello","params":{"name":"x}}##END` +
		"##START\x06task5678[0002]" + `{"type":"call","data":{"call_id":"b","method":"hello","params":{"name":"y"}}}##END`))
	got := map[string]bridgetest.Result{}
	for range 2 {
		r := conn.NextResult()
		got[r.CallID] = r
	}
	if r := got["a"]; r.Result.Success || !strings.Contains(r.Result.Error, "control byte 0x06 inside a string") {
		t.Errorf("the unclosed call: %+v", r)
	}
	if r := got["b"]; !r.Result.Success || r.Text(t) != "hello y" {
		t.Errorf("the next call: %+v", r)
	}
}
